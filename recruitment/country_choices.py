"""A pool's country found among the choices of one of Prolific's country filters (current country
of residence, nationality, country of birth): by the pool's ISO code and every name it goes by
(``studies.countries.names_of``: ours, CLDR's, "Korea", "Turkey", "Czech Republic"…), either
order of a name with a comma ("Korea, Republic of").

Plain functions over plain data: the caller gives Prolific's choices (key -> label) as its filter
list answered them, never a list written here."""

from __future__ import annotations

from dataclasses import dataclass

from studies.countries import names_of, normalised

from .prolific_answers import Filter
from .rules import RuleBroken

# The filter that puts a pool's country on Prolific, found by its title in Prolific's list (its
# id and its choice keys are read from there, never written here).
RESIDENCE_FILTER_TITLE = "Current Country of Residence"

def _forms(name: str) -> set[str]:
    """A name and, for a name with a comma ("Korea, Republic of"), its other order."""
    forms = {normalised(name)}
    head, comma, tail = name.partition(",")
    if comma and tail.strip():
        forms.add(normalised(f"{tail} {head}"))
    return forms


@dataclass(frozen=True)
class CountryMatch:
    key: str  # Prolific's choice key
    label: str  # Prolific's label for it
    how: str  # "by name", "by another name (Korea)", "by hand"


def country_match(choices: dict[str, str], *, code: str, name: str = "") -> CountryMatch | None:
    """The choice among ``choices`` (key -> label) that is the country ``code``, or None. Its
    names are tried in order (``name`` first: the pool's own), so the closest wins."""
    by_form: dict[str, tuple[str, str]] = {}
    for key, label in choices.items():
        for form in _forms(label):
            by_form.setdefault(form, (key, label))
    for n, candidate in enumerate(dict.fromkeys([name, *names_of(code), code])):
        if not candidate:
            continue
        for form in _forms(candidate):
            found = by_form.get(form)
            if found is not None:
                how = "by name" if n == 0 or normalised(candidate) == normalised(name) else f"as {candidate}"
                return CountryMatch(found[0], found[1], how)
    return None


def pool_country(
    flt: Filter, *, code: str, name: str, picked: tuple[str, str] | None = None
) -> CountryMatch:
    """The choice of the country filter ``flt`` that is a pool's country: the one picked by hand
    (``(key, label)``, residence only), else found by its ISO code and names; RuleBroken saying
    what to do when there is none."""
    where = f"Prolific's list for {flt.title!r}"
    if picked is not None and flt.title == RESIDENCE_FILTER_TITLE:
        key, label = picked
        if key in flt.choices:
            return CountryMatch(key, flt.choices[key], "by hand")
        raise RuleBroken(
            f"the choice picked by hand, {label!r}, is no longer in {where}: pick the country again under "
            "'Countries on Prolific'"
        )
    for candidate in [name, *([picked[1]] if picked is not None else [])]:
        found = country_match(flt.choices, code=code, name=candidate)
        if found is not None:
            return found
    raise RuleBroken(
        f"{where} has no choice for {name} ({code}): pick Prolific's choice by hand under 'Countries on Prolific' "
        "on this page, or remove the pool if Prolific does not recruit there"
    )
