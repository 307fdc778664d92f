"""Launching a pool's Prolific study (a draft), idempotently, and moving it through Prolific's
states (publish, pause, resume, stop), per pool or for every pool of a study.

Idempotency of a launch: the pool's ``ProlificStudy`` row, with its ``reference`` (sent as the
study's ``internal_name`` and ``metadata``), is committed before Prolific is asked to create
anything; one launch at a time may create (a conditional UPDATE claims the row for a while); when an
earlier attempt left the row without a Prolific id, its study is first looked for on Prolific by the
reference (a crash or a time-out after Prolific created it), and only then created; the id Prolific
answers is written at once, before anything else. A retry therefore finds the study instead of
creating a second one.

The mirrored status is written only from Prolific's answers, so the platform is never ahead of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone

from studies.models import CountryPool, Study, panel_of

from ..models import ProlificAction, ProlificStudy
from ..prolific import ProlificClient, ProlificError, ProlificRequestError
from ..prolific import Study as RemoteStudy
from ..tokens import client_for
from .body import LaunchOptions, LaunchPlan, launch_plan, launch_refusal

CLAIM_FOR = timedelta(minutes=2)


class RecruitmentRefused(Exception):
    """A rule of ours refuses the action; the message says why (nothing was sent to Prolific)."""


@dataclass(frozen=True)
class LaunchResult:
    prolific_study: ProlificStudy | None  # None: nothing was written for the pool (a rule refused it)
    created: bool  # False: the study existed already (on a retry, or found again on Prolific), or it failed
    plan: LaunchPlan | None
    error: str = ""  # why this pool failed ("" when it is on Prolific), its country named
    failure: Exception | None = field(default=None, compare=False, repr=False)  # what was raised, if it failed

    @property
    def ok(self) -> bool:
        return not self.error


def reference_for(pool: CountryPool) -> str:
    """The pool's reference on Prolific (internal_name, metadata): unique across deployments."""
    return f"tessera-{pool.study_id}-{pool.country}-{pool.entry_key}"


def action_log(
    *, row: ProlificStudy, kind: str, user: AbstractBaseUser | None, target: str = "",
    ok: bool, answer: Any = None, error: ProlificError | None = None,
) -> ProlificAction:
    return ProlificAction.objects.create(
        study_id=row.pool.study_id,
        prolific_study=row,
        user=user if user is not None and user.is_authenticated else None,
        kind=kind,
        target=target or row.prolific_id,
        ok=ok,
        status_code=error.status if error is not None else None,
        answer=_jsonable(error.body if error is not None else answer),
        error=error.message if error is not None else "",
    )


def _jsonable(value: Any) -> Any:
    if value is None:
        return {}
    if isinstance(value, dict | list):
        return value
    return {"text": str(value)[:2000]}


# --- launch ----------------------------------------------------------------------------------


def prolific_study_launch(
    *, pool: CountryPool, user: AbstractBaseUser | None, options: LaunchOptions
) -> LaunchResult:
    """The pool's Prolific study, created as a draft (UNPUBLISHED) unless it exists already.

    Raises ``ProlificNotConfigured`` (no token), ``RecruitmentRefused`` (a rule of ours, with the
    reason; nothing was sent), or a ``ProlificError`` (Prolific refused or did not answer; nothing
    is recorded as created, and a retry is safe).
    """
    panel = panel_of(pool)
    if panel is not None:
        raise RecruitmentRefused(
            f"{pool.country_name}: this pool recruits through {panel.name}, not Prolific; its participants come "
            "by the panel's own link (the pool's Panel page)."
        )
    existing = ProlificStudy.objects.filter(pool=pool).select_related("pool").first()
    if existing is not None and existing.created:
        return LaunchResult(existing, created=False, plan=None)
    problem = launch_refusal()
    if problem:
        raise RecruitmentRefused(problem)
    with client_for(user=user) as client:
        currency = str(client.me().get("currency_code") or "GBP")
        reference = existing.reference if existing is not None else reference_for(pool)
        extra = _round_filters(client, pool=pool, options=options, existing=existing)
        try:
            plan = launch_plan(
                pool=pool, options=options, currency=currency, catalogue=client.filters(), reference=reference,
                round_filters=extra,
            )
        except ValueError as exc:  # RuleBroken
            raise RecruitmentRefused(f"{pool.country_name}: {exc}") from None
        row, fresh = _row_claim(pool=pool, plan=plan, options=options, user=user, reference=reference)
        if row.created:
            return LaunchResult(row, created=False, plan=None)
        try:
            # Only a row left by an earlier attempt can have a study on Prolific already.
            found = None if fresh else _find_on_prolific(client, row.reference)
            if found is not None:
                row = _id_store(row, found)
                workspace_record(client, row, found)
                action_log(row=row, kind=ProlificAction.Kind.RECONCILE, user=user, ok=True, answer=found.raw)
                return LaunchResult(row, created=False, plan=plan)
            try:
                remote = client.study_create(plan.body)
            except ProlificError as exc:
                _row_failed(row, exc)
                action_log(row=row, kind=ProlificAction.Kind.CREATE, user=user, ok=False, error=exc)
                raise
            row = _id_store(row, remote)  # first: before logging or anything else
            workspace_record(client, row, remote)
            action_log(row=row, kind=ProlificAction.Kind.CREATE, user=user, ok=True, answer=remote.raw)
            return LaunchResult(row, created=True, plan=plan)
        finally:
            ProlificStudy.objects.filter(pk=row.pk).update(creating_until=None)


def _round_filters(
    client: ProlificClient, *, pool: CountryPool, options: LaunchOptions, existing: ProlificStudy | None
) -> list[dict[str, Any]]:
    """The rounds' filters (services/rounds.py): the owner's block list always, and the groups and
    earlier studies chosen, resolved to Prolific's ids."""
    from . import rounds  # rounds builds on this module's errors

    study = pool.study
    known = existing.workspace_id if existing is not None else ""
    choice = rounds.RoundChoice(options.allow_groups, options.block_groups, options.exclude_studies)
    try:
        return rounds.round_filters(client, study=study, owner=study.owner, choice=choice,
                                   workspace_id=lambda: known or _workspace_of(client))
    except RecruitmentRefused as exc:
        raise RecruitmentRefused(f"{pool.country_name}: {exc}") from None


def _workspace_of(client: ProlificClient) -> str:
    workspaces = [str(w.get("id") or "") for w in client.workspaces()]
    return workspaces[0] if workspaces else ""


def prolific_studies_launch(
    *, study: Study, user: AbstractBaseUser | None, options: LaunchOptions, pools: list[CountryPool] | None = None
) -> list[LaunchResult]:
    """Launch each pool (all of the study's by default), one result a pool: a pool that fails (a
    rule of ours, or Prolific's refusal or silence) says why and the others are launched all the
    same; a retry launches what failed and leaves the rest. What fails for every pool alike (no
    token, this site's address) is raised before any is tried. By default the pools on another
    panel (``studies.panels``) are left out; named in ``pools``, each is refused with its reason."""
    everyone = study.pools.select_related("panel").order_by("country")
    chosen = pools if pools is not None else [pool for pool in everyone if panel_of(pool) is None]
    problem = launch_refusal()
    if problem:
        raise RecruitmentRefused(problem)
    results = []
    for pool in chosen:
        try:
            results.append(prolific_study_launch(pool=pool, user=user, options=options))
        except (ProlificError, RecruitmentRefused) as exc:
            text = str(exc)
            named = text if text.startswith(f"{pool.country_name}:") else f"{pool.country_name}: {text}"
            if isinstance(exc, ProlificError):  # said with its pool wherever it is shown
                exc.message = f"{pool.country_name}: {exc.message}"
                exc.args = (exc.message,)
            row = ProlificStudy.objects.filter(pool=pool).select_related("pool").first()
            results.append(LaunchResult(row, created=False, plan=None, error=named, failure=exc))
    return results


def _row_claim(
    *, pool: CountryPool, plan: LaunchPlan, options: LaunchOptions, user: AbstractBaseUser | None, reference: str
) -> tuple[ProlificStudy, bool]:
    """The pool's row, written (committed) before Prolific is asked, and claimed for this launch;
    True when this launch wrote it (no earlier attempt)."""
    fields = {
        "places": plan.places,
        "reward": options.reward,
        "currency": plan.currency,
        "estimated_minutes": options.estimated_minutes,
        "maximum_allowed_minutes": plan.maximum_allowed_minutes,
        "devices": list(options.devices),
        "filter_picks": [p.as_json() for p in options.filter_picks],
        "filters": plan.filters,
        "screen_out_reward": options.screen_out_reward,  # issue 28, part 2
        "secured_entry": options.secured_entry,
    }
    row, fresh = ProlificStudy.objects.get_or_create(
        pool=pool,
        defaults={**fields, "reference": reference, "created_by": user if user and user.is_authenticated else None},
    )
    now = timezone.now()
    claimed = ProlificStudy.objects.filter(
        Q(creating_until__isnull=True) | Q(creating_until__lt=now), pk=row.pk, prolific_id=""
    ).update(creating_until=now + CLAIM_FOR, **fields)
    row.refresh_from_db()
    if not claimed and not row.created:
        raise RecruitmentRefused(
            f"{pool.country_name}: a launch of this pool is already under way; try again in a minute"
        )
    return row, fresh


def _find_on_prolific(client: ProlificClient, reference: str) -> RemoteStudy | None:
    """The study created earlier for this reference, if Prolific has one (by internal_name or metadata)."""
    for remote in client.studies():
        if remote.internal_name == reference or remote.raw.get("metadata") == reference:
            return remote
    return None


def _id_store(row: ProlificStudy, remote: RemoteStudy) -> ProlificStudy:
    ProlificStudy.objects.filter(pk=row.pk, prolific_id="").update(
        prolific_id=remote.id,
        status=remote.status,
        currency=str(remote.raw.get("currency_code") or row.currency),
        total_cost=remote.total_cost,
        places=remote.total_available_places or row.places,
        last_error="",
        synced_at=timezone.now(),
    )
    row.refresh_from_db()
    return row


def workspace_record(client: ProlificClient, row: ProlificStudy, remote: RemoteStudy | None = None) -> str:
    """Record the Prolific workspace that holds the pool's study (only that workspace's webhook
    secret may act on it): the only workspace ``client``'s token sees, else the one whose projects
    hold the study's project. Left blank when Prolific cannot tell now; the periodic sync tries again."""
    try:
        workspaces = [str(w.get("id") or "") for w in client.workspaces()]
        found = workspaces[0] if len(workspaces) == 1 else ""
        if not found and workspaces:
            known = remote is not None and remote.raw.get("project")
            raw = remote.raw if known and remote is not None else client.study_get(row.prolific_id).raw
            project = str(raw.get("project") or "")
            holds = (wid for wid in workspaces if any(str(p.get("id")) == project for p in client.projects(wid)))
            found = next(holds, "") if project else ""
    except ProlificError:
        return ""
    if found:
        ProlificStudy.objects.filter(pk=row.pk).update(workspace_id=found)
        row.workspace_id = found
    return found


def _row_failed(row: ProlificStudy, exc: ProlificError) -> None:
    ProlificStudy.objects.filter(pk=row.pk).update(last_error=exc.message[:2000])


# --- transitions -----------------------------------------------------------------------------

# our verb -> (Prolific's action, the log's kind, the statuses that mean it is done)
# Publishing and resuming send participants to the entry links: only to an open study.
SENDS_PARTICIPANTS = {"publish", "resume"}

TRANSITIONS = {
    "publish": ("PUBLISH", ProlificAction.Kind.PUBLISH, {"PUBLISHING", "SCHEDULED", "ACTIVE"}),
    "pause": ("PAUSE", ProlificAction.Kind.PAUSE, {"PAUSED"}),
    "resume": ("START", ProlificAction.Kind.RESUME, {"ACTIVE"}),
    "stop": ("STOP", ProlificAction.Kind.STOP, {"AWAITING REVIEW", "COMPLETED"}),
}


@dataclass(frozen=True)
class TransitionResult:
    prolific_study: ProlificStudy
    ok: bool
    message: str


def prolific_study_transition(
    *, prolific_study: ProlificStudy, verb: str, user: AbstractBaseUser | None
) -> ProlificStudy:
    """Publish, pause, resume or stop one pool's study on Prolific, then mirror its status.

    A refusal whose reason is that the study is already where it was sent (a repeat, or a retry
    after a time-out that had worked) counts as done: the status is read back from Prolific."""
    try:
        action, kind, done = TRANSITIONS[verb]
    except KeyError:
        raise ValueError(f"unknown transition {verb!r}") from None
    row = prolific_study
    if not row.created:
        raise RecruitmentRefused(f"{row.pool.country_name}: the study is not on Prolific yet; launch it first")
    if verb in SENDS_PARTICIPANTS and not row.pool.study.is_open:
        raise RecruitmentRefused(
            f"{row.pool.country_name}: open the study to annotators first (on its page): "
            "Prolific would send participants to entry links that turn them away"
        )
    with client_for(user=user) as client:
        try:
            remote = client.study_transition(row.prolific_id, action)
        except ProlificRequestError as exc:
            current = client.study_get(row.prolific_id)
            if current.status not in done:
                status_mirror(row, current)
                action_log(row=row, kind=kind, user=user, ok=False, error=exc)
                raise
            remote = current
        except ProlificError as exc:
            action_log(row=row, kind=kind, user=user, ok=False, error=exc)
            raise
    status_mirror(row, remote)
    if row.paused_when_full:  # a person decided: the platform no longer resumes it by itself
        row.paused_when_full = False
        row.save(update_fields=["paused_when_full"])
    action_log(row=row, kind=kind, user=user, ok=True, answer=remote.raw)
    return row


def prolific_studies_transition(
    *, study: Study, verb: str, user: AbstractBaseUser | None, pools: list[CountryPool] | None = None
) -> list[TransitionResult]:
    """The transition for every pool of the study (or of ``pools``) that is on Prolific; one pool's
    failure does not stop the others, and each result says what happened."""
    results = []
    rows = ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").select_related("pool")
    if pools is not None:
        rows = rows.filter(pool__in=pools)
    for row in rows.order_by("pool__country"):
        try:
            prolific_study_transition(prolific_study=row, verb=verb, user=user)
            results.append(TransitionResult(row, True, f"{row.pool.country_name}: {row.get_status_display()}"))
        except (ProlificError, RecruitmentRefused) as exc:
            results.append(TransitionResult(row, False, f"{row.pool.country_name}: {exc}"))
    return results


def prolific_study_refresh(*, prolific_study: ProlificStudy, user: AbstractBaseUser | None) -> ProlificStudy:
    """Read the pool's study back from Prolific and mirror its status, places and cost."""
    row = prolific_study
    if not row.created:
        raise RecruitmentRefused(f"{row.pool.country_name}: the study is not on Prolific yet; launch it first")
    with client_for(user=user) as client:
        status_mirror(row, client.study_get(row.prolific_id))
    return row


def status_mirror(row: ProlificStudy, remote: RemoteStudy) -> None:
    row.status = remote.status
    row.total_cost = remote.total_cost if remote.total_cost is not None else row.total_cost
    row.places = remote.total_available_places or row.places
    row.synced_at = timezone.now()
    row.save(update_fields=["status", "total_cost", "places", "synced_at"])
