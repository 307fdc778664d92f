"""Researcher pages of recruitment: the Prolific token settings. Every page acts on the logged-in
researcher's own token only (no id in the address), and the token is never rendered back."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from django.views.decorators.http import require_GET, require_POST

from . import tokens
from .forms import TokenForm
from .prolific import ProlificAuthError, ProlificError


def _page(request, form: TokenForm, *, status: int = 200):
    state = tokens.token_state(user=request.user)
    return render(request, "recruitment/token_settings.html", {"form": form, "state": state}, status=status)


@login_required
@require_GET
def token_settings(request):
    return _page(request, TokenForm())


@sensitive_variables("token")
@sensitive_post_parameters("token")
@login_required
@require_POST
def token_save(request):
    """Check the token with Prolific, then store it (encrypted); a token Prolific refuses is not stored."""
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    token = form.cleaned_data["token"]
    try:
        with tokens.client_for(user=request.user, token=token) as client:
            client.me()
    except ProlificAuthError:
        form.add_error(
            "token", "Prolific refused this token: check that you copied all of it and that it is not deleted."
        )
        return _page(request, form, status=400)
    except ProlificError:
        tokens.token_set(user=request.user, token=token)
        messages.warning(
            request, "Token stored, but Prolific could not be reached to check it; it is checked at first use."
        )
        return redirect("recruitment:token-settings")
    tokens.token_set(user=request.user, token=token)
    messages.success(request, "Your Prolific token is stored (encrypted). It will not be shown again.")
    return redirect("recruitment:token-settings")


@login_required
@require_POST
def token_remove(request):
    if tokens.token_remove(user=request.user):
        messages.success(request, "Your Prolific token is removed.")
    else:
        messages.info(request, "You had no Prolific token stored.")
    return redirect("recruitment:token-settings")
