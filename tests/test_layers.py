"""The layers point one way: jobs <- studies <- annotation <- analysis <- exports, and jobs <- studies <-
annotation <- recruitment (a branch: nothing imports recruitment, and it imports neither analysis nor exports);
stats (pure: no Django, no app's models) is importable by all of them but imports only studies.protocol.
api (the REST API) and workspace (the researcher's pages) sit on top: each may import every app, and no app
imports either (config wires them into the URLconf).

Each module's imports are read from its source (nothing is imported), relative imports resolved,
and every import of a module, wherever it stands (a function's local import too), is checked.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOTTOM = "jobs"  # the job lifecycle: imports Django alone (and itself)
LAYERS = [BOTTOM, "studies", "annotation", "analysis", "exports"]  # each may import those before it
BRANCHES = {"recruitment": [BOTTOM, "studies", "annotation"]}  # an app above annotation, beside analysis
PURE = ["stats", "studies.protocol"]  # no Django, no app
THIRD_PARTY_ALLOWED_IN_PURE = {"numpy", "pandas", "scipy", "pyarrow"}  # pyarrow: a field type's Arrow type
TOPS = ["api", "workspace"]  # each imports any app; imported by none (but config, which wires them)
FIRST_PARTY = {*LAYERS, *BRANCHES, "stats", "config", *TOPS}


def modules(package: str) -> list[tuple[str, Path]]:
    base = ROOT.joinpath(*package.split("."))
    found = []
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.append((".".join(parts), path))
    return found


def imports_of(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the module ``name`` at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None or node.level:  # "from . import x": x may be a module
                out += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
            out.append((node.lineno, target))
    return out


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer_of(module: str) -> int | None:
    return next((i for i, app in enumerate(LAYERS) if within(module, app)), None)


@pytest.mark.parametrize("package", PURE)
def test_the_pure_packages_import_neither_django_nor_an_app(package):
    bad = []
    for name, path in modules(package):
        for line, target in imports_of(name, path):
            top = target.split(".")[0]
            if top == "django" or top in {"rest_framework", "celery"}:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
            elif top in FIRST_PARTY and not (within(target, "stats") or within(target, "studies.protocol")):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "pure code reaches into Django or an app:\n" + "\n".join(bad)


PURE_IMPORTING = ["rows", "images", "stored"]  # the import's pure parts; only its service touches Django


@pytest.mark.parametrize("module", PURE_IMPORTING)
def test_the_imports_pure_parts_import_no_django(module):
    path = ROOT / "studies" / "importing" / f"{module}.py"
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for line, target in imports_of(f"studies.importing.{module}", path)
        if target.split(".")[0] == "django"
        or (target.split(".")[0] in FIRST_PARTY and not within(target, "studies.protocol")
            and not within(target, "studies.importing"))
    ]
    assert not bad, "the import's pure parts reach into Django or the models:\n" + "\n".join(bad)


def test_studies_protocol_does_not_import_stats():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules("studies.protocol")
        for line, target in imports_of(name, path)
        if within(target, "stats")
    ]
    assert not bad, "the engine sits under stats:\n" + "\n".join(bad)


def test_the_jobs_app_at_the_bottom_imports_only_django():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules(BOTTOM)
        for line, target in imports_of(name, path)
        if target.split(".")[0] in FIRST_PARTY and not within(target, BOTTOM)
    ]
    assert not bad, "jobs is the bottom: it imports no app:\n" + "\n".join(bad)


@pytest.mark.parametrize("app", LAYERS)
def test_no_import_points_up_the_layers(app):
    mine = LAYERS.index(app)
    bad = []
    for name, path in modules(app):
        for line, target in imports_of(name, path):
            layer = layer_of(target)
            if layer is not None and layer > mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({LAYERS[layer]} is above {app})")
    assert not bad, "imports pointing up the layers:\n" + "\n".join(bad)


@pytest.mark.parametrize("app", LAYERS + list(BRANCHES))
def test_a_branch_is_imported_by_no_app_and_imports_only_what_it_sits_on(app):
    bad = []
    for branch, below in BRANCHES.items():
        for name, path in modules(app):
            for line, target in imports_of(name, path):
                if app != branch and within(target, branch):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {target} (nothing imports {branch})")
                if app == branch and (layer := layer_of(target)) is not None and LAYERS[layer] not in below:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({branch} sits on {below} only)")
    assert not bad, "imports across the recruitment branch:\n" + "\n".join(bad)


@pytest.mark.parametrize("top", TOPS)
@pytest.mark.parametrize("package", [*LAYERS, *BRANCHES, "stats", *TOPS, "config"])
def test_nothing_imports_the_tops(package, top):
    """Neither the API nor the workspace is imported by an app or by the other; only the URLconf
    (config/urls.py) names the workspace's URL lists, and config/ nothing of the API but its urls."""
    if package == top or (package == "config" and top == "workspace"):
        allowed = {"config.urls"} if package == "config" else None
    else:
        allowed = set()
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules(package)
        for line, target in imports_of(name, path)
        if within(target, top) and allowed is not None and name not in allowed
    ]
    assert not bad, f"{top} is on top: nothing imports it:\n" + "\n".join(bad)


def test_the_researcher_pages_live_in_the_workspace():
    """No domain app defines a researcher's page: its views are the annotator's (annotation/views/
    flow, items), the checker's (review) and Prolific's webhook; the rest are workspace/views/."""
    views = {
        str(path.relative_to(ROOT))
        for app in [*LAYERS, *BRANCHES]
        for path in (ROOT / app).rglob("*.py")
        if path.name == "views.py" or path.name.endswith("_views.py") or path.parent.name == "views"
    }
    assert views == {"annotation/views/__init__.py", "annotation/views/flow.py", "annotation/views/items.py",
                     "annotation/views/review.py"}, views


def test_the_checks_see_a_violation(tmp_path, monkeypatch):
    """The parser finds local, relative and plain imports (a check that reads nothing passes all)."""
    source = (
        "import os\nfrom django.db import models\n\n"
        "def f():\n    from ..annotation import models\n    from . import sibling\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(source)
    found = {target for _, target in imports_of("studies.sub.mod", path)}
    assert {"os", "django.db", "studies.annotation.models", "studies.annotation", "studies.sub.sibling"} <= found
    assert layer_of("exports.models") == 4 and layer_of("studies.protocol.fields") == 1 and layer_of("stats") is None
    assert layer_of("jobs.lifecycle") == 0
