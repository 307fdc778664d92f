"""Every template the code or another template names exists: a page whose template went missing
(a rename half done) fails here, not in front of a researcher."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
APPS = ["jobs", "studies", "annotation", "analysis", "exports", "recruitment", "workspace", "api", "config"]
IN_PYTHON = re.compile(r"""["']([\w/.-]+\.(?:html|txt|md))["']""")
IN_TEMPLATE = re.compile(r"""\{%\s*(?:include|extends)\s+["']([\w/.-]+)["']""")


def named() -> set[tuple[str, str]]:
    found = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            for name in IN_PYTHON.findall(path.read_text(encoding="utf-8")):
                if "/" in name:  # a template path ("app/page.html"), not a file name of an export
                    found.add((str(path.relative_to(ROOT)), name))
    for path in TEMPLATES.rglob("*.html"):
        for name in IN_TEMPLATE.findall(path.read_text(encoding="utf-8")):
            found.add((str(path.relative_to(ROOT)), name))
    return found


def exists(name: str) -> bool:
    return (TEMPLATES / name).exists() or any((ROOT / app / "templates" / name).exists() for app in APPS)


def test_every_template_named_exists():
    names = named()
    assert len(names) > 50, "the scan finds the templates the code names"
    missing = sorted(f"{where} names {name}" for where, name in names if not exists(name))
    assert not missing, "templates named but missing:\n" + "\n".join(missing)
