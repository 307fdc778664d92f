"""The benchmarks import the platform's modules where they run (often inside a function, after
Django is set up), so a module that moves breaks a benchmark silently: every first-party name a
benchmark imports resolves here."""

import ast
import importlib
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
