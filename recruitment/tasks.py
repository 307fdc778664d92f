"""Recruitment's Celery tasks: each calls a service, which records what it did in our own rows."""

from celery import shared_task

from .services.sync import prolific_entries_recheck, prolific_events_prune, prolific_studies_sync


@shared_task(ignore_result=True)
def prolific_sync_task() -> None:
    """Run by Celery beat: every running Prolific study's submissions, leases, status and places;
    webhook event ids past any retry forgotten."""
    prolific_studies_sync()
    prolific_events_prune()


@shared_task(ignore_result=True)
def prolific_entries_recheck_task() -> None:
    """Run by Celery beat: entries let in unverified (Prolific could not be asked) asked again."""
    prolific_entries_recheck()
