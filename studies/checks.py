"""Check items: an item made an attention check (an instructed-response item: its question tells
which answer to give) or a gold item (an ordinary-looking item whose answers are known). A check
item has no quota; sessions get it by their schedule (``annotation.services.checks``).

Like a practice example, an item becomes a check item only before any annotator was given it, and
an ordinary item again only while no annotator has answered it as a check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from .models import CheckKind, Item, ItemQuota, MockQuestion
from .protocol import Field, Protocol
from .protocol.gold import gold_answer_problems
from .services import WorkspaceError, quotas_for_items

INSTRUCTION_MAX = 300  # characters of an attention check's instruction

# Instructed-response wordings (Prolific's policy: the question itself says which answer to give).
# ``{answer}`` is the label of the answer asked for.
INSTRUCTION_TEMPLATES = (
    "To show that you are reading carefully, please choose “{answer}” for this question.",
    "This question checks attention: please select “{answer}”, whatever the image shows.",
    "Please ignore the image for this question only and answer “{answer}”.",
)


@dataclass(frozen=True)
class Instruction:
    """Where an attention check's instruction is shown (the field it is added to) and its words."""

    field: str
    text: str


def instruction_of(item: Item) -> Instruction | None:
    """The attention check's instruction, as stored on the item (``metadata["instruction"]``)."""
    if item.check_kind != CheckKind.ATTENTION or not isinstance(item.metadata, dict):
        return None
    raw = item.metadata.get("instruction")
    if not isinstance(raw, dict) or not isinstance(raw.get("field"), str) or not isinstance(raw.get("text"), str):
        return None
    return Instruction(raw["field"], raw["text"])


def instructable_fields(spec: Protocol) -> list[Field]:
    """The questions an attention check can instruct: top-level ones whose answer is one of fixed
    choices (a choice, a scale's points), which a sentence can name."""
    return [
        f for f in spec.fields
        if (f.kind.categorical or f.kind.numeric) and not f.kind.multiple and f.choices
        and f.kind.gold_problem(f) is None
    ]


def instruction_text(template: str, answer_label: str) -> str:
    return template.replace("{answer}", answer_label)


def _refuse_if_given(item: Item) -> None:
    # ``assignments`` is the reverse of annotation.Assignment.item: asked, never imported.
    if item.assignments.exists():
        raise WorkspaceError(
            f"Item {item.external_id} was given to annotators already, so it cannot become a check item.",
            field="item",
        )


def item_set_attention(*, item: Item, field_key: str, value: Any, text: str = "", wording: int = 0) -> Item:
    """Make ``item`` an attention check: its question ``field_key`` shows ``text`` (which names the
    answer; empty: the offered wording ``wording`` of ``INSTRUCTION_TEMPLATES`` with the answer put in)
    and the check passes when the answer is ``value`` (one of the field's choices)."""
    spec = item.study.spec
    f = next((f for f in instructable_fields(spec) if f.key == field_key), None)
    if f is None:
        raise WorkspaceError("Choose one of the questions with fixed answers.", field="field")
    choice = next((c for c in f.choices if str(c.value) == str(value)), None)
    if choice is None:
        raise WorkspaceError(f"Choose one of the answers of “{f.label}”.", field="value")
    text = " ".join((text or "").split())
    if not text and 0 <= wording < len(INSTRUCTION_TEMPLATES):
        text = instruction_text(INSTRUCTION_TEMPLATES[wording], choice.label)
    if not text:
        raise WorkspaceError("Write the instruction annotators read (or pick a wording).", field="text")
    if len(text) > INSTRUCTION_MAX:
        raise WorkspaceError(f"Keep the instruction under {INSTRUCTION_MAX} characters.", field="text")
    if choice.label.casefold() not in text.casefold():
        raise WorkspaceError(
            f"The instruction must name the answer to give (“{choice.label}”): an attention check tells "
            "annotators what to answer.", field="text",
        )
    metadata = {**(item.metadata or {}), "instruction": {"field": f.key, "text": text}}
    return _set_check(item, CheckKind.ATTENTION, {f.key: choice.value}, metadata)


def item_set_gold(*, item: Item, expected: dict[str, Any]) -> Item:
    """Make ``item`` a gold item with the known answers ``expected`` (stored answers by field key,
    as the item's form gives them)."""
    problems = gold_answer_problems(item.study.spec, expected)
    if problems:
        raise WorkspaceError("; ".join(problems), field="expected")
    metadata = {k: v for k, v in (item.metadata or {}).items() if k != "instruction"}
    return _set_check(item, CheckKind.GOLD, expected, metadata)


def _set_check(item: Item, kind: str, expected: dict[str, Any], metadata: dict) -> Item:
    if item.is_example:
        raise WorkspaceError(f"Item {item.external_id} is an example of the practice test.", field="item")
    with transaction.atomic():
        if item.check_kind and item.check_answers.exists():
            raise WorkspaceError(
                f"Item {item.external_id} was answered as a check already: its expected answers stay.", field="item",
            )
        if not item.check_kind:
            _refuse_if_given(item)
            # Only quotas with nothing done or leased go; one leased meanwhile is kept and refuses.
            ItemQuota.objects.filter(item=item, done=0, leased=0).delete()
            if ItemQuota.objects.filter(item=item).exists():
                raise WorkspaceError(f"Item {item.external_id} was just given to an annotator.", field="item")
        Item.objects.filter(pk=item.pk).update(check_kind=kind, expected=expected, metadata=metadata)
        item.check_kind, item.expected, item.metadata = kind, expected, metadata
    return item


def item_unset_check(*, item: Item) -> Item:
    """Make a check item an ordinary item again (with a quota per pool it is routed to), while no
    annotator has been given it as a check."""
    if not item.check_kind:
        return item
    with transaction.atomic():
        if item.assignments.exists():
            raise WorkspaceError(
                f"Item {item.external_id} was given to annotators as a check, so it stays one.", field="item",
            )
        if MockQuestion.objects.filter(item=item).exists():  # not reachable today; kept as the example rule
            raise WorkspaceError(f"Item {item.external_id} is a practice example.", field="item")
        metadata = {k: v for k, v in (item.metadata or {}).items() if k != "instruction"}
        Item.objects.filter(pk=item.pk).update(check_kind="", expected=None, metadata=metadata)
        item.check_kind, item.expected, item.metadata = "", None, metadata
        quotas_for_items(items=[item])
    return item
