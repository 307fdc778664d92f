"""Who may review what. Every review page and action looks its pool and annotation up here.

A pool's annotations may be reviewed by whoever may change its study (``studies_for_user(...,
write=True)``: its owner, its editors; a superuser: any study) and by the pool's checkers. A viewer
of the study reads its pages but does not review (a review changes the data: a flag reopens a slot).
Anyone else gets 404, never 403: a pool they may not review does not exist for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from studies.models import CountryPool, Study
from studies.selectors import studies_for_user

from ..models import Annotation, Checker


@dataclass(frozen=True)
class ReviewScope:
    """One pool as one reviewer sees it."""

    study: Study
    pool: CountryPool
    user: AbstractBaseUser
    own_pid: str = ""  # the reviewer's Prolific id when they also annotate (Checker.prolific_pid)


def pools_for_reviewer(user: AbstractBaseUser) -> QuerySet[CountryPool]:
    """The pools the user may review: of the studies they own or edit, and those they check."""
    if not user.is_authenticated:
        return CountryPool.objects.none()
    checks = Checker.objects.filter(pool=OuterRef("pk"), user=user)
    return CountryPool.objects.filter(Q(study__in=studies_for_user(user, write=True)) | Exists(checks))


def scope_for_reviewer(user: AbstractBaseUser, study_pk: int, pool_pk: int) -> ReviewScope:
    """The pool ``pool_pk`` of study ``study_pk`` if the user may review it, or 404."""
    if not user.is_authenticated:
        raise Http404
    pool = get_object_or_404(pools_for_reviewer(user).select_related("study"), pk=pool_pk, study_id=study_pk)
    own_pid = Checker.objects.filter(pool=pool, user=user).values_list("prolific_pid", flat=True).first() or ""
    return ReviewScope(study=pool.study, pool=pool, user=user, own_pid=own_pid)


def annotations_to_review(scope: ReviewScope) -> QuerySet[Annotation]:
    """The pool's annotations this reviewer may review, reviewed or not: skipped items and the
    reviewer's own annotations are left out, and so are withdrawn ones (they count nowhere)."""
    annotations = Annotation.objects.filter(pool=scope.pool, skipped=False, withdrawn=False)
    if scope.own_pid:
        annotations = annotations.exclude(annotator__prolific_pid=scope.own_pid)
    return annotations


def annotation_for_reviewer(scope: ReviewScope, pk: int) -> Annotation:
    """One annotation of the scope's pool the reviewer may review, or 404."""
    annotations = annotations_to_review(scope).select_related("study", "item", "annotator", "assignment")
    return get_object_or_404(annotations, pk=pk)
