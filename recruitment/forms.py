"""Forms of the recruitment pages."""

import re
from decimal import Decimal

from django import forms

from .prolific import DEVICES
from .rules import RuleBroken
from .services import FilterPick, LaunchOptions
from .services.messages import MessageRefused, message_body_clean

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


class LaunchForm(forms.Form):
    """What a researcher chooses for the pools' Prolific studies; the rest comes from the study."""

    reward = forms.DecimalField(
        label="Reward per participant", min_value=Decimal("0.01"), max_digits=7, decimal_places=2,
        help_text="In your Prolific account's currency (pounds or dollars), e.g. 1.50.",
    )
    minutes = forms.IntegerField(label="Estimated completion time (minutes)", min_value=1, max_value=600)
    max_minutes = forms.IntegerField(
        label="Maximum allowed time (minutes)", min_value=1, max_value=1440, required=False,
        help_text="Empty: the least Prolific accepts for the estimate.",
    )
    devices = forms.MultipleChoiceField(
        label="Devices", choices=[(d, d.capitalize()) for d in DEVICES], initial=["desktop"],
        widget=forms.CheckboxSelectMultiple,
    )
    filters = forms.CharField(
        label="Further Prolific filters", required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One a line, by its title in Prolific: 'Nationality' or 'Country of Birth' take the pool's "
        "country; 'First Language=Hindi|Tamil' names the choices. Current country of residence is always set.",
    )
    auto_approve = forms.BooleanField(
        label="Let Prolific approve completed submissions (otherwise you review them here)", required=False
    )
    # issue 28, part 2
    screen_out_reward = forms.DecimalField(
        label="Pay screen-outs (fixed reward)", required=False, min_value=Decimal("0.01"), max_digits=5,
        decimal_places=2,
        help_text="Empty: a participant who answers 'no' to an eligibility question is asked to return the study. "
        "An amount (at least £0.10 or $0.14, Prolific's minimum): they are screened out and paid it instead. "
        "Prolific offers paid screen-outs to some workspaces only.",
    )
    secured_entry = forms.BooleanField(
        label="Prolific's secured study URL: check the signed token on every entry link", required=False,
        help_text="Turn it on for Prolific's study too; a link whose token is missing, expired or badly signed is "
        "refused.",
    )
    description = forms.CharField(
        label="Public description", required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Empty: a short description with the number of items and the time.",
    )

    def clean_filters(self) -> tuple[FilterPick, ...]:
        try:
            return tuple(FilterPick.parse(line) for line in self.cleaned_data["filters"].splitlines() if line.strip())
        except RuleBroken as exc:
            raise forms.ValidationError(str(exc)) from None

    def options(self) -> LaunchOptions:
        data = self.cleaned_data
        return LaunchOptions(
            reward=int(data["reward"] * 100),
            estimated_minutes=data["minutes"],
            maximum_allowed_minutes=data["max_minutes"],
            devices=tuple(data["devices"]),
            filter_picks=data["filters"],
            auto_approve=data["auto_approve"],
            description=data["description"],
            screen_out_reward=int(data["screen_out_reward"] * 100) if data.get("screen_out_reward") else None,
            secured_entry=bool(data.get("secured_entry")),
        )


# --- messages (issue 28, part 2) -------------------------------------------------------------


class MessageForm(forms.Form):
    """A message to one participant of a pool's study, or to all of them (the rules: services.messages)."""

    pool = forms.TypedChoiceField(label="Pool", coerce=int)
    participant = forms.CharField(
        label="Participant (Prolific id)", required=False, max_length=64,
        help_text="Empty: every participant of the pool's study.",
    )
    body = forms.CharField(label="Message", widget=forms.Textarea(attrs={"rows": 4}), strip=True)

    def __init__(self, *args, pools=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pool"].choices = [(p.pk, p.country_name) for p in pools]

    def clean_body(self) -> str:
        """The service's own rule on a body (``message_body_clean``), said next to the field."""
        try:
            return message_body_clean(self.cleaned_data["body"])
        except MessageRefused as refused:
            raise forms.ValidationError(str(refused)) from None


class PolicyForm(forms.Form):
    count_returned = forms.BooleanField(
        required=False,
        label="Count the annotations of participants who returned their submission",
        help_text="Off (the default): a returned participant's annotations are kept but left out of the quota (their "
        "slots reopen), the analysis and the export. Changing it applies to participants who returned already.",
    )
