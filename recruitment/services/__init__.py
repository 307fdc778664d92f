"""Recruitment's services, by one name each: launching pools' Prolific studies and moving them;
reviewing and paying their submissions."""

from .body import FilterPick, LaunchOptions, LaunchPlan, launch_refusal
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
from .places import PlacesResult, prolific_places_sync
from .review import RefreshResult, prolific_bonus_draft, prolific_job_start, prolific_submissions_refresh

__all__ = [
    "FilterPick",
    "LaunchOptions",
    "LaunchPlan",
    "LaunchResult",
    "PlacesResult",
    "RecruitmentRefused",
    "RefreshResult",
    "TransitionResult",
    "launch_refusal",
    "prolific_bonus_draft",
    "prolific_job_start",
    "prolific_places_sync",
    "prolific_studies_launch",
    "prolific_studies_transition",
    "prolific_study_launch",
    "prolific_study_refresh",
    "prolific_study_transition",
    "prolific_submissions_refresh",
]
