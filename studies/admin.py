from django import forms
from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html

from . import protocol as protocol_engine
from .forms import BoundedJSONField
from .models import CountryPool, Item, MockQuestion, Study
from .selectors import owned_by, owned_choices
from .services import (
    preset_load,
    presets_list,
    quotas_sync,
    study_create,
    study_create_from_preset,
    study_set_protocol,
)

BOUNDED_JSON = {models.JSONField: {"form_class": BoundedJSONField}}
START_PRESET = "culturalframes-rating"  # the protocol the add form starts with
CODE_FIELDS = (
    "code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent", "code_all_skipped",
    "code_failed_check",
)
# Set by the service or the database, never taken from the add form.
NOT_SETTINGS = {"id", "owner", "name", "protocol", "protocol_version", "created_at"}


class BoundedJson:
    """Every JSON field of an admin form is read within bounds (``BoundedJSONField``: depth, size,
    finite numbers, no NUL or lone surrogate): hostile JSON is a form error, never a 500. A
    ModelAdmin that sets its own ``formfield_overrides`` starts from ``BOUNDED_JSON``.
    tests/test_hostile_input.py checks every registered admin."""

    formfield_overrides = BOUNDED_JSON


class ScopedChoices(BoundedJson):
    """Every foreign key and many-to-many of an admin form (a ModelAdmin's or an inline's) offers only
    the researcher's own rows (``owned_choices``: owners only, not members; all for a superuser), so
    a field added later is scoped without being named here. tests/studies/test_admin_choices.py
    checks every registered form. Every admin here mixes this in, so its JSON is bounded too."""

    def _choices(self, db_field, request, kwargs):
        queryset = kwargs.get("queryset")
        if queryset is None:
            queryset = self.get_field_queryset(None, db_field, request)
        if queryset is None:
            queryset = db_field.remote_field.model._default_manager.all()
        return owned_choices(queryset, request.user)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        kwargs["queryset"] = self._choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        kwargs["queryset"] = self._choices(db_field, request, kwargs)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


class OwnedAdmin(ScopedChoices, admin.ModelAdmin):
    """Researchers see and edit only their own studies and what hangs off them."""

    owner_path = "owner"

    def get_queryset(self, request):
        return owned_by(super().get_queryset(request), request.user, owner_path=self.owner_path)


def _preset_choices():
    return [("", "— none: use the protocol below —")] + [(p.name, f"{p.title} ({p.name})") for p in presets_list()]


class StudyForm(forms.ModelForm):
    preset = forms.ChoiceField(
        label="Start from a preset",
        required=False,
        choices=_preset_choices,
        help_text=(
            "Creates the study with the preset's protocol and its settings (routing, session size, instructions, "
            "consent); completion codes left empty are generated. Settings you change below take precedence. "
            "Leave the protocol below as it is, or empty: the preset's replaces it (edit it after creation)."
        ),
    )

    class Meta:
        model = Study
        fields = [  # every editable field but the owner, in the model's order
            "name", "status", "protocol", "routing", "consent_md", "instructions_md",
            "items_per_session", "lease_minutes", "mock_attempts_allowed", "max_skips_per_session",
            "prolific_study_id", *CODE_FIELDS,
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "routing" in self.fields:  # an older form that does not post it keeps the study's routing
            self.fields["routing"].required = False
        for name in ("code_all_skipped", "code_failed_check"):  # left empty: the study keeps its own
            if name in self.fields:
                self.fields[name].required = False
        if self.instance.pk:
            del self.fields["preset"]
            return
        self.fields["protocol"].required = False  # checked in clean(): needed unless a preset is chosen
        if self.data.get("preset"):
            for name in ("name", *CODE_FIELDS):
                self.fields[name].required = False

    def clean_code_all_skipped(self):
        return (self.cleaned_data.get("code_all_skipped") or "").strip() or self.instance.code_all_skipped

    def clean_code_failed_check(self):
        return (self.cleaned_data.get("code_failed_check") or "").strip() or self.instance.code_failed_check

    def clean_routing(self):
        return self.cleaned_data.get("routing") or self.instance.routing

    def clean_protocol(self):
        spec = self.cleaned_data["protocol"]
        if spec in (None, "", {}) and not self.instance.pk:
            return None
        try:
            protocol_engine.parse_spec(spec)
        except protocol_engine.SpecError as exc:
            raise forms.ValidationError(exc.errors) from None
        return spec

    def clean(self):
        data = super().clean()
        codes = [data.get(k) for k in CODE_FIELDS]
        if all(codes) and len(set(codes)) != len(codes):
            raise forms.ValidationError(
                "Each completion code must be different: Prolific tells outcomes apart by code."
            )
        if self.instance.pk:
            return data
        preset = data.get("preset")
        if not preset and data.get("protocol") is None and "protocol" not in self.errors:
            self.add_error("protocol", "Give the protocol, or choose a preset above.")
        elif preset and data.get("protocol") not in (None, preset_load(START_PRESET)):
            self.add_error(
                "protocol",
                f"You chose the preset {preset}: leave the protocol as it was, or empty, to use the preset's "
                "(you can edit it once the study exists), or choose no preset to use this protocol.",
            )
        return data

    def settings_given(self) -> dict:
        """The study settings the researcher changed on the add form (away from the model's defaults,
        which the form starts with): these win over the preset's."""
        fields = [f for f in Study._meta.concrete_fields if f.name not in NOT_SETTINGS and f.name in self.cleaned_data]
        return {f.name: self.cleaned_data[f.name] for f in fields if self.cleaned_data[f.name] != f.get_default()}


class PoolInline(ScopedChoices, admin.TabularInline):
    model = CountryPool
    extra = 0
    fields = [
        "country", "country_name", "annotations_per_item", "min_distinct_annotators",
        "require_born", "require_nationality", "require_childhood", "require_resident",
    ]


class MockQuestionForm(forms.ModelForm):
    class Meta:
        model = MockQuestion
        fields = ["position", "item", "text", "choices", "expected", "explanation"]

    def clean(self):
        data = super().clean()
        choices, expected = data.get("choices"), data.get("expected")
        if not isinstance(choices, list) or len(choices) < 2 or not all(isinstance(c, str) and c for c in choices):
            self.add_error("choices", 'Give at least two answer labels as a list, e.g. ["No", "Yes"].')
        elif expected not in choices:
            self.add_error("expected", f"The expected answer must be one of the choices: {', '.join(choices)}.")
        return data


class MockQuestionInline(ScopedChoices, admin.StackedInline):
    model = MockQuestion
    form = MockQuestionForm
    extra = 0
    fields = ["position", "item", "text", "choices", "expected", "explanation"]

    def get_formset(self, request, obj=None, **kwargs):
        """A practice question shows an example item of its own study (none before the study exists)."""
        formset = super().get_formset(request, obj, **kwargs)
        if "item" in formset.form.base_fields:
            examples = Item.objects.filter(study=obj, is_example=True) if obj else Item.objects.none()
            field = formset.form.base_fields["item"]
            field.queryset = owned_choices(examples, request.user)
        return formset


@admin.register(Study)
class StudyAdmin(OwnedAdmin):
    form = StudyForm
    list_display = ["name", "status", "owner", "items_per_session", "created_at"]
    list_filter = ["status"]
    search_fields = ["name"]
    readonly_fields = ["protocol_version", "created_at"]
    inlines = [PoolInline, MockQuestionInline]
    fieldsets = [
        (None, {"fields": ["name", "status", "prolific_study_id"]}),
        ("Sessions", {"fields": [
            "routing", "items_per_session", "lease_minutes", "mock_attempts_allowed", "max_skips_per_session",
        ]}),
        ("Completion codes", {"fields": list(CODE_FIELDS)}),
        ("Texts", {"fields": ["consent_md", "instructions_md"]}),
        ("Protocol", {"fields": ["protocol", "protocol_version", "created_at"]}),
    ]

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("protocol", preset_load(START_PRESET))
        return initial

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            fieldsets = [("Preset", {"fields": ["preset"]}), *fieldsets]
        return fieldsets

    def save_model(self, request, obj, form, change):
        if not change:
            _become(obj, self._create(request, obj, form))
        elif "protocol" in form.changed_data:
            # Save the other fields with the old spec, then replace it through the service, which keeps
            # every version (answers are read with the spec they were given under).
            protocol, obj.protocol = obj.protocol, form.initial["protocol"]
            super().save_model(request, obj, form, change)
            study_set_protocol(study=obj, protocol=protocol)
        else:
            super().save_model(request, obj, form, change)

    def _create(self, request, obj, form) -> Study:
        preset = form.cleaned_data.get("preset")
        if preset:
            return study_create_from_preset(owner=request.user, preset=preset, name=obj.name, **form.settings_given())
        settings = {
            f.name: getattr(obj, f.attname) for f in Study._meta.concrete_fields if f.name not in NOT_SETTINGS
        }
        return study_create(owner=request.user, name=obj.name, protocol=obj.protocol, **settings)

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is CountryPool:
            for pool in form.instance.pools.all():
                quotas_sync(pool=pool)


def _become(obj: Study, saved: Study) -> None:
    """Make the admin's unsaved study the one the service created, so its inlines attach to it."""
    for f in Study._meta.concrete_fields:
        setattr(obj, f.attname, getattr(saved, f.attname))
    obj._state.adding, obj._state.db = False, saved._state.db
    obj.__dict__.pop("spec", None)


@admin.register(CountryPool)
class CountryPoolAdmin(OwnedAdmin):
    owner_path = "study__owner"
    list_display = ["study", "country", "country_name", "annotations_per_item", "min_distinct_annotators"]
    list_filter = ["country"]
    readonly_fields = ["entry_key"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        quotas_sync(pool=obj)


class ItemAdminForm(forms.ModelForm):
    def clean(self):
        data = super().clean()
        study, source = data.get("study"), data.get("source")
        if study and source and source.study_id != study.pk:
            self.add_error("source", "The source must be an item of the same study.")
        return data


@admin.register(Item)
class ItemAdmin(OwnedAdmin):
    owner_path = "study__owner"
    form = ItemAdminForm
    list_display = ["external_id", "study", "country", "model_name", "category", "width", "height", "is_example"]
    list_filter = ["country", "is_example", "model_name"]
    search_fields = ["external_id", "prompt"]
    readonly_fields = ["image_shown", "width", "height", "sha256", "created_at"]
    list_select_related = ["study"]
    # No "Currently: <link>" to the stored file: no URL serves MEDIA_ROOT; the image is shown by
    # the researcher's scoped view instead (image_shown).
    formfield_overrides = {**BOUNDED_JSON, models.ImageField: {"widget": forms.FileInput}}

    @admin.display(description="stored image")
    def image_shown(self, obj):
        if obj is None or not obj.pk or not obj.image:
            return "—"
        url = reverse("studies:item-image", args=[obj.study_id, obj.pk])
        return format_html('<a href="{}">Open the image</a>', url)

    def get_form(self, request, obj=None, change=False, **kwargs):
        """An item's source is another item of its own study."""
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and "source" in form.base_fields:
            field = form.base_fields["source"]
            field.queryset = field.queryset.filter(study_id=obj.study_id).exclude(pk=obj.pk)
        return form
