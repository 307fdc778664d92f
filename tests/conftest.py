"""The fixed cast: a researcher who owns the study, another researcher, an annotator of the pool,
an annotator of another pool, a checker of the pool (and one of the other pool). Each test takes
what it needs; the builders behind them are in ``tests/factories.py``."""

import pytest
from django.core.servers.basehttp import WSGIRequestHandler

from analysis.models import AnalysisRun
from analysis.services import analysis_run

from . import factories as f
from .annotations import annotate, annotators

# The live server (browser tests, the API's fuzz and README example) answers a kept-alive connection
# without Nagle's wait: its headers and body go out in two writes, and the client's delayed ACK held
# each answer some 40 ms (a test server's artefact; production serves through gunicorn).
WSGIRequestHandler.disable_nagle_algorithm = True


@pytest.fixture
def owner(db):
    return f.make_researcher("owner")


@pytest.fixture
def other_researcher(db):
    return f.make_researcher("other")


@pytest.fixture
def study(owner):
    return f.make_study(owner)


@pytest.fixture
def pool(study):
    return f.make_pool(study, "IN", "India")


@pytest.fixture
def other_pool(study):
    return f.make_pool(study, "JP", "Japan")


@pytest.fixture
def items(study, pool, other_pool):
    """Three items routed to India, two to Japan."""
    return f.make_items(study, "IN", 3) + f.make_items(study, "JP", 2)


@pytest.fixture
def annotator(pool):
    return f.make_annotator(pool)


@pytest.fixture
def other_annotator(other_pool):
    return f.make_annotator(other_pool)


@pytest.fixture
def session(annotator):
    return f.make_session(annotator)


@pytest.fixture
def checker(pool):
    return f.make_checker(pool, "checker-in")


@pytest.fixture
def other_checker(other_pool):
    return f.make_checker(other_pool, "checker-jp")


@pytest.fixture
def annotated(items, pool):
    """Six annotations in India (two annotators × three items)."""
    return f.annotate_pool(pool, annotators=2)


@pytest.fixture
def annotated_elsewhere(items, other_pool):
    """Two annotations in Japan."""
    return f.annotate_pool(other_pool)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """What a process keeps in its cache (a pool's slots) never leaks from one test into another."""
    from django.core.cache import cache, caches

    cache.clear()
    caches["local"].clear()


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    """Item images, uploads and exports go to a fresh media root for each test."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _jobs_in_process_unless_worker_test(request):
    """With CELERY_BROKER_URL set (CI's second stage), a test's jobs would go to the real worker,
    which cannot see the test's uncommitted data; only tests marked celery_worker use it."""
    from config.celery import app

    if request.node.get_closest_marker("celery_worker"):
        yield
        return
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _postgres_only(request):
    """Tests marked postgres_only (concurrency with real threads) skip, saying why, on SQLite."""
    from django.db import connection

    if request.node.get_closest_marker("postgres_only") and connection.vendor != "postgresql":
        pytest.skip("concurrency is tested on PostgreSQL: set DATABASE_URL=postgres://… (CI does)")


@pytest.fixture
def rated(study, pool, items):
    """The India pool's first three items, each annotated by two annotators."""
    for rater in annotators(pool, 2):
        for item in items[:3]:
            annotate(rater, item)
    return study


@pytest.fixture
def analysed(rated, owner):
    """``rated``, with a done analysis run."""
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    return rated
