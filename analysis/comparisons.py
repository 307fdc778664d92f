"""Comparisons in the analysis: for every field whose answers compare the item's images (pairwise,
best–worst, rank), the models ranked per pool and overall (``stats.comparisons``: Bradley–Terry on
the pairs, best–worst counting and implied pairs, rankings by rank-breaking), with bootstrap
intervals, win rates and the screen position's sway; agreement on the choice is the field's alpha,
computed with the other fields'.

An answer names images by their number in the item; each is read as the model that made it
(``ItemImage.model_name``; "image N" where none was given). An answer whose images cannot be read
so (two images of one model in one pair, an image the item no longer has) is left out and counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from stats.columns import AnnotationColumns
from stats.comparisons import best_worst, bradley_terry, rankings
from studies.models import ItemImage, Study

DESIGNS: dict[str, Callable[..., Any]] = {"pairs": bradley_terry, "best_worst": best_worst, "rankings": rankings}
MIN_TO_FIT = 2  # answers below which a pool gets no fit, only its count


def item_models(*, study: Study) -> dict[int, dict[str, str]]:
    """Item id → its images' models by image id (one query)."""
    models: dict[int, dict[str, str]] = defaultdict(dict)
    rows = ItemImage.objects.filter(item__study=study).values_list("item_id", "position", "model_name")
    for item_id, position, model in rows.iterator(chunk_size=20_000):
        models[item_id][str(position)] = model or f"image {position}"
    return models


def comparison_result(
    *, study: Study, columns: AnnotationColumns, pools: Mapping[int, Mapping[str, Any]], resamples: int, seed: int
) -> list[dict[str, Any]]:
    """Per comparison field of the study's protocol: the design, and per pool (by country) and
    overall the models' scores with intervals and ranks (``as_dict`` of ``stats.comparisons``), or
    the reason there is no fit; ``left_out``: answers that could not be read as a comparison of models."""
    fields = [f for f in study.spec.fields if f.kind.compares and f.key in columns.keys]
    if not fields:
        return []
    models = item_models(study=study)
    answered = columns.answered()
    out = []
    for f in fields:
        column = answered.keys[f.key]
        by_pool: dict[int, list[Any]] = defaultdict(list)
        left_out = 0
        for code, item, pool in zip(column.codes.tolist(), answered.item.tolist(), answered.pool.tolist(),
                                    strict=True):
            if code < 0:
                continue
            row = f.kind.comparison(f, column.values[code], models.get(item, {}))
            if row is None:
                left_out += 1
            else:
                by_pool[pool].append(row)
        fit = DESIGNS[f.kind.compares]
        every = [row for pk in pools for row in by_pool.get(pk, [])]
        out.append({
            "key": f.key, "label": f.label, "design": f.kind.compares, "left_out": left_out,
            "overall": _fitted(fit, every, resamples, seed),
            "pools": [{"pool_id": pk, **labels, **_fitted(fit, by_pool.get(pk, []), resamples, seed)}
                      for pk, labels in pools.items()],
        })
    return out


def _fitted(fit: Callable[..., Any], rows: list[Any], resamples: int, seed: int) -> dict[str, Any]:
    if len(rows) < MIN_TO_FIT:
        return {"answers": len(rows), "error": f"{len(rows)} answer(s): too few to rank anything"}
    try:
        return {"answers": len(rows), **fit(rows, n_resamples=resamples, seed=seed).as_dict()}
    except ValueError as exc:  # the rows cannot be fitted here; the rest of the analysis stands
        return {"answers": len(rows), "error": str(exc)}
