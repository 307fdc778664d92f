"""Forms of the recruitment pages."""

import re
from decimal import Decimal

from django import forms

from .prolific import DEVICES
from .rules import RuleBroken
from .services import FilterPick, LaunchOptions, rounds
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

    # Rounds (services/rounds.py): present only when the researcher has groups or earlier studies on Prolific.
    ROUND_FIELDS = ("allow_groups", "block_groups", "exclude_studies")

    def __init__(self, *args, user=None, study=None, **kwargs):
        super().__init__(*args, **kwargs)
        groups = [(g.pk, f"{g.name} ({g.members_n})") for g in rounds.groups_of(user=user)] if user else []
        earlier = [(s.pk, s.name) for s in rounds.previous_studies_of(user=user, exclude=study)] if user else []
        round_fields = {
            "allow_groups": (groups, "Restrict to participant group(s)",
                             "Only members of the groups ticked may take part (e.g. round 1's top annotators)."),
            "block_groups": (groups, "Exclude participant group(s)", "Members of the groups ticked may not take part."),
            "exclude_studies": (earlier, "Exclude participants of earlier studies",
                                "Whoever took part in the studies ticked (on Prolific) may not take part."),
        }
        for name, (choices, label, help_text) in round_fields.items():
            if choices:
                self.fields[name] = forms.TypedMultipleChoiceField(
                    label=label, choices=choices, coerce=int, required=False, help_text=help_text,
                    widget=forms.CheckboxSelectMultiple,
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
            allow_groups=tuple(data.get("allow_groups") or ()),
            block_groups=tuple(data.get("block_groups") or ()),
            exclude_studies=tuple(data.get("exclude_studies") or ()),
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


class InviteBackForm(forms.Form):
    """The bar a finished study's annotators must meet to be invited back, and the group's name."""

    name = forms.CharField(label="Group name", max_length=rounds.NAME_MAX, strip=True,
                           help_text="As it shows on Prolific, e.g. 'CulturalFrames round 1 top'.")
    min_quality = forms.FloatField(
        label="Least quality score (0–1)", required=False,
        help_text="The annotator's competence (MACE) on the first scored question, from the latest analysis.",
    )
    min_gold = forms.FloatField(label="Least gold accuracy (0–1)", required=False,
                                help_text="The share of gold items answered right.")
    no_exclusions = forms.BooleanField(label="Only annotators never excluded or blocked", required=False, initial=True)

    def bar(self) -> rounds.Bar:
        data = self.cleaned_data
        return rounds.Bar(min_quality=data.get("min_quality"), min_gold=data.get("min_gold"),
                          no_exclusions=bool(data.get("no_exclusions")))

    def clean(self):
        data = super().clean()
        if not self.errors:
            for field, message in self.bar().problems().items():
                self.add_error(field, message)
        return data


class BlockForm(forms.Form):
    participant_id = forms.CharField(label="Prolific participant id", max_length=64, strip=True)
    reason = forms.CharField(label="Why", max_length=rounds.REASON_MAX, strip=True,
                             help_text="Kept with the entry: who blocked them, when, and why.")

    def clean_participant_id(self) -> str:
        value = self.cleaned_data["participant_id"]
        if not value.isalnum():
            raise forms.ValidationError("A Prolific participant id is letters and digits (24 characters, usually).")
        return value
