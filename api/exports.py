"""The API's exports: the formats a study may be exported in, an export started (a job: 202, polled),
listed, cancelled, and its file and manifest once done. Every lookup is scoped to the study the token's
user may see (``study_for_user``); starting and cancelling need the study's write role, as on the
page; the checks and messages are the export service's (``exports.services``)."""

from __future__ import annotations

from typing import Any

from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from exports import services
from exports.downloads import export_file_response
from exports.formats import FORMATS, ExportFormat, formats_for
from exports.formats.base import LICENSES
from exports.models import ExportJob, Release
from exports.releases import release_info
from stats.versions import ProtocolSet
from studies.models import Study
from studies.selectors import study_for_user

from .base import AnyAccept
from .jobs import JobSerializer, job_response
from .validation import typed

NO_FILE = "This export has no file: it is {status}. Poll it until its status is done."
ENDED = "That export had already ended."


class ConflictSerializer(serializers.Serializer):
    """A 409: the request is well formed, but the state of the study or the job refuses it."""

    detail = serializers.CharField()


def conflict(message: str) -> Response:
    return Response({"detail": message}, status=status.HTTP_409_CONFLICT)


def offered(study: Study) -> list[ExportFormat]:
    """The formats the study's page offers: those that fit its current protocol, in catalog order."""
    return formats_for(ProtocolSet(current=study.spec, current_version=study.protocol_version))


# --- what is shown and taken -------------------------------------------------------------------


class ExportFormatSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="What an export's `format` takes.")
    title = serializers.CharField(source="label")
    description = serializers.CharField()
    media_type = serializers.CharField(
        source="content_type", help_text="Of the downloaded file when it is one file (a ZIP otherwise)."
    )
    extension = serializers.CharField()
    options = serializers.ListField(
        child=serializers.CharField(), help_text="The options it reads: `license`, `images`."
    )


# The schema names the choices; the refusal of another value, and its message, are the service's.
@extend_schema_field({"type": "string", "enum": list(FORMATS), "default": "csv",
                      "description": "A format of the catalog; `export-formats/` lists those this study may use."})
class FormatName(serializers.CharField):
    pass


@extend_schema_field({"type": "string", "enum": list(LICENSES), "default": LICENSES[0],
                      "description": "The dataset card's license."})
class LicenseName(serializers.CharField):
    pass


class JsonBoolean(serializers.BooleanField):
    """true or false, as JSON writes them (not 0, 1 or "yes": the schema says boolean)."""

    def to_internal_value(self, data):
        if data is True or data is False:
            return data
        self.fail("invalid", input=data)


class ExportOptionsSerializer(serializers.Serializer):
    license = LicenseName(required=False)
    images = JsonBoolean(required=False, help_text="Ship the items' images (default false).")


class ExportStartSerializer(serializers.Serializer):
    format = FormatName(required=False, default="csv")
    options = ExportOptionsSerializer(required=False)


class ReleaseSerializer(serializers.Serializer):
    """The numbered release of the study's gold data an export is of (``exports.releases``)."""

    number = serializers.IntegerField(help_text="1 for the study's first release, then one more for each.")
    version = serializers.SerializerMethodField(help_text="As the dataset card and Croissant cite it: N.0.0.")
    changes = serializers.ListField(child=serializers.CharField(), help_text="What changed since the release "
                                    "before, a sentence each.")

    def get_version(self, release: Release) -> str:
        return release_info(release).version


class ExportJobSerializer(JobSerializer):
    """An export: the job's core fields, what it was asked for, and once done its rows, manifest,
    the release it is of and the addresses of its file and manifest."""

    format = serializers.CharField()
    options = ExportOptionsSerializer()
    rows = serializers.IntegerField(help_text="Annotations exported (once done).")
    analysis_run = serializers.IntegerField(source="analysis_id", help_text="The analysis run it was gated on.")
    manifest = serializers.SerializerMethodField()
    release = ReleaseSerializer(read_only=True, allow_null=True, help_text="The release it is of, once written "
                                "(null before, and for exports made before releases).")
    download_url = serializers.SerializerMethodField()
    manifest_url = serializers.SerializerMethodField()

    def _address(self, job: ExportJob, name: str = "") -> str:
        where = reverse(f"api:export-{name or 'detail'}", args=[job.study_id, job.pk])
        return self.context["request"].build_absolute_uri(where)

    def _done(self, job: ExportJob) -> bool:
        return job.status == ExportJob.Status.DONE and bool(job.file)

    def get_url(self, job: ExportJob) -> str:
        return self._address(job)

    @extend_schema_field({"type": "object", "additionalProperties": {}, "nullable": True})
    def get_manifest(self, job: ExportJob) -> dict[str, Any] | None:
        return job.manifest if self._done(job) else None

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_download_url(self, job: ExportJob) -> str | None:
        return self._address(job, "download") if self._done(job) else None

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_manifest_url(self, job: ExportJob) -> str | None:
        return self._address(job, "manifest") if self._done(job) else None


def flat_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """A serializer's errors with nested fields named ``options.license`` (every value a list of text)."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" and prefix else f"{prefix}.{key}" if prefix else str(key)
            for k, v in flat_errors(value, name).items():
                out.setdefault(k, []).extend(v)
        return out
    return {prefix or "non_field_errors": [str(m) for m in (detail if isinstance(detail, list) else [detail])]}


def start_given(data: Any) -> tuple[str, dict[str, Any]]:
    """The format and options asked for (JSON types only), or a 400 naming each field."""
    try:
        given = typed(ExportStartSerializer, data)
        raw = data.get("options")
        if isinstance(raw, dict):
            unknown = {f"options.{k}": ["Unknown field."] for k in raw if k not in ExportOptionsSerializer().fields}
            if unknown:
                raise ValidationError(unknown)
    except ValidationError as refused:
        raise ValidationError(flat_errors(refused.detail)) from None
    return given["format"], dict(given.get("options") or {})


# --- the views ---------------------------------------------------------------------------------


class ExportFormatList(generics.GenericAPIView):
    serializer_class = ExportFormatSerializer
    pagination_class = None

    @extend_schema(responses=ExportFormatSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        """The formats this study may be exported in (those that fit its protocol: a short, fixed list)."""
        study = study_for_user(request.user, pk)
        return Response(ExportFormatSerializer(offered(study), many=True).data)


def job_path(job: ExportJob) -> str:
    return reverse("api:export-detail", args=[job.study_id, job.pk])


class ExportList(generics.ListAPIView):
    """The study's exports, newest first."""

    serializer_class = ExportJobSerializer

    def get_queryset(self):
        return study_for_user(self.request.user, self.kwargs["pk"]).export_jobs.select_related("release")

    @extend_schema(
        request=ExportStartSerializer,
        responses={
            202: ExportJobSerializer,
            409: OpenApiResponse(ConflictSerializer, description="No analysis has finished on the current data "
                                 "(none yet, or annotations came since): run the analysis first; or the format "
                                 "does not fit the study's protocol (see `export-formats/`)."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Start an export in a format (the page's checks and messages): 202 with the job to poll."""
        study = study_for_user(request.user, pk, write=True)
        name, options = start_given(request.data)
        try:
            fmt = services.export_format(name)
        except services.ExportRefused as refused:
            raise ValidationError({"format": [str(refused)]}) from None
        if fmt not in offered(study):  # known, but not for this study's protocol (the page offers it not)
            return conflict(f"The {fmt.label} format does not fit this study's protocol.")
        try:
            services.export_options(options)
        except services.ExportRefused as refused:
            raise ValidationError({"options.license": [str(refused)]}) from None
        try:
            job = services.export_start(study=study, user=request.user, format=name, options=options)
        except services.ExportRefused as refused:  # the gate: the analysis is missing or stale
            return conflict(str(refused))
        return job_response(request, job, ExportJobSerializer, job_path(job), started=True)


def export_of(request: Request, pk: int, job_id: int, *, write: bool = False) -> ExportJob:
    """One export of a study the user may see (``write``: may change), or 404."""
    study = study_for_user(request.user, pk, write=write)
    job = get_object_or_404(study.export_jobs, pk=job_id)
    job.study = study
    return job


class ExportDetail(generics.GenericAPIView):
    serializer_class = ExportJobSerializer

    def get(self, request: Request, pk: int, job_id: int) -> Response:
        """The export's state: poll it (``Retry-After`` while it runs) until done or failed."""
        job = export_of(request, pk, job_id)
        return job_response(request, job, ExportJobSerializer, job_path(job))


class ExportCancel(generics.GenericAPIView):
    serializer_class = ExportJobSerializer

    @extend_schema(
        request=None,
        responses={200: ExportJobSerializer, 409: OpenApiResponse(ConflictSerializer, description=ENDED)},
    )
    def post(self, request: Request, pk: int, job_id: int) -> Response:
        """Stop an export that is queued or running; no file of it is kept."""
        job = export_of(request, pk, job_id, write=True)
        if not services.export_cancel(job=job, user=request.user):
            return conflict(ENDED)
        job.refresh_from_db()
        return job_response(request, job, ExportJobSerializer, job_path(job))


FILE_TYPES = sorted({"application/zip", *(f.content_type for f in FORMATS.values())})
NOT_DONE = OpenApiResponse(ConflictSerializer, description="The export is not done (queued, running or failed).")


def done_export(request: Request, pk: int, job_id: int) -> ExportJob | Response:
    job = export_of(request, pk, job_id)
    if job.status != ExportJob.Status.DONE or not job.file:
        return conflict(NO_FILE.format(status=job.status))
    return job


class ExportDownload(generics.GenericAPIView):
    content_negotiation_class = AnyAccept

    @extend_schema(responses={
        **{(200, media): OpenApiResponse(OpenApiTypes.BINARY, description="The export's file, as an attachment "
                                         "named for the study, the format and the day.") for media in FILE_TYPES},
        302: OpenApiResponse(description="On a remote storage (S3): a short-lived signed address of the file."),
        409: NOT_DONE,
    })
    def get(self, request: Request, pk: int, job_id: int) -> HttpResponseBase:
        """The export's file (the page's download): one file of the format, or a ZIP of its tables and
        manifest.json (`gold`: gold tables in CSV and Parquet)."""
        job = done_export(request, pk, job_id)
        return job if isinstance(job, Response) else export_file_response(job.study, job)


class ExportManifest(generics.GenericAPIView):
    @extend_schema(responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="manifest.json: the "
                              "study, format, analysis run, data fingerprint, files with rows and sha256."),
                              409: NOT_DONE})
    def get(self, request: Request, pk: int, job_id: int) -> Response:
        """The export's manifest (JSON)."""
        job = done_export(request, pk, job_id)
        return job if isinstance(job, Response) else Response(job.manifest or {})


JOB = "api/v1/studies/<int:pk>/exports/<int:job_id>/"

urlpatterns = [
    path("api/v1/studies/<int:pk>/export-formats/", ExportFormatList.as_view(), name="export-formats"),
    path("api/v1/studies/<int:pk>/exports/", ExportList.as_view(), name="export-list"),
    path(JOB, ExportDetail.as_view(), name="export-detail"),
    path(f"{JOB}cancel/", ExportCancel.as_view(), name="export-cancel"),
    path(f"{JOB}download/", ExportDownload.as_view(), name="export-download"),
    path(f"{JOB}manifest/", ExportManifest.as_view(), name="export-manifest"),
]
