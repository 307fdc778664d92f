"""RAVENEA's quality check in figures: how many reviews, the acceptance rate, and per reviewed field
Cohen's kappa between checker and annotator; overall and per country. Pure: plain rows in, a
dataclass out, no Django.

Kappa is ``agreement.checker_kappa`` over (unit, annotator label, checker label) triples, weighted
by the field's level of measurement: nominal unweighted, ordinal linear (|i − j| over the positions
of the field's choices in order), interval and ratio quadratic ((i − j)², the weighting under which
kappa approaches the intraclass correlation). Categories are the field's choices, so a category no
one used still takes its place on the scale; a label outside them (e.g. a choice a later protocol
version removed) is left out and counted in ``out_of_domain``. Fields without a fixed list of
choices (multi, pick_one) are compared as nominal tokens.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .agreement import checker_kappa

WEIGHTS_BY_LEVEL = {"nominal": "none", "ordinal": "linear", "interval": "quadratic", "ratio": "quadratic"}


@dataclass(frozen=True)
class ReviewedField:
    key: str  # the answer key; a per_document sub-field as "<per_document key>.<sub key>"
    label: str
    level: str
    categories: tuple[str, ...] | None = None  # the ordered label tokens of the field's choices


@dataclass(frozen=True)
class ReviewRow:
    """One review: the pool's country, its outcome, and the (field key, unit, annotator label,
    checker label) of each reviewed label, either label None when absent."""

    country: str
    country_name: str
    accepted: bool
    labels: Sequence[tuple[str, Hashable, Hashable | None, Hashable | None]] = ()


@dataclass(frozen=True)
class FieldKappa:
    key: str
    label: str
    level: str
    weights: str
    kappa: float | None
    label_agreement: float | None  # share of the labels where the checker kept the annotator's
    n_labels: int  # labels with both sides
    n_units: int
    out_of_domain: int = 0
    reason: str = ""


@dataclass(frozen=True)
class GroupReviews:
    country: str  # "" for every country together
    country_name: str
    n_reviews: int
    n_accepted: int
    n_flagged: int
    acceptance_rate: float | None
    fields: list[FieldKappa] = field(default_factory=list)


@dataclass(frozen=True)
class ReviewAgreement:
    overall: GroupReviews
    countries: list[GroupReviews]

    @property
    def n_reviews(self) -> int:
        return self.overall.n_reviews

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_reviews": self.overall.n_reviews,
            "acceptance_rate": self.overall.acceptance_rate,
            "weights": [[level, w] for level, w in WEIGHTS_BY_LEVEL.items()],  # a list: jsonb reorders keys
            "overall": asdict(self.overall),
            "countries": [asdict(c) for c in self.countries],
        }


def field_kappa(f: ReviewedField, triples: Iterable[tuple[Hashable, Hashable | None, Hashable | None]]) -> FieldKappa:
    """Checker against annotator on one field, weighted by its level."""
    weights = WEIGHTS_BY_LEVEL.get(f.level, "none")
    outside = 0
    kept = []
    allowed = set(f.categories) if f.categories is not None else None
    for unit, given, checked in triples:
        if allowed is not None and any(x is not None and x not in allowed for x in (given, checked)):
            outside += 1
            continue
        kept.append((unit, given, checked))
    result = checker_kappa(kept, weights=weights if f.categories is not None else "none",
                           categories=list(f.categories) if f.categories is not None else None)
    return FieldKappa(
        key=f.key, label=f.label, level=f.level, weights=result.weights, kappa=result.kappa,
        label_agreement=result.acceptance_rate, n_labels=result.n_reviews, n_units=result.n_units,
        out_of_domain=outside, reason=result.reason,
    )


def _group(country: str, country_name: str, rows: Sequence[ReviewRow], fields: Sequence[ReviewedField]) -> GroupReviews:
    triples: dict[str, list] = defaultdict(list)
    for row in rows:
        for key, unit, given, checked in row.labels:
            triples[key].append((unit, given, checked))
    accepted = sum(row.accepted for row in rows)
    return GroupReviews(
        country=country,
        country_name=country_name,
        n_reviews=len(rows),
        n_accepted=accepted,
        n_flagged=len(rows) - accepted,
        acceptance_rate=accepted / len(rows) if rows else None,
        fields=[field_kappa(f, triples[f.key]) for f in fields],
    )


def review_agreement(rows: Iterable[ReviewRow], fields: Sequence[ReviewedField]) -> ReviewAgreement:
    """The acceptance rate and per-field kappa of ``rows``, overall and per country (by name)."""
    rows = list(rows)
    by_country: dict[tuple[str, str], list[ReviewRow]] = defaultdict(list)
    for row in rows:
        by_country[(row.country, row.country_name)].append(row)
    return ReviewAgreement(
        overall=_group("", "All countries", rows, fields),
        countries=[
            _group(country, name, by_country[(country, name)], fields)
            for country, name in sorted(by_country, key=lambda k: k[1])
        ],
    )
