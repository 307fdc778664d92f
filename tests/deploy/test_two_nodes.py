"""Two web nodes behind a real proxy (bench/cluster.py: two gunicorn servers, HAProxy or nginx
round-robin in front) sharing PostgreSQL, Redis and MEDIA_ROOT, as docs/deployment.md ("Several web
nodes") runs them: 32 annotators at once go from the entry link to the end of a session, each
request to whichever node the proxy picks (no sticky sessions), and afterwards both nodes served,
no item has more annotations than wanted, nobody annotated an item twice, and the quotas' counters
match their rows; the API's throttle and the login lockout count across the nodes.

It needs PostgreSQL (DATABASE_URL), Redis on 127.0.0.1:6379 and haproxy or nginx: without them it
skips with the reason, and fails instead when E2E_REQUIRED=1 on PostgreSQL (CI's PostgreSQL stage; CI's
SQLite stage sets E2E_REQUIRED=1 for the browser tests, where this test skips). The nodes use
the test database (committed data: ``transactional_db``), the broker's Redis for the cache under a key
prefix of their own, and a Celery queue of their own (``CELERY_TASK_DEFAULT_QUEUE``), so CI's worker on
the default queue never takes a message of theirs (nothing driven here queues one; the queue and the
keys are deleted at the end). The nodes run with DEBUG=1 (no collectstatic needed: the test's
browsers load no static files) and stop before the test database is flushed.
"""

from __future__ import annotations

import os
import random
import re
import secrets
import sys
import threading
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.db.models import Count

from annotation.models import Annotation, Assignment
from api.tokens import api_token_create
from studies.models import ItemQuota
from tests import factories as f
from tests.deploy.annotator import Browser, csrf_token
from tests.helpers import SETTINGS_VARIABLES

sys.path.insert(0, str(Path(settings.BASE_DIR) / "bench"))
from cluster import proxy_available, start_cluster  # noqa: E402 - bench/ is not a package

PARTICIPANTS = 32
SESSION_ITEMS = 3
PASSWORD = "pass-for-tests-1"  # tests/factories.py's researchers'


def redis_url() -> str:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    return broker if broker.startswith("redis://") else "redis://127.0.0.1:6379/0"


def missing() -> str | None:
    if connection.vendor != "postgresql":
        return "needs DATABASE_URL to point at PostgreSQL (the nodes share the test database)"
    try:
        redis.Redis.from_url(redis_url(), socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"needs Redis at {redis_url()} ({exc})"
    if proxy_available() is None:
        return "needs haproxy or nginx on PATH (apt-get install -y haproxy)"
    return None


@pytest.fixture
def cluster(transactional_db, tmp_path):
    reason = missing()
    if reason:
        if os.environ.get("E2E_REQUIRED") == "1" and os.environ.get("DATABASE_URL"):
            pytest.fail(f"the two-node test is required (E2E_REQUIRED=1) but it {reason}")
        pytest.skip(reason)
    tag = f"tessera-nodes-{secrets.token_hex(4)}"
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES and not k.startswith("CELERY_")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1", "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1", "TESSERA_VAR_DIR": str(tmp_path / "var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),  # the nodes' storage is the test's: the items' images
        "DATABASE_URL": f"postgres://{quote(db['USER'])}:{quote(db['PASSWORD'] or '')}@{db['HOST'] or '127.0.0.1'}"
                        f":{db['PORT'] or 5432}/{db['NAME']}",
        "DATABASE_CONN_MAX_AGE": "0", "CELERY_BROKER_URL": redis_url(), "CELERY_TASK_DEFAULT_QUEUE": tag,
        "CACHE_KEY_PREFIX": tag, "TESSERA_EMBEDDED_SCHEDULER": "0", "TRUSTED_PROXY_COUNT": "1",
        "API_THROTTLE_READS": "6/min", "LOGIN_LOCKOUT": "1", "LOGIN_FAILURE_LIMIT": "3", "LOG_LEVEL": "WARNING",
    })
    started = start_cluster(env, nodes=2, workers=2, log_dir=str(tmp_path / "cluster"))
    started.log_dir = tmp_path / "cluster"  # type: ignore[attr-defined]
    yield started
    started.stop()
    keys = redis.Redis.from_url(redis_url())
    doomed = [tag, *keys.scan_iter(f"{tag}:*")]
    keys.delete(*doomed)


def served_per_node(log_dir: Path) -> list[int]:
    return [len((log_dir / f"node-{n}.access.log").read_text().splitlines()) for n in (0, 1)]


def test_two_nodes_share_the_sessions_the_quotas_the_throttle_and_the_lockout(cluster):
    owner = f.make_researcher("owner")
    study = f.make_study(owner, items_per_session=SESSION_ITEMS)
    pool = f.make_pool(study, "IN", "India", annotations_per_item=3)
    f.make_items(study, "IN", 40)  # 120 slots for 96 asked, on 40 items: many annotators per item at once

    results: list = [None] * PARTICIPANTS

    def participant(n: int) -> None:
        try:
            results[n] = Browser(cluster.base).annotate_a_session(f"/join/{pool.entry_key}/", random.Random(n))
        except Exception as exc:  # noqa: BLE001 - reported below with the others
            results[n] = exc

    threads = [threading.Thread(target=participant, args=(n,)) for n in range(PARTICIPANTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    failures = [r for r in results if not isinstance(r, int)]
    assert not failures, f"{len(failures)} sessions failed, e.g. {failures[:3]} (logs: {cluster.log_dir})"
    assert sum(results) == PARTICIPANTS * SESSION_ITEMS

    per_node = served_per_node(cluster.log_dir)
    assert min(per_node) > 0.3 * sum(per_node), per_node  # round-robin: both nodes served

    rows = Counter(dict(Annotation.objects.filter(pool=pool, surplus=False).values_list("item_id")
                        .annotate(n=Count("id"))))
    leases = Counter(dict(Assignment.objects.filter(pool=pool, status="leased").values_list("item_id")
                          .annotate(n=Count("id"))))
    quotas = list(ItemQuota.objects.filter(pool=pool).values_list("item_id", "wanted", "reopened", "done", "leased"))
    assert not [i for i, wanted, reopened, _, _ in quotas if rows[i] > wanted + reopened]
    twice = Annotation.objects.filter(study=study).values("item", "annotator").annotate(n=Count("id"))
    assert not twice.filter(n__gt=1)
    assert [(i, done) for i, _, _, done, _ in quotas if rows[i] != done] == []
    assert [(i, leased) for i, _, _, _, leased in quotas if leases[i] != leased] == []

    # The API's throttle: 6 reads a minute for a token, whichever node answers.
    _, plain = api_token_create(user=owner, name="two nodes")
    api = Browser(cluster.base)
    auth = {"Authorization": f"Bearer {plain}", "Accept": "application/json"}
    statuses = [api.send("GET", "/api/v1/studies/", headers=auth)[0] for _ in range(7)]
    assert statuses == [200] * 6 + [429]
    assert len(api.nodes) == 2, api.nodes

    # The login lockout: 3 wrong passwords, each to whichever node; the right one is then refused.
    person = Browser(cluster.base)
    _, _, html = person.go("GET", "/login/")
    token = csrf_token(html)
    wrong = [person.send("POST", "/login/", [("csrfmiddlewaretoken", token), ("username", "owner"),
                                             ("password", "wrong")])[0] for _ in range(3)]
    assert wrong == [200, 200, 429]  # the form again with its error, then the third failure locks
    status, _, body = person.send("POST", "/login/", [("csrfmiddlewaretoken", token), ("username", "owner"),
                                                       ("password", PASSWORD)])
    assert status == 429, body[:300]
    assert len(person.nodes) == 2, person.nodes
    assert re.search(rb"(?i)too many|locked", body)
