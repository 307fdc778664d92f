"""The login lockout's hooks into django-axes: the client's address it counts
(AXES_CLIENT_IP_CALLABLE), the page a locked-out login gets (AXES_LOCKOUT_CALLABLE) and what a
successful login forgives (AXES_HANDLER)."""

import math

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class OwnFailuresResetHandler(AxesDatabaseHandler):
    """django-axes' database handler, except what a successful login resets (AXES_RESET_ON_SUCCESS).
    Axes 8 deletes every failure matching any lockout parameter: the account's and the address's.
    One valid account would then give its holder's address its guesses back at each login, to go on
    guessing other accounts. Here a success forgives only the failures of its own account from its
    own address (its owner's mistypes): the address keeps its failures on other accounts, the account
    keeps those from other addresses."""

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return count


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
