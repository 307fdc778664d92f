"""A comparison of images (pairwise, best_worst, rank) is not re-labelled on a checker's review form,
whose questions are one group of options each: the checker judges it with the annotation as a whole,
and the other questions are reviewed as ever."""

import pytest
from django.urls import reverse

from annotation.models import Review
from annotation.reviews import labels
from annotation.reviews.services import NOTE, review_submit
from studies.protocol import parse_spec
from tests import factories as f
from tests.annotations import annotate
from tests.helpers import login, review_url

SPEC = {"fields": [
    {"key": "fits", "type": "choice", "level": "nominal", "choices": ["yes", "no"]},
    {"key": "pair", "type": "pairwise", "level": "nominal"},
    {"key": "extremes", "type": "best_worst", "level": "nominal"},
    {"key": "ranked", "type": "rank", "level": "nominal"},
]}  # fmt: skip
ANSWERS = {
    "fits": "yes",
    "pair": {"choice": "2", "order": ["2", "1"]},
    "extremes": {"best": "3", "worst": "1", "order": ["1", "2", "3"]},
    "ranked": {"ranking": ["3", "1", "2"], "order": ["1", "2", "3"]},
}


def test_the_reviewed_fields_leave_the_comparisons_out_levels_or_not():
    protocol = parse_spec(SPEC)
    assert [f.key for f in labels.reviewed_fields(protocol)] == ["fits"]
    assert labels.flat_labels(labels.reviewed_fields(protocol), ANSWERS) == {("fits", None): "yes"}
    nested = parse_spec({"fields": [{"key": "docs", "type": "per_document", "fields": [
        {"key": "pair", "type": "pairwise", "level": "nominal"}]}]})
    assert labels.reviewed_fields(nested) == ()


@pytest.fixture
def compared(db):
    """An annotation of a study whose protocol has a choice and the three comparisons, and a checker."""
    study, pool = f.spec_study(SPEC)
    item = f.add_items(study, 1)[0]
    return annotate(f.make_annotator(pool), item, ANSWERS), f.make_checker(pool, "checker-compare")


def test_an_annotation_with_comparisons_is_accepted_on_its_other_answers(compared):
    annotation, checker = compared
    result = review_submit(annotation=annotation, reviewer=checker, outcome="accepted", data={"fits": ["yes"]})
    assert result.ok, result.errors
    assert Review.objects.get(annotation=annotation).labels == {"fits": "yes"}


def test_flagging_it_for_a_comparison_takes_a_note(compared):
    annotation, checker = compared
    refused = review_submit(annotation=annotation, reviewer=checker, outcome="flagged", data={"fits": ["yes"]})
    assert not refused.ok and NOTE in refused.errors
    result = review_submit(annotation=annotation, reviewer=checker, outcome="flagged", data={"fits": ["yes"]},
                           note="Image 2 is clearly worse than image 1.")
    assert result.ok and Review.objects.get(annotation=annotation).outcome == "flagged"


def test_the_review_page_shows_the_comparisons_as_text_and_asks_the_choice_again(client, compared):
    annotation, checker = compared
    login(client, checker)
    page = client.get(review_url(annotation.study, annotation.pool)).content.decode()
    assert '<input type="radio" name="fits" value="yes" checked>' in page
    assert "Image 2 over image 1" in page and "Best: image 3; worst: image 1" in page and "3 &gt; 1 &gt; 2" in page
    assert 'name="pair"' not in page and 'name="extremes"' not in page and 'name="ranked.1"' not in page


@pytest.fixture
def compared_images(db):
    """A pairwise annotation of an item of two images (made by two models), and the pool's checker."""
    study, pool = f.spec_study({"fields": [{"key": "pair", "type": "pairwise", "level": "nominal"}]})
    item = f.make_comparison_item(study, pool.country, models=("secret-model-a", "secret-model-b"))
    annotation = annotate(f.make_annotator(pool), item, {"pair": {"choice": "2", "order": ["2", "1"]}})
    return annotation, f.make_checker(pool, "checker-images")


def test_the_checker_sees_the_images_compared_in_the_annotators_order_blind(client, compared_images):
    from annotation.context import image_order

    annotation, checker = compared_images
    login(client, checker)
    page = client.get(review_url(annotation.study, annotation.pool)).content.decode()
    base = reverse("annotation:review-image", args=[annotation.study_id, annotation.pool_id, annotation.pk])
    shown = [image.ref_id for image in image_order(annotation.assignment)]
    found = [page.index(f'src="{base}?n={n}"') for n in shown]
    assert found == sorted(found)  # in the order its annotator saw them
    assert f"Image {shown[0]}, shown left" in page and f"Image {shown[1]}, shown right" in page
    assert "secret-model" not in page  # as blind as the comparison
    assert "css/compare.css" in page


def test_each_compared_image_is_served_to_the_checker_and_no_other(client, compared_images, other_researcher):
    annotation, checker = compared_images
    base = reverse("annotation:review-image", args=[annotation.study_id, annotation.pool_id, annotation.pk])
    login(client, checker)
    second = annotation.item.images.get(position=2)
    response = client.get(f"{base}?n=2")
    assert response.status_code == 200 and b"".join(response.streaming_content) == second.image.open("rb").read()
    for bad in ("9", "x", ""):  # no such image; not a number; the item has no image of its own
        assert client.get(f"{base}?n={bad}").status_code == 404, bad
    client.logout()
    login(client, other_researcher)
    assert client.get(f"{base}?n=2").status_code == 404
