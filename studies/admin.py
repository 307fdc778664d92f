from django import forms
from django.contrib import admin

from . import protocol as protocol_engine
from .models import CountryPool, Item, MockQuestion, Study
from .services import preset_load, quotas_sync


class OwnedAdmin(admin.ModelAdmin):
    """Researchers see and edit only their own studies and what hangs off them."""

    owner_path = "owner"

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser else qs.filter(**{self.owner_path: request.user})

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "study" and not request.user.is_superuser:
            kwargs["queryset"] = Study.objects.filter(owner=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class StudyForm(forms.ModelForm):
    class Meta:
        model = Study
        exclude = ["owner"]

    def clean_protocol(self):
        spec = self.cleaned_data["protocol"]
        try:
            protocol_engine.parse_spec(spec)
        except protocol_engine.SpecError as exc:
            raise forms.ValidationError(exc.errors) from None
        return spec

    def clean(self):
        data = super().clean()
        codes = [data.get(k) for k in ("code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent")]
        if all(codes) and len(set(codes)) != len(codes):
            raise forms.ValidationError("Each completion code must be different: Prolific tells outcomes apart by code.")
        return data


class PoolInline(admin.TabularInline):
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


class MockQuestionInline(admin.StackedInline):
    model = MockQuestion
    form = MockQuestionForm
    extra = 0
    fields = ["position", "item", "text", "choices", "expected", "explanation"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "item":
            kwargs["queryset"] = Item.objects.filter(is_example=True)
            if not request.user.is_superuser:
                kwargs["queryset"] = kwargs["queryset"].filter(study__owner=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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
        ("Sessions", {"fields": ["items_per_session", "lease_minutes", "mock_attempts_allowed"]}),
        ("Completion codes", {"fields": ["code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent"]}),
        ("Texts", {"fields": ["consent_md", "instructions_md"]}),
        ("Protocol", {"fields": ["protocol", "protocol_version", "created_at"]}),
    ]

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("protocol", preset_load("culturalframes-rating"))
        return initial

    def save_model(self, request, obj, form, change):
        if not change:
            obj.owner = request.user
        elif "protocol" in form.changed_data:
            obj.protocol_version += 1
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is CountryPool:
            for pool in form.instance.pools.all():
                quotas_sync(pool=pool)


@admin.register(CountryPool)
class CountryPoolAdmin(OwnedAdmin):
    owner_path = "study__owner"
    list_display = ["study", "country", "country_name", "annotations_per_item", "min_distinct_annotators"]
    list_filter = ["country"]
    readonly_fields = ["entry_key"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        quotas_sync(pool=obj)


@admin.register(Item)
class ItemAdmin(OwnedAdmin):
    owner_path = "study__owner"
    list_display = ["external_id", "study", "country", "model_name", "category", "width", "height", "is_example"]
    list_filter = ["country", "is_example", "model_name"]
    search_fields = ["external_id", "prompt"]
    readonly_fields = ["width", "height", "sha256", "created_at"]
    list_select_related = ["study"]
