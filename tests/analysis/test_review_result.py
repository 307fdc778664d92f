"""review_result: the study's reviews read in one query and turned into the quality check's figures,
and the analysis page's fragment that shows them."""

import json

import pytest
from django.template.loader import render_to_string

from analysis.review import review_result
from annotation.models import Review
from annotation.reviews.services import review_submit
from tests.factories import AS_GIVEN, annotate_ravenea, ravenea


def review(annotation, reviewer, outcome, note="", **changes):
    result = review_submit(annotation=annotation, reviewer=reviewer, outcome=outcome,
                           data={**AS_GIVEN, **{k: [v] for k, v in changes.items()}}, note=note)
    assert result.ok, result.errors


def test_no_review_gives_none(study, annotated):
    assert review_result(study=study) is None


def test_it_reads_the_reviews_in_one_query(study, checker, annotated, django_assert_num_queries):
    review(annotated[0], checker, "accepted")
    with django_assert_num_queries(1):
        review_result(study=study)


def test_acceptance_and_kappa_overall_and_per_country(study, checker, other_checker, annotated, annotated_elsewhere):
    # India: two accepted, one flagged with "overall" 3 → 1; Japan: one accepted.
    review(annotated[0], checker, "accepted")
    review(annotated[1], checker, "accepted")
    review(annotated[2], checker, "flagged", overall="1")
    review(annotated_elsewhere[0], other_checker, "accepted")

    result = review_result(study=study)

    assert json.loads(json.dumps(result)) == result
    assert (result["n_reviews"], result["acceptance_rate"]) == (4, 0.75)
    overall = result["overall"]
    assert (overall["n_accepted"], overall["n_flagged"]) == (3, 1)
    fields = {f["key"]: f for f in overall["fields"]}
    assert list(fields) == ["alignment", "stereotype", "quality", "overall"]
    assert (fields["overall"]["level"], fields["overall"]["weights"]) == ("ordinal", "linear")
    assert (fields["stereotype"]["level"], fields["stereotype"]["weights"]) == ("nominal", "none")
    assert fields["overall"]["label_agreement"] == 0.75 and fields["overall"]["n_labels"] == 4
    # Every annotator said 3; the checker said 3, 3, 1, 3: the annotator never varies, so chance
    # agreement equals the observed (linear weights: 1 − (2/4)/(2/4) = 0) and kappa is 0.
    assert fields["overall"]["kappa"] == pytest.approx(0.0)
    assert fields["stereotype"]["kappa"] is None and fields["stereotype"]["reason"]  # one category used
    india, japan = result["countries"]
    assert (india["country"], india["n_reviews"], india["acceptance_rate"]) == ("IN", 3, pytest.approx(2 / 3))
    assert (japan["country"], japan["n_reviews"], japan["acceptance_rate"]) == ("JP", 1, 1.0)


def test_per_document_fields_are_reviewed_per_document(owner):
    study, pool = ravenea(owner)
    a, b = annotate_ravenea(pool)
    data = {"caption_correct": ["yes"],
            "documents.0.country": ["yes"], "documents.0.topic": ["yes"], "documents.0.visual": ["yes"],
            "documents.1.country": ["cannot_determine"], "documents.1.topic": ["no"], "documents.1.visual": ["no"]}
    assert review_submit(annotation=a, reviewer=owner, outcome="accepted", data=data).ok
    data["documents.1.country"] = ["no"]
    assert review_submit(annotation=b, reviewer=owner, outcome="flagged", data=data).ok

    fields = {f["key"]: f for f in review_result(study=study)["overall"]["fields"]}

    assert list(fields) == ["caption_correct", "documents.country", "documents.topic", "documents.visual"]
    country = fields["documents.country"]
    assert (country["n_labels"], country["n_units"]) == (4, 4)  # two documents of two annotations
    assert country["label_agreement"] == 0.75


def test_the_fragment_shows_a_table_per_country_with_kappa_per_field(study, checker, other_checker, annotated,
                                                                      annotated_elsewhere):
    review(annotated[0], checker, "accepted")
    review(annotated[1], checker, "flagged", overall="4", quality="0.5")
    review(annotated_elsewhere[0], other_checker, "accepted")
    html = render_to_string("analysis/_review.html", {"review": review_result(study=study)})
    assert "3 annotations reviewed" in html
    assert "All countries" in html and "India" in html and "Japan" in html
    assert "<code>overall</code>" in html and "ordinal&nbsp;·&nbsp;linear" in html
    assert html.count('<tbody') == 3  # all countries, India, Japan
    assert "0.667" in html  # the overall acceptance rate


def test_the_fragment_shows_nothing_without_reviews():
    assert render_to_string("analysis/_review.html", {"review": None}).strip() == ""


def test_flagged_annotations_are_recognised_in_a_query(study, checker, annotated):
    from annotation.models import Annotation

    review(annotated[0], checker, "flagged", note="Wrong.")
    review(annotated[1], checker, "accepted")
    kept = Annotation.objects.filter(study=study).exclude(review__outcome=Review.Outcome.FLAGGED)
    assert set(kept.values_list("pk", flat=True)) == {a.pk for a in annotated[1:]}
