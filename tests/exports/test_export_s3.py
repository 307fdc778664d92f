"""The export on S3: django-storages' S3 backend against a real S3-protocol HTTP server (moto's,
started here on a loopback port), the file stored only when whole and downloaded through the
signed URL the page redirects to."""

import hashlib
import urllib.request
from unittest import mock

import boto3
import pyarrow.parquet as pq
import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.formats import FORMATS
from exports.models import ExportJob
from exports.services import export_build, export_start
from tests.annotations import annotate, annotators

moto_server = pytest.importorskip("moto.server")  # a test-only dependency (requirements-test.txt)

BUCKET = "tessera-exports-test"
KEYS = {"access_key": "testing-key", "secret_key": "testing-secret"}


@pytest.fixture(scope="module")
def s3_endpoint():
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(s3_endpoint, settings):
    client = boto3.client(
        "s3", endpoint_url=s3_endpoint, region_name="us-east-1",
        aws_access_key_id=KEYS["access_key"], aws_secret_access_key=KEYS["secret_key"],
    )
    client.create_bucket(Bucket=BUCKET)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET, "endpoint_url": s3_endpoint, "region_name": "us-east-1",
                "querystring_auth": True, "file_overwrite": False, **KEYS,
            },
        },
    }
    yield client
    for entry in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=entry["Key"])
    client.delete_bucket(Bucket=BUCKET)


@pytest.fixture
def analysed(study, pool, items, owner):
    for rater in annotators(pool, 2):
        for item in items[:3]:
            annotate(rater, item)
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    return study


def keys(client) -> list[str]:
    """The exports in the bucket (the items' images are there too)."""
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix="exports/").get("Contents", [])
    return [e["Key"] for e in listed]


def test_it_exports_to_s3_and_downloads_through_the_signed_url(s3, analysed, owner, client, tmp_path):
    job = export_build(job_id=export_start(study=analysed, user=owner, format="parquet").pk)
    assert job.status == ExportJob.Status.DONE, job.error
    assert keys(s3) == [job.file.name]
    client.force_login(owner)
    response = client.get(reverse("exports:export-download", args=[analysed.pk, job.pk]))
    assert response.status_code == 302
    url = response["Location"]
    assert url.startswith(s3.meta.endpoint_url) and "Signature=" in url and "response-content-disposition" in url
    with urllib.request.urlopen(url, timeout=10) as fetched:  # the browser's request: no credentials of ours
        body = fetched.read()
        disposition = fetched.headers.get("Content-Disposition", "")
    assert hashlib.sha256(body).hexdigest() == job.manifest["files"][0]["sha256"]
    path = tmp_path / "export.parquet"
    path.write_bytes(body)
    assert pq.read_table(path).num_rows == 6
    day = job.finished_at.date().isoformat()
    assert disposition == f'attachment; filename="culturalframes-rating_parquet_{day}.parquet"'


def test_a_tampered_signed_url_is_refused(s3, analysed, owner, client):
    job = export_build(job_id=export_start(study=analysed, user=owner, format="csv").pk)
    client.force_login(owner)
    url = client.get(reverse("exports:export-download", args=[analysed.pk, job.pk]))["Location"]
    other = url.replace(job.file.name.rsplit("/", 1)[-1], "export-999.csv")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(other, timeout=10)
    assert refused.value.code in (403, 404)


def test_another_researcher_gets_no_signed_url(s3, analysed, owner, other_researcher, client):
    job = export_build(job_id=export_start(study=analysed, user=owner, format="csv").pk)
    client.force_login(other_researcher)
    assert client.get(reverse("exports:export-download", args=[analysed.pk, job.pk])).status_code == 404


def test_a_failed_export_leaves_nothing_in_the_bucket(s3, analysed, owner):
    job = export_start(study=analysed, user=owner, format="jsonl")
    real = FORMATS["jsonl"]

    def failing(folder, tables, protocols, origin):
        writer = real.opener(folder, tables, protocols, origin)
        writer.close = mock.Mock(side_effect=OSError("no space left"))
        return writer

    import dataclasses

    with mock.patch.dict(FORMATS, {"jsonl": dataclasses.replace(real, opener=failing)}):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and not job.file
    assert keys(s3) == []


def test_a_job_cancelled_during_the_upload_deletes_the_object(s3, analysed, owner):
    from django.core.files.storage import default_storage

    job = export_start(study=analysed, user=owner, format="csv")
    real_save = default_storage.save
    uploaded = []

    def save_then_cancel(name, content):
        uploaded.append(real_save(name, content))
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error="Cancelled.")
        return uploaded[-1]

    with mock.patch.object(default_storage, "save", side_effect=save_then_cancel):
        job = export_build(job_id=job.pk)
    assert uploaded and job.status == ExportJob.Status.FAILED and not job.file
    assert keys(s3) == []
