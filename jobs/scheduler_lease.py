"""One runner at a time across processes and nodes: a ``SchedulerLease`` row claimed, renewed and given
back by conditional UPDATEs (SQLite and PostgreSQL alike). Times are the database's clock (``Now()``),
so nodes whose clocks differ still agree on who holds it."""

from __future__ import annotations

import os
import secrets
import socket
from datetime import timedelta

from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.db.models.functions import Now

from jobs.models import SchedulerLease


def holder_name() -> str:
    """This process, unique even when a pid is reused: host:pid:random."""
    return f"{socket.gethostname()[:120]}:{os.getpid()}:{secrets.token_hex(4)}"


def _until(seconds: float) -> models.Expression:
    return models.ExpressionWrapper(Now() + timedelta(seconds=seconds), output_field=models.DateTimeField())


def scheduler_lease_claim(*, name: str, holder: str, seconds: float) -> bool:
    """Hold the lease ``name`` for ``seconds`` more: renewed when ``holder`` has it, taken when it has
    lapsed or never existed; False while another holder's lease runs."""
    if seconds <= 0:
        raise ValueError("a lease lasts a positive number of seconds")
    free = Q(holder=holder) | Q(expires_at__lt=Now())
    if SchedulerLease.objects.filter(free, name=name).update(holder=holder, expires_at=_until(seconds)):
        return True
    try:
        with transaction.atomic():
            SchedulerLease.objects.create(name=name, holder=holder, expires_at=_until(seconds))
    except IntegrityError:  # another process made the row first: it holds the lease
        return False
    return True


def scheduler_lease_release(*, name: str, holder: str) -> bool:
    """Give the lease back (a stopping holder): the next claim by anyone takes it at once."""
    lapsed = _until(-1)
    return bool(SchedulerLease.objects.filter(name=name, holder=holder).update(expires_at=lapsed))
