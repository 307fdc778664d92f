"""A field type owns its behaviour: no code outside the registry (``studies/protocol/types/``)
switches on a field type's name. Each module is read (nothing is imported) and every comparison of
a type (``f.type``, ``x["type"]``, a variable named ``types``…) with a type name is reported, as
are tables keyed by type names, ``match`` cases on them, and ``f.type == "…"`` in templates.
Ask the type instead: ``f.kind.container``, ``f.kind.export_cells(f, value)``, ``spec.item_parts()``.
"""

import ast
import re
from pathlib import Path

from studies.protocol import FIELD_TYPES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["annotation", "analysis", "bench", "config", "exports", "recruitment", "stats", "studies"]
REGISTRY = ROOT / "studies" / "protocol" / "types"
NAMES = frozenset(FIELD_TYPES)

# Switches in modules another change owns (the report-kind registry), by (path, line text): each
# must still be there, so that this list is emptied when they go.
PENDING: set[tuple[str, str]] = set()  # switches known to remain (none)

_NAMES_RE = "|".join(sorted(NAMES))
TEMPLATE_SWITCHES = [
    re.compile(rf"""\.type\s*(==|!=)\s*["']({_NAMES_RE})["']"""),
    re.compile(rf"""["']({_NAMES_RE})["']\s*(==|!=)\s*[\w.]*\.type\b"""),
    re.compile(rf"""["']({_NAMES_RE})["']\s+(not\s+)?in\s+[\w.]*types?\b"""),
]


def _names(node: ast.AST) -> set[str]:
    """The type names a literal holds: a string, or a tuple, list or set of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)} & NAMES
    return set()


def _is_type(node: ast.AST) -> bool:
    """Whether an expression reads a field type: ``x.type``, ``x["type"]``, ``getattr(x, "type", …)``,
    ``x.get("type")`` or a variable named like ``types``, ``ftype``, ``reviewed_types``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "type" or node.attr.endswith("types")
    if isinstance(node, ast.Name):
        return node.id in ("type", "types") or node.id.endswith(("_type", "_types", "ftype"))
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "type"
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        arg = node.args[1 if name == "getattr" else 0] if len(node.args) > (name == "getattr") else None
        return name in ("getattr", "get") and isinstance(arg, ast.Constant) and arg.value == "type"
    return False


def switches(source: str) -> list[tuple[int, str]]:
    """(line, what) of every switch on a field type name in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            names = set().union(*(_names(o) for o in operands))
            if names and any(_is_type(o) for o in operands):
                found.append((node.lineno, f"compares a type with {', '.join(sorted(names))}"))
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
            if len(keys) >= 2 and all(_names(k) for k in keys):
                found.append((node.lineno, "a table keyed by type names"))
        elif isinstance(node, ast.Match) and _is_type(node.subject):
            found.append((node.lineno, "matches a type"))
    return found


def _python_files():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if REGISTRY not in path.parents and "migrations" not in path.parts:
                yield path


def test_no_module_outside_the_registry_switches_on_a_field_type():
    bad, pending_seen = [], set()
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for line, what in switches(source):
            if (rel, lines[line - 1].strip()) in PENDING:
                pending_seen.add((rel, lines[line - 1].strip()))
            else:
                bad.append(f"{rel}:{line}: {what}: {lines[line - 1].strip()}")
    assert not bad, "ask the field type (f.kind…) instead of switching on its name:\n" + "\n".join(bad)
    assert pending_seen == PENDING, f"no longer found, remove from PENDING: {sorted(PENDING - pending_seen)}"


def test_no_template_switches_on_a_field_type():
    bad = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(p.search(line) for p in TEMPLATE_SWITCHES)
    ]
    assert not bad, "ask the field type (a filter or the view) instead of switching on its name:\n" + "\n".join(bad)


def test_the_scan_sees_each_kind_of_switch():
    """A check that reads nothing passes everything: the scanner finds what it looks for."""
    source = "\n".join([
        'if f.type == "bbox": pass',
        'if sub.type in ("scale", "choice"): pass',
        'if "pick_one" in types: pass',
        'x = "upload" not in reviewed_types',
        'y = getattr(f, "type", None) == "scale"',
        'z = raw["type"] != "per_document"',
        'w = {"text": 1, "upload": 2}.get(f.type)',
        'match f.type:\n    case "multi": pass',
    ])
    assert sorted(line for line, _ in switches(source)) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert TEMPLATE_SWITCHES[0].search('{% if f.type == "pick_one" %}')


def test_the_scan_leaves_data_alone():
    """Keys named like a type in answers and rows, and a type written out, are not switches."""
    source = "\n".join([
        'answer = {"choice": c, "order": ids}',
        'if part == "documents": pass',
        'row = {"type": f.type, "text": str(value)}',
        'same = answered_as.type != self.field.type',
        'label = f"{f.key} ({f.type})"',
    ])
    assert switches(source) == []
