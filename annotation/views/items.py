"""The item pages: one item at a time, swapped in by htmx, with drafts kept on the server."""

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from studies.files import image_response
from studies.protocol import bind

from .. import services
from ..context import assignment_context, candidate_order
from ..models import Assignment
from ..selectors import assignment_for_session
from .flow import annotator_required, hx_redirect

UPLOAD_MAX_READ = 64 * 1024 * 1024


def _form_data(request) -> dict[str, list[str]]:
    return {k: request.POST.getlist(k) for k in request.POST if k != "csrfmiddlewaretoken"}


def _panel(request, session, assignment: Assignment | None, data=None, errors=None, status=200):
    """Render the item panel for ``assignment`` (None: the session is over)."""
    if assignment is None:
        return None
    study = session.annotator.study
    spec = study.spec
    context = assignment_context(assignment, spec)
    raw = data if data is not None else assignment.draft
    fields = bind(spec, raw, context, errors)
    done = services.session_submitted_count(session)
    return render(request, "annotation/_item_panel.html" if request.headers.get("HX-Request") else "annotation/item.html", {
        "study": study,
        "spec": spec,
        "display": spec.display,
        "assignment": assignment,
        "item": assignment.item,
        "texts": context.texts,
        "documents": assignment.item.documents.all() if "documents" in spec.display.show else [],
        "candidates": candidate_order(assignment) if spec.display.show and "candidates" in spec.display.show else [],
        "uploads": {str(u.token): u for u in assignment.uploads.all()} if any(f.field.type == "upload" for f in fields) else {},
        "skip_reason": (raw.get("_skip") or [""])[-1],
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


@require_POST
@annotator_required("items")
def item_upload(request, session, pk):
    """Receive the image of an upload field; answers with the upload's token and size (JSON)."""
    assignment = assignment_for_session(session, pk)
    file = request.FILES.get("file")
    if file is None:
        return JsonResponse({"error": "Choose an image file to upload."}, status=400)
    try:
        upload = services.upload_receive(assignment=assignment, name=file.name, data=file.read(UPLOAD_MAX_READ))
    except services.UploadRefused as refused:
        return JsonResponse({"error": str(refused)}, status=400)
    return JsonResponse({"token": str(upload.token), "width": upload.width, "height": upload.height,
                         "url": reverse("annotation:item-upload-image", args=[assignment.pk, upload.token])})


@annotator_required()
def item_upload_image(request, session, pk, token):
    assignment = assignment_for_session(session, pk)
    return image_response(get_object_or_404(assignment.uploads, token=token).file)


@annotator_required()
def item_image(request, session, pk):
    assignment = assignment_for_session(session, pk)
    return image_response(assignment.item.image)


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
