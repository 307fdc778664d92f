from django import forms

from .tokens import NAME_MAX


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=NAME_MAX, label="Name",
        help_text="What uses it, e.g. “analysis notebook” or “lab server”: you will see it in this list.",
    )
