"""The ``reports`` setting of a protocol spec: what each study's paper reports, declared, not coded.

A report is ``{"kind": KIND, ROLE: field key, …}``: its kind says which figures to compute and
the roles name the fields they read (``{"kind": "human_scores", "value": "relevance"}``). The
registry below is the one place that says which roles a kind has and which field types fill
them: all a spec's validation needs. How a kind reads, computes and shows its figures is attached
to it by name in ``stats.reports.catalog`` (the engine never imports ``stats``). Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Role:
    """A field a report reads: its name in the report, the field types that fit, and whether it
    is one key (``many == 0``) or a list of at least ``many`` keys."""

    name: str
    types: tuple[str, ...]
    optional: bool = False
    many: int = 0

    def fits(self, field_type: str | None) -> bool:
        """Whether a field of ``field_type`` (None: no such field) may fill this role."""
        return field_type in self.types


@dataclass(frozen=True)
class Option:
    """A setting of a report that is not a field: a whole number with a lower bound."""

    name: str
    minimum: int
    default: int


@dataclass(frozen=True)
class ReportKind:
    kind: str
    title: str
    roles: tuple[Role, ...]
    options: tuple[Option, ...] = ()

    def fits(self, spec: ReportSpec, fields: Sequence[Any]) -> bool:
        """Whether answers given under a protocol of these top-level ``fields`` have every field
        ``spec`` names, each of a type its role takes (an optional role left out asks nothing)."""
        types = report_field_types(fields)
        return all(role.fits(types.get(key)) for role in self.roles for key in spec.keys(role.name))


REPORT_KINDS: dict[str, ReportKind] = {
    k.kind: k
    for k in (
        ReportKind("human_scores", "Human score per (item, country)", (Role("value", ("scale",)),)),
        ReportKind(
            "prompt_filter", "Prompt filter: majority per (prompt, country)", (Role("vote", ("choice",)),),
            (Option("min_yes", 1, 2),),
        ),
        ReportKind(
            "error_types", "Sub-perfect alignment by error type",
            (Role("alignment", ("scale",)), Role("error_types", ("multi",))),
        ),
        ReportKind("highlighted_words", "Most highlighted words", (Role("words", ("highlight",)),)),
        ReportKind("criteria_spearman", "Spearman between criteria", (Role("criteria", ("scale",), many=2),)),
        ReportKind("document_scores", "Score per (item, document)", (Role("documents", ("per_document",)),)),
        ReportKind("caption_wins", "Caption-choice win rates per system", (Role("choice", ("pick_one",)),)),
        ReportKind(
            "box_agreement", "Box agreement by IoU",
            (Role("box", ("bbox",)), Role("image", ("upload",), optional=True)),
        ),
        ReportKind("answer_agreement", "Answer agreement within a country", (Role("answer", ("text",)),)),
    )
}


@dataclass(frozen=True)
class ReportSpec:
    """One declared report: its kind, title, the field key(s) of each role, and its options."""

    kind: str
    title: str
    roles: tuple[tuple[str, str | tuple[str, ...]], ...]  # (role, key or keys), in the kind's order
    options: tuple[tuple[str, int], ...] = ()

    def key(self, role: str) -> Any:
        """The key (or tuple of keys) a role names; None for an optional role left out."""
        return dict(self.roles).get(role)

    def keys(self, role: str) -> tuple[str, ...]:
        """The keys a role names, as a tuple whatever the role's arity; () for a role left out."""
        key = self.key(role)
        return () if key is None else key if isinstance(key, tuple) else (key,)

    def option(self, name: str) -> int:
        return dict(self.options)[name]

    @property
    def fields(self) -> dict[str, str | list[str]]:
        """Role → key(s), JSON-safe."""
        return {role: list(key) if isinstance(key, tuple) else key for role, key in self.roles}


def _role_keys(name: str, role: Role, raw: Any, types: Mapping[str, str], errors: list[str]) -> Any:
    """The key(s) a role names, or None after recording why they do not fit."""
    if role.many:
        if not isinstance(raw, list) or len(raw) < role.many or not all(isinstance(k, str) for k in raw):
            errors.append(f"{name}: role '{role.name}' must be a list of at least {role.many} field keys")
            return None
        if len(set(raw)) != len(raw):
            errors.append(f"{name}: role '{role.name}' names a field twice")
            return None
        keys = tuple(raw)
    elif isinstance(raw, str):
        keys = (raw,)
    else:
        errors.append(f"{name}: role '{role.name}' must be a field key (got {raw!r})")
        return None
    ok = True
    wanted = " or ".join(role.types)
    for key in keys:
        if key not in types:
            errors.append(f"{name}: role '{role.name}' names unknown field '{key}'")
            ok = False
        elif not role.fits(types[key]):
            article = "an" if wanted[0] in "aeiou" else "a"
            errors.append(f"{name}: role '{role.name}' needs {article} {wanted} field; '{key}' is {types[key]}")
            ok = False
    if not ok:
        return None
    return keys if role.many else keys[0]


def parse_reports(raw: Any, field_types: Mapping[str, str], errors: list[str]) -> tuple[ReportSpec, ...]:
    """Parse the ``reports`` list against the protocol's top-level fields (key → type); every
    problem is appended to ``errors`` naming the report (``report #2 (prompt_filter)``)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append("reports: must be a list of {'kind': …, role: field key}")
        return ()
    parsed = (_parse_report(position, entry, field_types, errors) for position, entry in enumerate(raw, start=1))
    return tuple(spec for spec in parsed if spec is not None)


def _parse_report(position: int, entry: Any, field_types: Mapping[str, str], errors: list[str]) -> ReportSpec | None:
    """One entry of the list, or None when it has a problem (appended to ``errors``)."""
    if not isinstance(entry, dict):
        errors.append(f"report #{position}: must be an object with a 'kind'")
        return None
    kind_name = entry.get("kind")
    kind = REPORT_KINDS.get(kind_name) if isinstance(kind_name, str) else None  # a list or an object is no key
    name = f"report #{position} ({entry.get('kind')})"
    if kind is None:
        errors.append(f"{name}: unknown kind {entry.get('kind')!r} (known: {', '.join(REPORT_KINDS)})")
        return None
    allowed = {"kind", "title"} | {r.name for r in kind.roles} | {o.name for o in kind.options}
    unknown = set(entry) - allowed
    before = len(errors)
    if unknown:
        errors.append(f"{name}: unknown setting(s) {', '.join(sorted(unknown))} (roles: "
                      f"{', '.join(r.name for r in kind.roles)})")
    roles = _report_roles(name, kind, entry, field_types, errors)
    options = _report_options(name, kind, entry, errors)
    title = entry.get("title", kind.title)
    if not isinstance(title, str) or not title.strip():
        errors.append(f"{name}: 'title' must be a non-empty text")
    if len(errors) != before:
        return None
    return ReportSpec(kind.kind, title, roles, options)


def _report_roles(
    name: str, kind: ReportKind, entry: dict, field_types: Mapping[str, str], errors: list[str]
) -> tuple[tuple[str, Any], ...]:
    """The fields the report's roles name (a key, or keys for a role of many); a required role missing is a problem."""
    roles: list[tuple[str, Any]] = []
    for role in kind.roles:
        if role.name not in entry:
            if not role.optional:
                errors.append(f"{name}: missing role '{role.name}' ({' or '.join(role.types)} field)")
            continue
        keys = _role_keys(name, role, entry[role.name], field_types, errors)
        if keys is not None:
            roles.append((role.name, keys))
    return tuple(roles)


def _report_options(name: str, kind: ReportKind, entry: dict, errors: list[str]) -> tuple[tuple[str, Any], ...]:
    """The report's options, each given or its default; each must be a whole number at least its minimum."""
    options = []
    for option in kind.options:
        value = entry.get(option.name, option.default)
        if not isinstance(value, int) or isinstance(value, bool) or value < option.minimum:
            errors.append(f"{name}: '{option.name}' must be a whole number ≥ {option.minimum}")
        options.append((option.name, value))
    return tuple(options)


def report_field_types(fields: Sequence[Any]) -> dict[str, str]:
    """Key → type of the protocol's top-level fields (what roles may name)."""
    return {f.key: f.type for f in fields}
