"""The item pages: one item at a time, swapped in by htmx, with drafts kept on the server."""

from dataclasses import dataclass

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_POST

from studies.files import image_response
from studies.protocol import Field, Token, tokenize, walk

from .. import services
from ..models import Assignment
from ..selectors import assignment_for_session
from .flow import annotator_required, hx_redirect


@dataclass
class BoundField:
    field: Field
    values: list[str]
    error: str | None
    shown: bool
    tokens: list[Token]

    @property
    def template(self) -> str:
        return f"annotation/fields/_{self.field.type}.html"


def _form_data(request) -> dict[str, list[str]]:
    return {k: request.POST.getlist(k) for k in request.POST if k != "csrfmiddlewaretoken"}


def _panel(request, session, assignment: Assignment | None, data=None, errors=None, status=200):
    """Render the item panel for ``assignment`` (None: the session is over)."""
    if assignment is None:
        return None
    study = session.annotator.study
    spec = study.spec
    context = assignment.item.text_context()
    raw = data if data is not None else assignment.draft
    _, shown = walk(spec, raw, context)
    fields = [
        BoundField(
            field=f,
            values=[str(v) for v in raw.get(f.key, [])],
            error=(errors or {}).get(f.key),
            shown=f.key in shown,
            tokens=tokenize(context.get(f.over, "")) if f.over else [],
        )
        for f in spec.fields
    ]
    done = services.session_submitted_count(session)
    return render(request, "annotation/_item_panel.html" if request.headers.get("HX-Request") else "annotation/item.html", {
        "study": study,
        "assignment": assignment,
        "item": assignment.item,
        "fields": fields,
        "number": done + 1,
        "total": session.items_target,
        "percent": round(100 * done / session.items_target),
        "errors": errors,
    }, status=status)


def _next(request, session):
    """The next item's panel, or the way out once the session's work is done."""
    assignment = services.assignment_current(session=session)
    if assignment is not None:
        return _panel(request, session, assignment)
    if services.session_submitted_count(session) == 0:
        return render(request, "annotation/problem.html", {
            "title": "No items are left for you",
            "message": "Every item has enough answers already. Please return the study on Prolific; you will not be penalised.",
        }, status=410)
    services.session_complete(session=session)
    return hx_redirect(request, "annotation:end")


@require_http_methods(["GET"])
@annotator_required("items")
def item_page(request, session):
    if session.completed_at:
        return hx_redirect(request, "annotation:end")
    return _next(request, session)


@require_POST
@annotator_required("items")
def item_submit(request, session, pk):
    assignment = assignment_for_session(session, pk)
    result = services.annotation_submit(assignment=assignment, data=_form_data(request))
    if not result.validation.ok:
        return _panel(request, session, assignment, data=_form_data(request), errors=result.validation.errors, status=422)
    return _next(request, session)


@require_POST
@annotator_required("items")
def item_draft(request, session, pk):
    assignment = assignment_for_session(session, pk)
    saved = services.assignment_save_draft(assignment=assignment, data=_form_data(request))
    return JsonResponse({"saved": saved}, status=200 if saved else 409)


@annotator_required()
def item_image(request, session, pk):
    assignment = assignment_for_session(session, pk)
    return image_response(assignment.item.image)


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
