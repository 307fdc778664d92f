"""The researcher's page of one item: its image and every annotation, answers shown by their field
types; for the study's owner only."""

import pytest
from django.urls import reverse

from tests import factories as f
from tests.annotations import annotate, annotators

pytestmark = pytest.mark.django_db


def url(study, item):
    return reverse("annotation:study-item", args=[study.pk, item.pk])


def test_it_shows_the_image_and_each_annotation_with_its_answers(client, owner, study, pool, items):
    item = items[0]
    first, second = annotators(pool, 2)
    annotate(first, item)
    annotate(second, item, explanation="The sari colour is wrong for a wedding.")
    client.force_login(owner)

    response = client.get(url(study, item))

    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("studies:item-image", args=[study.pk, item.pk]) in html
    assert "2 annotations" in html
    assert first.pseudonym in html and second.pseudonym in html
    assert "The festival food is missing entirely." in html
    assert "The sari colour is wrong for a wedding." in html
    labels = [label for shown in response.context["annotations"] for label, _ in shown.answers]
    assert len(labels) == len(set(labels)) * 2, "both annotations show the same fields"


def test_an_item_without_annotations_says_so(client, owner, study, items):
    client.force_login(owner)
    assert "No annotation yet." in client.get(url(study, items[1])).content.decode()


def test_another_studys_item_is_404(client, owner, study, items, other_researcher):
    their_study = f.make_study(other_researcher)
    f.make_pool(their_study)
    theirs = f.make_items(their_study, "IN", 1)[0]
    client.force_login(owner)
    assert client.get(url(study, theirs)).status_code == 404


def test_another_researcher_and_a_checker_get_404(client, other_researcher, checker, study, items):
    for user in (other_researcher, checker):
        client.force_login(user)
        assert client.get(url(study, items[0])).status_code == 404


def test_an_anonymous_visitor_is_sent_to_log_in(client, study, items):
    response = client.get(url(study, items[0]))
    assert response.status_code == 302 and "login" in response["Location"]
