"""Reads of studies, always scoped to what the user may see."""

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import Study


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
