"""A pool's annotators for the researcher: the page (figures and quality scores, sorted,
filtered, paged), and blocking, unblocking, excluding and including an annotator. Viewers see the
page; editors and the owner act; anyone else finds nothing (404)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from analysis import annotators
from analysis.effort import annotators_effort
from annotation import services as annotation_services
from annotation.models import EXCLUDED_REASON_MAX
from stats.annotators import effort
from studies.selectors import study_for_user

# The page's query parameters a form posts back to return to the same view of the page.
KEPT = ("page", "sort", "field", "show", "agreement_below", "too_fast_above", "competence_below")


class ExcludeForm(forms.Form):
    reason = forms.CharField(max_length=EXCLUDED_REASON_MAX, strip=True, label="Why")


@login_required
@require_GET
def pool_annotators(request, pk: int, pool_pk: int):
    study = study_for_user(request.user, pk)
    pool = annotators.pool_of_study(study=study, pk=pool_pk)
    query = annotators.AnnotatorFilter(request.GET).query()
    scores = annotators.pool_scores(study=study, pool=pool, field_key=query["field"])
    page = annotators.pool_annotators(pool=pool, page=request.GET.get("page"), query=query, scores=scores)
    flags = annotators_effort(study=study, annotator_ids=[a.pk for a in page.object_list])
    for a in page.object_list:
        a.effort = flags.get(a.pk)
    return render(request, "analysis/annotators.html", {
        "study": study, "pool": pool, "page": page, "scores": scores, "query": query,
        "filter_form": annotators.AnnotatorFilter(request.GET),
        "headers": _headers(request.GET, query["sort"]), "here": _here(request.GET),
        "page_link": _here(request.GET, without=("page",)), "reason_max": EXCLUDED_REASON_MAX,
        "effort_min_chars": effort.MIN_CHARS, "effort_min_ratings": effort.MIN_RATINGS,
    })


@login_required
@require_POST
def annotator_block(request, pk: int, annotator_pk: int):
    study = study_for_user(request.user, pk, write=True)
    annotator = annotators.annotator_of_study(study=study, pk=annotator_pk)
    released = annotation_services.annotator_block(annotator=annotator)
    messages.success(request, f"{annotator.pseudonym} is blocked" + (
        "; their open item was given back." if released else "."))
    return _back_to_annotators(request, study, annotator)


@login_required
@require_POST
def annotator_unblock(request, pk: int, annotator_pk: int):
    study = study_for_user(request.user, pk, write=True)
    annotator = annotators.annotator_of_study(study=study, pk=annotator_pk)
    if annotation_services.annotator_unblock(annotator=annotator):
        messages.success(request, f"{annotator.pseudonym} may take part again.")
    else:
        messages.error(request, f"{annotator.pseudonym} is excluded, so they stay blocked: include them again first.")
    return _back_to_annotators(request, study, annotator)


@login_required
@require_POST
def annotator_exclude(request, pk: int, annotator_pk: int):
    study = study_for_user(request.user, pk, write=True)
    annotator = annotators.annotator_of_study(study=study, pk=annotator_pk)
    form = ExcludeForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"{annotator.pseudonym} is not excluded: say why, in at most "
                                f"{EXCLUDED_REASON_MAX} characters (the export records it).")
        return _back_to_annotators(request, study, annotator)
    try:
        withdrawn = annotation_services.annotator_exclude(
            annotator=annotator, by=request.user, reason=form.cleaned_data["reason"]
        )
    except annotation_services.ExclusionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{annotator.pseudonym} is excluded and blocked: {withdrawn} annotation"
                                  f"{'s' if withdrawn != 1 else ''} left out of the quota, the analysis and the "
                                  "export (kept; include them again to count them). Run the analysis again.")
    return _back_to_annotators(request, study, annotator)


@login_required
@require_POST
def annotator_include(request, pk: int, annotator_pk: int):
    study = study_for_user(request.user, pk, write=True)
    annotator = annotators.annotator_of_study(study=study, pk=annotator_pk)
    counted = annotation_services.annotator_include(annotator=annotator)
    messages.success(request, f"{annotator.pseudonym} is included again: {counted} annotation"
                              f"{'s' if counted != 1 else ''} count again (one whose slot was taken meanwhile is "
                              "kept as surplus). They stay blocked until you unblock them. Run the analysis again.")
    return _back_to_annotators(request, study, annotator)


def _here(params: QueryDict, *, without: tuple[str, ...] = ()) -> str:
    """The page's own query (its known parameters only), as a query string."""
    kept = QueryDict(mutable=True)
    for key in KEPT:
        if key not in without and params.get(key):
            kept[key] = params[key]
    return kept.urlencode()


def _headers(params: QueryDict, sort: str) -> list[dict[str, str]]:
    """Each sortable column's label, its link (ascending first, then the other way) and its
    ``aria-sort``."""
    out = []
    for key, label in annotators.COLUMNS.items():
        current = sort.lstrip("-") == key
        descending = sort.startswith("-")
        params_for = QueryDict(_here(params, without=("page", "sort")), mutable=True)
        params_for["sort"] = key if current and descending else f"-{key}" if current else key
        out.append({
            "key": key, "label": label, "href": f"?{params_for.urlencode()}",
            "aria": ("descending" if descending else "ascending") if current else "none",
        })
    return out


def _back_to_annotators(request, study, annotator):
    url = reverse("analysis:pool-annotators", args=[study.pk, annotator.pool_id])
    query = _here(QueryDict(request.POST.get("back", "")))
    page = request.POST.get("page", "")
    if not query and page.isdigit():
        query = f"page={page}"
    return redirect(f"{url}?{query}" if query else url)
