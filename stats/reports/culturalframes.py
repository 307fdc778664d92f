"""CulturalFrames: the prompt filter, error types, highlighted words, Spearman between criteria.

Pure: no Django. The prompt filter's rule is the seeding's (``stats.decisions``), shared, so the
report and the seeding of the rating study never disagree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from stats.decisions import NO, YES, prompt_decision, vote_token

from ..correlation import Coefficient, correlate
from ..frames import as_frame, distinct, numeric, only
from .common import country_key, labels, number, plain, share
from .kinds import KEY, NUMBER, Reader, ReportData, implement

DECISIONS = ("kept", "dropped", "pending")
PROMPT_COLUMNS = ("item_id", "country", "yes", "no", "wanted", "decision")
ERROR_CATEGORIES = ("explicit_only", "implicit_only", "both", "unspecified")
CRITERIA = ("alignment", "quality", "overall")


# --- prompt filter -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptFilter:
    """One row per (prompt, country): its Yes and No votes, the votes wanted, and the decision."""

    rows: list[tuple[Any, Any, int, int, int, str]]
    totals: dict[str, int]
    countries: list[dict[str, Any]]
    other_votes: int  # answers that are neither Yes nor No (not counted)
    min_yes: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "min_yes": self.min_yes,
            "prompts": len(self.rows),
            "totals": dict(self.totals),
            "other_votes": self.other_votes,
            "countries": [dict(c) for c in self.countries],
            "columns": list(PROMPT_COLUMNS),
            "rows": [list(r) for r in self.rows],
        }


def prompt_filter_majority(
    rows: Iterable[tuple[Any, Any, Any]], *, min_yes: int = 2, wanted: int | Mapping[tuple[Any, Any], int] = 3
) -> PromptFilter:
    """The prompt filter's decision per (prompt, country): kept once ``min_yes`` annotators say Yes,
    dropped once the votes still to come cannot get there, else pending (``seeding.prompt_decision``).

    ``rows``: (item id, country, vote), the ``fits_culture`` answer of each annotation with its
    pool's country. ``wanted``: the votes wanted per prompt (3), or a mapping (item id, country) →
    wanted (the item quotas); a prompt the mapping lacks is decided on the votes cast, and a prompt
    it has without votes yet is listed, pending."""
    # A prompt the quotas list is listed even before its first vote.
    tally: dict[tuple[Any, Any], list[int]] = {key: [0, 0] for key in wanted} if isinstance(wanted, Mapping) else {}
    other = 0
    for item, country, vote in rows:
        token = vote_token(vote)
        if token in (YES, NO):
            tally.setdefault((item, country), [0, 0])[token == NO] += 1
        else:
            other += 1
    out: list[tuple[Any, Any, int, int, int, str]] = []
    for (item, country), (yes, no) in sorted(tally.items(), key=lambda kv: (country_key(kv[0][1]), str(kv[0][0]))):
        want = (wanted.get((item, country), yes + no) if isinstance(wanted, Mapping) else wanted)
        out.append((item, country, yes, no, want, prompt_decision(yes=yes, no=no, wanted=want, min_yes=min_yes)))
    per_country: dict[Any, Counter[str]] = defaultdict(Counter)
    for row in out:
        per_country[row[1]][row[5]] += 1
    totals = Counter(row[5] for row in out)
    return PromptFilter(
        rows=out,
        totals={d: totals[d] for d in DECISIONS},
        countries=[
            {"country": c, **{d: per_country[c][d] for d in DECISIONS}} for c in sorted(per_country, key=country_key)
        ],
        other_votes=other,
        min_yes=min_yes,
    )


# --- error types -------------------------------------------------------------------------------


def _error_group(country: Any, ratings: int, counts: Counter[str]) -> dict[str, Any]:
    sub = sum(counts[c] for c in ERROR_CATEGORIES)
    return {
        "country": country,
        "ratings": ratings,
        "sub_perfect": sub,
        "sub_perfect_share": share(sub, ratings),
        "counts": {c: counts[c] for c in ERROR_CATEGORIES},
        "shares": {c: share(counts[c], sub) for c in ERROR_CATEGORIES},
    }


@dataclass(frozen=True)
class ErrorTypeShares:
    """Of the ratings below a perfect alignment, the share that ticked explicit elements only,
    implicit only, both, or neither ("unspecified": answers from before the question was asked);
    overall and per country, with the counts."""

    overall: dict[str, Any]
    countries: list[dict[str, Any]]
    missing: int  # rows left out: no numeric alignment

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "countries": list(self.countries), "missing": self.missing}


def error_category(types: Any, explicit: str, implicit: str) -> str:
    """A rating's error types as one of ``ERROR_CATEGORIES``."""
    ticked = set(types) if isinstance(types, (list, tuple, set, frozenset)) else set()
    has_e, has_i = explicit in ticked, implicit in ticked
    return "both" if has_e and has_i else "explicit_only" if has_e else "implicit_only" if has_i else "unspecified"


def error_type_shares(
    rows: pd.DataFrame | Iterable[tuple[Any, Any, Any, Any]],
    *,
    perfect: float = 1,
    explicit: str = "explicit",
    implicit: str = "implicit",
    only_items: Collection[Any] | None = None,
) -> ErrorTypeShares:
    """Shares of sub-perfect alignment ratings by error type.

    ``rows``: (item id, country, alignment, error types), the ``alignment`` (0/0.5/1) and
    ``error_types`` (a list of "explicit"/"implicit") answers of each annotation. A rating is
    sub-perfect when its alignment is below ``perfect``."""
    frame = only(as_frame(rows, ["item", "country", "alignment", "types"]), only_items)
    country, countries = labels(frame["country"])
    alignment = numeric(frame["alignment"], number).to_numpy()
    rated = ~np.isnan(alignment)
    ratings = np.bincount(country[rated], minlength=len(countries))
    sub = rated & (alignment < perfect)
    answer, answers = distinct(frame["types"][sub])
    category = np.array(
        [ERROR_CATEGORIES.index(error_category(t, explicit, implicit)) for t in answers], dtype=np.int64
    )
    k = len(ERROR_CATEGORIES)
    counts = np.bincount(country[sub] * k + category[answer], minlength=len(countries) * k).reshape(-1, k)

    def tally(row: np.ndarray) -> Counter[str]:
        return Counter({c: int(n) for c, n in zip(ERROR_CATEGORIES, row, strict=True)})

    listed = sorted((i for i in range(len(countries)) if ratings[i]), key=lambda i: country_key(countries[i]))
    return ErrorTypeShares(
        overall=_error_group(None, int(ratings.sum()), tally(counts.sum(axis=0))),
        countries=[_error_group(countries[i], int(ratings[i]), tally(counts[i])) for i in listed],
        missing=int((~rated).sum()),
    )


# --- highlighted words -------------------------------------------------------------------------


def _word_group(
    country: Any, words: Counter[str], annotations: Counter[str], highlighting: int, top: int
) -> dict[str, Any]:
    ranked = sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {
        "country": country,
        "annotations": highlighting,
        "words": sum(words.values()),
        "distinct": len(words),
        "top": [[w, n, annotations[w]] for w, n in ranked],
    }


@dataclass(frozen=True)
class WordFrequency:
    """The most highlighted words, lower-cased, overall and per country: each as [word, times
    highlighted, annotations highlighting it]; with the annotations that highlight any word, the
    words highlighted and the distinct words."""

    overall: dict[str, Any]
    countries: list[dict[str, Any]]
    top: int

    COLUMNS = ("word", "count", "annotations")

    def as_dict(self) -> dict[str, Any]:
        return {
            "top": self.top, "columns": list(self.COLUMNS), "overall": self.overall, "countries": list(self.countries)
        }


def word_texts(words: Any) -> list[str]:
    """The highlighted words of a ``highlight`` answer (or plain strings), stripped and lower-cased."""
    if not isinstance(words, (list, tuple)):
        return []
    texts = (w.get("text") if isinstance(w, Mapping) else w for w in words)
    return [t.strip().lower() for t in texts if isinstance(t, str) and t.strip()]


def word_frequency(
    rows: pd.DataFrame | Iterable[tuple[Any, Any, Any]],
    *,
    top: int = 20,
    stopwords: Collection[str] = (),
    only_items: Collection[Any] | None = None,
) -> WordFrequency:
    """Frequency of the prompt words highlighted as not depicted well.

    ``rows``: (item id, country, words), the ``words`` answer of each annotation: the stored
    highlight list ``[{"index", "start", "end", "text"}, …]`` (plain strings, and tuples of them,
    are taken too). A word counts once per time highlighted; ``annotations`` counts each
    annotation once. Words in ``stopwords`` (lower-case) are left out. Each distinct answer is read
    once, weighted by the annotations of each country that gave it."""
    stop = {s.lower() for s in stopwords}
    frame = only(as_frame(rows, ["item", "country", "words"]), only_items)
    country, countries = labels(frame["country"])
    answer, answers = distinct(frame["words"])
    texts_of = [[t for t in word_texts(a) if t not in stop] for a in answers]
    pairs, times = np.unique(country * max(len(answers), 1) + answer, return_counts=True)
    words: dict[Any, Counter[str]] = defaultdict(Counter)
    per_annotation: dict[Any, Counter[str]] = defaultdict(Counter)
    highlighting: Counter[Any] = Counter()
    for pair, n in zip(pairs.tolist(), times.tolist(), strict=True):
        c, texts = countries[pair // max(len(answers), 1)], texts_of[pair % max(len(answers), 1)]
        if not texts:
            continue
        highlighting[c] += n
        for t in texts:
            words[c][t] += n
        for t in set(texts):
            per_annotation[c][t] += n
    all_words: Counter[str] = Counter()
    all_annotations: Counter[str] = Counter()
    for c, counted in words.items():
        all_words.update(counted)
        all_annotations.update(per_annotation[c])
    return WordFrequency(
        overall=_word_group(None, all_words, all_annotations, sum(highlighting.values()), top),
        countries=[
            _word_group(c, words[c], per_annotation[c], highlighting[c], top) for c in sorted(words, key=country_key)
        ],
        top=top,
    )


# --- Spearman between criteria -----------------------------------------------------------------


@dataclass(frozen=True)
class CriteriaSpearman:
    """Spearman's rho between each pair of criteria: over annotations (each annotation's two
    answers) and over item means (each item's mean of either criterion); overall and per country."""

    criteria: tuple[str, ...]
    overall: list[dict[str, Any]]
    countries: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        def pairs(ps):
            return [{"a": p["a"], "b": p["b"], "annotations": p["annotations"].as_dict(),
                     "item_means": p["item_means"].as_dict()} for p in ps]

        return {
            "criteria": list(self.criteria),
            "overall": pairs(self.overall),
            "countries": [{"country": c["country"], "pairs": pairs(c["pairs"])} for c in self.countries],
        }


def _criteria_pairs(frame: pd.DataFrame, criteria: Sequence[str]) -> list[dict[str, Any]]:
    means = frame.groupby(["item", "country"], dropna=False, sort=False)[list(criteria)].mean()
    out = []
    for a, b in combinations(criteria, 2):
        per_annotation: Coefficient = correlate(frame[a], frame[b], "spearman", names=(a, b))
        per_item: Coefficient = correlate(means[a], means[b], "spearman", names=(f"item mean {a}", f"item mean {b}"))
        out.append({"a": a, "b": b, "annotations": per_annotation, "item_means": per_item})
    return out


def criteria_spearman(
    rows: pd.DataFrame | Iterable[Sequence[Any]],
    *,
    criteria: Sequence[str] = CRITERIA,
    only_items: Collection[Any] | None = None,
) -> CriteriaSpearman:
    """Spearman's rho, with its p-value and n, between the criteria of the image rating.

    ``rows``: (item id, country, value of each criterion in ``criteria`` order) per annotation —
    by default the ``alignment``, ``quality`` and ``overall`` answers. A missing value leaves the
    annotation out of the pairs involving that criterion only."""
    criteria = tuple(criteria)
    frame = only(as_frame(rows, ["item", "country", *criteria]), only_items)
    frame = frame.assign(**{c: numeric(frame[c], number) for c in criteria})
    by_country = sorted(frame.groupby("country", dropna=False, sort=False), key=lambda kv: country_key(plain(kv[0])))
    countries = [
        {"country": plain(country), "pairs": _criteria_pairs(part, criteria)} for country, part in by_country
    ]
    return CriteriaSpearman(criteria, _criteria_pairs(frame, criteria), countries)


# --- the report kinds -------------------------------------------------------------------------


def _prompt_filter(report: ReportData) -> PromptFilter:
    return prompt_filter_majority(report.rows(), min_yes=report.spec.option("min_yes"), wanted=report.context.wanted())


def error_settings(report: ReportData) -> tuple[float, str, str]:
    """(perfect, explicit, implicit) of a declared report: perfect is the alignment's highest point;
    explicit and implicit its error types' first two."""
    current, spec = report.context.protocols.current, report.spec
    alignment, types = current.field(spec.key("alignment")), current.field(spec.key("error_types")).choices
    perfect = max((x for c in alignment.choices if (x := number(c.value)) is not None), default=1)
    explicit, implicit = (str(c.value) for c in types[:2]) if len(types) >= 2 else ("explicit", "implicit")
    return perfect, explicit, implicit


def _error_types(report: ReportData) -> ErrorTypeShares:
    perfect, explicit, implicit = error_settings(report)
    frame = report.frame(["alignment", "types"])
    return error_type_shares(frame, perfect=perfect, explicit=explicit, implicit=implicit)


def _words(value: Any) -> tuple[str, ...] | None:
    """The highlighted words of a ``highlight`` answer, as the report counts them (kept small: no
    offsets; a tuple, so each distinct answer is grouped by the report without JSON)."""
    return tuple(word_texts(value)) or None


def _highlighted_words(report: ReportData) -> WordFrequency:
    return word_frequency(report.frame(["words"]))


def _criteria_spearman(report: ReportData) -> CriteriaSpearman:
    criteria = report.spec.key("criteria")
    return criteria_spearman(report.frame(criteria), criteria=criteria)


PROMPT_FILTER = implement("prompt_filter", reads={"vote": KEY}, compute=_prompt_filter)
ERROR_TYPES = implement("error_types", reads={"alignment": NUMBER, "error_types": KEY}, compute=_error_types,
                        plot="error_type_plot")
HIGHLIGHTED_WORDS = implement("highlighted_words", reads={"words": Reader(_words)}, compute=_highlighted_words,
                              plot="word_plot")
CRITERIA_SPEARMAN = implement("criteria_spearman", reads={"criteria": NUMBER}, compute=_criteria_spearman,
                              plot="spearman_plots")
