"""Recruitment's services, by one name each: launching pools' Prolific studies and moving them;
paying out their submissions (approve, reject, bonuses); their webhooks, and their submissions kept in step
(webhooks, the periodic sync, entry rechecks); removing a pool, which reaches every app's rows."""

from .body import FilterPick, LaunchOptions, LaunchPlan, launch_refusal
from .countries import prolific_country_pick
from .hooks import HooksResult, prolific_webhooks_setup, webhook_target_url
from .launch import (
    LaunchResult,
    RecruitmentRefused,
    TransitionResult,
    prolific_studies_launch,
    prolific_studies_transition,
    prolific_study_launch,
    prolific_study_refresh,
    prolific_study_transition,
)
from .payouts import prolific_bonus_draft, prolific_job_start
from .places import PlacesResult, prolific_places_sync
from .pools import PoolKept, pool_delete, pool_delete_refusal
from .sync import (
    SyncResult,
    prolific_entries_recheck,
    prolific_studies_sync,
    prolific_study_sync,
    prolific_submission_apply,
    recruitment_policy_set,
)

__all__ = [
    "FilterPick",
    "HooksResult",
    "SyncResult",
    "prolific_country_pick",
    "prolific_entries_recheck",
    "prolific_studies_sync",
    "prolific_study_sync",
    "prolific_submission_apply",
    "prolific_webhooks_setup",
    "recruitment_policy_set",
    "webhook_target_url",
    "LaunchOptions",
    "LaunchPlan",
    "LaunchResult",
    "PlacesResult",
    "PoolKept",
    "RecruitmentRefused",
    "TransitionResult",
    "launch_refusal",
    "prolific_bonus_draft",
    "prolific_job_start",
    "prolific_places_sync",
    "pool_delete",
    "pool_delete_refusal",
    "prolific_studies_launch",
    "prolific_studies_transition",
    "prolific_study_launch",
    "prolific_study_refresh",
    "prolific_study_transition",
]
