"""What a checker re-labels on one annotation, read from the protocol. Pure: the protocol engine and
plain data, no ORM.

The reviewed fields are those with a level of measurement (the ones the analysis computes agreement
on), per_document sub-fields included, but for the comparisons of images (pairwise, best_worst,
rank: ``FieldType.relabelled``), which the checker judges with the annotation as a whole. A label is
compared as a token, as the analysis codes answers (``studies.protocol.answer_token``): a choice's
value as its form token, a multi answer as its tokens joined by "|" in choice order, a pick_one
answer as the candidate chosen.

A position names one label within an annotation: ``("caption_correct", None)`` for a top-level
field, ``("documents.country", 12)`` for a per_document sub-field about document 12.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from studies.protocol import DocumentRef, Field, Protocol, answer_token

Position = tuple[str, int | None]


def reviewed_fields(protocol: Protocol) -> tuple[Field, ...]:
    """The fields with a level of measurement whose type a checker re-labels (``FieldType.relabelled``:
    not a comparison of images); a per_document field narrowed to its sub-fields with one (left out
    when none has). Conditions are dropped and nothing is required: the review form asks every
    reviewed question the annotator answered, pre-set to their answer."""
    out = []
    for f in protocol.fields:
        if f.kind.container:
            subs = tuple(_open(s) for s in f.fields if s.level and s.kind.relabelled)
            if subs:
                out.append(replace(_open(f), fields=subs))
        elif f.level and f.kind.relabelled:
            out.append(_open(f))
    return tuple(out)


def _open(f: Field) -> Field:
    return replace(f, show_if=None, required_if=None, required=False)


def review_protocol(protocol: Protocol, answers: Mapping[str, Any]) -> Protocol:
    """The protocol of one annotation's review form: the reviewed fields the annotator answered."""
    fields = tuple(
        f for f in reviewed_fields(protocol)
        if (isinstance(answers.get(f.key), list) if f.kind.container else answers.get(f.key) is not None)
    )
    return Protocol(fields=fields, title=protocol.title, display=protocol.display)


def analysed_key(f: Field, parent: Field | None = None) -> str:
    """The name of a reviewed field in the agreement: its key, or ``<per_document key>.<sub key>``."""
    return f"{parent.key}.{f.key}" if parent is not None else f.key


def domain(f: Field) -> tuple[str, ...] | None:
    """The ordered tokens of a choice or scale field (a scale by value, a choice in spec order), as
    the analysis orders them; None for fields whose values are not a fixed list (multi, pick_one)."""
    choices = f.kind.domain(f)
    return None if choices is None else tuple(c.token for c in choices)


def _entries(value: Any) -> list[Mapping[str, Any]]:
    """The well-formed per-document entries of a per_document answer."""
    if not isinstance(value, list):
        return []
    return [e for e in value if isinstance(e, Mapping) and isinstance(e.get("document"), int)]


def flat_labels(fields: Sequence[Field], answers: Mapping[str, Any]) -> dict[Position, str]:
    """Every label of ``answers`` on ``fields`` (reviewed fields), by position."""
    out: dict[Position, str] = {}
    if not isinstance(answers, Mapping):
        return out
    for f in fields:
        if f.kind.container:
            for entry in _entries(answers.get(f.key)):
                for sub in f.fields:
                    token = answer_token(sub, entry.get(sub.key))
                    if token is not None:
                        out[(analysed_key(sub, f), entry["document"])] = token
        else:
            token = answer_token(f, answers.get(f.key))
            if token is not None:
                out[(f.key, None)] = token
    return out


def restrict(fields: Sequence[Field], answers: Mapping[str, Any]) -> dict[str, Any]:
    """``answers`` narrowed to the reviewed fields, in the same shape (what "Accept" stores)."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.kind.container:
            keys = [s.key for s in f.fields]
            out[f.key] = [
                {"document": e["document"], **{k: e[k] for k in keys if k in e}} for e in _entries(answers.get(f.key))
            ]
        elif answers.get(f.key) is not None:
            out[f.key] = answers[f.key]
    return out


def form_names(fields: Sequence[Field], documents: Sequence[DocumentRef]) -> dict[Position, str]:
    """The form name of every position the form can ask (documents in the order the form shows)."""
    names: dict[Position, str] = {}
    for f in fields:
        if f.kind.container:
            for i, doc in enumerate(documents):
                for sub in f.fields:
                    names[(analysed_key(sub, f), doc.id)] = f"{f.key}.{i}.{sub.key}"
        else:
            names[(f.key, None)] = f.key
    return names


def form_data(
    fields: Sequence[Field], answers: Mapping[str, Any], documents: Sequence[DocumentRef]
) -> dict[str, list[str]]:
    """``answers`` as the review form would post them: the form pre-set to the annotator's labels."""
    data: dict[str, list[str]] = {}
    for f in fields:
        if f.kind.container:
            by_document = {e["document"]: e for e in _entries(answers.get(f.key))}
            for i, doc in enumerate(documents):
                entry = by_document.get(doc.id, {})
                for sub in f.fields:
                    raw = sub.kind.form_values(sub, entry.get(sub.key))
                    if raw:
                        data[f"{f.key}.{i}.{sub.key}"] = raw
        else:
            raw = f.kind.form_values(f, answers.get(f.key))
            if raw:
                data[f.key] = raw
    return data


def changed(given: Mapping[Position, str], checked: Mapping[Position, str]) -> list[Position]:
    """The positions where the checker's label differs from the annotator's (one side may be absent)."""
    return [p for p in dict.fromkeys([*given, *checked]) if given.get(p) != checked.get(p)]
