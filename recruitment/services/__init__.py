"""Recruitment's services, by one name each: launching pools' Prolific studies and moving them."""

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

__all__ = [
    "FilterPick",
    "LaunchOptions",
    "LaunchPlan",
    "LaunchResult",
    "PlacesResult",
    "RecruitmentRefused",
    "TransitionResult",
    "launch_refusal",
    "prolific_places_sync",
    "prolific_studies_launch",
    "prolific_studies_transition",
    "prolific_study_launch",
    "prolific_study_refresh",
    "prolific_study_transition",
]
