"""A protocol spec parsed into typed objects; every problem is reported with the field it is in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .conditions import SCRIPT as CONDITIONS_SCRIPT
from .conditions import condition_errors
from .item import ITEM_FURTHER_TEXTS, ITEM_TEXT_LABELS, ITEM_TEXTS  # noqa: F401 (names of the spec)
from .quality import Quality, parse_quality
from .reports import ReportSpec, parse_reports, report_field_types
from .types import FIELD_TYPES, FieldType
from .values import Choice, value_token

LEVELS = ("nominal", "ordinal", "interval", "ratio")
SHOWABLE = ("image", *ITEM_TEXTS, "documents", "candidates")
KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class SpecError(ValueError):
    """A protocol spec that cannot be used; ``errors`` lists every problem found."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


def answer_token(f: Field, value: Any) -> str | None:
    """An answer to ``f`` as one token that two answers are compared by (agreement, a checker's
    review): a choice's value as its form token, a set of choices as their tokens joined by "|" in
    the order of ``f``'s choices, a pick_one answer as the candidate chosen (not the order shown),
    any other object as its JSON (``FieldType.answer_token``); None for no answer."""
    if value is None or value == [] or value == "":
        return None
    return f.kind.answer_token(f, value)


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
    min_words: int | None = None
    max_words: int | None = None
    max_area_ratio: float | None = None
    min_side: float | None = None  # bbox: a box's smallest side, as a share of the image's side (``BboxType``)
    min_width: int | None = None  # upload: the smallest image accepted, in pixels (``UploadType``)
    min_height: int | None = None
    over: str | None = None
    fields: tuple[Field, ...] = ()
    score: dict | None = None  # per_document: answer value → points of the combined score
    tie: bool | None = None  # pairwise: a tie may be answered (None: the type's default, yes)
    both_fail: bool | None = None  # pairwise: "both fail" may be answered (default no)
    strength: bool | None = None  # pairwise: a chosen image also needs how much better (default no)

    @property
    def kind(self) -> FieldType:
        """Its field type, which knows everything that depends on the type."""
        return FIELD_TYPES[self.type]

    def choice_for(self, token: str) -> Choice | None:
        return next((c for c in self.choices if c.token == token), None)


@dataclass(frozen=True)
class Skip:
    label: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Display:
    """What the item page shows, and what it calls an item ("Image 2 of 5", "Prompt 3 of 10")."""

    noun: str = "Image"
    show: tuple[str, ...] = ("image", "prompt")
    collapsed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Protocol:
    fields: tuple[Field, ...]
    title: str = ""
    display: Display = field(default_factory=Display)
    skip: Skip | None = None
    reports: tuple[ReportSpec, ...] = ()  # what the study's paper reports (``reports.REPORT_KINDS``)
    quality: Quality = field(default_factory=Quality)  # quality control in a session (``quality``): off by default

    def field(self, key: str) -> Field:
        return next(f for f in self.fields if f.key == key)

    def analysable(self) -> list[Field]:
        """Top-level fields that carry a level of measurement, in spec order."""
        return [f for f in self.fields if f.level]

    def item_parts(self) -> frozenset[str]:
        """What of an item its fields (sub-fields included) need: "image" (a box drawn on it),
        "candidates", "documents", "uploads", "images" (a comparison's; ``FieldType.item_parts``)."""
        return frozenset(part for f in self.fields for g in (f, *f.fields) for part in g.kind.item_parts(g))

    def shortcuts(self) -> frozenset[str]:
        """The item page's keys its fields (sub-fields included) answer to (``FieldType.shortcuts``)."""
        return frozenset(key for f in self.fields for g in (f, *f.fields) for key in g.kind.shortcuts)

    def scripts(self) -> tuple[str, ...]:
        """The static scripts the item page loads for these fields (sub-fields included), before its
        own: the conditions' evaluator where a field has a condition, then each type's script
        (``FieldType.script``) once, in the registry's order."""
        used = [g for f in self.fields for g in (f, *f.fields)]
        conditions = any(g.show_if is not None or g.required_if is not None for g in used)
        types = {g.type for g in used}
        return tuple(dict.fromkeys([  # a script several types share (compare.js) once
            *([CONDITIONS_SCRIPT] if conditions else []),
            *(t.script for name, t in FIELD_TYPES.items() if t.script and name in types),
        ]))


_SETTINGS = set(Field.__dataclass_fields__) | {"choices", "fields"}
_WHOLE = ("min", "max", "min_chars", "max_chars", "min_words", "max_words", "min_width", "min_height")
_OWN = ("tie", "both_fail", "strength")  # settings only the types naming them take (``FieldType.own_settings``)


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _choices(key: str, raw: Any, errors: list[str]) -> tuple[Choice, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(f"field '{key}': 'choices' must be a list")
        return ()
    out = []
    for item in raw:
        if isinstance(item, dict) and "value" in item:
            label = str(item.get("label", value_token(item["value"])))
            out.append(Choice(item["value"], label, str(item.get("description", ""))))
        elif isinstance(item, (str, int, float)) and not isinstance(item, bool):
            out.append(Choice(item, value_token(item)))
        else:
            errors.append(f"field '{key}': each choice is a value or {{'value', 'label', 'description'}}")
    if len({c.token for c in out}) != len(out):
        errors.append(f"field '{key}': choices repeat a value")
    return tuple(out)


def _parse_fields(raws: Any, errors: list[str], *, where: str, nested: bool) -> tuple[Field, ...]:
    if not isinstance(raws, list) or not raws:
        errors.append(f"{where}: 'fields' must be a non-empty list")
        return ()
    fields: list[Field] = []
    seen: set[str] = set()
    prefix = f"{where} " if nested else ""
    for position, raw in enumerate(raws, start=1):
        key = _field_key(raw, errors, prefix=prefix, position=position, seen=seen)
        if key is None:
            continue
        f = _parse_field(raw, key, errors, name=f"{prefix}field '{key}'", nested=nested, seen=seen, earlier=fields)
        if f is not None:
            fields.append(f)
    return tuple(fields)


def _field_key(raw: Any, errors: list[str], *, prefix: str, position: int, seen: set[str]) -> str | None:
    """The key of one entry of a 'fields' list, added to ``seen``; None (a problem appended) for an
    entry that is not an object, a malformed key, or a key already taken."""
    if not isinstance(raw, dict):
        errors.append(f"{prefix}field #{position}: must be an object")
        return None
    key = raw.get("key")
    if not isinstance(key, str) or not KEY_RE.match(key):
        errors.append(f"{prefix}field #{position}: 'key' must be lowercase letters, digits and _ (got {key!r})")
        return None
    if key in seen:
        errors.append(f"{prefix}field '{key}': duplicate key")
        return None
    seen.add(key)
    return key


def _parse_field(
    raw: dict, key: str, errors: list[str], *, name: str, nested: bool, seen: set[str], earlier: list[Field]
) -> Field | None:
    """One field (its sub-fields too, for a container); None when its type is unknown or cannot be
    nested here. Every problem is appended to ``errors``, naming the field."""
    unknown = set(raw) - _SETTINGS
    if unknown:
        errors.append(f"{name}: unknown setting(s) {', '.join(sorted(unknown))}")
    ftype = _field_type(raw, errors, name=name, nested=nested)
    if ftype is None:
        return None
    choices = _choices(key, raw.get("choices"), errors)
    if ftype.needs_choices and not choices:
        errors.append(f"{name}: {_a(raw['type'])} field needs at least one choice")
    level = raw.get("level")
    if level is not None and level not in ftype.levels:
        allowed = ", ".join(ftype.levels) or "none"
        errors.append(f"{name}: level {level!r} does not fit {_a(raw['type'])} field (allowed: {allowed})")
    errors.extend(_condition_errors(raw, name=name, known=seen - {key}))
    children: tuple[Field, ...] = ()
    if ftype.container:
        children = _parse_fields(raw.get("fields"), errors, where=f"field '{key}'", nested=True)
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
        **{name_: raw.get(name_) for name_ in _WHOLE},
        max_area_ratio=raw.get("max_area_ratio"),
        min_side=raw.get("min_side"),
        over=raw.get("over"),
        fields=children,
        score=raw.get("score"),
        **{name_: raw.get(name_) for name_ in _OWN},
    )
    errors.extend(_number_errors(f, ftype, name=name))
    errors.extend(f"{name}: {e}" for e in ftype.spec_errors(f, earlier))
    return f


def _field_type(raw: dict, errors: list[str], *, name: str, nested: bool) -> FieldType | None:
    """The field's type from the registry; None (a problem appended) if unknown, or a container nested."""
    type_name = raw.get("type")
    ftype = FIELD_TYPES.get(type_name) if isinstance(type_name, str) else None  # a list or an object is no key
    if ftype is None:
        errors.append(f"{name}: unknown type {type_name!r} (known: {', '.join(FIELD_TYPES)})")
        return None
    if nested and ftype.container:
        errors.append(f"{name}: {ftype.name} fields cannot be nested")
        return None
    return ftype


def _condition_errors(raw: dict, *, name: str, known: set[str]) -> list[str]:
    """The problems of the field's show_if and required_if, which may name only the fields before it."""
    return [
        problem
        for cond in ("show_if", "required_if") if raw.get(cond) is not None
        for problem in condition_errors(f"{name} {cond}", raw[cond], known)
    ]


def _number_errors(f: Field, ftype: FieldType, *, name: str) -> list[str]:
    """The field's whole-number settings must be whole numbers ≥ 0; a score belongs on a container,
    a type's own setting (a pairwise field's 'tie') on a type that takes it."""
    problems = []
    for setting in _WHOLE:
        value = getattr(f, setting)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            problems.append(f"{name}: '{setting}' must be a whole number ≥ 0")
    if f.score is not None and not ftype.container:
        problems.append(f"{name}: 'score' belongs on per_document fields")
    for setting in _OWN:
        if getattr(f, setting) is not None and setting not in ftype.own_settings:
            takers = " and ".join(t.name for t in FIELD_TYPES.values() if setting in t.own_settings)
            problems.append(f"{name}: '{setting}' belongs on {takers} fields")
    return problems


def _parse_display(raw: Any, errors: list[str]) -> Display:
    if raw is None:
        return Display()
    if not isinstance(raw, dict) or set(raw) - {"noun", "show", "collapsed"}:
        errors.append("display: an object with 'noun', 'show' and 'collapsed'")
        return Display()
    show = tuple(raw.get("show", Display.show))
    collapsed = tuple(raw.get("collapsed", ()))
    for name in (*show, *collapsed):
        if name not in SHOWABLE:
            errors.append(f"display: cannot show {name!r} (known: {', '.join(SHOWABLE)})")
    for name in collapsed:
        if name in SHOWABLE and name not in show:
            errors.append(f"display: {name!r} is collapsed but not shown (add it to 'show')")
    return Display(noun=str(raw.get("noun", "Image")), show=show, collapsed=collapsed)


def _parse_skip(raw: Any, errors: list[str]) -> Skip | None:
    if raw is None:
        return None
    reasons = raw.get("reasons") if isinstance(raw, dict) else None
    if not isinstance(reasons, list) or not reasons or not all(isinstance(r, str) and r for r in reasons):
        errors.append("skip: needs 'reasons', a non-empty list of texts")
        return None
    return Skip(label=str(raw.get("label", "Skip this item")), reasons=tuple(reasons))


def parse_spec(spec: Any) -> Protocol:
    """Parse and check a spec; raise SpecError naming every problem and the field it is in."""
    if not isinstance(spec, dict):
        raise SpecError(["a protocol is an object with a non-empty 'fields' list"])
    errors: list[str] = []
    unknown = set(spec) - {"title", "fields", "display", "skip", "reports", "quality"}
    if unknown:
        errors.append(f"unknown protocol setting(s) {', '.join(sorted(unknown))}")
    fields = _parse_fields(spec.get("fields"), errors, where="protocol", nested=False)
    display = _parse_display(spec.get("display"), errors)
    skip = _parse_skip(spec.get("skip"), errors)
    reports = parse_reports(spec.get("reports"), report_field_types(fields), errors)
    quality = parse_quality(spec.get("quality"), fields, errors)
    if errors:
        raise SpecError(errors)
    return Protocol(
        fields=fields, title=str(spec.get("title", "")), display=display, skip=skip, reports=reports, quality=quality,
    )
