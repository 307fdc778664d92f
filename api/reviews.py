"""The API's quality check, for researchers (checkers review on their pages and have no API): the
study's reviews, listed with filters and read one by one, and each pool's review target with its
progress, set through the page's service (``review_target_set``). The reviews are read by the study's
members (they are what its analysis figures are made of); the target is changed by its editors and
owner, as on the review page."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.models import Review
from annotation.reviews import selectors, services
from studies.models import CountryPool, Study
from studies.selectors import pool_for_user, study_for_user

from .validation import typed

BIGINT = 2**63 - 1  # an id of the database; a bigger number names nothing
BAD_FILTER = OpenApiResponse({"$ref": "#/components/schemas/FieldErrors"}, description="A filter refused, named.")


class ReviewSerializer(serializers.ModelSerializer):
    annotation = serializers.IntegerField(source="annotation_id")
    pool = serializers.IntegerField(source="annotation.pool_id")
    country = serializers.CharField(source="annotation.pool.country")
    checker = serializers.CharField(source="reviewer.username", help_text="Who reviewed it (an account's name).")
    labels = serializers.DictField(
        help_text="The checker's answers to the reviewed fields, shaped like the annotation's answers: the "
        "annotator's own when accepted, the checker's changes when flagged."
    )

    class Meta:
        model = Review
        fields = ("id", "annotation", "pool", "country", "checker", "outcome", "note", "labels", "created_at")
        read_only_fields = fields


class ReviewFilterSerializer(serializers.Serializer):
    pool = serializers.IntegerField(required=False, min_value=1, max_value=BIGINT, help_text="A pool's id.")
    outcome = serializers.ChoiceField(choices=Review.Outcome.choices, required=False)
    checker = serializers.CharField(required=False, max_length=150, help_text="A checker's account name.")


def study_reviews(study: Study) -> QuerySet[Review]:
    return Review.objects.filter(annotation__study=study).select_related("annotation__pool", "reviewer")


class ReviewList(generics.ListAPIView):
    """The study's reviews, newest first, filtered by pool, outcome and checker. As on the review
    pages, they are the owner's and editors' to read (a viewer: 403)."""

    serializer_class = ReviewSerializer

    @extend_schema(parameters=[ReviewFilterSerializer], responses={200: ReviewSerializer(many=True), 400: BAD_FILTER})
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        study = study_for_user(self.request.user, self.kwargs["pk"], write=True)  # as the review pages
        known = ReviewFilterSerializer().fields
        given = ReviewFilterSerializer(data={k: v for k, v in self.request.query_params.items() if k in known})
        given.is_valid(raise_exception=True)
        chosen = given.validated_data
        reviews = study_reviews(study)
        if "pool" in chosen:  # a pool of another study: no review of this study is in it
            reviews = reviews.filter(annotation__pool_id=chosen["pool"])
        if "outcome" in chosen:
            reviews = reviews.filter(outcome=chosen["outcome"])
        if "checker" in chosen:
            reviews = reviews.filter(reviewer__username=chosen["checker"])
        return reviews


class ReviewDetail(generics.GenericAPIView):
    serializer_class = ReviewSerializer

    def get(self, request: Request, pk: int, review_id: int) -> Response:
        study = study_for_user(request.user, pk, write=True)  # as the review pages
        return Response(ReviewSerializer(get_object_or_404(study_reviews(study), pk=review_id)).data)


class ReviewProgressSerializer(serializers.Serializer):
    reviewed = serializers.IntegerField()
    total = serializers.IntegerField(help_text="The pool's annotations that can be reviewed (skipped items left out).")
    target = serializers.IntegerField(help_text="Reviews the target asks for.")
    left = serializers.IntegerField(help_text="Annotations not reviewed yet.")
    reached = serializers.BooleanField()
    percent = serializers.IntegerField(help_text="Reviewed, as a share of the target (at most 100).")


class ReviewTargetSerializer(serializers.Serializer):
    pool = serializers.IntegerField(source="pool.pk")
    country = serializers.CharField(source="pool.country")
    percent = serializers.IntegerField(source="target_percent", help_text="The share of annotations to review.")
    progress = ReviewProgressSerializer(source="*")


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": 100, "description": "A whole percentage."})
class Percent(serializers.IntegerField):
    """A JSON integer (not "30" nor 30.5: the schema says integer). The schema says the range; the
    refusal of another number, and its message, are the service's."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return data


class ReviewTargetSetSerializer(serializers.Serializer):
    percent = Percent()


class ReviewTargetView(generics.GenericAPIView):
    serializer_class = ReviewTargetSerializer

    @staticmethod
    def shown(pool: CountryPool) -> Response:
        progress = selectors.review_progress(pool)
        row = {"pool": pool, "target_percent": progress.target_percent, "reviewed": progress.reviewed,
               "total": progress.total, "target": progress.target, "left": progress.left,
               "reached": progress.reached, "percent": progress.percent}
        return Response(ReviewTargetSerializer(row).data)

    def get(self, request: Request, pk: int, pool_id: int) -> Response:
        """The pool's review target and how much of the pool is reviewed against it."""
        return self.shown(pool_for_user(request.user, pk, pool_id))

    @extend_schema(request=ReviewTargetSetSerializer, responses=ReviewTargetSerializer)
    def put(self, request: Request, pk: int, pool_id: int) -> Response:
        """Set the share of the pool's annotations its checkers aim to review (the review page's rule)."""
        pool = pool_for_user(request.user, pk, pool_id, write=True)
        given = typed(ReviewTargetSetSerializer, request.data)
        try:
            services.review_target_set(pool=pool, percent=given["percent"])
        except services.ReviewTargetRefused as refused:
            raise ValidationError({"percent": [str(refused)]}) from None
        return self.shown(pool)


urlpatterns = [
    path("api/v1/studies/<int:pk>/reviews/", ReviewList.as_view(), name="review-list"),
    path("api/v1/studies/<int:pk>/reviews/<int:review_id>/", ReviewDetail.as_view(), name="review-detail"),
    path(
        "api/v1/studies/<int:pk>/pools/<int:pool_id>/review-target/", ReviewTargetView.as_view(),
        name="review-target",
    ),
]
