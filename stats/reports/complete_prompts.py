"""CulturalFrames' complete prompts: those with an image from every model, the selection every
report and the metric correlation may be restricted to. Pure: no Django."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CompletePrompts:
    """The prompts that have an image from every model, and their items: pass ``item_ids`` as the
    ``only_items`` of a report to restrict it to them."""

    models: list[str]
    prompts: int
    complete: int
    item_ids: frozenset[Any]
    missing_by_model: dict[str, int]  # prompts without an image of that model
    without_model: int  # items that name no model (never part of a complete prompt)

    def as_dict(self) -> dict[str, Any]:
        return {
            "models": list(self.models),
            "prompts": self.prompts,
            "complete": self.complete,
            "items": len(self.item_ids),
            "missing_by_model": dict(self.missing_by_model),
            "without_model": self.without_model,
        }


def complete_prompts(
    items: Iterable[tuple[Any, Any, Any]], *, models: Collection[str] | None = None
) -> CompletePrompts:
    """The prompts with an image from every model.

    ``items``: (item id, prompt key, model), one per item of the rating study — the prompt key is
    anything that names the prompt (e.g. (country, prompt text)), the model the item's
    ``model_name``. ``models``: the models compared (by default every model named). Only the items
    of those models are kept."""
    by_prompt: dict[Any, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    without = 0
    for item, prompt, model in items:
        per_model = by_prompt[prompt]  # a prompt counts even when none of its items names a model
        if not model:
            without += 1
            continue
        per_model[str(model)].append(item)
    wanted = sorted({str(m) for m in models} if models is not None else {m for p in by_prompt.values() for m in p})
    kept: set[Any] = set()
    complete = 0
    missing: Counter[str] = Counter()
    for per_model in by_prompt.values():
        lacking = [m for m in wanted if m not in per_model]
        missing.update(lacking)
        if wanted and not lacking:
            complete += 1
            kept.update(item for m in wanted for item in per_model[m])
    return CompletePrompts(wanted, len(by_prompt), complete, frozenset(kept), {m: missing[m] for m in wanted}, without)
