"""The planner page: for one question and pool, the expected width of alpha's interval and the
Prolific cost of each choice, from the pool's pilot or, with no pilot, from the alpha expected."""

import pytest
from django.urls import reverse

from tests import factories as f
from tests.annotations import annotate, annotators

CHOICES = {"field": "overall", "target": "0.3", "prior_alpha": "0.5", "reward": "1.50", "currency": "GBP",
           "fee": "33.33", "vat": "20", "returns": "10", "exclusions": "10"}


def page(study):
    return reverse("analysis:planner", args=[study.pk])


@pytest.fixture
def piloted(study, pool, other_pool):
    """A pilot in India: 24 items, 3 annotators each, the overall score mostly alike."""
    items = f.make_items(study, "IN", 24)
    for r, rater in enumerate(annotators(pool, 3)):
        for n, item in enumerate(items):
            annotate(rater, item, overall=1 + (n % 5 if r < 2 or n % 4 else (n + 1) % 5))
    return study


def test_the_form_alone_until_a_question_is_chosen(client, owner, piloted):
    client.force_login(owner)
    response = client.get(page(piloted))
    html = response.content.decode()
    assert response.status_code == 200
    assert "How many annotators per country?" in html and 'name="reward"' in html
    assert "Cheapest choice" not in html


def test_a_pools_pilot_gives_the_grid_and_the_cheapest_choice(client, owner, piloted, pool):
    client.force_login(owner)
    html = client.get(page(piloted), CHOICES | {"pool": str(pool.pk)}).content.decode()
    assert "Simulated from the pilot: 72 answers on 24 items rated twice or more" in html
    assert "Cheapest choice with an interval at most 0.3 wide:" in html
    assert html.count("planner-cheapest") == 1
    assert "£" in html and "VAT" in html


def test_a_pool_with_no_pilot_is_planned_from_the_alpha_expected(client, owner, piloted, other_pool):
    client.force_login(owner)
    html = client.get(page(piloted), CHOICES | {"pool": str(other_pool.pk)}).content.decode()
    assert "No pilot to simulate from (0 items rated twice or more; 10 needed)" in html
    assert "expected alpha of 0.50" in html


@pytest.mark.parametrize(("change", "message"), [
    ({"reward": "-1"}, "greater than or equal to 0.01"),
    ({"field": "no-such-question"}, "Select a valid choice"),
    ({"pool": "999999"}, "Select a valid choice"),
    ({"returns": "95"}, "less than or equal to 90"),
])
def test_bad_choices_are_named_next_to_their_field_and_plan_nothing(client, owner, piloted, change, message):
    client.force_login(owner)
    response = client.get(page(piloted), CHOICES | change)
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html and 'role="alert"' in html
    assert "planner-grid" not in html


def test_another_lab_cannot_plan_on_the_study(client, other_researcher, piloted):
    client.force_login(other_researcher)
    assert client.get(page(piloted), CHOICES).status_code == 404


# --- the same planner through the API -----------------------------------------------------------


def api(study):
    return f"/api/v1/studies/{study.pk}/planner/"


def test_the_api_plans_with_the_pages_defaults(client, owner, piloted, pool):
    client.force_login(owner)
    body = client.get(api(piloted), {"field": "overall", "pool": pool.pk, "target": "0.3"}).json()
    assert body["source"] == "pilot" and body["paired_units"] == 24 and body["pool_name"] == "India"
    assert len(body["grid"]) == len(body["raters"]) * len(body["items"])
    cheapest = body["cheapest"]
    assert cheapest["meets"] and cheapest["width"] <= 0.3
    assert cheapest["cost"]["total"] == min(c["cost"]["total"] for c in body["grid"] if c["meets"])
    assert body["currency"] == "GBP" and cheapest["cost"]["rewards"] == cheapest["cost"]["paid"] * 150


def test_the_api_names_each_bad_parameter(client, owner, piloted):
    client.force_login(owner)
    response = client.get(api(piloted), {"reward": "free", "colour": "blue"})
    assert response.status_code == 400
    assert set(response.json()) == {"field", "reward", "colour"}
    assert response.json()["colour"] == ["Unknown parameter."]


def test_the_api_planner_is_scoped_to_the_studies_one_may_see(client, other_researcher, piloted):
    client.force_login(other_researcher)
    assert client.get(api(piloted), {"field": "overall"}).status_code == 404
