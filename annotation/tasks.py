from celery import shared_task

from .services import assignments_expire


@shared_task
def assignments_expire_task() -> int:
    """Run by Celery beat every minute: give the slots of lapsed leases back to their items."""
    return assignments_expire()
