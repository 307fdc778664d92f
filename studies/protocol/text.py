"""A spec as a researcher types it: JSON text, read and checked by the engine, every problem with
its place (the JSON syntax error with its line and column, each ``SpecError`` with the field it
names). The protocol editor's live check and its save read a text through this one function."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .jsonbounds import JsonRefused, json_bounded
from .spec import Protocol, SpecError, parse_spec


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


def spec_pretty(spec: object) -> str:
    """A spec as the editor shows it: indented JSON, keys in their own order, non-ASCII as is."""
    return json.dumps(spec, indent=2, ensure_ascii=False)


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
