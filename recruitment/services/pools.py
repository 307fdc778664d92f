"""Removing a country pool. The rule sits here, in the highest app a pool's rows reach: deleting
a pool cascades to its annotators with their sessions and leases (annotation) and to its Prolific
study with its submissions and bonuses (recruitment), so a pool goes only while it holds none of
them; its quotas, eligibility questions, entry link, checkers and review target go with it."""

from __future__ import annotations

from django.db import transaction
from django.db.models import RestrictedError

from annotation.models import Annotation, Annotator, Assignment, Session
from studies.models import CountryPool

from ..models import ProlificStudy


class PoolKept(Exception):
    """The pool holds what its removal would delete; the message says what and why it stays."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def pool_delete_refusal(*, pool: CountryPool) -> str | None:
    """Why the pool may not be removed, or None: it has a Prolific study (whatever its state: its
    submissions and payments are recorded with it), annotations, or annotators (their sessions,
    consent and screening answers, and any item they hold now)."""
    name = pool.country_name
    prolific = ProlificStudy.objects.filter(pool=pool).first()
    if prolific is not None:
        return (
            f"The pool for {name} has a study on Prolific ({prolific.get_status_display().lower()}), so it stays: "
            "its participants, submissions and payments are recorded with it."
        )
    if Annotation.objects.filter(pool=pool).exists():
        return f"The pool for {name} has annotations already, so it stays: its answers belong to the study."
    annotators = Annotator.objects.filter(pool=pool).count()
    if annotators:
        sessions = Session.objects.filter(annotator__pool=pool).count()
        leased = Assignment.objects.filter(pool=pool, status=Assignment.Status.LEASED).count()
        holding = f", {leased} holding an item now" if leased else ""
        return (
            f"The pool for {name} has {_plural(annotators, 'annotator')} ({_plural(sessions, 'session')}{holding}), "
            "so it stays: their consent, screening answers and sessions are recorded with it."
        )
    return None


def pool_delete(*, pool: CountryPool) -> None:
    """Remove a pool with its quotas, eligibility questions, entry link, checkers and review target;
    ``PoolKept`` while ``pool_delete_refusal`` names anything else it holds.

    The pool's row is locked while the rule is asked and the row deleted: an annotator entering
    meanwhile (whose row refers to the pool) is either seen by the rule or refused by the database,
    never deleted with the pool."""
    with transaction.atomic():
        locked = CountryPool.objects.select_for_update().filter(pk=pool.pk).first()
        if locked is None:
            raise PoolKept(f"The pool for {pool.country_name} was removed meanwhile.")
        refusal = pool_delete_refusal(pool=locked)
        if refusal:
            raise PoolKept(refusal)
        try:
            with transaction.atomic():
                locked.delete()
        except RestrictedError:  # an annotation (on_delete=RESTRICT) arrived in between
            raise PoolKept(pool_delete_refusal(pool=locked) or "The pool holds annotations: it stays.") from None
