"""Forms of the review page: the filters, a rejection, a return request, bonuses."""

from django import forms

from .models import ProlificStudy, ProlificSubmission
from .prolific import REJECTION_CATEGORIES, REJECTION_MESSAGE_MIN
from .rules import RuleBroken, bonus_lines

# Prolific's categories, in words a researcher reads (the API's value is sent)
CATEGORY_LABELS = {
    "TOO_QUICKLY": "Too quickly (exceptionally fast, e.g. more than 3 SD below the mean)",
    "TOO_SLOWLY": "Too slowly",
    "FAILED_INSTRUCTIONS": "Did not follow the instructions",
    "INCOMP_LONGITUDINAL": "Incomplete longitudinal study",
    "FAILED_CHECK": "Failed attention checks (fair ones, as Prolific defines them)",
    "LOW_EFFORT": "Low effort (objectively)",
    "MALINGERING": "Malingering",
    "NO_CODE": "No completion code",
    "BAD_CODE": "Wrong completion code",
    "NO_DATA": "No data",
    "UNSUPP_DEVICE": "Unsupported device",
    "OTHER": "Other",
}


class ReviewFilterForm(forms.Form):
    pool = forms.ModelChoiceField(queryset=None, required=False, empty_label="Every pool")
    status = forms.ChoiceField(required=False)
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args, study, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pool"].queryset = study.pools.order_by("country")
        self.fields["status"].choices = [("", "Every status"), *ProlificSubmission.Status.choices]


class RejectForm(forms.Form):
    category = forms.ChoiceField(
        label="Reason (Prolific's category)", choices=[("", "Choose one"), *CATEGORY_LABELS.items()]
    )
    message = forms.CharField(
        label="Message to the participant",
        widget=forms.Textarea(attrs={"rows": 5, "minlength": REJECTION_MESSAGE_MIN}),
        help_text=f"At least {REJECTION_MESSAGE_MIN} characters (Prolific's rule): say what was wrong, concretely "
        "and politely. The participant reads it.",
        max_length=3000,
    )

    def clean_category(self) -> str:
        value = self.cleaned_data["category"]
        if value not in REJECTION_CATEGORIES:
            raise forms.ValidationError("Choose one of Prolific's rejection categories.")
        return value

    def clean_message(self) -> str:
        value = self.cleaned_data["message"].strip()
        if len(value) < REJECTION_MESSAGE_MIN:
            raise forms.ValidationError(
                f"Prolific needs at least {REJECTION_MESSAGE_MIN} characters; this message has {len(value)}."
            )
        return value


class ReturnForm(forms.Form):
    reasons = forms.CharField(
        label="Reasons (one a line)",
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
        help_text="Shown to the participant, e.g. 'You did not consent to the study' or 'Your device could not "
        "show the images'.",
    )

    def clean_reasons(self) -> list[str]:
        reasons = [line.strip() for line in self.cleaned_data["reasons"].splitlines() if line.strip()]
        if not reasons:
            raise forms.ValidationError("Give at least one reason.")
        return reasons


class BonusForm(forms.Form):
    """A pool and its bonus lines (or a pasted CSV): ids that took part in the pool's study only."""

    prolific_study = forms.ModelChoiceField(label="Pool", queryset=None, empty_label=None)
    lines = forms.CharField(
        label="Bonuses",
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "5f3e0c1a2b…,1.50\n60a7d9e4c3…,0.75"}),
        help_text="One a line: a Prolific submission id or participant id, a comma, the amount in pounds or "
        "dollars (1.50). A CSV pasted from a spreadsheet works.",
    )

    def __init__(self, *args, study, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["prolific_study"]
        field.queryset = ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").select_related(
            "pool"
        ).order_by("pool__country")
        field.label_from_instance = lambda row: row.pool.country_name

    def clean(self):
        data = super().clean()
        row, text = data.get("prolific_study"), data.get("lines")
        if row is None or text is None:
            return data
        try:
            parsed = bonus_lines(text)
        except RuleBroken as exc:
            self.add_error("lines", str(exc))
            return data
        ids = [who for who, _ in parsed]
        known = set(
            ProlificSubmission.objects.filter(prolific_study=row, prolific_id__in=ids).values_list(
                "prolific_id", flat=True
            )
        ) | set(
            ProlificSubmission.objects.filter(prolific_study=row, participant_id__in=ids).values_list(
                "participant_id", flat=True
            )
        )
        if strangers := [who for who in ids if who not in known]:
            shown = ", ".join(strangers[:10]) + (" …" if len(strangers) > 10 else "")
            self.add_error(
                "lines",
                f"Not a submission or participant of this pool's study as last read from Prolific: {shown}. "
                "Refresh from Prolific if they took part recently.",
            )
        data["parsed"] = parsed
        return data
