"""Comparisons: which of two (or of K) things annotators prefer. Pure: numpy and scipy, plain data
in and out. See docs/agreement.md, "Comparisons: Bradley–Terry, best–worst, rankings".

- ``bradley_terry``: scores of paired comparisons (left, right, winner: left, right or tie), ties
  as half a win each way, an L2 penalty, bootstrap intervals, ranks, win rates and the left/right
  position bias.
- ``best_worst``: best–worst (MaxDiff) trials, counting scores and a fit of the implied pairs;
  ``rankings``: full rankings by rank-breaking; both with the screen position's sway on the choice.
- ``majority_preferences``: each item's images' pairs as answers order them (a choice, the pairs
  a best–worst answer implies, a ranking's every pair), and the majority's preference per pair:
  the (prompt, chosen, rejected) rows of a preference dataset; ``set_rankings``: the images
  themselves ranked within each set the answers link;
- ``read_pairs_csv``: the CSV ``analyse --pairs`` reads (left,right,winner and an optional group),
  every problem named by its line (``PairsFormError``).

The fit they share (penalised Newton, bootstrap by multinomial counts of distinct observations) is
in ``strengths``.
"""

from .best_worst import ChoicePositions, Choices, PositionShare, Scored, best_worst, rankings
from .bradley_terry import OUTCOMES, BradleyTerry, PositionBias, ThingScore, WinRate, bradley_terry
from .pairs_csv import WHOLE, PairRow, PairsFormError, by_group, read_pairs_csv
from .preferences import Preference, Preferences, SetScore, answer_pairs, majority_preferences, set_rankings

__all__ = [
    "OUTCOMES", "WHOLE", "BradleyTerry", "ChoicePositions", "Choices", "PairRow", "PairsFormError", "PositionBias",
    "PositionShare", "Preference", "Preferences", "Scored", "SetScore", "ThingScore", "WinRate", "answer_pairs",
    "best_worst", "bradley_terry", "by_group", "majority_preferences", "rankings", "read_pairs_csv", "set_rankings",
]
