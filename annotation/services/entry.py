"""Entry: an annotator arrives by a pool's entry link (Prolific's, or a URL panel's: ``studies.panels``)
and gets their session."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from studies import panels
from studies.models import CountryPool, PoolPanel, Study, panel_of

from ..browser import BrowserKey
from ..extensions import EntryVerdict, entry_verdict
from ..extensions import entry_params as extension_entry_params
from ..models import Annotator, Session
from ..quota import PROLIFIC_PARAM_RE
from ..selectors import idle_newcomer_leases, quotas_open_to
from .binding import Admission, session_admit
from .checks import session_schedule_make

PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


def entry_params(*, pool: CountryPool, query) -> dict[str, str]:
    """The entry link's parameters under the names the services use: Prolific's three, or a URL
    panel's own (its participant id as PROLIFIC_PID, its study id as STUDY_ID, its session id, else
    the participant's id, as SESSION_ID: one session per participant) and the signed link's token.
    Prolific's parameters on a URL panel's link are ignored."""
    panel = panel_of(pool)
    if panel is None:
        # Prolific's three, and what a registered check reads beside them (e.g. its signed token)
        return {name: query.get(name, "").strip() for name in (*PROLIFIC_PARAMS, *extension_entry_params())}
    participant = query.get(panel.participant_param, "").strip()
    study = query.get(panel.study_param, "").strip() if panel.study_param else ""
    session = query.get(panel.session_param, "").strip() if panel.session_param else ""
    return {"PROLIFIC_PID": participant, "STUDY_ID": study, "SESSION_ID": session or participant,
            "token": query.get(panels.TOKEN_PARAM, "").strip()}


class EntryIsTrial(Exception):
    """The entry check says this is a researcher's test entry (``annotation.trial_entry``): nothing is
    created; the entry view sends the browser to the pool's path preview."""


class EntryRefused(Exception):
    """An entry link that cannot start or resume work; ``reason`` picks the page shown."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def annotator_arrive(*, pool: CountryPool, params: dict[str, str], browser: BrowserKey | None) -> Admission:
    """``annotator_enter``, then this browser let into the session or not (``binding.session_admit``):
    the browser the session is bound to, or the first one, is let in; another must give the resume
    code (or, where the site accepts it, be verified by Prolific's entry check)."""
    session, verdict = _enter(pool, params)
    # Only Prolific's check of a live submission may move a session to a new browser: a signed panel
    # link is a standing credential, so another browser still needs the resume code.
    verified = verdict is not None and verdict.outcome == "allow" and panel_of(pool) is None
    return session_admit(session=session, browser=browser, verified=verified)


def annotator_enter(*, pool: CountryPool, params: dict[str, str]) -> Session:
    """Create or resume the annotator of a Prolific entry link, and the session of its SESSION_ID.

    A registered entry check (``annotation.extensions``; recruitment registers Prolific's) decides
    which STUDY_ID the pool accepts and may refuse the participant; without one that minds the
    pool, STUDY_ID must be the study's ``prolific_study_id`` when that is set. A refusal creates
    nothing. (The entry view calls ``annotator_arrive``, which also minds the browser.)"""
    return _enter(pool, params)[0]


def _enter(pool: CountryPool, params: dict[str, str]) -> tuple[Session, EntryVerdict | None]:
    verdict = _entry_verdict(pool, params)
    annotator, new = _entry_annotator(pool, params["PROLIFIC_PID"])
    session = _entry_session(annotator, pool.study, params, new=new)
    if verdict is not None and verdict.entered is not None:
        verdict.entered(session)
    return session, verdict


def _entry_verdict(pool: CountryPool, params: dict[str, str]) -> EntryVerdict | None:
    """The link's parameters checked, the study open, and the entry check's verdict (None without one);
    raises EntryRefused for the first thing that keeps the link out."""
    panel = panel_of(pool)
    if panel is not None:
        return _panel_verdict(pool, panel, params)
    names = PROLIFIC_PARAMS
    missing = [n for n in names if not params.get(n)]
    if missing:
        raise EntryRefused("missing", ", ".join(missing))
    malformed = [n for n in names if not PROLIFIC_PARAM_RE.match(params[n])]
    if malformed:
        raise EntryRefused("malformed", ", ".join(malformed))
    study = pool.study
    if not study.is_open:
        raise EntryRefused("closed")
    verdict = entry_verdict(pool, params)
    if verdict is None:
        if study.prolific_study_id and params["STUDY_ID"] != study.prolific_study_id:
            raise EntryRefused("wrong_study")
    elif verdict.outcome == "test":
        raise EntryIsTrial()
    elif not verdict.lets_in:
        raise EntryRefused(verdict.reason, verdict.detail)
    return verdict


def _panel_verdict(pool: CountryPool, panel: PoolPanel, params: dict[str, str]) -> EntryVerdict:
    """A URL panel's entry: its participant id present and well formed, the study open, and, for
    signed links, the token the participant's for this pool (constant time). No registered check
    (Prolific's) is asked, and no STUDY_ID rule applies."""
    if not params.get("PROLIFIC_PID"):
        raise EntryRefused("missing", panel.participant_param)
    given = [(panel.participant_param, params["PROLIFIC_PID"]), (panel.study_param, params.get("STUDY_ID", "")),
             (panel.session_param, params.get("SESSION_ID", ""))]
    malformed = [name for name, value in given if value and not panels.PANEL_ID_RE.match(value)]
    if malformed:
        raise EntryRefused("malformed", ", ".join(malformed))
    if not pool.study.is_open:
        raise EntryRefused("closed")
    if panel.verification == PoolPanel.Verification.NONE:
        return EntryVerdict("unverified")
    if not panels.token_matches(secret=panel.secret, entry_key=str(pool.entry_key),
                                participant_id=params["PROLIFIC_PID"], token=params.get("token", "")):
        raise EntryRefused("bad_token")
    return EntryVerdict("allow")


def _entry_annotator(pool: CountryPool, pid: str) -> tuple[Annotator, bool]:
    """The study's annotator of this PID, made in this pool if new and the pool has room (and
    whether it was made now); refused if blocked or of another pool."""
    study = pool.study
    annotator = Annotator.objects.filter(study=study, prolific_pid=pid).first()
    if annotator is not None and annotator.blocked_at is not None:
        raise EntryRefused("blocked")
    if annotator is not None and annotator.pool_id != pool.id:
        raise EntryRefused("wrong_pool", annotator.pool.local_country_name())
    if annotator is not None:
        return annotator, False
    if not pool_has_room(pool=pool, annotator=None):
        raise EntryRefused("full")
    annotator, new = created_or_found(Annotator, {"study": study, "prolific_pid": pid}, {"pool": pool})
    if annotator.pool_id != pool.id:  # made by a parallel request for the same PID, in another pool
        raise EntryRefused("wrong_pool", annotator.pool.local_country_name())
    return annotator, new


def created_or_found(model, lookup: dict, defaults: dict):
    """(the row, True) made with ``lookup`` and ``defaults``, or (the row, False) found by ``lookup``
    when a parallel request made it first (a unique constraint on ``lookup``). The caller looked
    for it already, so unlike ``get_or_create`` nothing is read first; outside a transaction the
    insert is a statement alone (no BEGIN, no COMMIT: a failed insert leaves nothing to roll back)."""
    try:
        if transaction.get_connection().in_atomic_block:
            with transaction.atomic():  # a savepoint: a failed insert must not break the caller's transaction
                return model.objects.create(**lookup, **defaults), True
        return model.objects.create(**lookup, **defaults), True
    except IntegrityError:
        return model.objects.get(**lookup), False


def _entry_session(annotator: Annotator, study: Study, params: dict[str, str], *, new: bool) -> Session:
    """The annotator's session of this SESSION_ID, made (with its schedule) on the first entry; an
    annotator made by this request (``new``) has none to look for."""
    lookup = {"annotator": annotator, "prolific_session_id": params["SESSION_ID"]}
    session = None if new else Session.objects.filter(**lookup).first()
    created = False
    if session is None:
        session, created = created_or_found(
            Session, lookup, {"prolific_study_id": params["STUDY_ID"], "items_target": study.items_per_session})
    if created:
        session_schedule_make(session=session, study=study)
    return session


def pool_has_room(*, pool: CountryPool, annotator: Annotator | None) -> bool:
    """Is there an item in the pool with a free slot that this annotator has not seen, or a slot
    held by an idle newcomer's lease (which yields to them)?"""
    return (
        quotas_open_to(pool=pool, annotator=annotator).exists()
        or idle_newcomer_leases(pool=pool, now=timezone.now()).exists()
    )
