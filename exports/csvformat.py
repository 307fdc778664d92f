"""The export's CSV layout: columns from the protocol, one row per annotation. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from studies.protocol import Protocol, value_token

ITEM_COLUMNS = ["item_id", "prompt", "model", "category", "item_country", "pool_country", "annotator"]
TRAILING_COLUMNS = ["surplus", "protocol_version", "time_spent_s", "started_at", "submitted_at"]


def header(protocol: Protocol) -> list[str]:
    columns = list(ITEM_COLUMNS)
    for f in protocol.fields:
        columns.append(f.key)
        if f.type == "highlight":
            columns.append(f"{f.key}_indices")
    return columns + TRAILING_COLUMNS


def answer_cells(protocol: Protocol, answers: Mapping[str, Any]) -> list[str]:
    """The protocol's fields as cells: lists joined by "|", a highlight as its words and indices."""
    if not isinstance(answers, Mapping):
        answers = {}
    cells: list[str] = []
    for f in protocol.fields:
        value = answers.get(f.key)
        if f.type == "highlight":
            words = value if isinstance(value, list) else []
            cells.append("|".join(str(w.get("text", "")) for w in words if isinstance(w, Mapping)))
            cells.append("|".join(str(w.get("index", "")) for w in words if isinstance(w, Mapping)))
        elif value is None:
            cells.append("")
        elif isinstance(value, list):
            cells.append("|".join(value_token(v) for v in value))
        else:
            cells.append(value_token(value))
    return cells


def iso_utc(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def trailing_cells(*, surplus: bool, protocol_version: int, time_spent_ms: int, started_at, submitted_at) -> list[str]:
    return [
        "true" if surplus else "false",
        str(protocol_version),
        f"{time_spent_ms / 1000:.3f}",
        iso_utc(started_at),
        iso_utc(submitted_at),
    ]
