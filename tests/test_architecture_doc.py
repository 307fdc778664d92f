"""docs/architecture.md names every module of the apps, config and stats, and nothing that is gone.

A line may name several modules of one folder: ``analysis/plots/svg.py``, ``charts.py``, … (a bare
file name after a full path is in that path's folder).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = [
    "config", "jobs", "studies", "annotation", "recruitment", "stats", "analysis", "exports", "api", "workspace",
]


def modules_in_code() -> set[str]:
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts or rel.name == "apps.py":
                continue
            if rel.name == "__init__.py" and not path.read_text(encoding="utf-8").strip():
                continue
            found.add(rel.as_posix())
    return found


def modules_in_doc() -> set[str]:
    found = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        folder = None
        for name in re.findall(r"`([\w/.-]+\.py)`", line):
            if "/" in name:
                folder = name.rsplit("/", 1)[0]
                found.add(name)
            elif folder is not None:
                found.add(f"{folder}/{name}")
    return found


def test_every_module_has_its_line():
    missing = sorted(modules_in_code() - modules_in_doc())
    assert not missing, "docs/architecture.md says nothing of: " + ", ".join(missing)


def test_no_line_names_a_module_that_is_gone():
    gone = sorted(m for m in modules_in_doc() - modules_in_code() if m.split("/")[0] in PACKAGES)
    assert not gone, "docs/architecture.md names modules that do not exist: " + ", ".join(gone)
