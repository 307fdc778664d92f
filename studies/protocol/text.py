"""A spec as a researcher types it: JSON text, read and checked by the engine, every problem with
its place (the JSON syntax error with its line and column, each ``SpecError`` with the field it
names). The protocol editor's live check and its save read a text through this one function."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .jsonbounds import JsonRefused, json_bounded
from .spec import Field, Protocol, SpecError, parse_spec


@dataclass(frozen=True)
class SpecProblem:
    """One problem: where it is ("field 'alignment'", "line 3, column 7", "protocol") and what."""

    where: str
    message: str


@dataclass(frozen=True)
class SpecText:
    """A text read: the spec as data and parsed when it is valid, else its problems."""

    data: dict | None
    protocol: Protocol | None
    problems: tuple[SpecProblem, ...]

    @property
    def ok(self) -> bool:
        return self.protocol is not None


# The order a spec reads best in. PostgreSQL's jsonb keeps keys in its own order (shorter keys
# first), so the editor puts them back in this one; a key not listed keeps its place after these.
PROTOCOL_ORDER = ("title", "display", "skip", "fields", "reports", "quality")
QUALITY_ORDER = ("attention", "gold", "speed", "outcomes", "estimated_minutes")
ATTENTION_ORDER = ("on", "placement", "count", "every")
FIELD_ORDER = tuple(Field.__dataclass_fields__)
REPORT_ORDER = ("kind",)
CHOICE_ORDER = ("value", "label", "description")
CONDITION_ORDER = ("field",)


def spec_pretty(spec: object) -> str:
    """A spec as the editor shows it: indented JSON, keys in reading order (``PROTOCOL_ORDER``, a
    field's settings in the engine's order), non-ASCII as is."""
    return json.dumps(_ordered_protocol(spec), indent=2, ensure_ascii=False)


def _ordered(data: object, order: tuple[str, ...]) -> object:
    if not isinstance(data, dict):
        return data
    rank = {key: n for n, key in enumerate(order)}
    return dict(sorted(data.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def _ordered_field(data: object) -> object:
    field = _ordered(data, FIELD_ORDER)
    if isinstance(field, dict) and isinstance(field.get("fields"), list):
        field["fields"] = [_ordered_field(sub) for sub in field["fields"]]
    if isinstance(field, dict) and isinstance(field.get("choices"), list):
        field["choices"] = [_ordered(choice, CHOICE_ORDER) for choice in field["choices"]]
    for condition in ("show_if", "required_if"):
        if isinstance(field, dict) and condition in field:
            field[condition] = _ordered(field[condition], CONDITION_ORDER)
    return field


def _ordered_protocol(spec: object) -> object:
    protocol = _ordered(spec, PROTOCOL_ORDER)
    if not isinstance(protocol, dict):
        return protocol
    if isinstance(protocol.get("fields"), list):
        protocol["fields"] = [_ordered_field(f) for f in protocol["fields"]]
    if isinstance(protocol.get("reports"), list):
        protocol["reports"] = [_ordered(r, REPORT_ORDER) for r in protocol["reports"]]
    if isinstance(protocol.get("quality"), dict):
        quality = _ordered(protocol["quality"], QUALITY_ORDER)
        if isinstance(quality, dict) and "attention" in quality:
            quality["attention"] = _ordered(quality["attention"], ATTENTION_ORDER)
        protocol["quality"] = quality
    return protocol


def spec_read(text: str) -> SpecText:
    """Read ``text`` as a protocol spec: JSON first, then the engine's ``parse_spec``."""
    try:
        data = json_bounded(text)
    except JsonRefused as exc:
        where = f"line {exc.line}, column {exc.column}" if exc.line is not None else "protocol"
        return SpecText(None, None, (SpecProblem(where, f"JSON syntax: {exc.reason}"),))
    try:
        protocol = parse_spec(data)
    except SpecError as exc:
        return SpecText(data if isinstance(data, dict) else None, None, tuple(_problem(e) for e in exc.errors))
    return SpecText(data, protocol, ())


def _problem(error: str) -> SpecProblem:
    """An engine error split at its first ": " into the place it names and the message; an error
    about the spec as a whole names no place of its own."""
    where, sep, message = error.partition(": ")
    return SpecProblem(where, message) if sep else SpecProblem("protocol", error)
