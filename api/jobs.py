"""Long work over the API: a start answers 202 with the job's resource (its ``url`` also in the
``Location`` header) and the client polls that address until ``status`` is ``done`` or ``failed``.
Every kind of job (an import, an analysis run, an export, a Prolific action) shows the same core
fields, so one polling loop serves them all; a job still going carries ``Retry-After`` (seconds)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

POLL_SECONDS = 2  # Retry-After on a job still queued or running

ACTIVE = ("queued", "running", "waiting")


class JobSerializer(serializers.Serializer):
    """What every job shows; a kind adds its own fields (its result's address, its counts)."""

    id = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text="queued, running (a Prolific action also waiting), done or failed")
    progress = serializers.IntegerField(required=False, help_text="0–100")
    error = serializers.CharField(help_text="Why it failed (blank otherwise).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField(help_text="This job's address: poll it.")

    def get_url(self, job) -> str:
        return self.context["request"].build_absolute_uri(self.context["job_path"])


def job_response(request: Request, job: Any, serializer_class: type[JobSerializer], path: str,
                 *, started: bool = False) -> Response:
    """The job's resource: 202 with ``Location`` when it was just started (``started``), else 200;
    ``Retry-After`` while it is still going. ``path`` is the job's own address (``reverse``)."""
    data = serializer_class(job, context={"request": request, "job_path": path}).data
    response = Response(data, status=status.HTTP_202_ACCEPTED if started else status.HTTP_200_OK)
    if started:
        response["Location"] = data["url"]
    if job.status in ACTIVE:
        response["Retry-After"] = str(POLL_SECONDS)
    return response
