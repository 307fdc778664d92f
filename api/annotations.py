"""The API's annotations of a study: those that count, as the exports ship them
(``Annotation.objects.counted()``: an excluded annotator's, a withdrawn participant's and a flagged
one left out), filtered, a cursor page in id order: one query a page, never the whole study in
memory. An annotator is named by the pseudonym the exports use (``a-`` and twelve hexadecimal
digits), never by a Prolific id."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from django import forms
from django.core.validators import RegexValidator
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.models import Annotation
from studies.selectors import study_for_user

from .base import CursorPage
from .validation import form_cleaned

MAX_ID = 2**63 - 1  # the largest id a database holds: past it, a number is refused, not sent to the database
PSEUDONYM = re.compile(r"a-([0-9a-f]{12})")
COUNTRY = r"^[A-Za-z]{2}$"
COUNTRY_MESSAGE = "A country is its ISO 3166-1 alpha-2 code, e.g. IN."
NOT_AN_ANNOTATOR = "Give the annotator's id, or their pseudonym as the exports write it (a- and 12 hexadecimal digits)."


class OldestFirst(CursorPage):
    ordering = "pk"


class AnnotationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    item = serializers.IntegerField(source="item_id")
    item_external_id = serializers.CharField(source="item.external_id", help_text="The item's id in your data.")
    pool = serializers.IntegerField(source="pool_id")
    country = serializers.CharField(source="pool.country", help_text="The pool's country.")
    annotator = serializers.CharField(source="annotator.pseudonym", help_text="Their pseudonym, as in the exports.")
    protocol_version = serializers.IntegerField()
    answers = serializers.JSONField(help_text="The answers as stored, by field key.")
    skipped = serializers.BooleanField(help_text="The item was skipped (the answers hold only the reason).")
    surplus = serializers.BooleanField(help_text="Submitted after its lease expired, the item already full.")
    time_spent_ms = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    submitted_at = serializers.DateTimeField()
    effort = serializers.JSONField(
        allow_null=True,
        help_text="For review only: the item page's honest-effort counts ({fields: {input name: {pasted, typed, keys, "
        "burst}}, blurs, hidden_ms}; never the text typed), null when the page sent none.",
    )


class AnnotationFilterForm(forms.Form):
    pool = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    country = forms.CharField(required=False, validators=[RegexValidator(COUNTRY, COUNTRY_MESSAGE)])
    item = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    annotator = forms.CharField(required=False, max_length=64)
    protocol_version = forms.IntegerField(required=False, min_value=1, max_value=2**31 - 1)
    since = forms.DateTimeField(required=False)
    until = forms.DateTimeField(required=False)

    def clean_annotator(self) -> dict | None:
        given = self.cleaned_data["annotator"]
        if not given:
            return None
        if given.isascii() and given.isdigit():
            return {"annotator_id": int(given)} if int(given) <= MAX_ID else {"pk__in": []}  # past any id: none
        if match := PSEUDONYM.fullmatch(given):
            # the pseudonym is the start of the annotator's public id: every id it may begin
            low, high = uuid.UUID(match[1] + "0" * 20), uuid.UUID(match[1] + "f" * 20)
            return {"annotator__public_id__range": (low, high)}
        raise forms.ValidationError(NOT_AN_ANNOTATOR)

    def clean_since(self) -> datetime | None:
        return _comparable(self.cleaned_data["since"])

    def clean_until(self) -> datetime | None:
        return _comparable(self.cleaned_data["until"])


def _comparable(moment: datetime | None) -> datetime | None:
    """A moment the database can compare: in UTC; one of year 1 or 9999 whose offset takes it off the
    calendar in UTC is the calendar's first or last moment (nothing was submitted before or after)."""
    if moment is None:
        return None
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError):
        return (datetime.min if moment.year == 1 else datetime.max).replace(tzinfo=UTC)


def annotations_filtered(queryset, cleaned: dict):
    """``queryset`` narrowed by the filters given (those left blank: any)."""
    lookups = {
        "pool_id": cleaned["pool"], "item_id": cleaned["item"], "protocol_version": cleaned["protocol_version"],
        "pool__country": cleaned["country"].upper() or None,
        "submitted_at__gte": cleaned["since"], "submitted_at__lt": cleaned["until"],
    }
    queryset = queryset.filter(**{k: v for k, v in lookups.items() if v is not None})
    return queryset.filter(**cleaned["annotator"]) if cleaned["annotator"] else queryset


ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
ANNOTATION_FILTERS = [
    OpenApiParameter("pool", ID, description="A pool's id."),
    OpenApiParameter("country", {"type": "string", "pattern": COUNTRY}, description="The pool's country, e.g. IN."),
    OpenApiParameter("item", ID, description="An item's id."),
    OpenApiParameter("annotator", {"type": "string", "pattern": r"^([0-9]+|a-[0-9a-f]{12})$"},
                     description="An annotator's id, or their pseudonym (a-…, as in the exports)."),
    OpenApiParameter("protocol_version", {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
                     description="Given under this version of the protocol."),
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="Submitted at or after (ISO 8601)."),
    OpenApiParameter("until", OpenApiTypes.DATETIME, description="Submitted before (ISO 8601)."),
]


class AnnotationList(generics.ListAPIView):
    """The annotations that count (as in the exports), in the order they were given."""

    serializer_class = AnnotationSerializer
    pagination_class = OldestFirst

    def get_queryset(self):
        study = study_for_user(self.request.user, self.kwargs["pk"])
        cleaned = form_cleaned(AnnotationFilterForm(self.request.query_params))
        annotations = Annotation.objects.counted().filter(study=study)
        return annotations_filtered(annotations, cleaned).select_related("item", "pool", "annotator").only(
            "id", "item", "item__external_id", "pool", "pool__country", "annotator", "annotator__public_id",
            "protocol_version", "answers", "skipped", "surplus", "time_spent_ms", "started_at", "submitted_at",
            "effort",
        )

    @extend_schema(parameters=ANNOTATION_FILTERS, responses={
        200: AnnotationSerializer(many=True),
        400: OpenApiResponse(OpenApiTypes.OBJECT, description="A filter refused: each named with its messages."),
    })
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


urlpatterns = [
    path("api/v1/studies/<int:pk>/annotations/", AnnotationList.as_view(), name="annotation-list"),
]
