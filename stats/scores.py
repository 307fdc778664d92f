"""RAVENEA's combined relevance score of an (image, document) pair. Pure: no Django.

Each yes/no(/cannot be determined) question asked about a document adds its answer's points:
by default Yes = +1, No = -1, Cannot be determined = 0, so RAVENEA's three questions give a
score on -3..3, higher meaning more culturally relevant. The paper does not spell the mapping
out; a study may use another by passing ``mapping``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studies.protocol import Field, value_token

DEFAULT_MAPPING: Mapping[str, float] = {"yes": 1, "no": -1, "cannot_determine": 0}

# Spellings of the same three answers that a spec may use for its choice values.
ALIASES = {
    "cannot_be_determined": "cannot_determine", "cant_determine": "cannot_determine", "true": "yes", "false": "no"
}


def _normal(value: Any) -> str:
    token = value_token(value).strip().lower().replace("-", "_").replace(" ", "_")
    return ALIASES.get(token, token)


def _normal_mapping(mapping: Mapping[str, float]) -> dict[str, float]:
    return {_normal(k): v for k, v in mapping.items()}


def scored_fields(fields: Sequence[Field], mapping: Mapping[str, float] = DEFAULT_MAPPING) -> list[Field]:
    """The sub-fields that make the score: ``choice`` fields whose every choice the mapping scores."""
    points = _normal_mapping(mapping)
    return [
        f for f in fields
        if f.kind.categorical and f.choices and all(_normal(c.value) in points for c in f.choices)
    ]


class Scorer:
    """``combined_score`` with one mapping, remembering which sub-fields of each spec are scored."""

    def __init__(self, mapping: Mapping[str, float] = DEFAULT_MAPPING):
        self.mapping = mapping
        self.points = _normal_mapping(mapping)
        self._scored: dict[int, tuple[Sequence[Field], list[Field]]] = {}

    def scored(self, fields: Sequence[Field]) -> list[Field]:
        hit = self._scored.get(id(fields))
        if hit is None or hit[0] is not fields:  # the entry holds ``fields``, so its id is not reused
            hit = self._scored[id(fields)] = (fields, scored_fields(fields, self.points))
        return hit[1]

    def __call__(self, answers: Mapping[str, Any], fields: Sequence[Field]) -> float | None:
        scored = self.scored(fields)
        if not scored or not isinstance(answers, Mapping):
            return None
        total = 0.0
        for f in scored:
            value = answers.get(f.key)
            point = None if value is None else self.points.get(_normal(value))
            if point is None:
                return None
            total += point
        return int(total) if total.is_integer() else total


def combined_score(
    answers: Mapping[str, Any], fields: Sequence[Field], mapping: Mapping[str, float] = DEFAULT_MAPPING
) -> float | None:
    """The sum of the points of ``answers`` to the scored ``fields`` (see ``scored_fields``).

    None when there is no scored field, or one of them has no answer the mapping knows: a
    missing answer is not "cannot be determined".
    """
    return Scorer(mapping)(answers, fields)
