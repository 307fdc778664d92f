"""Reads for the annotator's pages, scoped to the annotator of the current browser session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from studies import panels
from studies.models import CountryPool, ItemQuota, panel_of

from .browser import BrowserKey, code_shown, hash_matches, key_loads, secret_hash
from .compiled import CompiledQuery
from .extensions import screen_out_offer
from .models import Annotator, Assignment, Session

SESSION_KEY = "tessera_session_id"  # where the annotator's session was kept before the cookie (still read)
ANNOTATOR_COOKIE = "tessera_annotator"
ANNOTATOR_COOKIE_SALT = "tessera.annotator-session"
PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc={code}"
PROLIFIC_SUBMISSIONS_URL = "https://app.prolific.com/submissions"  # a screened-out participant's way back
END_COUNTDOWN = 10  # seconds: long enough to copy the completion code


class NoAnnotatorSession(Exception):
    """The browser carries no annotator session: they must reopen their study link."""


class SessionElsewhere(Exception):
    """The browser names a session that is bound to another browser (it was continued there, or the
    cookie was made elsewhere): it must give the session's resume code to come back."""

    def __init__(self, session: Session):
        super().__init__(session.pk)
        self.session = session


def annotator_cookie_value(key: BrowserKey | int) -> str:
    """The signed value of the annotator cookie (what ``annotator_cookie_set`` sends); a bare session
    id is a cookie of before the binding, still read for a session that is not bound."""
    key = key if isinstance(key, BrowserKey) else BrowserKey(key)
    return signing.get_cookie_signer(salt=ANNOTATOR_COOKIE + ANNOTATOR_COOKIE_SALT).sign(key.dumps())


def annotator_cookie_set(response, key: BrowserKey) -> None:
    """Remember the annotator's session in this browser, with the browser's secret and the session's
    resume code: a signed cookie, so that no page of theirs reads a server-side session store (one
    query less on every request of the hot path)."""
    response.set_signed_cookie(
        ANNOTATOR_COOKIE, key.dumps(), salt=ANNOTATOR_COOKIE_SALT, max_age=settings.SESSION_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax",
    )


def browser_key(request) -> BrowserKey | None:
    """The annotator cookie's key, its signature checked (None: no cookie, or a forged one)."""
    raw = request.get_signed_cookie(
        ANNOTATOR_COOKIE, default=None, salt=ANNOTATOR_COOKIE_SALT, max_age=settings.SESSION_COOKIE_AGE
    )
    return key_loads(raw)


def session_for_request(request, *, assignment_pk: int | None = None) -> Session:
    """The annotator session of this browser, from its signed cookie (or from the server-side session
    of a browser that entered before the cookie existed), when the session is bound to this browser
    (the hash is on the row read anyway: no query more). A request naming an assignment
    (``assignment_pk``) is answered by the session of the browser's that holds it, current or not
    (a tab of a study left for another one in this browser still submits): then the key put on the
    request is switched to that session. The cookie's key is put on the request
    (``request.annotator_key``), and its resume code (``request.resume_code``) for the annotator's
    bar. Raises ``NoAnnotatorSession``, or ``SessionElsewhere`` when the session is bound to another
    browser."""
    key = browser_key(request)
    if key is None and settings.SESSION_COOKIE_NAME in request.COOKIES:
        pk = request.session.get(SESSION_KEY)
        key = BrowserKey(pk) if isinstance(pk, int) else None
    if key is not None and key.others and assignment_pk is not None:
        owner = Assignment.objects.filter(pk=assignment_pk).values_list("session_id", flat=True).first()
        if owner != key.session_pk and owner in dict(key.others):
            key = key.switched(owner)
    found = _SESSION(key.session_pk) if key is not None else []
    if key is None or not found:
        raise NoAnnotatorSession
    session = found[0]
    if session.browser_hash and not hash_matches(session.browser_hash, secret_hash(key.secret)):
        raise SessionElsewhere(session)
    request.annotator_key = key
    request.annotator_study_id = session.annotator.study_id
    request.resume_code = code_shown(key.code)
    return session


@dataclass(frozen=True)
class OtherStudy:
    """A study this browser also has a session of, open: what the annotator's bar offers to switch to."""

    session_pk: int
    name: str


def other_studies(request) -> list[OtherStudy]:
    """The other studies this browser holds an open session of (``BrowserKey.others``, bound to it),
    latest first; none, and no query, for a browser in one study."""
    key = getattr(request, "annotator_key", None)
    if key is None or not key.others:
        return []
    order = [pk for pk, _ in key.others]
    sessions = Session.objects.filter(
        pk__in=order, browser_hash=secret_hash(key.secret), completed_at=None, released_at=None
    ).select_related("annotator__study")
    seen = {getattr(request, "annotator_study_id", None)}
    out = []
    for session in sorted(sessions, key=lambda s: order.index(s.pk)):
        study = session.annotator.study
        if study.pk not in seen:
            seen.add(study.pk)
            out.append(OtherStudy(session.pk, study.name))
    return out


_SESSION = CompiledQuery(
    lambda pk: Session.objects.select_related("annotator__study", "annotator__pool").filter(pk=pk), int
)
_ASSIGNMENT = CompiledQuery(
    lambda pk, session_id: Assignment.objects.select_related("item").filter(pk=pk, session_id=session_id), int, int
)
# The session's open lease (one at most: a constraint), its expiry compared by the caller.
_SESSION_LEASE = CompiledQuery(
    lambda session_id: Assignment.objects.select_related("item").filter(
        session_id=session_id, status=Assignment.Status.LEASED
    ),
    int,
)
_SESSION_ASSIGNMENTS = CompiledQuery(
    lambda session_id: Assignment.objects.select_related("item").filter(session_id=session_id).order_by("-position"),
    int,
)


def assignment_for_session(session: Session, pk: int) -> Assignment:
    """One of this session's assignments, or 404: an annotator never reaches another's work."""
    found = _ASSIGNMENT(pk, session.pk)
    if not found:
        raise Http404("No such item in this session.")
    return with_session_objects(found[0], session)


def session_open_lease(session: Session) -> Assignment | None:
    """The session's lease as stored now, live or lapsed (a compiled read: the hot path's)."""
    found = _SESSION_LEASE(session.pk)
    return with_session_objects(found[0], session) if found else None


def session_assignments(session: Session) -> list[Assignment]:
    """The session's assignments with their items, latest first (a session holds a handful)."""
    return [with_session_objects(a, session) for a in _SESSION_ASSIGNMENTS(session.pk)]


def with_session_objects(assignment: Assignment, session: Session) -> Assignment:
    """Give ``assignment`` the session, study and pool already loaded with ``session`` (rather than
    reading them again with it)."""
    annotator = session.annotator
    assignment.session = session
    if assignment.annotator_id == annotator.pk:
        assignment.annotator = annotator
    if assignment.pool_id == annotator.pool_id:
        assignment.pool = annotator.pool
    if assignment.item.study_id == annotator.study_id:
        assignment.item.study = annotator.study
    return assignment


def quotas_open_to(*, pool: CountryPool, annotator: Annotator | None) -> QuerySet[ItemQuota]:
    """Quotas of the pool with room, on items this annotator has not seen and did not write
    (every quota of the pool with room when ``annotator`` is None)."""
    if annotator is None:
        return ItemQuota.objects.with_room().filter(pool=pool)
    return _quotas_open(pool.pk, annotator.pk, annotator.prolific_pid)


def _quotas_open(pool_id: int, annotator_id: int, prolific_pid: str) -> QuerySet[ItemQuota]:
    return (
        ItemQuota.objects.with_room()
        .filter(pool_id=pool_id)
        .exclude(Exists(Assignment.objects.filter(annotator_id=annotator_id, item=OuterRef("item_id"))))
        .exclude(item__author_pid=prolific_pid)
    )


LEASE_CANDIDATES = 16  # the open quotas read per lease: the fewest done, among which ties are drawn at random
_LEASE_CANDIDATES = CompiledQuery(
    lambda pool_id, annotator_id, pid: _quotas_open(pool_id, annotator_id, pid)
    .select_related("item")  # the leased one's item is what the page shows next
    .order_by("done", "leased")[:LEASE_CANDIDATES],
    int, int, str,
)


def lease_candidates(*, annotator: Annotator) -> list[ItemQuota]:
    """The open quotas a new lease of ``annotator`` tries, with their items: the fewest done first."""
    return _LEASE_CANDIDATES(annotator.pool_id, annotator.pk, annotator.prolific_pid)


# How long a newcomer's untouched lease holds a slot that someone else needs.
NEWCOMER_GRACE = timedelta(minutes=2)


def idle_newcomer_leases(*, pool: CountryPool, now: datetime) -> QuerySet[Assignment]:
    """Leases of the pool that do not block its last slots: held for longer than ``NEWCOMER_GRACE``
    by an annotator who has neither submitted anything nor passed the practice test. A draft is not
    progress: invented participant ids that open the link (and save a one-answer draft) hold slots
    this way. The holder loses nothing: a late submit is kept (counted if the quota allows, else
    stored as surplus), and the draft stays with the lease."""
    return Assignment.objects.filter(
        pool=pool, status=Assignment.Status.LEASED, leased_at__lte=now - NEWCOMER_GRACE,
        annotator__mock_passed_at__isnull=True,
    ).exclude(
        Exists(Assignment.objects.filter(annotator=OuterRef("annotator_id"), status=Assignment.Status.SUBMITTED))
    )


def example_item_for_annotator(annotator: Annotator, item_pk: int):
    question = annotator.study.mock_questions.filter(item_id=item_pk).select_related("item").first()
    if question is None:
        raise Http404
    return question.item


STEPS = ("consent", "eligibility", "instructions", "mock", "items")


@dataclass(frozen=True)
class StepCount:
    """Where a step of the annotator's path stands, as its page says: "Step ``number`` of ``total``"."""

    number: int
    total: int


def path_step(step: str, *, pool: CountryPool, has_practice: bool) -> StepCount:
    """``step`` among the steps an annotator of ``pool`` really walks: consent, the eligibility
    questions when the pool asks any, the instructions, the practice test when the study has one
    (``has_practice``), then the items."""
    steps = [s for s in STEPS if (s != "eligibility" or pool.eligibility_questions()) and (s != "mock" or has_practice)]
    return StepCount(steps.index(step) + 1, len(steps))


def annotator_step(annotator: Annotator) -> str:
    """Where the annotator stands: one of STEPS, or "end" once an outcome stops them."""
    if annotator.outcome:
        return "end"
    if annotator.consented_at is None:
        return "consent"
    if annotator.eligible_at is None:
        return "eligibility"
    if annotator.instructions_read_at is None:
        return "instructions"
    if annotator.cleared_at is None and annotator.study.mock_questions.exists():
        return "mock"  # (not cleared and no test: the test was removed after they read the instructions)
    return "items"


@dataclass(frozen=True)
class Ending:
    """How a participant leaves: the code Prolific records, what the page says, and ``returns``:
    they are asked to return the study (the code travels in the button's link, never shown: Prolific
    asks them to return it), rather than given a code to be paid with."""

    code: str
    title: str
    message: str
    returns: bool = False
    screened_out: bool = False  # screened out and paid by the platform: no code, no return
    panel: str = ""  # a URL panel's name: the page leads to ``link``, the panel's completion link, not to Prolific
    link: str = ""

    @property
    def url(self) -> str:
        if self.panel:
            return self.link
        if self.screened_out:
            return PROLIFIC_SUBMISSIONS_URL
        return PROLIFIC_COMPLETE_URL.format(code=self.code)

    @property
    def countdown(self) -> int:
        """Seconds the completion page counts down, visibly and stoppably, before going to Prolific."""
        return END_COUNTDOWN


# Endings where the participant did not qualify: they are asked to return the study on Prolific
# (its completion code's action is REQUEST_RETURN: recruitment.services.body.OUTCOMES), never
# given a code to be paid or rejected with.
RETURNING = frozenset({
    Annotator.Outcome.NO_CONSENT, Annotator.Outcome.NOT_ELIGIBLE, Annotator.Outcome.FAILED_MOCK,
})


def ending_for(annotator: Annotator, session: Session) -> Ending | None:
    """The completion code the annotator leaves with, or None while there is work to do; on a URL
    panel's pool, with the panel's completion link of the ending (``studies.panels``): never a
    Prolific address, and never none (a blank link falls back to the completed one)."""
    ending = _prolific_ending(annotator, session)
    panel = panel_of(annotator.pool) if ending is not None else None
    if ending is None or panel is None:
        return ending
    template = panels.completion_template(panel.templates(), panels.ending_of(annotator.outcome))
    link = panels.template_fill(template, {
        "participant_id": annotator.prolific_pid, "study_id": session.prolific_study_id,
        "session_id": session.prolific_session_id, "code": ending.code,
        "outcome": annotator.outcome or "completed",
    })
    message = ending.message
    if annotator.outcome == Annotator.Outcome.NO_CONSENT:
        message = gettext("No problem: you will not be penalised. Thank you for your time.")
    return replace(ending, message=message, returns=False, panel=panel.name, link=link)


def _prolific_ending(annotator: Annotator, session: Session) -> Ending | None:
    study = annotator.study
    outcome = annotator.outcome
    if outcome == Annotator.Outcome.NO_CONSENT:
        return Ending(
            study.code_no_consent,
            gettext("You did not consent"),
            gettext(
                "No problem: please return the study on Prolific; you will not be penalised. Thank you for your time."
            ),
            returns=outcome in RETURNING,
        )
    if outcome == Annotator.Outcome.NOT_ELIGIBLE and (screen_out := screen_out_offer(annotator)) is not None:
        return Ending(
            "",
            gettext("You have been screened out"),
            gettext("This study is for people with a different background, so it ends here. You are screened "
                    "out and paid {reward} for your time: Prolific shows it in your submissions. You do not need "
                    "to return the study.").format(reward=screen_out.reward),
            screened_out=True,
        )
    if outcome == Annotator.Outcome.NOT_ELIGIBLE:
        return Ending(
            study.code_not_eligible,
            gettext("Thank you"),
            gettext("This study is for people with a different background, so we cannot include you. "
                    "Thank you for your time."),
            returns=outcome in RETURNING,
        )
    if outcome == Annotator.Outcome.FAILED_MOCK:
        return Ending(
            study.code_failed_mock,
            gettext("The practice test was not passed"),
            gettext("You used all attempts at the practice test, so the study ends here. Thank you for your time."),
            returns=outcome in RETURNING,
        )
    if outcome == Annotator.Outcome.ALL_SKIPPED:
        return Ending(
            study.code_all_skipped,
            gettext("No item was answered"),
            gettext("You skipped every item, so this session ends without answers. Thank you for your time."),
        )
    if outcome == Annotator.Outcome.FAILED_CHECK:
        return Ending(
            study.code_failed_check,
            gettext("This session has ended"),
            gettext(
                "Some answers did not follow what their question asked, so the session ends here, as the study's "
                "rules say. Thank you for your time."
            ),
        )
    if session.completed_at:
        return Ending(study.code_completed, gettext("All done, thank you!"), gettext("Your answers are saved."))
    return None
