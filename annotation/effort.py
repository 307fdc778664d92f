"""The honest-effort signals an item page sends with a submit (``static/annotation/effort.js``), parsed
strictly where they enter. Pure: no Django.

Counts only, never what was typed: per free-text answer (by the form's input name) the characters
pasted, the characters typed, the keystrokes timed (``keys``) and the characters that arrived in
bursts (a paste, or one input event inserting more than ``effort.js``'s BURST characters: ``burst``);
for the item, the times the page lost the focus or was hidden (``blurs``) and the milliseconds it was
hidden (``hidden_ms``). They are for review only, never a reason to refuse or reject: anything
malformed, oversized, negative or unknown makes the whole value absent (None), and the submit goes on.
"""

from __future__ import annotations

from typing import Any

from studies.protocol.jsonbounds import JsonRefused, json_bounded

FIELD = "_effort"  # the form parameter the page posts them in (never an answer: the view takes it out)
MAX_RAW = 4_000  # characters of JSON
MAX_DEPTH = 3  # {"fields": {name: {counts}}}
MAX_FIELDS = 40  # text answers of one item (a per_document field repeats one per document)
MAX_NAME = 120
MAX_COUNT = 10_000_000
FIELD_KEYS = ("pasted", "typed", "keys", "burst")
ITEM_KEYS = ("blurs", "hidden_ms")


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        return None
    return value


def _counts(raw: Any, keys: tuple[str, ...]) -> dict[str, int] | None:
    """``raw`` as {key: count} over known ``keys`` only (a missing one is 0); None if anything is off."""
    if not isinstance(raw, dict) or not set(raw) <= set(keys):
        return None
    counts = {key: _count(raw.get(key, 0)) for key in keys}
    if any(v is None for v in counts.values()):
        return None
    return counts  # type: ignore[return-value]


def _fields(raw: Any) -> dict[str, dict[str, int]] | None:
    if not isinstance(raw, dict) or len(raw) > MAX_FIELDS:
        return None
    out = {}
    for name, value in raw.items():
        counts = _counts(value, FIELD_KEYS)
        if not name or len(name) > MAX_NAME or counts is None:
            return None
        out[name] = counts
    return out


def effort_parse(raw: Any) -> dict[str, Any] | None:
    """The posted signals (a JSON text) as stored: ``{"fields": {name: {pasted, typed, keys, burst}},
    "blurs": n, "hidden_ms": n}``; None when absent or not exactly that shape within its bounds."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_RAW:
        return None
    try:  # bounded: a deeply nested text is refused, not a RecursionError (a 500 losing the answer)
        data = json_bounded(raw, max_depth=MAX_DEPTH, max_chars=MAX_RAW)
    except JsonRefused:
        return None
    if not isinstance(data, dict) or not set(data) <= {"fields", *ITEM_KEYS}:
        return None
    item = _counts({k: v for k, v in data.items() if k != "fields"}, ITEM_KEYS)
    fields = _fields(data.get("fields", {}))
    if item is None or fields is None:
        return None
    return {"fields": fields, **item}


def effort_totals(effort: Any) -> dict[str, int | float | None]:
    """A stored value's totals for an export row or a review page: pasted and typed characters over
    the text answers, times the page was left, seconds hidden; all None when none were recorded."""
    if not isinstance(effort, dict):
        return {"pasted_chars": None, "typed_chars": None, "focus_losses": None, "hidden_seconds": None}
    fields = [v for v in (effort.get("fields") or {}).values() if isinstance(v, dict)]
    return {
        "pasted_chars": sum(int(v.get("pasted", 0)) for v in fields),
        "typed_chars": sum(int(v.get("typed", 0)) for v in fields),
        "focus_losses": int(effort.get("blurs", 0)),
        "hidden_seconds": round(int(effort.get("hidden_ms", 0)) / 1000, 1),
    }


def effort_summary(effort: Any) -> dict[str, Any] | None:
    """What a checker sees of one annotation's signals: the totals (``effort_totals``) and how many
    of its text answers were mostly pasted (``stats.annotators.effort.mostly_pasted``); None when
    the page sent none."""
    if not isinstance(effort, dict):
        return None
    from stats.annotators.effort import mostly_pasted  # pandas, loaded only where a checker looks

    fields = [v for v in (effort.get("fields") or {}).values() if isinstance(v, dict)]
    return {**effort_totals(effort), "mostly_pasted": sum(mostly_pasted(v) for v in fields)}
