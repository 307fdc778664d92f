"""Gold data as each paper publishes it, one function per report kind. Pure: no Django.

A study's declared reports (``studies.protocol.reports``) say which fields a paper's figures read;
the gold of a kind reads the same ``kinds.ReportData`` its report computes from
(``REPORTS[kind].read(...)``) and, where the paper's figure already is a table per unit, takes
that report's own computation (``REPORTS[kind].compute``). Each function returns a frame of
plain rows (columns listed in ``COLUMNS``), ready for CSV or Parquet:

- ``human_scores`` (CAIRE): per (image, country) the mean rating, n, sd and its 95% t interval.
- ``prompt_filter`` (CulturalFrames): the kept prompts per country, with their votes.
- ``error_types`` (CulturalFrames): per (image, country) the alignment ratings, the sub-perfect
  ones, and how many ticked each error category.
- ``highlighted_words`` (CulturalFrames): per (image, country) the words highlighted by at least
  ``MIN_HIGHLIGHTS`` annotators.
- ``criteria_spearman`` (CulturalFrames): per (image, country, criterion) n, mean, sd.
- ``document_scores`` (RAVENEA): the −3..3 score per (image, document).
- ``caption_wins`` (RAVENEA): per country (None: overall) and system, shown, wins, win rate.
- ``box_agreement`` (GlobalRG): per (image, country) the fused box (the median of each edge) and
  the spread of the annotators' IoU with it, beside their mean pairwise IoU.
- ``answer_agreement`` (CulturalVQA): per (question, country) all answers, the majority
  (normalised; None on a tie, the tied answers listed) and the share of matching pairs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..reports.caire import HumanScores
from ..reports.catalog import REPORTS
from ..reports.culturalframes import error_category, error_settings, word_texts
from ..reports.culturalvqa import answer_pairs, normalise_answer
from ..reports.globalrg import box_agreement, box_images, box_xywh, iou
from ..reports.kinds import ReportData
from ..reports.ravenea import CaptionWinRates, DocumentScores
from .fields import TIE_SEPARATOR, t_bounds

MIN_HIGHLIGHTS = 2
COLUMNS: dict[str, tuple[str, ...]] = {
    "human_scores": ("item", "country", "mean", "n", "sd", "ci_low", "ci_high"),
    "prompt_filter": ("item", "country", "yes", "no", "wanted", "decision"),
    "error_types": ("item", "country", "ratings", "alignment_mean", "sub_perfect", "explicit_only",
                    "implicit_only", "both", "unspecified"),
    "highlighted_words": ("item", "country", "word", "annotators", "ratings"),
    "criteria_spearman": ("item", "country", "criterion", "n", "mean", "sd"),
    "document_scores": ("item", "document", "mean", "n", "sd"),
    "caption_wins": ("country", "system", "shown", "wins", "win_rate", "share"),
    "box_agreement": ("image", "country", "annotators", "x", "y", "w", "h", "iou_mean", "iou_min", "iou_max",
                      "pairwise_iou", "unreadable"),
    "answer_agreement": ("item", "country", "answers", "n", "majority", "tie", "tied", "majority_share",
                         "agreement"),
}


def _frame(kind: str, rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(COLUMNS[kind]), dtype=object)


def _by_unit(report: ReportData) -> dict[tuple[Any, Any], list[int]]:
    """(item, country) → the indices of its annotations, in sorted unit order."""
    units: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for i, unit in enumerate(zip(report.items.tolist(), report.countries().tolist(), strict=True)):
        units[unit].append(i)
    return dict(sorted(units.items(), key=lambda kv: (str(kv[0][0]), kv[0][1] is None, str(kv[0][1]))))


def human_scores_gold(report: ReportData) -> pd.DataFrame:
    scores: HumanScores = REPORTS["human_scores"].compute(report)
    return _frame("human_scores", [(*row, *t_bounds(row[2], row[4], row[3])) for row in scores.rows])


def prompt_filter_gold(report: ReportData) -> pd.DataFrame:
    result = REPORTS["prompt_filter"].compute(report)
    return _frame("prompt_filter", [row for row in result.rows if row[5] == "kept"])


def error_types_gold(report: ReportData) -> pd.DataFrame:
    perfect, explicit, implicit = error_settings(report)
    alignment, types = report.column("alignment"), report.column("error_types")
    rows = []
    for (item, country), at in _by_unit(report).items():
        rated = [i for i in at if not np.isnan(alignment[i])]
        sub = [i for i in rated if alignment[i] < perfect]
        tally = Counter(error_category(types[i], explicit, implicit) for i in sub)
        mean = float(np.mean(alignment[rated])) if rated else None
        rows.append((item, country, len(rated), mean, len(sub), tally["explicit_only"], tally["implicit_only"],
                     tally["both"], tally["unspecified"]))
    return _frame("error_types", rows)


def highlighted_words_gold(report: ReportData, *, min_annotators: int = MIN_HIGHLIGHTS) -> pd.DataFrame:
    words, annotators = report.column("words"), report.annotations.annotator
    rows: list[tuple[Any, ...]] = []
    for (item, country), at in _by_unit(report).items():
        by_word: dict[str, set[Any]] = defaultdict(set)
        for i in at:
            for word in set(word_texts(list(words[i] or ()))):
                by_word[word].add(annotators[i])
        kept = sorted(((w, len(a)) for w, a in by_word.items() if len(a) >= min_annotators),
                      key=lambda x: (-x[1], x[0]))
        rows.extend((item, country, w, n, len(at)) for w, n in kept)
    return _frame("highlighted_words", rows)


def criteria_gold(report: ReportData) -> pd.DataFrame:
    criteria = report.spec.key("criteria")
    frame = report.frame(criteria)
    rows = []
    for (item, country), at in _by_unit(report).items():
        for criterion in criteria:
            x = frame[criterion].iloc[at].to_numpy(dtype=np.float64)
            x = x[~np.isnan(x)]
            rows.append((item, country, criterion, len(x), float(x.mean()) if len(x) else None,
                         float(x.std(ddof=1)) if len(x) > 1 else None))
    return _frame("criteria_spearman", rows)


def document_scores_gold(report: ReportData) -> pd.DataFrame:
    scores: DocumentScores = REPORTS["document_scores"].compute(report)
    return _frame("document_scores", [tuple(row) for row in scores.rows])


def caption_wins_gold(report: ReportData) -> pd.DataFrame:
    wins: CaptionWinRates = REPORTS["caption_wins"].compute(report)
    rows = [
        (group["country"], s["system"], s["shown"], s["wins"], s["win_rate"], s["share"])
        for group in (wins.overall, *wins.countries) for s in group["systems"]
    ]
    return _frame("caption_wins", rows)


def fused_box(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    """The median of each edge (left, top, right, bottom) of ``boxes`` (x, y, w, h), as (x, y, w, h)."""
    edges = np.array([(x, y, x + w, y + h) for x, y, w, h in boxes], dtype=np.float64)
    left, top, right, bottom = np.median(edges, axis=0).tolist()
    return left, top, right - left, bottom - top


def box_gold(report: ReportData) -> pd.DataFrame:
    images, boxes = box_images(report), report.column("box").tolist()
    annotators, countries = report.annotations.annotator.tolist(), report.countries().tolist()
    groups: dict[tuple[Any, Any], list[tuple[Any, tuple[float, float, float, float]]]] = defaultdict(list)
    unreadable: Counter[tuple[Any, Any]] = Counter()
    for image, country, annotator, box in zip(images, countries, annotators, boxes, strict=True):
        try:
            xywh = box_xywh(box)
        except ValueError:
            unreadable[image, country] += 1
            continue
        groups[image, country].append((annotator, xywh))
    rows = []
    for (image, country), drawn in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        fused = fused_box([b for _, b in drawn])
        ious = [iou(b, fused) for _, b in drawn]
        pairwise = box_agreement([(image, a, b) for a, b in drawn]).mean_iou
        rows.append((image, country, len({a for a, _ in drawn}), *fused, float(np.mean(ious)), min(ious), max(ious),
                     pairwise, unreadable[image, country]))
    return _frame("box_agreement", rows)


def answer_gold(report: ReportData) -> pd.DataFrame:
    answers = report.column("answer").tolist()
    rows: list[tuple[Any, ...]] = []
    for (item, country), at in _by_unit(report).items():
        given = [answers[i] for i in at if answers[i] is not None]
        counts = Counter(t for a in given if (t := normalise_answer(a)))
        n = sum(counts.values())
        if not n:
            rows.append((item, country, given, 0, None, False, "", None, None))
            continue
        top = max(counts.values())
        tied = sorted(t for t, c in counts.items() if c == top)
        pairs, agreeing = answer_pairs(counts)
        rows.append((item, country, given, n, tied[0] if len(tied) == 1 else None, len(tied) > 1,
                     TIE_SEPARATOR.join(tied), top / n, agreeing / pairs if pairs else None))
    return _frame("answer_agreement", rows)


GOLD: dict[str, Callable[[ReportData], pd.DataFrame]] = {
    "human_scores": human_scores_gold,
    "prompt_filter": prompt_filter_gold,
    "error_types": error_types_gold,
    "highlighted_words": highlighted_words_gold,
    "criteria_spearman": criteria_gold,
    "document_scores": document_scores_gold,
    "caption_wins": caption_wins_gold,
    "box_agreement": box_gold,
    "answer_agreement": answer_gold,
}


def named(frame: pd.DataFrame, item_names: Mapping[Any, Any] | None, column: str = "item") -> pd.DataFrame:
    """``frame`` with its item ids replaced by the researcher's ids (``item_names``), where known."""
    if not item_names or column not in frame:
        return frame
    return frame.assign(**{column: [item_names.get(i, i) for i in frame[column].tolist()]})


__all__ = ["COLUMNS", "GOLD", "MIN_HIGHLIGHTS", "fused_box", "named"]
