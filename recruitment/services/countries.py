"""A pool's country picked by hand among Prolific's countries of residence, for a country whose
names match none of Prolific's (``country_choices``): kept per pool, used by every launch."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from studies.models import CountryPool

from ..models import ProlificCountryPick, ProlificStudy
from .launch import RecruitmentRefused


def prolific_country_pick(
    *, pool: CountryPool, key: str, choices: dict[str, str], user: AbstractBaseUser | None
) -> ProlificCountryPick | None:
    """Pick Prolific's choice ``key`` (one of ``choices``, its residence filter's) for ``pool``;
    an empty key goes back to finding it by the country's names. Refused once the pool's study is
    on Prolific (its filters were sent with it)."""
    name = pool.country_name
    if ProlificStudy.objects.filter(pool=pool).exclude(prolific_id="").exists():
        raise RecruitmentRefused(f"{name}: the pool's study is on Prolific already, with its country")
    if not key:
        ProlificCountryPick.objects.filter(pool=pool).delete()
        return None
    if key not in choices:
        raise RecruitmentRefused(f"{name}: {key!r} is not one of Prolific's countries of residence")
    pick, _ = ProlificCountryPick.objects.update_or_create(
        pool=pool, defaults={"choice_key": key, "choice_label": choices[key], "picked_by": user},
    )
    return pick
