"""Issue 13's crowd: 200 annotators on PostgreSQL, each in their own browser, through the real pages
(entry link, consent, eligibility, instructions, the items), with every submit sent twice (some at
once from two tabs: a double click), reloads mid-item, abandoned leases that lapse and are swept
while the crowd works, and annotators who come back after their lease lapsed (a late submit or a
reload). Then, in SQL: nothing lost, nothing duplicated, every counter equal to its rows, and no
annotator stuck.

The random choices are seeded per annotator, so each annotator's behaviour is the same on every
run; the order the threads interleave in is not, so the assertions are on invariants only."""

import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment
from annotation.services import assignments_expire
from tests import factories as f
from tests.factories import entry_url, valid_answers
from tests.helpers import HX

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True),
]

SEED = 13
ANNOTATORS = 200
WORKERS = 24  # PostgreSQL allows 100 connections, shared: each thread closes its own when its task ends
ITEMS_PER_POOL = 60
WANTED = 2
ITEMS_PER_SESSION = 5

ITEMS = reverse("annotation:items")
END = reverse("annotation:end")
SUBMIT_RE = re.compile(re.escape(reverse("annotation:item-submit", args=[987654321])).replace("987654321", r"(\d+)"))


@dataclass
class Annotator:
    """One participant: what they will do (drawn from the seed) and what their browser saw."""

    n: int
    pool: object
    rng: random.Random
    abandon_at: int | None = None  # the item (1-based) they walk away from, their lease left to lapse
    comeback: str = ""  # "late_submit" or "reload" after the lapse; "" never comes back
    wait_for_sweep: bool = True  # whether they come back only once the sweep expired their lease
    client: Client | None = None
    seen: list[int] = field(default_factory=list)  # assignment ids shown, in order
    submitted: set[int] = field(default_factory=set)  # assignment ids whose submit was answered as stored
    lapsed: int | None = None
    state: str = ""  # "end", "no_items", "full" (refused at the entry), "away" (abandoned for good)

    @property
    def pid(self) -> str:
        return f"crowd{self.n:019d}"


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: int = 0
    submits: int = 0
    double_submits: int = 0
    concurrent_doubles: int = 0
    reloads: int = 0
    drafts: int = 0
    lapsed: int = 0
    swept: int = 0
    late_submits: int = 0
    comeback_reloads: int = 0
    errors: list = field(default_factory=list)

    def add(self, **counts):
        with self.lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


def plans(pools) -> list[Annotator]:
    crowd = []
    for n in range(ANNOTATORS):
        rng = random.Random(SEED * 100_000 + n)
        a = Annotator(n=n, pool=pools[n % len(pools)], rng=rng)
        if rng.random() < 0.2:
            a.abandon_at = rng.randint(1, ITEMS_PER_SESSION)
            a.comeback = rng.choice(["late_submit", "late_submit", "reload", ""])
            a.wait_for_sweep = rng.random() < 0.7
        if n < WORKERS and n % 6 in (1, 4):  # among the first in, while every pool has room: sure to happen
            a.abandon_at, a.comeback, a.wait_for_sweep = n % 6, "late_submit" if n % 6 == 1 else "reload", True
        crowd.append(a)
    return crowd


class Crowd:
    """Runs the annotators' journeys on a thread pool; a journey may queue its own sequel (a
    comeback) on the same pool, so comebacks run while the crowd is still at work."""

    def __init__(self, study):
        self.study = study
        self.tally = Tally()
        self.executor = ThreadPoolExecutor(max_workers=WORKERS)
        self.futures = []
        self.futures_lock = threading.Lock()

    def submit(self, fn, *args):
        with self.futures_lock:
            self.futures.append(self.executor.submit(self._task, fn, *args))

    def _task(self, fn, *args):
        try:
            fn(*args)
        except BaseException as exc:  # noqa: BLE001 - every failure is reported by the test
            self.tally.errors.append((fn.__name__, args[0].n if args else None, repr(exc)))
        finally:
            connections.close_all()

    def join(self):
        while True:
            with self.futures_lock:
                pending = [fut for fut in self.futures if not fut.done()]
            if not pending:
                break
            wait(pending)
        self.executor.shutdown()

    # --- the pages ---------------------------------------------------------------------------

    def get(self, client, url, **extra):
        self.tally.add(requests=1)
        return client.get(url, **extra)

    def post(self, client, url, data=None, **extra):
        self.tally.add(requests=1)
        return client.post(url, data or {}, **extra)

    def journey(self, a: Annotator):
        a.client = client = Client()
        response = self.get(client, entry_url(a.pool, pid=a.pid, study_id="STUDY1", session_id=f"S{a.n}"))
        if response.status_code == 410:
            assert "This study is full" in response.content.decode(), response.content[:300]
            a.state = "full"
            return
        assert response.status_code == 302 and response.url == reverse("annotation:consent"), response
        self.onboard(client, a.pool)
        self.items(a, self.get(client, ITEMS))

    def onboard(self, client, pool):
        for step, data in (
            ("consent", {"consent": "yes"}),
            ("eligibility", {key: "yes" for key, _ in pool.eligibility_questions()}),
            ("instructions", {}),
        ):
            url = reverse(f"annotation:{step}")
            assert self.get(client, url).status_code == 200
            response = self.post(client, url, data)
            assert response.status_code == 302, (step, response.status_code)

    def items(self, a: Annotator, response):
        """The item pages until the session ends, the pool has nothing left for them, or they walk away."""
        client = a.client
        while (state := screen(response)) == "item":
            pk = shown_assignment(response)
            if pk not in a.seen:
                a.seen.append(pk)
            if a.abandon_at == len(a.seen) and a.lapsed is None:
                self.walk_away(a, pk)
                return
            if a.rng.random() < 0.15:  # a reload shows the same item, its lease untouched
                reloaded = self.get(client, ITEMS)
                self.tally.add(reloads=1)
                assert screen(reloaded) == "item" and shown_assignment(reloaded) == pk, "a reload moved the item"
            if a.rng.random() < 0.2:  # the page keeps a draft at the first answer
                draft = self.post(client, reverse("annotation:item-draft", args=[pk]), {"overall": ["4"]}, **HX)
                self.tally.add(drafts=1)
                assert draft.status_code == 200 and draft.json() == {"saved": True}, draft.content
            response = self.double_submit(a, pk, at_once=a.rng.random() < 0.35)
        a.state = state

    def double_submit(self, a: Annotator, pk: int, *, at_once: bool):
        """The submit sent twice: one after the other, or at once from a second tab with the same
        cookies (a double click). Both answers show the same next step."""
        url = reverse("annotation:item-submit", args=[pk])
        data = valid_answers()
        if at_once:
            twin = Client()
            twin.cookies.load({name: morsel.value for name, morsel in a.client.cookies.items()})
            barrier, answers = threading.Barrier(2), {}

            def click(name, client):
                try:
                    barrier.wait(timeout=30)
                    answers[name] = client.post(url, data, **HX)
                except BaseException as exc:  # noqa: BLE001 - surfaced below
                    answers[name] = exc
                finally:
                    if name == "twin":
                        connection.close()

            thread = threading.Thread(target=click, args=("twin", twin))
            thread.start()
            click("first", a.client)
            thread.join(timeout=60)
            first, second = answers["first"], answers.get("twin")
            for answer in (first, second):
                if isinstance(answer, BaseException) or answer is None:
                    raise AssertionError(f"a double click failed: {answer!r}")
        else:
            first = a.client.post(url, data, **HX)
            second = a.client.post(url, data, **HX)
        self.tally.add(requests=2, submits=2, double_submits=1, concurrent_doubles=int(at_once))
        assert screen(first) == screen(second), (first, second)
        if screen(first) == "item":
            assert shown_assignment(first) == shown_assignment(second), "two tabs were given two leases"
        a.submitted.add(pk)
        return first

    def walk_away(self, a: Annotator, pk: int):
        """The annotator leaves the item open: their lease lapses (its end moved into the past), and
        the sweep running beside the crowd gives its slot back."""
        a.lapsed = pk
        Assignment.objects.filter(pk=pk).update(expires_at=timezone.now() - timedelta(minutes=1))
        self.tally.add(lapsed=1)
        if a.comeback:
            self.submit(self.come_back, a)
        else:
            a.state = "away"

    def come_back(self, a: Annotator):
        """Back after the lapse: the old item's form submitted late, or the page reloaded."""
        if a.wait_for_sweep:
            deadline = time.monotonic() + 20
            while Assignment.objects.filter(pk=a.lapsed, status=Assignment.Status.LEASED).exists():
                assert time.monotonic() < deadline, "the sweep never expired a lapsed lease"
                time.sleep(0.05)
        if a.comeback == "late_submit":
            self.tally.add(late_submits=1)
            response = self.double_submit(a, a.lapsed, at_once=False)
        else:
            self.tally.add(comeback_reloads=1)
            response = self.get(a.client, ITEMS)
        self.items(a, response)

    def sweep(self, stop: threading.Event):
        """The periodic task's sweep of lapsed leases, run over and over beside the crowd."""
        try:
            while not stop.is_set():
                self.tally.add(swept=assignments_expire())
                stop.wait(0.05)
        finally:
            connection.close()

    # --- the end: each browser asked where it stands ----------------------------------------

    def final_look(self, a: Annotator):
        """Where the annotator's browser stands now: the completion code, a live lease, or told that
        no item is left (the study full at their entry: opening the link again says so, or lets
        them in if a slot came free); never an error page."""
        if a.state == "full":
            response = self.get(a.client, entry_url(a.pool, pid=a.pid, study_id="STUDY1", session_id=f"S{a.n}"))
            assert (response.status_code, response.get("Location")) in (
                (410, None), (302, reverse("annotation:consent"))
            ), response
            return
        response = self.get(a.client, ITEMS)
        try:
            state = screen(response)
        except AssertionError as stuck:
            raise AssertionError(f"{a.state}: {stuck}") from None
        if state == "end":
            page = self.get(a.client, END)
            assert page.status_code == 200 and self.study.code_completed in page.content.decode(), page
        elif state == "item":
            pk = shown_assignment(response)
            assert Assignment.objects.filter(
                pk=pk, session__annotator__prolific_pid=a.pid, status=Assignment.Status.LEASED,
                expires_at__gt=timezone.now(),
            ).exists(), f"annotator {a.n} shown an item without a live lease"
        a.state = f"final:{state}"


def screen(response) -> str:
    """What an item request left on the annotator's screen: an item, the end (a redirect there), or
    the page that says no item is left. Anything else is an annotator stuck."""
    if response.status_code == 200 and SUBMIT_RE.search(response.content.decode()):
        return "item"
    if (response.status_code == 302 and response.url == END) or (
        response.status_code == 204 and response.get("HX-Redirect") == END
    ):
        return "end"
    if response.status_code == 410 and "No items are left for you" in response.content.decode():
        return "no_items"
    title = re.search(r"<h1[^>]*>(.*?)</h1>", response.content.decode(), re.S)
    shown = title.group(1).strip() if title else response.content[:300]
    raise AssertionError(f"stuck: {response.status_code} {shown!r}")


def shown_assignment(response) -> int:
    return int(SUBMIT_RE.search(response.content.decode()).group(1))


def rows(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def one(sql, params=()):
    return rows(sql, params)[0][0]


@pytest.fixture
def crowd_study(owner):
    study = f.make_study(owner, items_per_session=ITEMS_PER_SESSION)
    pools = [f.make_pool(study, "IN", "India", annotations_per_item=WANTED),
             f.make_pool(study, "JP", "Japan", annotations_per_item=WANTED)]
    for pool in pools:
        f.make_items(study, pool.country, ITEMS_PER_POOL)
    return study, pools


def test_a_crowd_of_200_loses_duplicates_and_strands_nothing(crowd_study, capsys):
    study, pools = crowd_study
    annotators = plans(pools)
    crowd = Crowd(study)
    stop = threading.Event()
    sweeper = threading.Thread(target=crowd.sweep, args=(stop,))
    started = time.monotonic()

    sweeper.start()
    for a in annotators:
        crowd.submit(crowd.journey, a)
    crowd.join()
    stop.set()
    sweeper.join(timeout=30)
    assert not crowd.tally.errors, crowd.tally.errors[:10]
    assert {a.state for a in annotators} <= {"end", "no_items", "full", "away"}, "a journey stopped midway"

    invariants_hold(study, annotators)
    look = Crowd(study)  # every browser asks where it stands, all at once
    for a in annotators:
        if a.client is not None:
            look.submit(look.final_look, a)
    look.join()
    assert not look.tally.errors, look.tally.errors[:10]
    invariants_hold(study, annotators)
    duration = time.monotonic() - started

    t = crowd.tally
    states = {}
    for a in annotators:
        states[a.state] = states.get(a.state, 0) + 1
    counted = one("SELECT count(*) FROM annotation_annotation WHERE NOT surplus AND NOT withdrawn")
    surplus = one("SELECT count(*) FROM annotation_annotation WHERE surplus")
    with capsys.disabled():  # the run's one-line summary, shown without -s
        print(
            f"\ncrowd: {ANNOTATORS} annotators, {t.requests + look.tally.requests} requests, {t.submits} submits, "
            f"{t.double_submits} double submits ({t.concurrent_doubles} at once), {t.reloads} reloads, "
            f"{t.lapsed} lapsed leases ({t.swept} swept by the sweep), {t.late_submits} late submits, "
            f"{t.comeback_reloads} comeback reloads, {counted} annotations counted + {surplus} surplus, "
            f"end states {dict(sorted(states.items()))}, {duration:.1f}s"
        )
    # The run exercised what it claims to.
    assert t.concurrent_doubles > 0 and t.late_submits > 0 and t.lapsed > 0


def invariants_hold(study, annotators):
    # Nothing duplicated: one annotation per assignment, none of one annotator on one item twice.
    assert rows("SELECT assignment_id FROM annotation_annotation GROUP BY assignment_id HAVING count(*) > 1") == []
    assert rows(
        "SELECT annotator_id, item_id FROM annotation_annotation GROUP BY annotator_id, item_id HAVING count(*) > 1"
    ) == []
    # An annotation for every submitted assignment, and a submitted assignment under every annotation.
    assert rows(
        "SELECT s.id FROM annotation_assignment s LEFT JOIN annotation_annotation a ON a.assignment_id = s.id "
        "WHERE (s.status = 'submitted') <> (a.id IS NOT NULL)"
    ) == []
    # Nothing lost: every submit the browser saw answered is stored.
    answered = {pk for a in annotators for pk in a.submitted}
    stored = {pk for (pk,) in rows("SELECT assignment_id FROM annotation_annotation")}
    assert answered <= stored, sorted(answered - stored)[:10]
    # Every quota's counters equal its rows; never overfilled; surplus only on a full quota.
    mismatched = rows(
        """
        SELECT q.id, q.done, q.leased, q.wanted, q.reopened,
               (SELECT count(*) FROM annotation_annotation a WHERE a.item_id = q.item_id AND a.pool_id = q.pool_id
                  AND NOT a.surplus AND NOT a.withdrawn) AS counted,
               (SELECT count(*) FROM annotation_assignment s WHERE s.item_id = q.item_id AND s.pool_id = q.pool_id
                  AND s.status = 'leased') AS open_leases
          FROM studies_itemquota q
        """
    )
    bad = [r for r in mismatched if r[1] != r[5] or r[2] != r[6] or r[1] + r[2] > r[3]]
    assert bad == [], bad[:10]
    # Surplus (kept, counted nowhere) only for a submit after its lease lapsed, when the quota had no
    # room then; a submit on a live lease always holds its slot.
    late = {a.lapsed for a in annotators if a.lapsed is not None}
    surplus = {pk for (pk,) in rows("SELECT assignment_id FROM annotation_annotation WHERE surplus")}
    assert surplus <= late, sorted(surplus - late)[:10]
    assert one("SELECT coalesce(sum(done), 0) FROM studies_itemquota") == one(
        "SELECT count(*) FROM annotation_annotation WHERE NOT surplus AND NOT withdrawn"
    )
    # No lease left open by a finished session; no session past its size; one open lease at most.
    assert rows(
        "SELECT s.id FROM annotation_assignment s JOIN annotation_session e ON e.id = s.session_id "
        "WHERE s.status = 'leased' AND e.completed_at IS NOT NULL"
    ) == []
    assert rows(
        "SELECT s.session_id FROM annotation_assignment s JOIN annotation_session e ON e.id = s.session_id "
        "WHERE s.status = 'submitted' GROUP BY s.session_id, e.items_target HAVING count(*) > e.items_target"
    ) == []
