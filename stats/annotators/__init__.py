"""Quality control per annotator: what the researcher sorts, filters and excludes by. Pure: no Django.

- ``answers``: the long frame of answers (unit, annotator, value; optionally seconds, expected or
  correct), checked and coded once.
- ``scores``: ``annotator_scores``, per annotator: answers, median seconds, too-fast answers, gold
  accuracy, leave-one-out agreement and a competence estimate (MACE or Dawid–Skene).
- ``agreement``: the leave-one-out agreement, and ``agreement_with_without``: Krippendorff's alpha
  with and without the excluded annotators.

See docs/agreement.md ("Annotator scores").
"""

from .agreement import AGREEMENT_COLUMNS, Side, WithWithout, agreement_with_without, leave_one_out
from .answers import Answers, answers_of
from .scores import COMPETENCE, SCORE_COLUMNS, AnnotatorScores, annotator_scores

__all__ = ["AGREEMENT_COLUMNS", "AnnotatorScores", "Answers", "COMPETENCE", "SCORE_COLUMNS", "Side", "WithWithout",
           "agreement_with_without", "annotator_scores", "answers_of", "leave_one_out"]
