"""The practice test's forms: a question, the attempts allowed, an item made an example or not.
They check input only; ``studies/practice.py`` makes the change."""

from django import forms

from .models import Item, Study
from .practice import MAX_ATTEMPTS, MAX_PER_ATTEMPT, choices_problem, feedback_names_answer


class ExampleItemField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Item) -> str:
        prompt = f" · “{obj.prompt[:60]}”" if obj.prompt else ""
        return f"{obj.external_id} ({obj.country}){prompt}"


class MockQuestionForm(forms.Form):
    """One practice question. Feedback that names the right choice is refused until the researcher
    confirms it: a wrong answer shows the feedback, so the next attempt could just copy the answer;
    yet a short choice ("No", "Partially") may fairly appear in a good explanation, so a rule that
    always refused would be wrong as often as it is right."""

    item = ExampleItemField(
        label="Example item", queryset=Item.objects.none(), empty_label="Choose an example item…",
        help_text="One of this study's example items (never given to annotators to annotate).",
    )
    text = forms.CharField(label="Question", max_length=500)
    choices = forms.CharField(
        label="Choices", widget=forms.Textarea(attrs={"rows": 4}), help_text="One per line, in the order shown."
    )
    expected = forms.CharField(label="Expected answer", max_length=200, help_text="One of the choices.")
    explanation = forms.CharField(
        label="Feedback on a wrong answer", required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Shown after a wrong answer; explain the rule, without naming the right choice.",
    )
    confirm_feedback = forms.BooleanField(
        label="Save anyway: annotators will see a general note instead of this feedback", required=False
    )

    def __init__(self, *args, study: Study, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["item"].queryset = study.items.filter(is_example=True).order_by("external_id")
        self.names_answer = False

    def clean_choices(self) -> list[str]:
        choices = [line.strip() for line in self.cleaned_data["choices"].splitlines() if line.strip()]
        if problem := choices_problem(choices):
            raise forms.ValidationError(problem)
        for choice in choices:
            if len(choice) > 200:
                raise forms.ValidationError("A choice is at most 200 characters long.")
        return choices

    def clean(self):
        cleaned = super().clean()
        choices, expected = cleaned.get("choices"), (cleaned.get("expected") or "").strip()
        if choices is None or not expected:
            return cleaned
        match = next((c for c in choices if c.casefold() == expected.casefold()), None)
        if match is None:
            self.add_error("expected", f"The expected answer must be one of the choices: {', '.join(choices)}.")
            return cleaned
        cleaned["expected"] = match  # as the choice is spelled
        if feedback_names_answer(cleaned.get("explanation", ""), match):
            self.names_answer = True
            if not cleaned.get("confirm_feedback"):
                self.add_error(
                    "explanation",
                    f"The feedback names the expected answer (“{match}”): an annotator who got it wrong could copy "
                    "it on the next attempt, so annotators are never shown it. Reword it as the rule to apply, or "
                    "tick “Save anyway” below.",
                )
        return cleaned

    def values(self) -> dict:
        """The question as ``mock_question_save`` takes it."""
        keys = ("item", "text", "choices", "expected", "explanation")
        return {k: self.cleaned_data[k] for k in keys}


class AttemptsForm(forms.Form):
    attempts = forms.IntegerField(
        label="Attempts allowed", min_value=1, max_value=MAX_ATTEMPTS,
        help_text="Every answer must be right to pass; after the last failed attempt the session ends "
        "with the “failed the practice test” code.",
    )
    per_attempt = forms.IntegerField(
        label="Questions per attempt", min_value=1, max_value=MAX_PER_ATTEMPT, required=False,
        help_text="Leave empty to ask every question in every attempt. With fewer than you have, each attempt "
        "draws its own, and a retry gets questions not asked before while there are enough: a failed attempt "
        "cannot be passed by flipping the answers marked wrong.",
    )


class ExampleForm(forms.Form):
    """An item of the study, named by its id, made an example or an item to annotate again."""

    item = forms.CharField(label="Item id", max_length=200, help_text="The item's id in your data, as imported.")
    example = forms.TypedChoiceField(
        choices=[("1", "Make it an example"), ("0", "Make it an item to annotate")], coerce=lambda v: v == "1",
        widget=forms.HiddenInput, initial="1",
    )

    def __init__(self, *args, study: Study, **kwargs):
        super().__init__(*args, **kwargs)
        self.study = study

    def clean_item(self) -> Item:
        external_id = self.cleaned_data["item"].strip()
        item = self.study.items.filter(external_id=external_id).first()
        if item is None:
            raise forms.ValidationError(f"This study has no item “{external_id}”.")
        return item
