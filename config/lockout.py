"""The login lockout's two hooks into django-axes: the client's address it counts
(AXES_CLIENT_IP_CALLABLE) and the page a locked-out login gets (AXES_LOCKOUT_CALLABLE)."""

import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR; behind ``TRUSTED_PROXY_COUNT`` proxies that each append the address they saw to
    X-Forwarded-For, the entry the outermost of them appended. Entries further left were written by
    the client and are never trusted; a header shorter than the proxies is a misconfiguration, and
    the direct peer is used."""
    remote = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    if count <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if len(forwarded) < count:
        return remote
    return forwarded[-count]


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """429 with the wait and what to do, for /login/ and /admin/login/ alike."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return render(request, "registration/locked_out.html", {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
        "login_url": "admin:login" if request.path.startswith("/admin/") else "login",
    }, status=settings.AXES_HTTP_RESPONSE_CODE)
