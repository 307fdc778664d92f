"""Links by URL name are imports no import test sees: a domain app's Python that names a route
(``reverse``, ``reverse_lazy``, ``redirect``) names one its own app or an app below it serves, never a
researcher's page in ``workspace/`` (on top), but for the few a form or the admin must name, each
listed here with why."""

import re
from pathlib import Path

import pytest
from django.urls import get_resolver

from tests.test_layers import BRANCHES, LAYERS, within

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"""\b(?:reverse|reverse_lazy|redirect)\(\s*["']([a-z]+:[a-z-]+)["']""")

ALLOWED_UP = {
    # The study form's and the translation form's Markdown boxes ask the workspace's preview while
    # typed: a widget attribute, the form shared by the pages (the API ignores it).
    ("studies/forms.py", "studies:markdown-preview"),
    # The operators' admin links an item to the researcher's scoped image view (no URL serves media).
    ("studies/admin.py", "studies:item-image"),
    # An invitation's mail carries the link to its page (the service mails it, the page accepts it).
    ("annotation/members.py", "annotation:invitation"),
    # A researcher's test entry (the site-signed test link, Prolific's test study) arrives at the pool's
    # entry link and is walked in the workspace's path preview, which stores nothing (annotation/trial_entry.py).
    ("annotation/views/flow.py", "annotation:path-preview"),
}


def route_owners() -> dict[str, str]:
    """Each namespaced URL name and the module of the view that serves it."""
    owners = {}
    for namespace, (_prefix, resolver) in get_resolver().namespace_dict.items():
        for name, callback in _names(resolver):
            owners[f"{namespace}:{name}"] = callback.__module__
    return owners


def _names(resolver):
    for pattern in resolver.url_patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _names(pattern)
        elif pattern.name:
            yield pattern.name, pattern.callback


def app_rank(module: str) -> tuple[str, int]:
    """(app, rank): a layer's index, a branch just above annotation, the tops above everything."""
    top = module.split(".")[0]
    if top in LAYERS:
        return top, LAYERS.index(top)
    if top in BRANCHES:
        return top, LAYERS.index("annotation") + 1
    return top, len(LAYERS) + 1


@pytest.mark.parametrize("app", [*LAYERS, *BRANCHES])
def test_no_domain_app_links_up_by_url_name(app):
    owners = route_owners()
    _, mine = app_rank(app)
    bad = []
    for path in sorted((ROOT / app).rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        for name in NAMED.findall(path.read_text(encoding="utf-8")):
            owner = owners.get(name)
            assert owner, f"{rel} names {name}, which no route has"
            owner_app, rank = app_rank(owner)
            if owner_app != app and rank > mine and (rel, name) not in ALLOWED_UP:
                bad.append(f"{rel} names {name} (served by {owner})")
    assert not bad, "links up the layers by URL name:\n" + "\n".join(bad)


def test_the_allowed_links_are_still_there():
    """An allowance nobody uses any more goes (the list says what is true)."""
    for rel, name in ALLOWED_UP:
        assert name in NAMED.findall((ROOT / rel).read_text(encoding="utf-8")), (rel, name)
        assert within(route_owners()[name], "workspace")
