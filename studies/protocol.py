"""The protocol engine: a study's questions as a declarative JSON spec.

One spec is used three times: to render the form, to validate a submission on the server, and
to tell the analysis each field's level of measurement. Pure Python, no Django: conditions are
small JSON objects, evaluated here and identically by ``static/annotation/conditions.js``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LEVELS = ("nominal", "ordinal", "interval", "ratio")
COMPARATORS = ("eq", "ne", "lt", "le", "gt", "ge", "in", "contains")
WORD_RE = re.compile(r"\w+(?:['’\-]\w+)*", re.UNICODE)


class SpecError(ValueError):
    """A protocol spec that cannot be used; ``errors`` lists every problem found."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class Choice:
    value: Any
    label: str
    description: str = ""

    @property
    def token(self) -> str:
        """The value as it travels in an HTML form."""
        return value_token(self.value)


@dataclass(frozen=True)
class Field:
    key: str
    type: str
    label: str
    help: str = ""
    choices: tuple[Choice, ...] = ()
    level: str | None = None
    required: bool = True
    required_message: str = ""
    show_if: dict | None = None
    required_if: dict | None = None
    min: int | None = None
    max: int | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    over: str | None = None

    def choice_for(self, token: str) -> Choice | None:
        return next((c for c in self.choices if c.token == token), None)


@dataclass(frozen=True)
class Protocol:
    fields: tuple[Field, ...]
    title: str = ""

    def field(self, key: str) -> Field:
        return next(f for f in self.fields if f.key == key)

    def analysable(self) -> list[Field]:
        """Fields that carry a level of measurement, in spec order."""
        return [f for f in self.fields if f.level]


@dataclass(frozen=True)
class Token:
    index: int
    start: int
    end: int
    text: str


@dataclass
class Validation:
    answers: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


def value_token(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def tokenize(text: str) -> list[Token]:
    """Words of an item text, as the highlight field offers them."""
    return [Token(i, m.start(), m.end(), m.group()) for i, m in enumerate(WORD_RE.finditer(text or ""))]


# --- conditions -------------------------------------------------------------------------------


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if actual is None:
        return False
    if op == "contains":
        return isinstance(actual, list) and expected in actual
    if op == "in":
        return isinstance(expected, list) and actual in expected
    if op == "eq":
        return actual == expected
    if op == "ne":
        return actual != expected
    if not isinstance(actual, (int, float)) or not isinstance(expected, (int, float)):
        return False
    return {"lt": actual < expected, "le": actual <= expected, "gt": actual > expected, "ge": actual >= expected}[op]


def evaluate(condition: Mapping | None, values: Mapping[str, Any]) -> bool:
    """True when ``condition`` holds for ``values``; a missing field never satisfies a comparison."""
    if condition is None:
        return True
    if "all" in condition:
        return all(evaluate(c, values) for c in condition["all"])
    if "any" in condition:
        return any(evaluate(c, values) for c in condition["any"])
    op = next(k for k in COMPARATORS if k in condition)
    return _compare(op, values.get(condition["field"]), condition[op])


def _condition_errors(where: str, condition: Any, earlier: set[str]) -> list[str]:
    if not isinstance(condition, dict):
        return [f"{where}: a condition must be an object"]
    if "all" in condition or "any" in condition:
        parts = condition.get("all", condition.get("any"))
        if not isinstance(parts, list) or not parts:
            return [f"{where}: 'all'/'any' needs a non-empty list"]
        return [e for part in parts for e in _condition_errors(where, part, earlier)]
    ops = [k for k in COMPARATORS if k in condition]
    if len(ops) != 1 or set(condition) != {"field", ops[0]}:
        return [f"{where}: a condition is {{'field': KEY, OP: VALUE}} with OP one of {', '.join(COMPARATORS)}"]
    if condition["field"] not in earlier:
        return [f"{where}: refers to '{condition['field']}', which is not an earlier field"]
    return []


# --- field types: one registry ----------------------------------------------------------------


class FieldType:
    """How one type of field is checked in a spec and parsed from a submission."""

    levels: tuple[str, ...] = ()
    needs_choices = False

    def spec_errors(self, f: Field) -> list[str]:
        return []

    def parse(self, f: Field, raw: list[str], context: Mapping[str, Any]) -> Any:
        """Return the clean value or raise ValueError with the message for the annotator."""
        raise NotImplementedError


class ChoiceType(FieldType):
    levels = ("nominal", "ordinal")
    needs_choices = True

    def parse(self, f, raw, context):
        if len(raw) != 1 or f.choice_for(raw[0]) is None:
            raise ValueError("Choose one of the options.")
        return f.choice_for(raw[0]).value


class ScaleType(ChoiceType):
    levels = ("ordinal", "interval", "ratio")

    def spec_errors(self, f):
        if not all(isinstance(c.value, (int, float)) and not isinstance(c.value, bool) for c in f.choices):
            return [f"field '{f.key}': every point of a scale must be a number"]
        return []


class MultiType(FieldType):
    levels = ("nominal",)
    needs_choices = True

    def parse(self, f, raw, context):
        chosen = [f.choice_for(token) for token in dict.fromkeys(raw)]
        if None in chosen:
            raise ValueError("Tick only the options shown.")
        if f.min and len(chosen) < f.min:
            raise ValueError(f.required_message or f"Tick at least {f.min}.")
        if f.max and len(chosen) > f.max:
            raise ValueError(f"Tick at most {f.max}.")
        return [c.value for c in chosen]


class HighlightType(FieldType):
    def spec_errors(self, f):
        return [] if f.over else [f"field '{f.key}': a highlight field needs 'over' (the item text it marks)"]

    def parse(self, f, raw, context):
        tokens = tokenize(context.get(f.over, ""))
        try:
            picked = sorted({int(r) for r in raw})
        except ValueError:
            raise ValueError("Select words of the text shown.") from None
        if any(i < 0 or i >= len(tokens) for i in picked):
            raise ValueError("Select words of the text shown.")
        if f.max and len(picked) > f.max:
            raise ValueError(f"Select at most {f.max} words.")
        return [{"index": t.index, "start": t.start, "end": t.end, "text": t.text} for t in (tokens[i] for i in picked)]


class TextType(FieldType):
    def parse(self, f, raw, context):
        text = (raw[0] if raw else "").strip()
        if f.min_chars and len(text) < f.min_chars:
            raise ValueError(f"Write at least {f.min_chars} characters.")
        if f.max_chars and len(text) > f.max_chars:
            raise ValueError(f"Write at most {f.max_chars} characters (you wrote {len(text)}).")
        return text


FIELD_TYPES: dict[str, FieldType] = {
    "scale": ScaleType(),
    "choice": ChoiceType(),
    "multi": MultiType(),
    "highlight": HighlightType(),
    "text": TextType(),
}


# --- parsing a spec ---------------------------------------------------------------------------

_FIELD_KEYS = {f for f in Field.__dataclass_fields__} | {"choices"}
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def _parse_choices(key: str, raw: Any, errors: list[str]) -> tuple[Choice, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(f"field '{key}': 'choices' must be a list")
        return ()
    out = []
    for item in raw:
        if isinstance(item, dict) and "value" in item:
            out.append(Choice(item["value"], str(item.get("label", value_token(item["value"]))), str(item.get("description", ""))))
        elif isinstance(item, (str, int, float)) and not isinstance(item, bool):
            out.append(Choice(item, value_token(item)))
        else:
            errors.append(f"field '{key}': each choice is a value or {{'value', 'label', 'description'}}")
    if len({c.token for c in out}) != len(out):
        errors.append(f"field '{key}': choices repeat a value")
    return tuple(out)


def parse_spec(spec: Any) -> Protocol:
    """Parse and check a spec; raise SpecError naming every problem and the field it is in."""
    if not isinstance(spec, dict) or not isinstance(spec.get("fields"), list) or not spec["fields"]:
        raise SpecError(["a protocol is an object with a non-empty 'fields' list"])
    errors: list[str] = []
    fields: list[Field] = []
    seen: set[str] = set()
    for position, raw in enumerate(spec["fields"], start=1):
        if not isinstance(raw, dict):
            errors.append(f"field #{position}: must be an object")
            continue
        key = raw.get("key")
        if not isinstance(key, str) or not _KEY_RE.match(key):
            errors.append(f"field #{position}: 'key' must be lowercase letters, digits and _ (got {key!r})")
            continue
        if key in seen:
            errors.append(f"field '{key}': duplicate key")
            continue
        unknown = set(raw) - _FIELD_KEYS
        if unknown:
            errors.append(f"field '{key}': unknown setting(s) {', '.join(sorted(unknown))}")
        ftype = FIELD_TYPES.get(raw.get("type"))
        if ftype is None:
            errors.append(f"field '{key}': unknown type {raw.get('type')!r} (known: {', '.join(FIELD_TYPES)})")
            seen.add(key)
            continue
        choices = _parse_choices(key, raw.get("choices"), errors)
        if ftype.needs_choices and not choices:
            errors.append(f"field '{key}': a {raw['type']} field needs at least one choice")
        level = raw.get("level")
        if level is not None and level not in ftype.levels:
            allowed = ", ".join(ftype.levels) or "none"
            errors.append(f"field '{key}': level {level!r} does not fit a {raw['type']} field (allowed: {allowed})")
        for cond in ("show_if", "required_if"):
            if raw.get(cond) is not None:
                errors.extend(_condition_errors(f"field '{key}' {cond}", raw[cond], seen))
        try:
            f = Field(
                key=key,
                type=raw["type"],
                label=str(raw.get("label", key)),
                help=str(raw.get("help", "")),
                choices=choices,
                level=level,
                required=bool(raw.get("required", True)),
                required_message=str(raw.get("required_message", "")),
                show_if=raw.get("show_if"),
                required_if=raw.get("required_if"),
                min=raw.get("min"),
                max=raw.get("max"),
                min_chars=raw.get("min_chars"),
                max_chars=raw.get("max_chars"),
                over=raw.get("over"),
            )
        except TypeError as exc:  # pragma: no cover - guarded by the unknown-setting check
            errors.append(f"field '{key}': {exc}")
            continue
        for name in ("min", "max", "min_chars", "max_chars"):
            value = getattr(f, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                errors.append(f"field '{key}': '{name}' must be a whole number ≥ 0")
        errors.extend(ftype.spec_errors(f))
        seen.add(key)
        fields.append(f)
    if errors:
        raise SpecError(errors)
    return Protocol(fields=tuple(fields), title=str(spec.get("title", "")))


# --- validating a submission ------------------------------------------------------------------


def walk(protocol: Protocol, data: Mapping[str, Sequence[str]], context: Mapping[str, Any]) -> tuple[Validation, set[str]]:
    """Read a (possibly partial) submission in spec order; return what parsed and what is shown.

    ``data`` maps a field key to the raw strings posted for it (a QueryDict's lists);
    ``context`` holds the item texts that highlight fields mark. A field hidden by its condition
    is left out of the answers whatever was posted for it.
    """
    result = Validation()
    shown: set[str] = set()
    for f in protocol.fields:
        if not evaluate(f.show_if, result.answers):
            continue
        shown.add(f.key)
        raw = [str(v) for v in data.get(f.key, []) if str(v).strip() != ""]
        if not raw:
            required = f.required or (f.required_if is not None and evaluate(f.required_if, result.answers))
            if required:
                result.errors[f.key] = f.required_message or (
                    "Write an answer." if f.type == "text" else "This question needs an answer."
                )
            continue
        try:
            result.answers[f.key] = FIELD_TYPES[f.type].parse(f, raw, context)
        except ValueError as exc:
            result.errors[f.key] = str(exc)
    return result, shown


def validate(protocol: Protocol, data: Mapping[str, Sequence[str]], context: Mapping[str, Any]) -> Validation:
    """Check a submission against the spec: every answer, or every error and no answers."""
    result, _ = walk(protocol, data, context)
    if result.errors:
        result.answers = {}
    return result
