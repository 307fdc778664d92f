"""The item page of a protocol with a comparison field (pairwise, best_worst, rank) loads the
comparisons' style sheet and script; a page without one loads neither."""

import pytest
from django.urls import reverse

from tests import factories as f
from tests.helpers import as_annotator

pytestmark = pytest.mark.django_db

PLAIN = {"key": "fits", "type": "choice", "choices": ["yes", "no"]}


def item_page(client, *fields: dict) -> str:
    study, pool = f.spec_study({"fields": list(fields)})
    f.add_items(study, 1)
    as_annotator(client, f.make_session(f.make_annotator(pool)))
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("field", [
    {"key": "better", "type": "pairwise", "strength": True},
    {"key": "extremes", "type": "best_worst"},
    {"key": "ranked", "type": "rank"},
])  # fmt: skip
def test_a_comparison_s_item_page_loads_its_style_sheet_and_script_once(client, field):
    page = item_page(client, PLAIN, field)
    assert page.count('<link rel="stylesheet" href="/static/css/compare.css">') == 1
    assert page.count('<script src="/static/annotation/compare.js" defer></script>') == 1
    assert f'data-type="{field["type"]}"' in page


def test_an_item_page_without_a_comparison_loads_neither(client):
    page = item_page(client, PLAIN)
    assert "compare.css" not in page and "compare.js" not in page
