"""Rounds across studies: invite back a finished study's annotators who met a bar as a Prolific
participant group, restrict or exclude groups and earlier studies at a launch, and the researcher's
block list, applied to every launch.

Where the bar's figures come from. The quality scores are the analysis's (``analysis/quality.py``),
and recruitment may not import analysis (``tests/test_layers.py``). So recruitment owns the port:
``ScoreRow`` (one annotator's participant id, quality score, gold accuracy, exclusion) and the pure
``qualifying(rows, bar)``; whoever may read the analysis (the workspace, on top) supplies the rows.
The workspace registers its reader once at start-up (``score_source_register`` in
``workspace/apps.py``), so the page, the API and ``manage.py prolific invite-back`` all read the same
rows through ``study_score_rows`` and never a second copy of the rule.

Filters sent (ids from Prolific's reference; docs/prolific.md names each source):
``participant_group_allowlist`` (one entry per group to restrict to: separate entries are ANDed, so
one entry with several groups means "in any of them"), ``participant_group_blocklist`` (the groups
excluded and the researcher's block-list group), ``previous_studies_blocklist`` (the Prolific studies
of earlier Tessera studies excluded).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import Http404
from django.utils import timezone

from studies.models import Study
from studies.selectors import studies_for_user

from ..models import BlockedParticipant, ParticipantGroup, ParticipantGroupMember, ProlificStudy
from ..prolific import ProlificClient
from ..tokens import client_for
from .launch import RecruitmentRefused

ALLOWLIST = "participant_group_allowlist"
BLOCKLIST = "participant_group_blocklist"
PREVIOUS_STUDIES_BLOCKLIST = "previous_studies_blocklist"
ROUND_FILTER_IDS = (ALLOWLIST, BLOCKLIST, PREVIOUS_STUDIES_BLOCKLIST)
ADD_BATCH = 500  # members added per request
NAME_MAX = 120
REASON_MAX = 500


# --- the bar (pure) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """Who is invited back: a least quality score (MACE competence, 0–1), a least gold accuracy
    (0–1), and no exclusion (neither excluded nor blocked by the researcher)."""

    min_quality: float | None = None
    min_gold: float | None = None
    no_exclusions: bool = True

    def problems(self) -> dict[str, str]:
        """Each bad value under its field, with what is wanted."""
        out = {}
        for key in ("min_quality", "min_gold"):
            value = getattr(self, key)
            if value is not None and (not math.isfinite(value) or not 0 <= value <= 1):
                out[key] = "Give a number between 0 and 1 (e.g. 0.8), or leave it empty."
        if self.min_quality is None and self.min_gold is None and not self.no_exclusions:
            out["min_quality"] = "Set at least one part of the bar: a least quality score, a least gold accuracy, " \
                "or no exclusions."
        return out

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ScoreRow:
    """One annotator of the study as the bar reads them (supplied by the analysis's reader)."""

    participant_id: str
    quality: float | None
    gold_accuracy: float | None
    excluded: bool


def qualifying(rows: Iterable[ScoreRow], bar: Bar) -> list[str]:
    """The participant ids that meet the bar, sorted, once each. A missing score fails a bar on it."""
    out = set()
    for row in rows:
        if not row.participant_id:
            continue
        if bar.no_exclusions and row.excluded:
            continue
        if bar.min_quality is not None and (row.quality is None or row.quality < bar.min_quality):
            continue
        if bar.min_gold is not None and (row.gold_accuracy is None or row.gold_accuracy < bar.min_gold):
            continue
        out.add(row.participant_id)
    return sorted(out)


# --- where the scores come from (the port; the workspace plugs its reader in) -------------------

ScoreSource = Callable[[Study], list[ScoreRow]]
_score_source: list[ScoreSource] = []


def score_source_register(source: ScoreSource) -> None:
    _score_source[:] = [source]


def study_score_rows(study: Study) -> list[ScoreRow]:
    if not _score_source:
        raise RecruitmentRefused("no reader of the analysis's scores is registered (the workspace app registers it)")
    return _score_source[0](study)


# --- scoped reads -----------------------------------------------------------------------------


def groups_of(*, user: AbstractBaseUser) -> Any:
    """The researcher's own invite-back groups (no one else's)."""
    return ParticipantGroup.objects.filter(owner=user, kind=ParticipantGroup.Kind.INVITE).select_related(
        "source_study").annotate(members_n=Count("members")).order_by("-created_at", "-id")


def group_for_user(*, user: AbstractBaseUser, pk: int) -> ParticipantGroup:
    group = groups_of(user=user).filter(pk=pk).first()
    if group is None:
        raise Http404("No such group")
    return group


def blocked_of(*, user: AbstractBaseUser) -> Any:
    return BlockedParticipant.objects.filter(owner=user)


def previous_studies_of(*, user: AbstractBaseUser, exclude: Study | None = None) -> Any:
    """The studies the researcher may see that have a study on Prolific (to exclude their participants)."""
    qs = studies_for_user(user).filter(pools__prolific_study__prolific_id__gt="").distinct().order_by("-pk")
    return qs.exclude(pk=exclude.pk) if exclude is not None else qs


# --- invite back ------------------------------------------------------------------------------


@dataclass(frozen=True)
class InvitePreview:
    participant_ids: list[str]
    annotators: int  # scored annotators read

    @property
    def count(self) -> int:
        return len(self.participant_ids)


def invite_preview(*, study: Study, bar: Bar) -> InvitePreview:
    """Who of the study meets the bar; never anyone on its owner's block list (whatever the bar: every
    launch of theirs keeps them out anyway)."""
    problems = bar.problems()
    if problems:
        raise RecruitmentRefused("; ".join(problems.values()))
    rows = study_score_rows(study)
    return InvitePreview(_unblocked(qualifying(rows, bar), owner=study.owner), len(rows))


def _unblocked(ids: list[str], *, owner: AbstractBaseUser) -> list[str]:
    blocked = set(blocked_of(user=owner).filter(participant_id__in=ids).values_list("participant_id", flat=True))
    return [pid for pid in ids if pid not in blocked]


def invite_back(
    *, study: Study, bar: Bar, name: str, user: AbstractBaseUser, participant_ids: list[str] | None = None
) -> ParticipantGroup:
    """The study's annotators meeting ``bar`` as a Prolific participant group named ``name``.

    Idempotent: the group's row and its members are written first; the group is created on Prolific
    only if it has no id yet (looked for by name in the workspace first: a crash after Prolific
    created it), and only members not yet on Prolific are added. Re-running adds nothing twice, and a
    run that failed half-way resumes where it stopped."""
    name = name.strip()
    if not name or len(name) > NAME_MAX:
        raise RecruitmentRefused(f"Give the group a name of 1 to {NAME_MAX} characters.")
    ids = participant_ids if participant_ids is not None else invite_preview(study=study, bar=bar).participant_ids
    ids = _unblocked(ids, owner=user)
    if not ids:
        raise RecruitmentRefused("Nobody in this study meets the bar: lower it, or run the analysis first.")
    group = _group_row(study=study, bar=bar, name=name, user=user)
    ParticipantGroupMember.objects.bulk_create(
        [ParticipantGroupMember(group=group, participant_id=pid) for pid in ids], ignore_conflicts=True
    )
    with client_for(user=user) as client:
        _group_on_prolific(client, group, workspace_id=_workspace_for(client, study))
        _members_push(client, group)
    return group


@dataclass(frozen=True)
class GroupSync:
    """What a re-sync did: the participants added (newly meeting the bar) and the members who no
    longer meet it (kept: a group never loses a member silently)."""

    added: list[str]
    no_longer: list[str]


def group_sync(*, group: ParticipantGroup, user: AbstractBaseUser, dry_run: bool = False) -> GroupSync:
    """An invite-back group brought up to date after a later round: its source study's annotators who
    meet its bar now (the latest analysis) added, on Prolific too; nobody removed. Asks Prolific only
    when there is someone to add (or a run that failed half-way to finish)."""
    if group.owner_id != user.pk or group.kind != ParticipantGroup.Kind.INVITE:
        raise RecruitmentRefused("Only your own invite-back groups can be brought up to date.")
    study = group.source_study
    if study is None:
        raise RecruitmentRefused("The study this group was drawn from is gone: it cannot be brought up to date.")
    if study.owner_id != user.pk:
        raise RecruitmentRefused("Only the study's owner invites its annotators back.")
    known = {k: v for k, v in (group.bar or {}).items() if k in Bar.__dataclass_fields__}
    now = invite_preview(study=study, bar=Bar(**known)).participant_ids
    have = set(group.members.values_list("participant_id", flat=True))
    result = GroupSync(added=[pid for pid in now if pid not in have], no_longer=sorted(have - set(now)))
    if dry_run:
        return result
    ParticipantGroupMember.objects.bulk_create(
        [ParticipantGroupMember(group=group, participant_id=pid) for pid in result.added], ignore_conflicts=True
    )
    if group.prolific_id and not group.members.filter(added_at__isnull=True).exists():
        return result
    with client_for(user=user) as client:
        _group_on_prolific(client, group, workspace_id=_workspace_for(client, study))
        _members_push(client, group)
    return result


def _group_row(*, study: Study, bar: Bar, name: str, user: AbstractBaseUser) -> ParticipantGroup:
    try:
        with transaction.atomic():
            group, _ = ParticipantGroup.objects.get_or_create(
                owner=user, kind=ParticipantGroup.Kind.INVITE, name=name,
                defaults={"source_study": study, "bar": bar.as_json()},
            )
    except IntegrityError:  # a concurrent run made it: use theirs
        group = ParticipantGroup.objects.get(owner=user, kind=ParticipantGroup.Kind.INVITE, name=name)
    if group.source_study_id != study.pk or group.bar != bar.as_json():
        raise RecruitmentRefused(
            f"You already have a group named {name!r} from another study or bar: choose another name."
        )
    return group


def _workspace_for(client: ProlificClient, study: Study | None) -> str:
    """The Prolific workspace of the study's pools (as the launch recorded it), else the token's only one."""
    if study is not None:
        known = ProlificStudy.objects.filter(pool__study=study).exclude(workspace_id="").values_list(
            "workspace_id", flat=True).first()
        if known:
            return known
    workspaces = [str(w.get("id") or "") for w in client.workspaces()]
    if len(workspaces) != 1:
        raise RecruitmentRefused("Your Prolific token sees several workspaces: launch the study there first.")
    return workspaces[0]


def _group_on_prolific(client: ProlificClient, group: ParticipantGroup, *, workspace_id: str) -> None:
    if group.prolific_id:
        return
    found = next((g for g in client.participant_groups(workspace_id) if g.get("name") == group.name), None)
    remote = found or client.participant_group_create(
        name=group.name, workspace_id=workspace_id, description="Made by Tessera"
    )
    ParticipantGroup.objects.filter(pk=group.pk, prolific_id="").update(
        prolific_id=str(remote["id"]), workspace_id=workspace_id
    )
    group.refresh_from_db()


def _members_push(client: ProlificClient, group: ParticipantGroup) -> int:
    pending = list(group.members.filter(added_at__isnull=True).values_list("participant_id", flat=True))
    for start in range(0, len(pending), ADD_BATCH):
        batch = pending[start:start + ADD_BATCH]
        client.participant_group_add(group.prolific_id, batch)
        group.members.filter(participant_id__in=batch).update(added_at=timezone.now())
    ParticipantGroup.objects.filter(pk=group.pk).update(synced_at=timezone.now())
    return len(pending)


# --- the block list ---------------------------------------------------------------------------


def participant_block(*, user: AbstractBaseUser, participant_id: str, reason: str) -> BlockedParticipant:
    participant_id, reason = participant_id.strip(), reason.strip()
    if not participant_id or len(participant_id) > 64 or not participant_id.isalnum():
        raise RecruitmentRefused("A Prolific participant id is letters and digits (24 characters, usually).")
    if not reason or len(reason) > REASON_MAX:
        raise RecruitmentRefused(f"Say why, in at most {REASON_MAX} characters.")
    try:
        with transaction.atomic():
            return BlockedParticipant.objects.create(
                owner=user, participant_id=participant_id, reason=reason, created_by=user
            )
    except IntegrityError:
        raise RecruitmentRefused("This participant is on your block list already.") from None


def participant_unblock(*, user: AbstractBaseUser, participant_id: str) -> bool:
    deleted, _ = BlockedParticipant.objects.filter(owner=user, participant_id=participant_id.strip()).delete()
    return bool(deleted)


def blocklist_sync(
    client: ProlificClient, *, owner: AbstractBaseUser, workspace_id: Callable[[], str]
) -> str | None:
    """The owner's block list as a participant group on Prolific (made once per workspace), its
    members brought in step (added and removed); its id, or None when the list is empty."""
    wanted = set(blocked_of(user=owner).values_list("participant_id", flat=True))
    lists = ParticipantGroup.objects.filter(owner=owner, kind=ParticipantGroup.Kind.BLOCKLIST)
    if not wanted and not lists.exists():
        return None  # nothing blocked, nothing ever put on Prolific: not one call
    workspace = workspace_id()
    name = f"Tessera block list ({workspace})"
    group = lists.filter(name=name).first()
    if group is None:
        group, _ = ParticipantGroup.objects.get_or_create(owner=owner, kind=ParticipantGroup.Kind.BLOCKLIST, name=name)
    _group_on_prolific(client, group, workspace_id=workspace)
    there = set(client.participant_group_members(group.prolific_id))
    client.participant_group_add(group.prolific_id, sorted(wanted - there))
    client.participant_group_remove(group.prolific_id, sorted(there - wanted))
    ParticipantGroup.objects.filter(pk=group.pk).update(synced_at=timezone.now())
    return group.prolific_id if wanted else None


# --- a launch's round filters -----------------------------------------------------------------


@dataclass(frozen=True)
class RoundChoice:
    """A launch's round choices, by our ids: groups to restrict to, groups and earlier studies to exclude."""

    allow_groups: tuple[int, ...] = ()
    block_groups: tuple[int, ...] = ()
    exclude_studies: tuple[int, ...] = ()


def round_filters(
    client: ProlificClient, *, study: Study, owner: AbstractBaseUser, choice: RoundChoice,
    workspace_id: Callable[[], str],
) -> list[dict[str, Any]]:
    """The filters a launch of ``study`` adds: the block list always, then the researcher's choices,
    each resolved to Prolific's ids from what the owner may use (anything else is refused)."""
    mine = {g.pk: g for g in groups_of(user=owner).filter(pk__in={*choice.allow_groups, *choice.block_groups})}
    missing = {*choice.allow_groups, *choice.block_groups} - mine.keys()
    if missing:
        raise RecruitmentRefused("a group chosen is not one of yours")
    if set(choice.allow_groups) & set(choice.block_groups):
        raise RecruitmentRefused("a group cannot be both restricted to and excluded")
    unfinished = [mine[pk].name for pk in {*choice.allow_groups, *choice.block_groups} if not mine[pk].prolific_id]
    if unfinished:
        raise RecruitmentRefused(f"the group {unfinished[0]!r} is not on Prolific yet: run its invite-back again")
    seen = previous_studies_of(user=owner).filter(pk__in=choice.exclude_studies)
    if set(choice.exclude_studies) - set(seen.values_list("pk", flat=True)):
        raise RecruitmentRefused("a study chosen to exclude is not one of yours on Prolific")
    if study.pk in choice.exclude_studies:
        raise RecruitmentRefused("a study cannot exclude its own participants")
    _allow_from_excluded_study(mine, choice)
    out: list[dict[str, Any]] = []
    if choice.allow_groups:
        out.append({"filter_id": ALLOWLIST, "selected_values": [mine[pk].prolific_id for pk in choice.allow_groups]})
    blocked = [mine[pk].prolific_id for pk in choice.block_groups]
    own_list = blocklist_sync(client, owner=owner, workspace_id=workspace_id)
    if own_list:
        blocked.append(own_list)
    if blocked:
        out.append({"filter_id": BLOCKLIST, "selected_values": blocked})
    previous = sorted(ProlificStudy.objects.filter(pool__study__in=seen).exclude(prolific_id="").values_list(
        "prolific_id", flat=True))
    if previous:
        out.append({"filter_id": PREVIOUS_STUDIES_BLOCKLIST, "selected_values": previous})
    return out


def _allow_from_excluded_study(mine: dict[int, ParticipantGroup], choice: RoundChoice) -> None:
    """Excluding the study a group restricted to was drawn from would exclude the whole group."""
    for pk in choice.allow_groups:
        if mine[pk].source_study_id in choice.exclude_studies:
            raise RecruitmentRefused(
                f"the group {mine[pk].name!r} was drawn from a study you exclude: its members could not take part "
                "(restricting to the group already keeps that study's others out)"
            )
