"""What a draft may hold: the form names of its protocol's fields (and the skip reason), a few
values each, each value and the whole of a bounded size, texts a database can store. The item page
and the path preview keep a draft only when ``draft_problem`` finds nothing (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .safetext import value_problem
from .spec import Field, Protocol
from .submission import SKIP

DRAFT_MAX_CHARS = 20_000  # every value and every key, in all
DRAFT_MAX_VALUES = 500  # values under one name (ticked choices, selected words, article rows)
DRAFT_MAX_DOCUMENTS = 200  # documents of a per_document field
_IN_DOCUMENT = re.compile(r"^([a-z][a-z0-9_]*)\.(\d{1,3})\.(.+)$")


def draft_problem(protocol: Protocol, data: Mapping[str, Sequence[Any]]) -> str | None:
    """Why ``data`` (a form's names and their values) is not kept as a draft of ``protocol``'s
    form, or None when it may be."""
    unknown = [name for name in data if not _known(protocol.fields, name)]
    if unknown:
        return f"The draft names {len(unknown)} field(s) this form does not have, e.g. {unknown[0][:40]!r}."
    if any(len(values) > DRAFT_MAX_VALUES for values in data.values()):
        return f"The draft has more than {DRAFT_MAX_VALUES} values for one field."
    size = sum(len(name) + sum(len(str(v)) for v in values) for name, values in data.items())
    if size > DRAFT_MAX_CHARS:
        return f"The draft is too large ({size:,} characters; at most {DRAFT_MAX_CHARS:,})."
    return value_problem([list(data), *(list(values) for values in data.values())])


def _known(fields: Sequence[Field], name: str) -> bool:
    """Is ``name`` a form name of one of ``fields`` (a sub-field of a per_document field as
    ``<key>.<document index>.<sub name>``), or the skip reason?"""
    if name == SKIP:
        return True
    for f in fields:
        if not f.kind.container and name in f.kind.form_names(f.key):
            return True
    match = _IN_DOCUMENT.match(name)
    if match is None:
        return False
    key, index, rest = match.groups()
    container = next((f for f in fields if f.key == key and f.kind.container), None)
    return (container is not None and int(index) < DRAFT_MAX_DOCUMENTS
            and rest != SKIP and _known(container.fields, rest))
