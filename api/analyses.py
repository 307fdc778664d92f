"""The API's analysis runs and metric uploads of a study. A run is started with the analysis page's
options (its form checks them, with its messages) by the page's service, and answered as a job
(``api/jobs.py``): polled at its address, its whole result fetched once it is done. A metric file is
uploaded as on the page (multipart, the same size limit, refused before it is read when the body
says it is larger) and stored by the page's service. Every lookup is inside the scoped study."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from analysis import metrics, planning, selectors, services
from analysis.fingerprint import data_fingerprint, staleness
from analysis.forms import AnalysisForm, MetricUploadForm, PlannerForm
from analysis.models import DEFAULT_RESAMPLES, MAX_RESAMPLES, MAX_SEED, AnalysisRun, MetricUpload
from studies.selectors import study_for_user

from .base import UploadLimited
from .jobs import JobSerializer, job_response
from .validation import form_cleaned, typed

# --- analysis runs -------------------------------------------------------------------------------


class AnalysisStartSerializer(serializers.Serializer):
    """The analysis page's options (each optional: left out, its default)."""

    complete_only = serializers.BooleanField(
        required=False, help_text="Reports and metric correlation only on prompts with images from every model.")
    resamples = serializers.IntegerField(
        required=False, allow_null=True, help_text=f"Bootstrap resamples behind each alpha's 95% interval: "
        f"0 (no interval) to {MAX_RESAMPLES}; default {DEFAULT_RESAMPLES}.")
    seed = serializers.IntegerField(
        required=False, allow_null=True, help_text=f"The bootstrap's seed (0 to {MAX_SEED}; default 0): the "
        "same seed gives the same intervals.")


class AnalysisRunSerializer(JobSerializer):
    """An analysis run as a job, with its options; its whole result is at ``result_url`` once done."""

    complete_only = serializers.BooleanField()
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    current = serializers.BooleanField(allow_null=True, help_text=(
        "Done: whether it saw the annotations as they are now (false: some changed since); else null."))
    result_url = serializers.SerializerMethodField(help_text="Its whole result (once done; null before).")

    def get_url(self, run) -> str:
        return self._address("api:analysis-detail", run)

    def get_result_url(self, run) -> str | None:
        return self._address("api:analysis-result", run) if run.status == AnalysisRun.Status.DONE else None

    def _address(self, name: str, run) -> str:
        return self.context["request"].build_absolute_uri(reverse(name, args=[run.study_id, run.pk]))


class RunNotDoneSerializer(serializers.Serializer):
    detail = serializers.CharField()
    status = serializers.CharField(help_text="queued, running or failed")
    error = serializers.CharField(help_text="A failed run's reason (blank otherwise).")


LOCATION = OpenApiParameter(
    "Location", OpenApiTypes.URI, OpenApiParameter.HEADER, response=[202], description="The run's address: poll it.")
RETRY_AFTER = OpenApiParameter(
    "Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[200, 202],
    description="Seconds to wait before polling again; sent while the run is queued or running.")


def with_current(runs: list[AnalysisRun], study) -> list[AnalysisRun]:
    """Each run's ``current``: a done run compared with the study's data now (one query), else None."""
    done = [run for run in runs if run.status == AnalysisRun.Status.DONE]
    now = data_fingerprint(study=study) if done else None
    for run in runs:
        run.current = staleness(run.data_fingerprint, now).current if now and run.status == run.Status.DONE else None
    return runs


def run_response(request: Request, study, run: AnalysisRun, *, started: bool = False) -> Response:
    """The run's resource (``api/jobs.py``): 202 with Location when started, else 200."""
    with_current([run], study)
    return job_response(request, run, AnalysisRunSerializer, reverse("api:analysis-detail", args=[study.pk, run.pk]),
                        started=started)


class AnalysisList(generics.ListAPIView):
    """The study's analysis runs, newest first (without their results: see ``result_url``)."""

    serializer_class = AnalysisRunSerializer

    def get_queryset(self):
        self.study = study_for_user(self.request.user, self.kwargs["pk"])
        return self.study.analysis_runs.defer("result", "summary")

    def paginate_queryset(self, queryset):
        return with_current(super().paginate_queryset(queryset) or [], self.study)

    @extend_schema(
        request=AnalysisStartSerializer, parameters=[LOCATION, RETRY_AFTER],
        responses={202: OpenApiResponse(AnalysisRunSerializer, description=(
            "The run, queued (poll its `url`, also in `Location`); a run with the same options on the same "
            "data still going is answered instead of a second one, as on the page."))},
    )
    def post(self, request: Request, pk: int) -> Response:
        """Start an analysis of the study's current annotations, with the analysis page's options (its
        checks and messages)."""
        study = study_for_user(request.user, pk, write=True)
        given = typed(AnalysisStartSerializer, request.data)
        options = form_cleaned(AnalysisForm({k: v for k, v in given.items() if v is not None}))
        try:
            run = services.analysis_start(study=study, user=request.user, **options)
        except services.AnalysisRefused as refused:
            raise ValidationError({"non_field_errors": [str(refused)]}) from None
        run = selectors.analysis_for_study(study=study, pk=run.pk)  # as it is now (with no broker, already run)
        return run_response(request, study, run, started=True)


class AnalysisDetail(generics.GenericAPIView):
    serializer_class = AnalysisRunSerializer

    @extend_schema(parameters=[RETRY_AFTER])
    def get(self, request: Request, pk: int, run_id: int) -> Response:
        """Poll a run: its status and progress (``Retry-After`` while it is queued or running)."""
        study = study_for_user(request.user, pk)
        run = selectors.analysis_for_study(study=study, pk=run_id)
        return run_response(request, study, run)


class AnalysisResult(generics.GenericAPIView):
    serializer_class = AnalysisRunSerializer

    @extend_schema(responses={
        (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=(
            "The run's whole result, as the analysis page's JSON download: agreement per field, pool and "
            "item attribute (Krippendorff's alpha at the top level of each group's figures, Gwet's AC1/AC2 "
            "under `ac`, ICC(1) under `icc` for numeric fields, `thin` saying when the data are too thin), "
            "reports, metric correlation, annotator quality, reviews.")),
        409: OpenApiResponse(RunNotDoneSerializer, description="The run is not done: queued, running or failed."),
    })
    def get(self, request: Request, pk: int, run_id: int) -> HttpResponse:
        """The whole result of a finished run (one JSON document, as the database holds it)."""
        study = study_for_user(request.user, pk)
        run = selectors.analysis_for_study(study=study, pk=run_id)
        if run.status != AnalysisRun.Status.DONE:
            said = f"analysis {run.pk} is {run.get_status_display().lower()}: it has no result"
            body = {"detail": f"{said}. {run.error}" if run.error else said, "status": run.status, "error": run.error}
            return Response(body, status=status.HTTP_409_CONFLICT)
        return HttpResponse(selectors.analysis_result_text(run=run), content_type="application/json")


# --- metric uploads ------------------------------------------------------------------------------

class MetricFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text=(
        f"A CSV of item, country (optional), metric, score; at most {metrics.MAX_UPLOAD_BYTES // (1024 * 1024)} MB."))


class MetricSummarySerializer(serializers.Serializer):
    """What the parser reported of the file."""

    lines = serializers.IntegerField(required=False, help_text="Data lines read.")
    scores = serializers.IntegerField(required=False, help_text="Scores kept.")
    metrics = serializers.ListField(child=serializers.CharField(), required=False)
    unknown_items = serializers.IntegerField(required=False, help_text="Lines left out: the item is not the study's.")
    unknown_item_examples = serializers.ListField(child=serializers.CharField(), required=False)
    unknown_countries = serializers.IntegerField(
        required=False, help_text="Lines left out: the country is not one of the study's pools.")
    unknown_country_examples = serializers.ListField(child=serializers.CharField(), required=False)
    ignored_columns = serializers.ListField(child=serializers.CharField(), required=False)


class MetricUploadSerializer(serializers.ModelSerializer):
    metrics = serializers.ListField(child=serializers.CharField(), help_text="In order of first appearance.")
    summary = serializers.SerializerMethodField()

    class Meta:
        model = MetricUpload
        fields = ("id", "original_name", "rows", "metrics", "summary", "created_at")
        read_only_fields = fields

    @extend_schema_field(MetricSummarySerializer)
    def get_summary(self, upload) -> dict:
        return MetricSummarySerializer(upload.summary if isinstance(upload.summary, dict) else {}).data


class MetricUploadList(UploadLimited, generics.ListAPIView):
    """The study's metric uploads, newest first (the newest is the one an analysis correlates)."""

    serializer_class = MetricUploadSerializer

    upload_limit = staticmethod(metrics.upload_limit)

    def get_queryset(self):
        return study_for_user(self.request.user, self.kwargs["pk"]).metric_uploads.defer("file", "scores_file")

    @extend_schema(request={"multipart/form-data": MetricFileSerializer},
                   responses={201: MetricUploadSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Upload metric scores (multipart, the field ``file``): stored if the file parses against the
        study's items and pools, else a 400 naming ``file`` with the page's line errors; nothing stored."""
        study = study_for_user(request.user, pk, write=True)
        given = typed(MetricFileSerializer, request.data)
        file = form_cleaned(MetricUploadForm(files=given))["file"]
        try:
            upload = metrics.metric_upload_create(study=study, user=request.user, name=file.name, data=file.read())
        except metrics.MetricCSVError as refused:
            more = refused.total - len(refused.errors)
            said = [*refused.errors, *([f"and {more} more problem{'s' if more != 1 else ''}"] if more > 0 else [])]
            raise ValidationError({"file": said}) from None
        return Response(MetricUploadSerializer(upload).data, status=status.HTTP_201_CREATED)


class MetricUploadDetail(generics.GenericAPIView):
    serializer_class = MetricUploadSerializer

    def get(self, request: Request, pk: int, upload_id: int) -> Response:
        study = study_for_user(request.user, pk)
        return Response(MetricUploadSerializer(get_object_or_404(study.metric_uploads, pk=upload_id)).data)


# --- the sample-size planner ------------------------------------------------------------------------


def _planner_parameters() -> list[OpenApiParameter]:
    form = PlannerForm(fields=[], pools=[])
    return [OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.QUERY, required=name == "field",
                             description=f"{f.label}" + (f" (default {f.initial})" if f.initial is not None else "")
                             + (f": {f.help_text}" if f.help_text else ""))
            for name, f in form.fields.items()]


class Planner(generics.GenericAPIView):
    @extend_schema(parameters=_planner_parameters(), responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
        "For the question and pool: `grid`, one entry per (`raters` per item, `items`) with the median simulated "
        "`alpha`, the expected `width` of its 95% interval, whether it `meets` the `target`, and its Prolific "
        "`cost` in minor units (`sessions`, `paid`, `places`, `rewards`, `fees`, `vat`, `total`); `cheapest` "
        "(the cheapest choice that meets the target, or null); `source` (pilot or prior) with the pilot's "
        "`paired_units` and `annotations`, `target_alpha` and `fitted_alpha`."))})
    def get(self, request: Request, pk: int) -> Response:
        """The sample-size planner, as on the planner page: its form's fields as query parameters (only
        `field` is required; the rest default as on the page); a 400 names each bad one."""
        study = study_for_user(request.user, pk)
        blank, _ = planning.planner_form(study)
        defaults = {name: f.initial for name, f in blank.fields.items() if f.initial is not None}
        unknown = {key: ["Unknown parameter."] for key in request.query_params if key not in blank.fields}
        form, pools = planning.planner_form(study, defaults | request.query_params.dict())
        return Response(planning.planner_for_form(study, form_cleaned(form, unknown), pools))


urlpatterns = [
    path("api/v1/studies/<int:pk>/planner/", Planner.as_view(), name="planner"),
    path("api/v1/studies/<int:pk>/analyses/", AnalysisList.as_view(), name="analysis-list"),
    path("api/v1/studies/<int:pk>/analyses/<int:run_id>/", AnalysisDetail.as_view(), name="analysis-detail"),
    path("api/v1/studies/<int:pk>/analyses/<int:run_id>/result/", AnalysisResult.as_view(), name="analysis-result"),
    path("api/v1/studies/<int:pk>/metrics/", MetricUploadList.as_view(), name="metric-list"),
    path("api/v1/studies/<int:pk>/metrics/<int:upload_id>/", MetricUploadDetail.as_view(), name="metric-detail"),
]
