"""A pool's country found among the choices of one of Prolific's country filters (current country
of residence, nationality, country of birth): by the pool's ISO code, its English names (ours and
CLDR's) and the names other lists use for it ("Korea, Republic of", "Turkey", "Czech Republic"…).

Plain functions over plain data: the caller gives Prolific's choices (key -> label) as its filter
list answered them, never a list written here."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from babel import Locale

from studies.countries import COUNTRIES

from .prolific_answers import Filter
from .rules import RuleBroken

# The filter that puts a pool's country on Prolific, found by its title in Prolific's list (its
# id and its choice keys are read from there, never written here).
RESIDENCE_FILTER_TITLE = "Current Country of Residence"

# Other names of a country in lists such as Prolific's, the UN's and ISO's formal ones, by ISO
# code. A name that could mean two countries ("Congo", "Korea") is given to one only: the one
# such lists mean by it.
ALIASES: dict[str, tuple[str, ...]] = {
    "AE": ("UAE",),
    "BA": ("Bosnia",),
    "BN": ("Brunei Darussalam",),
    "BO": ("Bolivia, Plurinational State of", "Plurinational State of Bolivia"),
    "BS": ("The Bahamas",),
    "CD": ("Congo, Democratic Republic of the", "Democratic Republic of Congo", "DR Congo", "DRC",
           "Congo (Kinshasa)", "Congo-Kinshasa"),
    "CG": ("Congo", "Republic of the Congo", "Congo, Republic of the", "Congo (Brazzaville)", "Congo-Brazzaville"),
    "CI": ("Ivory Coast", "Cote d'Ivoire"),
    "CV": ("Cape Verde",),
    "CZ": ("Czech Republic",),
    "FM": ("Micronesia", "Micronesia, Federated States of"),
    "GB": ("UK", "Great Britain", "United Kingdom of Great Britain and Northern Ireland"),
    "GM": ("The Gambia",),
    "HK": ("Hong Kong SAR", "Hong Kong SAR China"),
    "IR": ("Iran, Islamic Republic of", "Islamic Republic of Iran"),
    "KG": ("Kyrgyz Republic",),
    "KP": ("Korea, Democratic People's Republic of", "Democratic People's Republic of Korea", "Korea (North)"),
    "KR": ("Korea", "Korea, Republic of", "Republic of Korea", "Korea (South)", "Korea South"),
    "LA": ("Lao People's Democratic Republic", "Lao PDR", "Lao"),
    "MD": ("Moldova, Republic of", "Republic of Moldova"),
    "MK": ("Macedonia", "Republic of North Macedonia", "Macedonia, the former Yugoslav Republic of",
           "The former Yugoslav Republic of Macedonia", "FYROM"),
    "MM": ("Burma",),
    "MO": ("Macau", "Macao SAR China"),
    "NL": ("The Netherlands", "Holland"),
    "PS": ("Palestine", "State of Palestine", "Palestinian Territories", "Palestinian Territory",
           "Occupied Palestinian Territory", "Palestinian Territory, Occupied"),
    "RU": ("Russian Federation",),
    "SK": ("Slovak Republic",),
    "SY": ("Syrian Arab Republic",),
    "SZ": ("Swaziland",),
    "TL": ("East Timor",),
    "TR": ("Turkey", "Turkiye", "Republic of Türkiye"),
    "TW": ("Taiwan, Province of China", "Chinese Taipei"),
    "TZ": ("Tanzania, United Republic of", "United Republic of Tanzania"),
    "US": ("USA", "US", "United States of America"),
    "VA": ("Holy See", "Vatican City", "Holy See (Vatican City State)"),
    "VE": ("Venezuela, Bolivarian Republic of", "Bolivarian Republic of Venezuela"),
    "VN": ("Viet Nam",),
}

_OUR_NAMES = dict(COUNTRIES)
_CLDR = Locale("en").territories


def normalised(name: str) -> str:
    """``"Côte d’Ivoire"`` and ``"COTE D'IVOIRE"`` alike: no accents, case, punctuation, "the"."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold().replace("&", " and ")
    text = re.sub(r"[^\w]+", " ", text).strip()
    return re.sub(r"^the ", "", text)


def _forms(name: str) -> set[str]:
    """A name and, for a name with a comma ("Korea, Republic of"), its other order."""
    forms = {normalised(name)}
    head, comma, tail = name.partition(",")
    if comma and tail.strip():
        forms.add(normalised(f"{tail} {head}"))
    return forms


def names_of(code: str) -> list[str]:
    """Every name the country ``code`` goes by here, ours first."""
    names = [_OUR_NAMES.get(code, ""), _CLDR.get(code, ""), *ALIASES.get(code, ()), code]
    return [n for n in dict.fromkeys(names) if n]


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
    for n, candidate in enumerate(dict.fromkeys([name, *names_of(code)])):
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
