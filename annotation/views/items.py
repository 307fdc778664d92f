"""The item pages: one item at a time, swapped in by htmx, with drafts kept on the server."""

import dataclasses
from dataclasses import dataclass

from django.conf import settings
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from studies.checks import instruction_of
from studies.files import image_response, stored_image_response
from studies.models import Item
from studies.protocol import SKIP, bind
from studies.protocol.spec import ITEM_TEXT_LABELS
from studies.translations import localized, page_language

from .. import services
from ..context import assignment_context, shown_candidates, shown_documents, shown_images
from ..effort import FIELD as EFFORT_FIELD
from ..effort import effort_parse
from ..links import image_srcset, item_image_link, item_image_name, session_image_link
from ..models import Assignment
from ..selectors import assignment_for_session
from .flow import annotator_required, hx_redirect

UPLOAD_MAX_READ = 64 * 1024 * 1024


def form_data(request) -> dict[str, list[str]]:
    return {k: request.POST.getlist(k) for k in request.POST if k != "csrfmiddlewaretoken"}


@dataclass(frozen=True)
class Part:
    """One part of the item shown above the questions: a text, the documents or the candidates."""

    name: str
    label: str
    text: str = ""
    collapsed: bool = False
    concept: bool = False  # the prompt is the concept the item is about: shown bare, not quoted


def display_parts(
    display, texts: dict[str, str], *, documents, candidates, has_pick_one, has_per_document
) -> list[Part]:
    """What of the item the page shows, in the spec's order; a part in ``collapsed`` is folded away.

    Documents are shown with their own questions when a per_document field asks about them, and
    candidates as the pick_one field's options; an empty text is left out.
    """
    parts = []
    for name in dict.fromkeys((*display.show, *display.collapsed)):
        collapsed = name in display.collapsed
        if name in ITEM_TEXT_LABELS and texts.get(name, "").strip():
            is_concept = name == "prompt" and display.noun == "Concept"
            label = gettext("Concept") if is_concept else gettext(ITEM_TEXT_LABELS[name])
            parts.append(Part(name, label, texts[name], collapsed, concept=is_concept))
        elif name == "documents" and documents and not has_per_document:
            parts.append(Part(name, gettext("Documents"), collapsed=collapsed))
        elif name == "candidates" and candidates and not has_pick_one:
            parts.append(Part(name, gettext("Candidates"), collapsed=collapsed))
    return parts


def _show_documents_in_fields(fields, documents) -> None:
    """Give each per_document group its whole document (title, URL, text) instead of the engine's ref."""
    by_id = {d.pk: d for d in documents}
    for bf in fields:
        if bf.documents:
            bf.documents = [(by_id.get(ref.id, ref), subs) for ref, subs in bf.documents]


def _panel(request, session, assignment: Assignment | None, data=None, errors=None, status=200,
           already_submitted=False, check_warning=False):
    """Render the item panel for ``assignment`` (None: the session is over); ``already_submitted``: it
    follows a submit of an item stored before, whose answers sent again were not kept;
    ``check_warning``: it follows a failed attention check that warns (once)."""
    if assignment is None:
        return None
    context = panel_context(
        session.annotator.study, assignment, raw=data if data is not None else assignment.draft, errors=errors,
        done=services.session_submitted_count(session), total=assignment.session_total or session.items_target,
    )
    context.update(
        **_image_links(assignment),
        next_image=_next_image(assignment) if context["show_image"] else None,
        submit_url=reverse("annotation:item-submit", args=[assignment.pk]),
        draft_url=reverse("annotation:item-draft", args=[assignment.pk]),
        upload_url=reverse("annotation:item-upload", args=[assignment.pk]),
        skips_left=services.session_skips_left(session_id=session.pk, study=session.annotator.study)
        if context["spec"].skip else None,
        already_submitted=already_submitted,
        check_warning=check_warning,
    )
    return render(request, panel_template(request), context, status=status)


def _image_links(assignment: Assignment) -> dict[str, str]:
    """The item image's signed address and its ``srcset`` of lighter copies (none: "")."""
    item = assignment.item
    if not item.image:
        return {"image_url": "", "image_srcset": ""}
    link = item_image_link(assignment)
    return {"image_url": link, "image_srcset": image_srcset(link, item.width, item.derived_widths)}


def _next_image(assignment: Assignment) -> dict[str, str] | None:
    """The image of the item the session's next lease will likely take (``likely_next``, known only
    when this request leased: no query more), signed for the session as its page will show it, for
    the page to fetch ahead; None without one, or with ``ITEM_PREFETCH`` off. Nothing is leased."""
    item = getattr(assignment, "likely_next", None)
    if item is None or not item.image or not settings.ITEM_PREFETCH:
        return None
    link = session_image_link(assignment.session_id, item.image.name)
    return {"url": link, "srcset": image_srcset(link, item.width, item.derived_widths)}


def _instructed(fields: list, item) -> list:
    """An attention check's question says which answer to give: its instruction follows the label
    of the field it instructs (the item looks like any other until that sentence)."""
    instruction = instruction_of(item)
    if instruction is None:
        return fields
    return [
        dataclasses.replace(b, field=dataclasses.replace(b.field, label=f"{b.field.label} {instruction.text}"))
        if b.field.key == instruction.field else b
        for b in fields
    ]


def panel_template(request) -> str:
    """The panel alone for htmx's swap, else the whole item page."""
    return "annotation/_item_panel.html" if request.headers.get("HX-Request") else "annotation/item.html"


def panel_context(study, assignment: Assignment, *, raw, errors, done: int, total: int) -> dict:
    """What the item page shows of ``assignment``'s item, its form bound to ``raw`` (with ``errors``),
    at ``done`` of ``total`` items; the caller adds the image's and the form's addresses
    (``image_url``, ``submit_url``, ``draft_url``, ``upload_url``). The questions' words are in the page's
    language where the study translated them (``studies.translations``); keys and values are the spec's."""
    spec = localized(study, page_language()).spec
    display = spec.display
    context = assignment_context(assignment, spec)
    fields = _instructed(bind(spec, raw, context, errors), assignment.item)
    parts = spec.item_parts()
    shown = {*display.show, *display.collapsed}
    documents, candidates = shown_documents(assignment, spec), shown_candidates(assignment, spec)
    _show_documents_in_fields(fields, documents)
    return {
        "study": study,
        "spec": spec,
        "scripts": [static(path) for path in spec.scripts()],  # the page loads them; a swapped panel names them
        "display": display,
        "noun": display.noun.lower(),
        "assignment": assignment,
        "item": assignment.item,
        "show_image": "image" in shown and bool(assignment.item.image),
        "parts": display_parts(display, context.texts, documents=documents, candidates=candidates,
                        has_pick_one="candidates" in parts, has_per_document="documents" in parts),
        "texts": context.texts,
        "documents": documents,
        "document_texts": "documents" in shown,
        "candidates": candidates,
        "images": shown_image_list(assignment, spec),
        "uploads": {str(u.token): u for u in assignment.uploads.all()} if "uploads" in parts else {},
        "skip_reason": (raw.get(SKIP) or [""])[-1],
        "skip_label": _skip_label(spec.skip, display.noun),
        "skip_error": (errors or {}).get(SKIP),
        "fields": fields,
        "number": done + 1,
        "total": max(total, done + 1),
        "percent": round(100 * done / max(total, done + 1)),
        "errors": errors,
        "error_links": error_links(fields) if errors else [],
    }


@dataclass(frozen=True)
class ShownImage:
    """One of the item's several images as a comparison field shows it: its id in answers, its
    signed address, its size, and a blind label by its place on screen ("Image A", never the model)."""

    id: str
    url: str
    width: int
    height: int
    label: str
    srcset: str = ""


def shown_image_list(assignment: Assignment, spec) -> list[ShownImage]:
    shown = []
    for n, image in enumerate(shown_images(assignment, spec)):
        link = item_image_link(assignment, image)
        shown.append(ShownImage(image.ref_id, link, image.width, image.height,
                                gettext("Image %(letter)s") % {"letter": chr(ord("A") + n)},
                                image_srcset(link, image.width, image.derived_widths)))
    return shown


@dataclass(frozen=True)
class ErrorLink:
    """An answer a refused submit marked, as the error banner links to it."""

    name: str
    label: str
    document: str = ""


def error_links(fields) -> list[ErrorLink]:
    """Each refused answer in the form's order (a per_document field's with its document's title)."""
    links = []
    for bf in fields:
        if bf.error:
            links.append(ErrorLink(bf.name, bf.field.label or bf.field.key))
        for n, (document, subs) in enumerate(bf.documents, start=1):
            title = document.title or f"document {n}"
            links += [ErrorLink(sub.name, sub.field.label or sub.field.key, title) for sub in subs if sub.error]
    return links


def refused_data(data: dict[str, list[str]], draft: dict) -> dict[str, list[str]]:
    """What a refused submit's form shows again: the skip form posts only the reason, so the
    answers drafted so far are shown instead."""
    if SKIP in data:
        return {k: v for k, v in draft.items() if k != SKIP}
    return data


def _skip_label(skip, noun: str) -> str:
    if skip is None:
        return ""
    if skip.label != "Skip this item":
        return skip.label
    return gettext("Skip this {noun}").format(noun=noun.lower())


NO_ITEMS_LEFT = {
    "title": gettext_lazy("No items are left for you"),
    "message": gettext_lazy(
        "Every item has enough answers already. Please return the study on Prolific; you will not be penalised."
    ),
}
RELEASED = {
    "title": gettext_lazy("This session has ended"),
    "message": gettext_lazy(
        "Prolific tells us your submission is no longer active (returned, timed out or rejected), so no "
        "more items are shown. What you submitted is kept."
    ),
}


def _next(request, session, *, already_submitted=False, check_warning=False):
    """The next item's panel, or the way out once the session's work is done."""
    assignment = services.assignment_next(session=session)
    if assignment is not None:
        return _panel(request, session, assignment, already_submitted=already_submitted, check_warning=check_warning)
    if session.released_at:
        return render(request, "annotation/problem.html", RELEASED, status=410)
    if services.session_submitted_count(session) == 0:
        return render(request, "annotation/problem.html", NO_ITEMS_LEFT, status=410)
    leased = services.session_complete(session=session)
    if leased is not None:  # the other half of a double click leased an item meanwhile: show it too
        return _panel(request, session, leased, already_submitted=already_submitted)
    return hx_redirect(request, "annotation:end")


@never_cache
@require_http_methods(["GET"])
@annotator_required("items")
def item_page(request, session):
    if session.completed_at:
        return hx_redirect(request, "annotation:end")
    return _next(request, session)


@never_cache
@require_POST
@annotator_required("items", assignment="pk", switch=True)
def item_submit(request, session, pk):
    assignment = assignment_for_session(session, pk)
    data = form_data(request)
    # the page's honest-effort counts: never an answer; malformed ones are dropped, the submit goes on
    effort = effort_parse((data.pop(EFFORT_FIELD, None) or [None])[0])
    result = services.annotation_submit(assignment=assignment, data=data, effort=effort)
    if not result.validation.ok:
        data = refused_data(data, assignment.draft)
        response = _panel(request, session, assignment, data=data, errors=result.validation.errors, status=422)
        response["HX-Reswap"] = "outerHTML"  # no jump to the top: the page shows the first error itself
        return response
    # A repeat (a page kept by the back button, a retried request): the stored answers stand, and it says so.
    warned = result.check is not None and result.check.warn
    return _next(request, session, already_submitted=result.duplicate, check_warning=warned)


@never_cache
@require_POST
@annotator_required("items", assignment="pk")
def item_draft(request, session, pk):
    assignment = assignment_for_session(session, pk)
    try:
        saved = services.assignment_save_draft(assignment=assignment, data=form_data(request))
    except services.DraftRefused as refused:
        return JsonResponse({"saved": False, "error": str(refused)}, status=400)
    return JsonResponse({"saved": saved}, status=200 if saved else 409)


@never_cache
@require_POST
@annotator_required("items", assignment="pk")
def item_upload(request, session, pk):
    """Receive the image of an upload field; answers with the upload's token and size (JSON)."""
    assignment = assignment_for_session(session, pk)
    file = request.FILES.get("file")
    if file is None:
        return JsonResponse({"error": gettext("Choose an image file to upload.")}, status=400)
    try:
        upload = services.upload_receive(assignment=assignment, name=file.name, data=file.read(UPLOAD_MAX_READ),
                                         field=request.POST.get("field", ""))
    except services.UploadRefused as refused:
        return JsonResponse({"error": str(refused)}, status=400)
    return JsonResponse({"token": str(upload.token), "width": upload.width, "height": upload.height,
                         "url": reverse("annotation:item-upload-image", args=[assignment.pk, upload.token])})


@annotator_required(assignment="pk")
def item_upload_image(request, session, pk, token):
    assignment = assignment_for_session(session, pk)
    return image_response(get_object_or_404(assignment.uploads, token=token).file)


@annotator_required(assignment="pk")
def item_image(request, session, pk):
    """The item's image (``n``: one of its several) for the annotator of the browser's session only:
    the page's signed address (``item_image_signed``) is the usual way; ``w`` asks for a lighter copy,
    served on the same terms (the original when there is none)."""
    image = assignment_for_session(session, pk).item.image_at(request.GET.get("n", ""))
    if image is None:
        raise Http404("no such image")
    return image_response(image, width=request.GET.get("w", ""))


def item_image_signed(request, token):
    """An item image by its signed address (``links.session_image_link``), without reading the
    session or the assignment (as a storage's presigned URL); ``w``: its lighter copy, as above."""
    name = item_image_name(token)
    if name is None:
        raise Http404("no such image")
    return stored_image_response(Item._meta.get_field("image").storage, name, width=request.GET.get("w", ""))


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
