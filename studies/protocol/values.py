"""Answer values as a form posts them, and a field's choices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def value_token(value: Any) -> str:
    """A choice's value as it travels in an HTML form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class Choice:
    value: Any
    label: str
    description: str = ""

    @property
    def token(self) -> str:
        return value_token(self.value)
