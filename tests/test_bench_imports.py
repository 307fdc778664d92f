"""The benchmarks import the platform's modules where they run (often inside a function, after
Django is set up), so a module that moves breaks a benchmark silently: every first-party name a
benchmark imports resolves here."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from tests.test_layers import FIRST_PARTY

ROOT = Path(__file__).resolve().parent.parent
BENCHES = sorted((ROOT / "bench").glob("*.py"))


def first_party_imports(path: Path) -> list[tuple[int, str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] in FIRST_PARTY:
                found += [(node.lineno, node.module, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_exists(path):
    missing = []
    for line, module, name in first_party_imports(path):
        try:
            found = importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"{path.name}:{line} from {module}: {exc}")
            continue
        if not hasattr(found, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.name}:{line} from {module} import {name}")
    assert not missing, "benchmarks import what is gone:\n" + "\n".join(missing)


def defined(path: Path) -> set[str]:
    """The names a module defines at its top level."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_from_a_sibling_exists(path):
    """bench_hotpath imports bench/browser.py, measure.py, serving.py and surge.py by their bare names
    (the script's folder is on the path): each of those names is defined there."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and not node.level and node.module):
            continue
        sibling = ROOT / "bench" / f"{node.module}.py"
        if not sibling.exists():
            if importlib.util.find_spec(node.module.split(".")[0]) is None:
                missing.append(f"{path.name}:{node.lineno} from {node.module}: no such module")
            continue
        missing += [f"{path.name}:{node.lineno} from {node.module} import {alias.name}"
                    for alias in node.names if alias.name not in defined(sibling)]
    assert not missing, "benchmarks import what their folder does not define:\n" + "\n".join(missing)
