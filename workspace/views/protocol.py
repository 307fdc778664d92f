"""The protocol editor: a study's spec as JSON, checked while typed by the engine the save runs
(``spec_read``), saved in place or as a new version, with the version history.

The annotator's form beside it follows the text as it is typed: the page loads it by htmx from
``annotation:protocol-preview`` (``workspace/views/protocol_preview.py``), posting the same text.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from studies import services
from studies.protocol import SpecError, spec_pretty, spec_read
from studies.selectors import items_in_hand, protocol_history, study_for_user


@login_required
@require_http_methods(["GET", "POST"])
def protocol_edit(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    if request.method == "GET":
        return _page(request, study, spec_pretty(study.protocol), problems=())
    text = request.POST.get("spec", "")
    read = spec_read(text)
    if not read.ok:
        return _page(request, study, text, problems=read.problems)
    try:
        saved = services.study_protocol_save(study=study, protocol=read.data)
    except SpecError:  # pragma: no cover - the same engine said yes a line above
        return _page(request, study, text, problems=spec_read(text).problems)
    if not saved.changed:
        messages.info(request, "Nothing to save: this is the spec of the current version.")
    elif saved.new_version:
        messages.success(
            request, f"Saved as version {saved.version}; the annotations given earlier keep their version."
        )
    else:
        messages.success(request, f"Saved: version {saved.version} now reads this spec (no annotation used it yet).")
    return redirect("studies:protocol-edit", study.pk)


@login_required
@require_POST
def protocol_check(request, pk: int):
    """The typed spec checked by the engine: every problem with its place (an htmx fragment).
    Not a write: nothing is stored."""
    study_for_user(request.user, pk)
    read = spec_read(request.POST.get("spec", ""))
    return render(request, "studies/_protocol_problems.html", {"read": read, "problems": read.problems})


def _page(request, study, text: str, *, problems):
    history = protocol_history(study=study)
    current = next(row for row in history if row.current)
    return render(request, "studies/protocol_edit.html", {
        "study": study,
        "text": text,
        "problems": problems,
        "history": history,
        "current": current,
        "next_version": current.version + 1,
        "in_hand": 0 if current.annotations else items_in_hand(study=study),
    }, status=400 if problems else 200)

