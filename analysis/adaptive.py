"""The adaptive comparison mode: a pool's ``adaptive_budget`` of extra annotations spent, a step at a
time, on the two-image comparison items of the pairs of models whose order is least certain.
Quotas and leases work as for every item: an added slot is one more wanted annotation on one
item's quota (``ItemQuota.added``, kept on top of the pool's number as ``reopened`` is), leased
fewest-done-first by the same conditional UPDATE, never to an annotator who had the item already.

The rule (``comparisons_adapt``, run for every open study's pool with budget left by the beat
entry "adapt-comparisons", ``adapt_all``):

- It acts only when the pool's current protocol has a comparison field of pairs
  (``compares == "pairs"``: pairwise; the first such field when there are several) and budget is
  left (``adaptive_budget`` − the pool's sum of ``added`` > 0).
- It acts only when the base design is nearly spent: the pool's open slots (wanted − done − leased
  over its quotas, and the slots of leases lapsed by ``now``, which the lease sweep is about to give
  back) are fewer than a step, ``max(5, adaptive_budget // 10)`` capped by the budget left. So the
  balanced design is answered first, and the budget goes out a step at a time, each step placed
  with the answers of the one before.
- The pairs are the unordered pairs of models (``ItemImage.model_name``, "image N" where none was
  given) of the pool's items with two images of two models. Bradley–Terry is fitted on the pool's
  counted answers (``Annotation.objects.counted()``) of the field, each read by the field type's
  ``comparison`` hook, with ``RESAMPLES`` bootstrap resamples and a fixed seed (a run placed again
  on the same answers places alike).
- How uncertain a pair's order is: the overlap of the two models' bootstrap intervals divided by the
  gap between their scores. It grows as the intervals widen (few answers) and as the scores close
  in, the two reasons an order is unsure; it is 0 when the intervals do not overlap (the order is
  settled at the interval's level, 95%: such a pair gets nothing) and infinite for a pair never
  compared directly (most uncertain) or with equal scores. Why not the share of bootstrap resamples
  in which the pair's order flips, which would be sharper: ``stats.comparisons.bradley_terry``
  gives each model's percentile interval, not its resamples, and the overlap of two marginal
  intervals is the more cautious reading of the same bootstrap (it calls fewer pairs settled).
- The step's slots are dealt over the uncertain pairs, most uncertain first (ties: fewer direct
  comparisons first, then by name), one slot to each pair in turn, each to one item of that pair
  with the fewest done (never two slots to one item in a run), until the step is placed or every
  uncertain pair's items had one. Each slot is a single UPDATE raising the quota's ``wanted`` and
  ``added`` by 1, in one transaction that locks the pool's row and checks the budget and the open
  slots again (two runs at once place one step); the database's ``done + leased <= wanted`` holds,
  since wanted only grows.
- Before the pool has answers enough to fit (fewer than ``MIN_TO_FIT``, 2), or when the fit is
  refused, the slots are dealt evenly over every pair, fewest comparisons first.

When every pair is settled nothing is placed and the budget left waits: new answers may unsettle a
pair at a later run.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.models import Annotation, Assignment
from stats.comparisons import ThingScore, bradley_terry
from studies.models import CountryPool, ItemImage, ItemQuota, Study

from .comparisons import MIN_TO_FIT, item_models

RESAMPLES = 200  # bootstrap resamples of each fit: enough to place a step, cheap every five minutes
SEED = 0
STEP_FLOOR = 5  # the smallest step: max(STEP_FLOOR, budget // 10), capped by the budget left

Pair = tuple[str, str]  # two models, in sorted order


@dataclass(frozen=True)
class Slot:
    """One item's quota that may take an added slot: the pair of models it compares, how many are done."""

    quota_id: int
    pair: Pair
    done: int


def adapt_all(*, now: datetime | None = None) -> int:
    """Every pool of an open study with adaptive budget left, adapted (``comparisons_adapt``);
    returns the slots added in all."""
    now = now or timezone.now()
    pools = (
        CountryPool.objects.filter(study__status=Study.Status.OPEN, adaptive_budget__gt=0)
        .annotate(placed=Coalesce(Sum("quotas__added"), 0))
        .filter(adaptive_budget__gt=F("placed"))
        .select_related("study")
        .order_by("pk")
    )
    return sum(comparisons_adapt(pool=pool, now=now) for pool in pools)


def comparisons_adapt(*, pool: CountryPool, now: datetime | None = None) -> int:
    """Place the next step of the pool's adaptive budget on its least certain pairs (the rule is the
    module's); returns the slots added (0: off, no pairwise field, budget spent, the base design not
    yet nearly spent, or every pair settled)."""
    now = now or timezone.now()
    field = next((f for f in pool.study.spec.fields if f.kind.compares == "pairs"), None)
    if field is None or pool.adaptive_budget <= 0:
        return 0
    step = _step_due(pool, now)
    slots = _pool_slots(pool) if step else []
    if not slots:
        return 0
    chosen = deal(pairs_ranked({s.pair for s in slots}, _answers(pool, field)), slots, step)
    if not chosen:
        return 0
    with transaction.atomic():
        locked = CountryPool.objects.select_for_update().get(pk=pool.pk)
        step = _step_due(locked, now)
        added = 0
        for quota_id in chosen[:step]:
            added += ItemQuota.objects.filter(pk=quota_id, pool=locked).update(
                wanted=F("wanted") + 1, added=F("added") + 1
            )
    return added


def _step(budget: int, left: int) -> int:
    return min(max(STEP_FLOOR, budget // 10), left)


def _step_due(pool: CountryPool, now: datetime) -> int:
    """The step to place now (the budget left, capped), or 0: no budget left, or the base design
    still has a step's open slots or more."""
    quotas = ItemQuota.objects.filter(pool=pool).aggregate(
        added=Coalesce(Sum("added"), 0), open=Coalesce(Sum(F("wanted") - F("done") - F("leased")), 0)
    )
    left = pool.adaptive_budget - quotas["added"]
    if left <= 0:
        return 0
    step = _step(pool.adaptive_budget, left)
    lapsed = Assignment.objects.filter(pool=pool, status=Assignment.Status.LEASED, expires_at__lte=now).count()
    return step if quotas["open"] + lapsed < step else 0


def _pool_slots(pool: CountryPool) -> list[Slot]:
    """The pool's quotas of items with two images of two models (two queries)."""
    images: dict[int, list[str]] = defaultdict(list)
    rows = ItemImage.objects.filter(item__quotas__pool=pool).values_list("item_id", "position", "model_name")
    for item_id, position, model in rows.order_by("item_id", "position").iterator(chunk_size=20_000):
        images[item_id].append(model or f"image {position}")
    pairs = {item: (min(m), max(m)) for item, m in images.items() if len(m) == 2 and m[0] != m[1]}
    quotas = ItemQuota.objects.filter(pool=pool, item_id__in=list(pairs)).values_list("pk", "item_id", "done")
    return [Slot(pk, pairs[item], done) for pk, item, done in quotas.order_by("pk")]


def _answers(pool: CountryPool, field) -> list[tuple[str, str, str]]:
    """The pool's counted answers of ``field`` as (left model, right model, winner) (two queries)."""
    models = item_models(study=pool.study)
    answers = (
        Annotation.objects.counted().filter(pool=pool, skipped=False, answers__has_key=field.key)
        .values_list("item_id", "answers").order_by("pk")
    )
    rows = []
    for item_id, given in answers.iterator(chunk_size=5_000):
        row = field.kind.comparison(field, given[field.key], models.get(item_id, {}))
        if row is not None:
            rows.append(row)
    return rows


def pairs_ranked(pairs: Iterable[Pair], rows: list[tuple[str, str, str]]) -> list[Pair]:
    """The pairs whose order is uncertain, most uncertain first (pure: the module's rule). With
    fewer than ``MIN_TO_FIT`` answers, or a fit refused, every pair by fewest comparisons."""
    compared = Counter(_pair(left, right) for left, right, _ in rows)
    scores: Mapping[Hashable, ThingScore] = {}
    if len(rows) >= MIN_TO_FIT:
        try:
            scores = {t.thing: t for t in bradley_terry(rows, n_resamples=RESAMPLES, seed=SEED).things}
        except ValueError:
            scores = {}
    if not scores:
        return sorted(pairs, key=lambda p: (compared[p], p))
    uncertainty = {p: order_uncertainty(scores.get(p[0]), scores.get(p[1]), compared[p]) for p in pairs}
    return sorted((p for p in pairs if uncertainty[p] > 0), key=lambda p: (-uncertainty[p], compared[p], p))


def order_uncertainty(a: ThingScore | None, b: ThingScore | None, compared: int) -> float:
    """How uncertain the order of ``a`` and ``b`` is: the overlap of their intervals over the gap of
    their scores; 0 when the intervals are apart, infinite when never compared (or scores equal)."""
    if compared == 0 or a is None or b is None:
        return math.inf
    if a.ci_low is None or a.ci_high is None or b.ci_low is None or b.ci_high is None:
        return math.inf
    overlap = min(a.ci_high, b.ci_high) - max(a.ci_low, b.ci_low)
    if overlap <= 0:
        return 0.0
    gap = abs(a.score - b.score)
    return math.inf if gap == 0 else overlap / gap


def deal(order: list[Pair], slots: list[Slot], step: int) -> list[int]:
    """The quotas that get a slot: ``order``'s pairs in turn, each its item with the fewest done not
    yet dealt one, until ``step`` are dealt or the pairs' items are used up (pure)."""
    waiting: dict[Pair, list[Slot]] = defaultdict(list)
    for slot in sorted(slots, key=lambda s: (s.done, s.quota_id)):
        waiting[slot.pair].append(slot)
    queue = [p for p in order if waiting[p]]
    chosen: list[int] = []
    while queue and len(chosen) < step:
        for pair in list(queue):
            if len(chosen) == step:
                break
            chosen.append(waiting[pair].pop(0).quota_id)
            if not waiting[pair]:
                queue.remove(pair)
    return chosen


def _pair(left: str, right: str) -> Pair:
    return (left, right) if left <= right else (right, left)
