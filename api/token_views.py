"""The researcher's API tokens page: their own tokens only (no other account's id is ever looked up),
a new token shown once, a token revoked."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_GET, require_POST

from .forms import TokenForm
from .models import ApiToken
from .tokens import TokenRefused, api_token_create, api_token_revoke, is_researcher

TOKENS_LISTED = 50  # live and revoked, newest first (at most tokens.ACTIVE_MAX are live)


def _page(request, form: TokenForm, *, new_token: str = "", status: int = 200):
    tokens = ApiToken.objects.filter(user=request.user)[:TOKENS_LISTED]
    context = {"form": form, "tokens": tokens, "new_token": new_token, "researcher": is_researcher(request.user)}
    response = render(request, "api/token_settings.html", context, status=status)
    if new_token:
        response["Cache-Control"] = "no-store"  # the token is in this page only
    return response


@login_required
@require_GET
def token_list(request):
    return _page(request, TokenForm())


@sensitive_variables("plain")
@login_required
@require_POST
def token_create(request):
    """Make a token and show it once, in this response (never stored, never shown again)."""
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        _, plain = api_token_create(user=request.user, name=form.cleaned_data["name"])
    except TokenRefused as refused:
        form.add_error(refused.field, str(refused))
        return _page(request, form, status=400)
    return _page(request, TokenForm(), new_token=plain)


@login_required
@require_POST
def token_revoke(request, token_pk: int):
    token = get_object_or_404(ApiToken.objects.filter(user=request.user), pk=token_pk)
    if api_token_revoke(user=request.user, prefix=token.prefix):
        messages.success(request, f"The token “{token.name}” is revoked: it no longer works.")
    else:
        messages.info(request, f"The token “{token.name}” was revoked already.")
    return redirect("api:token-settings")
