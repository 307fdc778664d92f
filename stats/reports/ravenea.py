"""RAVENEA: the −3..3 score per (image, document), and caption-choice win rates. Pure: no Django."""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from studies.protocol import Field

from ..scores import DEFAULT_MAPPING, Scorer
from .common import country_key, plain, restrict, share
from .kinds import AS_STORED, ReportData, implement

DOCUMENT_COLUMNS = ("item_id", "document_id", "mean", "n", "sd")


# --- document scores ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentScores:
    """The mean combined score per (item, document) over its annotators, with their number and
    sample sd; the histogram of the means rounded half up; the mean per country."""

    rows: list[tuple[Any, Any, float, int, float | None]]
    fields: list[str]  # the sub-fields whose answers make the score
    mapping: Mapping[str, float]
    answers: int  # (annotation, document) entries scored
    unscored: int  # entries with a scored question unanswered (no score: not "cannot be determined")
    mean: float | None
    histogram: list[tuple[int, int]]  # (rounded score, pairs)
    countries: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "fields": list(self.fields),
            "mapping": [[answer, points] for answer, points in self.mapping.items()],  # a list: jsonb reorders keys
            "pairs": len(self.rows),
            "answers": self.answers,
            "unscored": self.unscored,
            "mean": self.mean,
            "histogram": [{"score": s, "pairs": n} for s, n in self.histogram],
            "countries": [dict(c) for c in self.countries],
            "columns": list(DOCUMENT_COLUMNS),
            "rows": [list(r) for r in self.rows],
        }


def document_scores(
    rows: Iterable[Sequence[Any]],
    fields: Sequence[Field],
    *,
    mapping: Mapping[str, float] = DEFAULT_MAPPING,
    only_items: Collection[Any] | None = None,
) -> DocumentScores:
    """RAVENEA's score per (image, document): the mean over annotators of the combined score
    (``stats.scores``: Yes +1, No −1, Cannot be determined 0, summed over the scored questions).

    ``rows``: (item id, country, entries), the per_document answer of each annotation
    (``answers["documents"]``: ``[{"document": id, "country": …, "topic": …, "visual": …}, …]``);
    ``fields``: that per_document field's sub-fields. A row may carry a fourth element, the
    sub-fields of the protocol version it was answered under, used instead of ``fields``."""
    scorer = Scorer(mapping)
    items, countries, documents, scores = [], [], array("q"), array("d")
    unscored = 0
    for row in restrict(rows, only_items):
        item, country, entries = row[0], row[1], row[2]
        subs = row[3] if len(row) > 3 else fields
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("document"), int):
                continue
            score = scorer(entry, subs)
            if score is None:
                unscored += 1
                continue
            items.append(item)
            countries.append(country)
            documents.append(entry["document"])
            scores.append(float(score))
    scored = [f.key for f in scorer.scored(fields)]
    if not scores:
        return DocumentScores([], scored, mapping, 0, unscored, None, [])
    frame = pd.DataFrame({"item": items, "country": countries, "document": np.frombuffer(documents, dtype=np.int64),
                          "score": np.frombuffer(scores, dtype=np.float64)})
    table = score_table(frame)
    out = [
        (plain(i), int(d), float(m), int(n), plain(sd))
        for i, d, m, n, sd in zip(table.pairs["item"], table.pairs["document"], table.pairs["mean"],
                                  table.pairs["size"], table.pairs["std"], strict=True)
    ]
    return DocumentScores(
        rows=out,
        fields=scored,
        mapping=mapping,
        answers=len(scores),
        unscored=unscored,
        mean=table.mean,
        histogram=table.histogram,
        countries=table.countries,
    )


@dataclass(frozen=True)
class ScoreTable:
    """Combined scores aggregated per (item, document): ``pairs`` has the columns item, document,
    mean, size (annotators) and std (sample sd), sorted by item then document."""

    pairs: pd.DataFrame
    mean: float | None  # the mean of the pair means
    histogram: list[tuple[int, int]]  # (pair mean rounded half up, pairs)
    countries: list[dict[str, Any]]  # per country: its pairs and the mean of its pair means


def score_table(frame: pd.DataFrame) -> ScoreTable:
    """The one aggregation of RAVENEA's scores, for this report and the analysis's per-document
    section: ``frame`` has one row per scored (annotation, document) entry, with the columns item,
    country, document and score."""
    pairs = frame.groupby(["item", "document"], sort=True)["score"].agg(["mean", "size", "std"]).reset_index()
    rounded = Counter(math.floor(m + 0.5) for m in pairs["mean"].tolist())
    pair_means = frame.groupby(["country", "item", "document"], dropna=False)["score"].mean()
    by_country = pair_means.groupby(level=0, dropna=False)
    per_country = [{"country": plain(c), "pairs": int(s.size), "mean": float(s.mean())} for c, s in by_country]
    return ScoreTable(
        pairs=pairs,
        mean=float(pairs["mean"].mean()) if len(pairs) else None,
        histogram=sorted(rounded.items()),
        countries=sorted(per_country, key=lambda c: country_key(c["country"])),
    )


# --- caption choice ----------------------------------------------------------------------------


class _Tally:
    """The counts of one group (all answers, or one country's)."""

    def __init__(self) -> None:
        self.answers = 0
        self.shown: Counter[str] = Counter()  # answers in which the system was among the options
        self.wins: Counter[str] = Counter()
        self.first: Counter[str] = Counter()  # answers in which it was shown first
        self.shown_ordered: Counter[str] = Counter()  # answers with a recorded order in which it was shown
        # Σ (its options / options) over those answers
        self.first_expected: defaultdict[str, float] = defaultdict(float)
        self.with_order = 0
        self.position_wins: Counter[int] = Counter()
        self.position_expected: defaultdict[int, float] = defaultdict(float)

    def add(self, systems: list[str], winner: str, position: int | None) -> None:
        self.answers += 1
        self.wins[winner] += 1
        self.shown.update(set(systems))
        if position is None:
            return
        self.with_order += 1
        k = len(systems)
        self.first[systems[0]] += 1
        self.shown_ordered.update(set(systems))
        for s, n in Counter(systems).items():
            self.first_expected[s] += n / k
        self.position_wins[position] += 1
        for p in range(k):
            self.position_expected[p] += 1 / k

    def summary(self, country: Any) -> dict[str, Any]:
        systems = sorted(self.shown, key=lambda s: (-self.wins[s], s))
        positions = sorted(self.position_expected)
        observed = [self.position_wins[p] for p in positions]
        expected = [self.position_expected[p] for p in positions]
        test: dict[str, Any] = {"statistic": None, "p_value": None, "reason": ""}
        if len(positions) < 2:
            test["reason"] = "fewer than 2 positions shown in a recorded order"
        else:
            result = stats.chisquare(observed, expected)
            test = {"statistic": float(result.statistic), "p_value": float(result.pvalue), "reason": ""}
        return {
            "country": country,
            "answers": self.answers,
            "with_order": self.with_order,
            "systems": [
                {
                    "system": s,
                    "shown": self.shown[s],
                    "wins": self.wins[s],
                    "win_rate": share(self.wins[s], self.shown[s]),
                    "share": share(self.wins[s], self.answers),
                    "shown_first": self.first[s],
                    "first_rate": share(self.first[s], self.shown_ordered[s]),
                    "expected_first_rate": share(self.first_expected[s], self.shown_ordered[s]),
                }
                for s in systems
            ],
            "positions": [
                {"position": p + 1, "wins": o, "expected": e}
                for p, o, e in zip(positions, observed, expected, strict=True)
            ],
            "position_test": test,
        }


@dataclass(frozen=True)
class CaptionWinRates:
    """Wins per system, overall and per country. For each system: ``shown`` (answers in which it
    was an option), ``wins``, ``win_rate`` (wins / shown), ``share`` (wins / answers), and the order
    check: ``shown_first`` and ``first_rate`` (of the answers with a recorded order that showed it) beside
    the rate a uniform shuffle gives (``expected_first_rate``: 1/3 for three options). ``positions``:
    wins by the position shown (1 is first) against a uniform shuffle's expectation, with a
    chi-square test of the difference."""

    overall: dict[str, Any]
    countries: list[dict[str, Any]]
    unreadable: int  # answers without a choice

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "countries": list(self.countries), "unreadable": self.unreadable}


def _system_of(candidates: Mapping[Any, Sequence[Any]] | None, item: Any) -> dict[str, str]:
    out = {}
    for c in (candidates or {}).get(item) or ():
        if isinstance(c, Mapping) and c.get("id") is not None:
            out[str(c["id"])] = str(c.get("system") or c["id"])
    return out


def caption_win_rates(
    rows: Iterable[tuple[Any, Any, Any]],
    *,
    candidates: Mapping[Any, Sequence[Mapping[str, Any]]] | None = None,
    only_items: Collection[Any] | None = None,
) -> CaptionWinRates:
    """Caption-choice win rates per system, and the order-bias check.

    ``rows``: (item id, country, answer), the ``best_caption`` answer of each annotation
    (``{"choice": candidate id, "order": [candidate ids as shown]}``). ``candidates``: item id →
    the item's ``candidates`` list; a candidate's system is its ``"system"`` key, else its id (so
    without ``candidates`` the candidate ids are the systems). An answer without a recorded order
    counts for wins and (when the item's candidates are known) for ``shown``, not for the order
    check."""
    groups: dict[Any, _Tally] = defaultdict(_Tally)
    overall = _Tally()
    unreadable = 0
    systems_of: dict[Any, dict[str, str]] = {}
    for item, country, answer in restrict(rows, only_items):
        choice = answer.get("choice") if isinstance(answer, Mapping) else None
        if choice is None:
            unreadable += 1
            continue
        if item not in systems_of:
            systems_of[item] = _system_of(candidates, item)
        system = systems_of[item]
        choice = str(choice)
        order = answer.get("order")
        position = None
        if isinstance(order, list) and choice in (order := [str(o) for o in order]):
            position = order.index(choice)
            options = order
        else:
            options = list(system) or [choice]
            if choice not in options:
                options.append(choice)
        shown = [system.get(o, o) for o in options]
        winner = system.get(choice, choice)
        for tally in (overall, groups[country]):
            tally.add(shown, winner, position)
    return CaptionWinRates(
        overall=overall.summary(None),
        countries=[groups[c].summary(c) for c in sorted(groups, key=country_key)],
        unreadable=unreadable,
    )


# --- the report kinds -------------------------------------------------------------------------


def _document_scores(report: ReportData) -> DocumentScores:
    """Each answer scored with the sub-fields of its own protocol version."""
    key, protocols = report.spec.key("documents"), report.context.protocols
    versions = report.annotations.version.tolist()
    subs = {v: protocols.for_version(v).field(key).fields for v in set(versions)}
    rows = (
        (item, country, entries, subs[v])
        for (item, country, entries), v in zip(report.rows(), versions, strict=True)
    )
    current = protocols.current.field(key)
    return document_scores(rows, current.fields, mapping=current.score or DEFAULT_MAPPING)


def _caption_wins(report: ReportData) -> CaptionWinRates:
    return caption_win_rates(report.rows(), candidates=report.context.candidates())


DOCUMENT_SCORES = implement("document_scores", reads={"documents": AS_STORED}, compute=_document_scores,
                            plot="document_score_plot")
CAPTION_WINS = implement("caption_wins", reads={"choice": AS_STORED}, compute=_caption_wins, plot="wins_plot")
