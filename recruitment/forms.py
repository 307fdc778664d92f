"""Forms of the recruitment pages."""

import re

from django import forms

TOKEN_RE = re.compile(r"^[A-Za-z0-9._~+/=-]{20,500}$")


class TokenForm(forms.Form):
    """A researcher's Prolific token; the field is never filled in again (render_value=False)."""

    token = forms.CharField(
        label="Prolific API token",
        max_length=500,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"}),
        help_text="Create one in Prolific under Settings → API tokens. It is stored encrypted and never shown again.",
    )

    def clean_token(self) -> str:
        token = self.cleaned_data["token"]
        if not TOKEN_RE.match(token):
            raise forms.ValidationError(
                "This does not look like a Prolific API token (a long string of letters and digits, no spaces)."
            )
        return token
