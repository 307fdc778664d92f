"""The researcher's forms: a study's settings, country pools, members, an item import's upload.
They check input only; the services make the change."""

import re

from django import forms
from django.conf import settings
from django.core.validators import MinValueValidator
from django.forms.fields import InvalidJSONInput, JSONString
from django.urls import reverse_lazy

from .countries import COUNTRIES, COUNTRY_NAMES, country_code
from .markdown import markdown_problem
from .models import CountryPool, Role, Study, StudyMember
from .protocol import JsonRefused, json_bounded

CODE_FIELDS = (
    "code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent", "code_all_skipped",
    "code_failed_check",
)

MARKDOWN_HELP = "Markdown: ## for a heading, **bold**, a line starting with - for a list."


class BoundedJSONField(forms.JSONField):
    """JSON typed into a form (the admin's), read like every JSON a page receives: through
    ``json_bounded``, so JSON nested too deep or too long, a number that is not finite, a NUL or a
    lone surrogate (``safetext``) is a form error, never a RecursionError or a database error.
    Django's own field only catches a syntax error. Set for every admin by ``studies.admin``."""

    def to_python(self, value):
        if self.disabled:
            return value
        if value in self.empty_values:
            return None
        if isinstance(value, (list, dict, int, float, JSONString)):
            return value
        try:
            converted = json_bounded(value)
        except JsonRefused as exc:
            raise forms.ValidationError(str(exc), code="invalid") from None
        return JSONString(converted) if isinstance(converted, str) else converted

    def bound_data(self, data, initial):
        """The text shown again beside the error (Django's reads it with an unbounded ``json.loads``)."""
        if self.disabled:
            return initial
        if data is None:
            return None
        try:
            return json_bounded(data)
        except JsonRefused:
            return InvalidJSONInput(data)


def _markdown(text: str) -> str:
    problem = markdown_problem(text)
    if problem:
        raise forms.ValidationError(problem)
    return text


class StudyForm(forms.ModelForm):
    """Name, texts shown to annotators, session size, lease, the completion codes (one per outcome),
    the skip cap, routing."""

    @property
    def code_fields(self) -> list:
        """The completion code fields, in the form's order: one per way a session ends."""
        return [self[name] for name in self.fields if name.startswith("code_")]

    class Meta:
        model = Study
        fields = [
            "name", "instructions_md", "consent_md", "items_per_session", "lease_minutes",
            "max_skips_per_session", *CODE_FIELDS, "routing", "language",
        ]
        labels = {
            "instructions_md": "Instructions",
            "consent_md": "Consent text",
            "items_per_session": "Items per session",
            "lease_minutes": "Lease (minutes)",
            "code_completed": "Completed",
            "code_failed_mock": "Failed the practice test",
            "code_not_eligible": "Not eligible",
            "code_no_consent": "No consent",
            "code_all_skipped": "Skipped every item",
            "code_failed_check": "Failed attention checks",
            "max_skips_per_session": "Skips allowed per session",
            "language": "Language of these texts",
        }
        help_texts = {
            "instructions_md": MARKDOWN_HELP,
            "consent_md": MARKDOWN_HELP,
            "items_per_session": "How many items one annotator answers in one sitting (one Prolific submission).",
            "max_skips_per_session": "Leave empty for no limit. The skip button says how many are left; a session "
            "of only skips ends with the “Skipped every item” code.",
            "language": "The language you write the consent, instructions and questions in. Annotators whose "
            "page is in another language see these texts wherever you give no translation.",
        }
        widgets = {
            "instructions_md": forms.Textarea(attrs={"rows": 10}),
            "consent_md": forms.Textarea(attrs={"rows": 6}),
            "routing": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("items_per_session", "lease_minutes"):
            self.fields[name].widget.attrs["min"] = 1
            self.fields[name].validators.append(MinValueValidator(1))
        for name in CODE_FIELDS:
            self.fields[name].widget.attrs.update(autocomplete="off", spellcheck="false")
        self.fields["code_all_skipped"].required = False  # left empty: the study keeps its own
        self.fields["code_failed_check"].required = False
        self.fields["language"].required = False  # left out: the study keeps its own (English for a new one)
        self.fields["max_skips_per_session"].widget.attrs["min"] = 0
        for name in ("instructions_md", "consent_md"):
            # Typing asks the server for the rendered Markdown (the annotator page's renderer).
            self.fields[name].widget.attrs.update({
                "hx-post": reverse_lazy("studies:markdown-preview"),
                "hx-trigger": "input changed delay:400ms",
                "hx-target": f"#preview-{name}",
                "hx-swap": "innerHTML",
            })

    def clean_language(self) -> str:
        return self.cleaned_data.get("language") or self.instance.language or settings.LANGUAGE_CODE

    def clean_code_all_skipped(self):
        return (self.cleaned_data.get("code_all_skipped") or "").strip() or self.instance.code_all_skipped

    def clean_code_failed_check(self):
        return (self.cleaned_data.get("code_failed_check") or "").strip() or self.instance.code_failed_check

    def clean_instructions_md(self) -> str:
        return _markdown(self.cleaned_data["instructions_md"])

    def clean_consent_md(self) -> str:
        return _markdown(self.cleaned_data["consent_md"])

    def clean(self):
        cleaned = super().clean()
        seen: dict[str, str] = {}
        for name in CODE_FIELDS:
            code = (cleaned.get(name) or "").strip()
            if not code:
                continue
            if code in seen:
                other = self.fields[seen[code]].label
                self.add_error(name, f"The same as the code for “{other}”: every outcome needs its own code.")
            else:
                seen[code] = name
        return cleaned

    def settings(self) -> dict:
        """The cleaned settings, as the services take them (the name apart)."""
        return {k: v for k, v in self.cleaned_data.items() if k != "name"}


class PoolForm(forms.ModelForm):
    """A country pool: its country, annotations wanted per item, minimum annotators, the screening
    questions it asks, the adaptive comparison mode's budget (``analysis.adaptive``)."""

    country = forms.ChoiceField(choices=[("", "Choose a country…"), *[(c, f"{n} ({c})") for c, n in COUNTRIES]])

    class Meta:
        model = CountryPool
        fields = [
            "country", "annotations_per_item", "min_distinct_annotators",
            "require_born", "require_nationality", "require_childhood", "require_resident", "language",
            "adaptive_budget",
        ]
        labels = {
            "language": "Language of the annotator's pages",
            "annotations_per_item": "Annotations wanted per item",
            "min_distinct_annotators": "Minimum distinct annotators",
            "adaptive_budget": "Adaptive comparisons: extra annotations",
        }
        help_texts = {
            "language": "The platform's own words (buttons, steps, messages) in this language; your texts in "
            "it where you translated them. Annotators can switch on every page.",
            "adaptive_budget": "For a pairwise study: once the balanced design is nearly answered, up to this many "
            "extra annotations go, a step at a time, to the two-image items of the pairs of models whose order "
            "is least certain (no item over its quota, no annotator twice on an item). 0: off, the fixed "
            "balanced design.",
        }
        error_messages = {
            "adaptive_budget": {
                "min_value": "The adaptive budget is a number of extra annotations: 0 (off) or more.",
                "invalid": "The adaptive budget is a whole number of extra annotations: 0 (off) or more.",
            },
        }

    def __init__(self, *args, study: Study, **kwargs):
        super().__init__(*args, **kwargs)
        self.study = study
        self.fields["annotations_per_item"].widget.attrs["min"] = 1
        self.fields["min_distinct_annotators"].widget.attrs["min"] = 0
        self.fields["adaptive_budget"].widget.attrs["min"] = 0
        self.fields["adaptive_budget"].required = False  # blank: 0, off
        study_language = dict(settings.LANGUAGES).get(study.language, study.language)
        self.fields["language"].choices = [("", f"The study's language ({study_language})"), *settings.LANGUAGES]
        if self.instance.pk:
            # A pool's country is its identity: its entry link and annotators belong to it.
            self.fields["country"].disabled = True

    def clean_country(self) -> str:
        """Said next to the field at once (the page and the API's form); ``services.pools_create``
        holds the rule, a race included."""
        country = self.cleaned_data["country"]
        taken = self.study.pools.filter(country=country).exclude(pk=self.instance.pk)
        if country and taken.exists():
            raise forms.ValidationError(f"This study has a pool for {COUNTRY_NAMES[country]} already.")
        return country

    def clean_annotations_per_item(self) -> int:
        wanted = self.cleaned_data["annotations_per_item"]
        if wanted < 1:
            raise forms.ValidationError("Ask for at least one annotation per item.")
        return wanted

    def clean_adaptive_budget(self) -> int:
        """Blank is 0 (off); below 0 is refused by the field (its ``min_value`` message above)."""
        return self.cleaned_data.get("adaptive_budget") or 0

    def settings(self) -> dict:
        return {k: v for k, v in self.cleaned_data.items() if k != "country"}


class PoolsForm(PoolForm):
    """Several country pools at once, with the settings they share: the countries as ISO codes or
    English names, separated by commas or lines ("BR, DE, EG" or "Brazil\nSouth Korea")."""

    country = None  # type: ignore[assignment]
    countries = forms.CharField(
        label="Countries", widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text="ISO codes or English names, separated by commas or lines: e.g. BR, DE, EG, ID, IN, JP, KR, MX, NG, "
        "US. Each gets its own pool, entry link and quota; the settings below are shared.",
    )

    class Meta(PoolForm.Meta):
        fields = [f for f in PoolForm.Meta.fields if f != "country"]

    def clean_countries(self) -> list[str]:
        words = [w.strip() for w in re.split(r"[,;\n]+", self.cleaned_data["countries"]) if w.strip()]
        if not words:
            raise forms.ValidationError("Name at least one country.")
        codes, unknown, twice = [], [], []
        for word in words:
            code = country_code(word)
            if code is None:
                unknown.append(word)
            elif code in codes:
                twice.append(COUNTRY_NAMES[code])
            else:
                codes.append(code)
        problems = []
        if unknown:
            problems.append(f"Not a country: {', '.join(unknown)} (use ISO codes, e.g. KR, or English names).")
        if twice:
            problems.append(f"Given twice: {', '.join(twice)}.")
        if problems:
            raise forms.ValidationError(problems)
        return codes

    def settings(self) -> dict:
        return {k: v for k, v in self.cleaned_data.items() if k != "countries"}


class InviteForm(forms.Form):
    """Who to invite (a username or an email address) and with which role; a checker's pool is one
    of the study's. The services refuse the rest (the owner, a member already, a bad address)."""

    who = forms.CharField(label="Username or email address", max_length=254)
    role = forms.ChoiceField(label="Role", choices=Role.choices, initial=Role.VIEWER)
    pool = forms.ModelChoiceField(
        label="Pool (checkers only)", queryset=CountryPool.objects.none(), required=False,
        error_messages={"invalid_choice": "Choose one of this study's pools."},
    )

    may_create_studies = forms.BooleanField(
        label="They may also create studies of their own", required=False,
        help_text="A researcher's account, for a new lab member: they see only their own studies and those shared "
        "with them. Only a researcher may grant it.",
    )

    def __init__(self, *args, study: Study, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pool"].queryset = study.pools.order_by("country_name")

    def clean_who(self):
        return self.cleaned_data["who"].strip()

    def clean(self):
        data = super().clean()
        if data.get("role") == Role.CHECKER and not data.get("pool") and "pool" not in self.errors:
            self.add_error("pool", "Choose the pool this checker reviews.")
        if data.get("role") != Role.CHECKER:
            data["pool"] = None
        return data


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(choices=[(r.value, r.label) for r in StudyMember.MEMBER_ROLES])


class TranslationForm(forms.Form):
    """The study's texts in one language: one input per text (``studies.translations.Text``), named by
    its key, the study's own words beside it; an empty input falls back to them. The service checks
    what is stored (sizes, Markdown, keys); the form only reads what was typed."""

    drop_unused = forms.BooleanField(
        label="Delete the translations of texts the protocol no longer has", required=False,
    )

    confirmed = forms.MultipleChoiceField(required=False)  # outdated translations still right for the new text

    def __init__(self, *args, texts, outdated=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.texts = texts
        self.fields["confirmed"].choices = [(key, key) for key in outdated]
        for t in texts:
            if t.markdown:
                widget = forms.Textarea(attrs={
                    "rows": 8, "dir": "auto", "hx-post": reverse_lazy("studies:markdown-preview"),
                    "hx-trigger": "input changed delay:400ms", "hx-target": f"#preview-{t.key}", "hx-swap": "innerHTML",
                })
            elif t.multiline:
                widget = forms.Textarea(attrs={"rows": 3, "dir": "auto"})
            else:
                widget = forms.TextInput(attrs={"dir": "auto"})  # Arabic reads right to left, English left to right
            self.fields[t.key] = forms.CharField(label=t.short or t.name, required=False, max_length=t.max_chars,
                                                 widget=widget)

    def typed(self) -> dict[str, str]:
        """Each text's translation as typed ("" for none)."""
        return {t.key: self.cleaned_data.get(t.key) or "" for t in self.texts}


class ImportForm(forms.Form):
    rows = forms.FileField(label="Items (a .csv or .jsonl file)")
    images = forms.FileField(label="Images (one .zip)", required=False)
