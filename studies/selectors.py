"""Reads of studies, always scoped to what the user may see."""

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import ProtocolVersion, Study
from .protocol import Protocol, SpecError, parse_spec


def studies_for_user(user: AbstractBaseUser) -> QuerySet[Study]:
    """The studies a researcher may see: their own (every study for a superuser)."""
    if not user.is_authenticated:
        return Study.objects.none()
    if user.is_superuser:
        return Study.objects.all()
    return Study.objects.filter(owner=user)


def study_for_user(user: AbstractBaseUser, pk: int) -> Study:
    """One study the user may see, or 404 (never 403: another's study does not exist for them)."""
    if not user.is_authenticated:
        raise Http404
    return get_object_or_404(studies_for_user(user), pk=pk)


def protocol_specs(*, study: Study, versions: Iterable[int]) -> dict[int, Protocol]:
    """The stored specs of these protocol versions of the study, parsed (one query). A version
    with no stored spec, or one that no longer parses, is left out: its answers are read with the
    current spec, and the caller says so."""
    out = {}
    for version, spec in ProtocolVersion.objects.filter(study=study, version__in=list(versions)).values_list(
        "version", "spec"
    ):
        try:
            out[version] = parse_spec(spec)
        except SpecError:
            continue
    return out
