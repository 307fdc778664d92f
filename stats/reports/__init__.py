"""What each study's paper reports, as pure functions over plain rows. No Django, no ORM.

Every function takes rows of plain tuples, read by the analysis service from the annotations'
``answers`` (one row per annotation unless said otherwise; skipped annotations are not passed), and
returns a frozen dataclass whose ``as_dict()`` is JSON-safe (no NaN: undefined figures are None,
with a ``reason``). Countries are whatever label the caller uses for a pool (its country code).

- CAIRE (``caire``): ``human_scores``.
- CulturalFrames (``culturalframes``): ``prompt_filter_majority``, ``error_type_shares``,
  ``word_frequency``, ``criteria_spearman``, ``complete_prompts`` (its ``item_ids`` is the
  ``only_items`` option of the other reports and of ``stats.correlation.metric_correlations``).
- RAVENEA (``ravenea``): ``document_scores``, ``caption_win_rates``.
- GlobalRG (``globalrg``): ``iou``, ``box_agreement``, ``iou_against_gold``.
- CulturalVQA (``culturalvqa``): ``normalise_answer``, ``answer_agreement``.

Each report kind a protocol may declare is one object (``kinds.ReportKindImpl``: what it reads of
each answer, how it computes, which fragment and plot show it), made in its paper's module and
listed in ``catalog.REPORTS``. Metric correlation and the human–human baseline are in
``stats.correlation``.
"""

from .caire import HumanScores, human_scores
from .complete_prompts import CompletePrompts, complete_prompts
from .culturalframes import (
    CriteriaSpearman,
    ErrorTypeShares,
    PromptFilter,
    WordFrequency,
    criteria_spearman,
    error_type_shares,
    prompt_filter_majority,
    word_frequency,
)
from .culturalvqa import AnswerAgreement, answer_agreement, normalise_answer
from .globalrg import BoxAgreement, GoldAgreement, box_agreement, iou, iou_against_gold
from .ravenea import CaptionWinRates, DocumentScores, ScoreTable, caption_win_rates, document_scores, score_table

__all__ = [
    "AnswerAgreement", "BoxAgreement", "CaptionWinRates", "CompletePrompts", "CriteriaSpearman",
    "DocumentScores", "ErrorTypeShares", "ScoreTable", "GoldAgreement", "HumanScores", "PromptFilter", "WordFrequency",
    "answer_agreement", "box_agreement", "caption_win_rates", "complete_prompts", "criteria_spearman",
    "document_scores", "error_type_shares", "human_scores", "iou", "iou_against_gold", "normalise_answer",
    "prompt_filter_majority", "score_table", "word_frequency",
]
