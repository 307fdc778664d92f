from django.contrib import admin

from .models import Annotation, Annotator, Assignment, Session


class ReadOnlyAdmin(admin.ModelAdmin):
    """Collected data is evidence: researchers may look, never edit."""

    owner_path = "study__owner"

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser else qs.filter(**{self.owner_path: request.user})

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Annotator)
class AnnotatorAdmin(ReadOnlyAdmin):
    list_display = ["pseudonym", "study", "pool", "outcome", "mock_attempts", "created_at"]
    list_filter = ["outcome", "pool__country"]
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
    list_filter = ["pool__country", "surplus"]
    list_select_related = ["item", "pool", "annotator"]
