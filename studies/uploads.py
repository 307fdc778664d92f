"""How large a request body may be, one rule for every page and the API, applied before anything
reads the body.

Django's CSRF check reads a POST's form (``request.POST``) before the view runs, and a multipart
form's files are streamed to temporary files whatever their size: a limit checked in the view comes
after a 3 GB body was read. ``UploadLimitMiddleware`` stands before the CSRF check: a body declared
(``Content-Length``) larger than its route allows is answered 413 at once, anonymous or not, and
nothing reads it; a body with no declared length (chunked) is refused with 411 when a route has a
limit at all, since nothing could bound it before reading. A view that takes an upload declares its
limit with ``@upload_limit(fn)`` (a page) or a class attribute ``upload_limit`` (an API view, through
``api.base.UploadLimited``); every other route allows ``REQUEST_MAX_BYTES``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def upload_limit(limit: Callable[[], int]) -> Callable[[Any], Any]:
    """Give the view ``limit()`` bytes of request body (read when a request comes, so a setting
    changed in a test or by the environment counts)."""

    def mark(view: Any) -> Any:
        view.upload_limit = limit
        return view

    return mark


def route_limit(path: str) -> tuple[int, bool]:
    """The body limit of the route at ``path``, and whether it is the API's (a JSON refusal)."""
    try:
        func = resolve(path).func
    except Resolver404:
        return settings.REQUEST_MAX_BYTES, False
    view_class = getattr(func, "view_class", None)
    limit = getattr(func, "upload_limit", None) or getattr(view_class, "upload_limit", None)
    api = hasattr(func, "cls")  # Django REST framework's views
    return (limit() if limit is not None else settings.REQUEST_MAX_BYTES), api


def refusal_text(limit: int) -> str:
    return f"The upload is larger than the limit of {limit:,} bytes."


class UploadLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in BODY_METHODS:
            refused = self.refusal(request)
            if refused is not None:
                return refused
        return self.get_response(request)

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        declared_text = request.META.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        limit, api = route_limit(request.path_info)
        declared = int(declared_text) if declared_text.isdigit() else None if declared_text else 0
        if declared is None:  # not a whole number (negative included)
            return self.answer(request, 400, "The request's Content-Length is not a number.", api=api)
        if declared > limit:
            return self.answer(request, 413, refusal_text(limit), api=api)
        if chunked and not declared_text:
            return self.answer(request, 411, "Send the request with its Content-Length.", api=api)
        return None

    @staticmethod
    def answer(request: HttpRequest, status: int, message: str, *, api: bool) -> HttpResponse:
        if api:
            response: HttpResponse = JsonResponse({"detail": message}, status=status)
        else:
            page = render_to_string("upload_refused.html", {"message": message, "back": request.path})
            response = HttpResponse(page, status=status)
        response["Content-Length"] = str(len(response.content))  # answered before the middleware that sets it
        return response
