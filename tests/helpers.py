"""Steps the tests share: requests as a browser or htmx makes them, the review service with the
reviewed answers, real threads, a fresh interpreter. The cast and its data are built by
``tests/factories.py`` and the fixtures of ``tests/conftest.py``."""

import csv
import io
import os
import subprocess
import sys
import threading
import zipfile
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from annotation.browser import secret_hash
from annotation.models import Assignment
from annotation.reviews.services import review_submit
from annotation.selectors import ANNOTATOR_COOKIE, annotator_cookie_value
from annotation.services import session_admit
from tests import factories as f
from tests.factories import AS_GIVEN, add_items, entry_url, preset_study

HX = {"HTTP_HX_REQUEST": "true"}
PRODUCTION_STATIC = "config.staticfiles.MinifiedStaticFilesStorage"  # config/settings.py when not DEBUG


@contextmanager
def production_static(root: Path):
    """Static files as in production: collected into ``root`` by the production storage (hashed
    names, minified, gzip copies), which ``{% static %}`` then names."""
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": PRODUCTION_STATIC}}
    with override_settings(STATIC_ROOT=root, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield root


def login(client, user):
    client.force_login(user)
    return client


def enter(client, pool, **params):
    """Arrive at the pool's entry link as a Prolific participant."""
    return client.get(entry_url(pool, **params))


def as_annotator(client, session):
    """This browser is the annotator of ``session``, as after their entry link: the session bound to
    it (when no browser is yet), the signed cookie with its secret and the resume code."""
    session.refresh_from_db(fields=["browser_hash"])
    known = _BROWSER_KEYS.get(session.browser_hash)  # a second client of a session bound here: its key
    key = known if known is not None else session_admit(session=session, browser=None).key
    assert key is not None, "the session is bound to a browser these tests did not make"
    _BROWSER_KEYS[secret_hash(key.secret)] = key
    client.cookies[ANNOTATOR_COOKIE] = annotator_cookie_value(key)
    return client


_BROWSER_KEYS = {}


def on_items(client, preset, n=2, **item_fields):
    """An onboarded annotator of a new ``preset`` study, on its item pages: (client, assignment, page)."""
    study, pool = preset_study(preset)
    add_items(study, n, **item_fields)
    session = f.make_session(f.make_annotator(pool))
    as_annotator(client, session)
    page = client.get(reverse("annotation:items")).content.decode()
    return client, Assignment.objects.get(session=session, status="leased"), page


def item_submit(client, assignment, data):
    return client.post(reverse("annotation:item-submit", args=[assignment.pk]), data, **HX)


def review_url(study, pool) -> str:
    return reverse("annotation:review-pool", args=[study.pk, pool.pk])


def submit_url(annotation) -> str:
    return reverse("annotation:review-submit", args=[annotation.study_id, annotation.pool_id, annotation.pk])


def review(annotation, reviewer, outcome, note="", **changes):
    return review_submit(annotation=annotation, reviewer=reviewer, outcome=outcome,
                         data={**AS_GIVEN, **{k: [v] for k, v in changes.items()}}, note=note)


def run_in_threads(target, args_list):
    """Start every call at the same moment (a barrier), each in its own thread and connection."""
    barrier = threading.Barrier(len(args_list))
    results, errors = [None] * len(args_list), []

    def work(i, args):
        try:
            barrier.wait()
            results[i] = target(*args)
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, a)) for i, a in enumerate(args_list)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results


BASE_DIR = Path(__file__).resolve().parent.parent

# Every variable config/settings.py reads, plus the settings module itself.
SETTINGS_VARIABLES = {
    "DJANGO_SETTINGS_MODULE",
    "DEBUG",
    "SECRET_KEY",
    "TESSERA_VAR_DIR",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "SITE_URL",
    "DATABASE_URL",
    "DATABASE_CONN_MAX_AGE",
    "MEDIA_ROOT",
    "AWS_STORAGE_BUCKET_NAME",
    "AWS_S3_ENDPOINT_URL",
    "AWS_S3_REGION_NAME",
    "IMAGE_MAX_BYTES",
    "IMAGE_MAX_PIXELS",
    "CELERY_BROKER_URL",
    "CACHE_URL",
    "CACHE_KEY_PREFIX",
    "TRUSTED_PROXY_COUNT",
    "SESSION_COOKIE_SECURE",
    "ANNOTATOR_PROLIFIC_REBIND",
    "CSRF_COOKIE_SECURE",
    "BEHIND_HTTPS_PROXY",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "LOG_LEVEL",
    "API_THROTTLE_READS",
    "API_THROTTLE_WRITES",
    "API_PAGE_SIZE",
    "API_MAX_BODY_BYTES",
}


def start_django(tmp_path: Path, code: str = "", **env: str) -> subprocess.CompletedProcess:
    """Run `django.setup()` with config.settings in a new interpreter, then `code`."""
    environ = {key: value for key, value in os.environ.items() if key not in SETTINGS_VARIABLES}
    environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        TESSERA_VAR_DIR=str(tmp_path / "var"),
        MEDIA_ROOT=str(tmp_path / "media"),
    )
    environ.update(env)
    script = "import json\nimport django\ndjango.setup()\nfrom django.conf import settings\n" + code
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=BASE_DIR,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def csv_bytes(rows: list[dict]) -> bytes:
    """Item rows (id, prompt, image, country) as the import's CSV."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["id", "prompt", "image", "country"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A zip of ``files`` (name: content)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buf.getvalue()
