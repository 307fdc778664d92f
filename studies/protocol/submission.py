"""Reading a submission against a spec: validation for the server, binding for the page.

Form names: a top-level field posts as its key; a sub-field of a per_document field as
``<key>.<document index>.<sub key>``; a url_list as ``<name>.title`` / ``<name>.url``; an item-level
skip as ``_skip``. Errors are keyed by those names. A hidden field is never stored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .conditions import evaluate
from .item import DocumentRef, ItemContext, Token
from .safetext import value_problem
from .spec import Field, Protocol
from .words import gettext

SKIP = "_skip"
Data = Mapping[str, Sequence[Any]]
ANSWER_MAX_CHARS = 100_000  # one posted value, whatever its field's own bounds


def raw_problem(raw: Sequence[Any]) -> str | None:
    """Why a field's posted values cannot be stored (a NUL or a broken character, a value too
    long for any answer), or None: the same for every field type, before it parses them."""
    if any(len(str(v)) > ANSWER_MAX_CHARS for v in raw):
        return gettext("This answer is too long (at most {n} characters).").format(n=f"{ANSWER_MAX_CHARS:,}")
    return value_problem(list(raw))


@dataclass
class Validation:
    answers: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def skipped(self) -> bool:
        return SKIP in self.answers


def _walk(fields: Sequence[Field], data: Data, ctx: ItemContext, prefix: str, out: Validation, shown: set[str]) -> dict:
    answers: dict[str, Any] = {}
    for f in fields:
        if not evaluate(f.show_if, answers):
            continue
        name = prefix + f.key
        shown.add(name)
        ftype = f.kind
        if ftype.container:
            answers[f.key] = [
                {"document": doc.id, **_walk(f.fields, data, ctx, f"{name}.{i}.", out, shown)}
                for i, doc in enumerate(ctx.documents)
            ]
            continue
        raw = ftype.raw_from(data, name)
        problem = raw_problem(raw)
        if problem:
            out.errors[name] = problem
            continue
        if not raw:
            if f.required or (f.required_if is not None and evaluate(f.required_if, answers)):
                out.errors[name] = ftype.required_message(f)
            continue
        try:
            answers[f.key] = ftype.parse(f, raw, ctx, answers)
        except ValueError as exc:
            out.errors[name] = str(exc)
    return answers


def walk(protocol: Protocol, data: Data, ctx: ItemContext) -> tuple[Validation, set[str]]:
    """Read a (possibly partial) submission in spec order: what parsed, what failed, what is shown."""
    out, shown = Validation(), set[str]()
    reason = next((str(v) for v in data.get(SKIP, []) if str(v).strip()), None)
    if protocol.skip is not None and reason is not None:
        if reason in protocol.skip.reasons:
            out.answers = {SKIP: reason}
        else:
            out.errors[SKIP] = gettext("Choose one of the reasons to skip.")
        return out, shown
    out.answers = _walk(protocol.fields, data, ctx, "", out, shown)
    return out, shown


def validate(protocol: Protocol, data: Data, ctx: ItemContext) -> Validation:
    """Check a submission: every answer, or every error and no answers."""
    result, _ = walk(protocol, data, ctx)
    if result.errors:
        result.answers = {}
    return result


# --- binding: what the page renders ----------------------------------------------------------


@dataclass
class Bound:
    field: Field
    name: str
    values: list[Any]
    error: str | None
    shown: bool
    # dataclasses.field: in this class body ``field`` is the attribute above
    tokens: list[Token] = dataclasses.field(default_factory=list)
    documents: list[tuple[DocumentRef, list[Bound]]] = dataclasses.field(default_factory=list)

    @property
    def template(self) -> str:
        return f"annotation/fields/_{self.field.type}.html"

    @property
    def value(self) -> str:
        return str(self.values[-1]) if self.values else ""

    @property
    def page_data(self) -> dict[str, str]:
        """What the field's script reads of its settings (``FieldType.page_data``)."""
        return self.field.kind.page_data(self.field)


def _bind(fields, data, ctx, errors, shown, prefix) -> list[Bound]:
    bound = []
    for f in fields:
        name = prefix + f.key
        ftype = f.kind
        b = Bound(
            field=f,
            name=name,
            values=ftype.raw_from(data, name),
            error=errors.get(name),
            shown=name in shown,
            tokens=ftype.tokens(f, ctx),
        )
        if ftype.container:
            b.documents = [
                (doc, _bind(f.fields, data, ctx, errors, shown, f"{name}.{i}.")) for i, doc in enumerate(ctx.documents)
            ]
        bound.append(b)
    return bound


def bind(protocol: Protocol, data: Data, ctx: ItemContext, errors: Mapping[str, str] | None = None) -> list[Bound]:
    """The form's fields with what was posted or drafted, their errors, and which are shown."""
    _, shown = walk(protocol, data, ctx)
    return _bind(protocol.fields, data, ctx, errors or {}, shown, "")
