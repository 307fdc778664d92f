"""The researcher's translations of a study's texts: the languages with how much of the study each has,
and one page per language with each text beside the study's own words."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from studies import services, translations
from studies.forms import TranslationForm
from studies.markdown import render_markdown
from studies.selectors import study_for_user
from studies.translations import LANGUAGE_NAMES as NAMES


@login_required
@require_GET
def translation_list(request, pk: int):
    study = study_for_user(request.user, pk)
    pools = list(study.pools.order_by("country_name"))
    return render(request, "studies/translation_list.html", {
        "study": study, "rows": translations.language_rows(study, pools),
        "source_name": NAMES.get(study.language, study.language),
        "own_pools": translations.pool_languages(study, pools).get(study.language, []),
        # translations into what became the study's own language: kept, never shown
        "own_kept": len((study.translations or {}).get(study.language) or {}),
    })


@login_required
@require_http_methods(["GET", "POST"])
def translation_edit(request, pk: int, language: str):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    texts = translations.texts_of(study)
    stored = translations.translations_in(study, language)
    outdated = translations.outdated_keys(study, language)
    form = TranslationForm(request.POST or None, texts=texts, outdated=outdated, initial=stored)
    refused = ""
    if language not in NAMES or language == study.language:
        refused = _refusal(study, language)
    elif request.method == "POST" and form.is_valid():
        try:
            services.study_translations_save(study=study, language=language, texts=form.typed(),
                                             drop_unused=form.cleaned_data["drop_unused"],
                                             confirmed=form.cleaned_data["confirmed"])
        except services.WorkspaceError as problem:
            if problem.field in form.fields:
                form.add_error(problem.field, str(problem))
            else:
                refused = str(problem)
        else:
            messages.success(request, f"The {NAMES[language]} texts are saved.")
            return redirect("studies:translation-list", study.pk)
    return render(request, "studies/translation_form.html", {
        "study": study, "form": form, "language": language, "refused": refused,
        "language_name": NAMES.get(language, language),
        "source_name": NAMES.get(study.language, study.language),
        "sections": _sections(form, texts, outdated),
        "unused": translations.unused_keys(study, language) if language in NAMES else [],
    }, status=404 if language not in NAMES else 400 if refused or form.errors else 200)


def _refusal(study, language: str) -> str:
    if language == study.language:
        return (f"{NAMES[language]} is the study's own language: its texts are edited in the settings "
                "and the protocol. Choose another language to translate them into.")
    offered = ", ".join(f"{name} ({code})" for code, name in NAMES.items())
    return f"“{language[:20]}” is not a language the platform offers ({offered})."


def _sections(form, texts, outdated) -> list[dict]:
    """The form's texts as the page shows them: the consent and the instructions each alone (with the
    rendered Markdown), then each question's texts together under its words."""
    sections: list[dict] = []
    for t in texts:
        field = form[t.key]
        row = {"text": t, "field": field, "html": render_markdown(field.value() or "") if t.markdown else "",
               "outdated": t.key in outdated}
        if t.group and sections and sections[-1]["group"] == t.group:
            sections[-1]["rows"].append(row)
        else:
            sections.append({"group": t.group, "heading": f"Question “{t.field_label}”" if t.group else "",
                             "rows": [row]})
    return sections
