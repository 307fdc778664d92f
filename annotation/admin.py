from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model

from studies.admin import ScopedChoices
from studies.models import CountryPool
from studies.selectors import owned_by, owned_choices

from .models import Annotation, Annotator, Assignment, Checker, Review, ReviewTarget, Session


class PoolCountryFilter(admin.SimpleListFilter):
    """A row's pool's country, offering only the countries of the researcher's own pools (every pool's
    for a superuser), scoped by ``owned_choices`` as ``ScopedChoices`` scopes a form's choices: Django's
    own filter on ``pool__country`` would list the countries of every researcher's pools."""

    title = "country"
    parameter_name = "pool__country"  # the lookup from a row to its pool's country, as the address says it

    def lookups(self, request, model_admin):
        pools = owned_choices(CountryPool.objects.all(), request.user)
        names = dict(pools.values_list("country", "country_name"))
        return sorted(names.items(), key=lambda choice: choice[1])

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(**{self.parameter_name: self.value()})


class AnnotationPoolCountryFilter(PoolCountryFilter):
    parameter_name = "annotation__pool__country"


class ReadOnlyAdmin(ScopedChoices, admin.ModelAdmin):
    """Collected data is evidence: researchers may look, never edit."""

    owner_path = "study__owner"

    def get_queryset(self, request):
        return owned_by(super().get_queryset(request), request.user, owner_path=self.owner_path)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Annotator)
class AnnotatorAdmin(ReadOnlyAdmin):
    list_display = ["pseudonym", "study", "pool", "outcome", "mock_attempts", "created_at"]
    list_filter = ["outcome", PoolCountryFilter]
    search_fields = ["prolific_pid"]
    list_select_related = ["study", "pool"]


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    owner_path = "annotator__study__owner"
    list_display = ["annotator", "prolific_session_id", "items_target", "started_at", "completed_at"]
    list_select_related = ["annotator"]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    owner_path = "pool__study__owner"
    list_display = ["item", "annotator", "pool", "status", "leased_at", "expires_at"]
    list_filter = ["status"]
    list_select_related = ["item", "annotator", "pool"]


@admin.register(Annotation)
class AnnotationAdmin(ReadOnlyAdmin):
    list_display = ["id", "item", "pool", "annotator", "surplus", "time_spent_ms", "submitted_at"]
    list_filter = [PoolCountryFilter, "surplus"]
    list_select_related = ["item", "pool", "annotator"]


# --- quality check ----------------------------------------------------------------------------


class StudyOwnerAdmin(ScopedChoices, admin.ModelAdmin):
    """What the owner of a study manages for its pools (checkers, review targets): a researcher sees
    and edits only the rows of their own studies' pools, and may pick only those pools.

    Owning a study is the permission, as for the study itself: any staff user who owns a study may
    manage its checkers, whatever their model permissions."""

    owner_path = "pool__study__owner"

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("pool__study")
        return owned_by(qs, request.user, owner_path=self.owner_path)

    def _owns_a_study(self, request) -> bool:
        return request.user.is_active and request.user.is_staff and (
            request.user.is_superuser or request.user.studies.exists()
        )

    def has_module_permission(self, request):
        return self._owns_a_study(request)

    def has_view_permission(self, request, obj=None):
        return self._owns_a_study(request)

    def has_add_permission(self, request):
        return self._owns_a_study(request)

    def has_change_permission(self, request, obj=None):
        return self._owns_a_study(request)

    def has_delete_permission(self, request, obj=None):
        return self._owns_a_study(request)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "pool":  # in the order a researcher looks for them; scoped by ScopedChoices
            kwargs["queryset"] = CountryPool.objects.select_related("study").order_by("study__name", "country_name")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class CheckerForm(forms.ModelForm):
    """The checker is named by username: a researcher never browses the list of accounts."""

    username = forms.CharField(help_text="The checker's account, as they log in. Ask an administrator to create it.")

    class Meta:
        model = Checker
        fields = ["pool", "username", "prolific_pid"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["username"].initial = self.instance.user.get_username()

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"No active account is called “{username}”.")
        self.instance.user = user
        return username

    def clean(self):
        data = super().clean()
        pool, user = data.get("pool"), getattr(self.instance, "user", None) if "username" in data else None
        if pool and user and Checker.objects.filter(pool=pool, user=user).exclude(pk=self.instance.pk).exists():
            self.add_error("username", f"{user.get_username()} is already a checker of {pool}.")
        return data


@admin.register(Checker)
class CheckerAdmin(StudyOwnerAdmin):
    form = CheckerForm
    list_display = ["user", "pool", "prolific_pid", "created_at"]
    list_filter = [PoolCountryFilter]
    list_select_related = ["user", "pool__study"]
    search_fields = ["user__username", "pool__country_name"]


@admin.register(ReviewTarget)
class ReviewTargetAdmin(StudyOwnerAdmin):
    list_display = ["pool", "percent"]
    fields = ["pool", "percent"]


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    owner_path = "annotation__study__owner"
    list_display = ["annotation", "outcome", "reviewer", "created_at"]
    list_filter = ["outcome", AnnotationPoolCountryFilter]
    list_select_related = ["annotation__item", "reviewer"]
    readonly_fields = ["annotation", "reviewer", "outcome", "labels", "note", "created_at"]

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser or super().has_view_permission(request, obj) or (
            request.user.is_staff and request.user.studies.exists()
        )
