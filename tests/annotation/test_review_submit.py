"""Submitting a review: accept, flag (which re-opens one slot of the item's quota), the refusals
with their messages, and idempotency."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from annotation.models import Annotation, Review
from annotation.reviews.services import NOTE, OUTCOME, review_submit
from annotation.services import annotation_submit, assignment_next
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import AS_GIVEN, annotate_ravenea, ravenea, valid_answers
from tests.factories import annotate_pool as annotate
from tests.helpers import HX, login, review_url, submit_url
from tests.helpers import review as submit


def quota(annotation) -> ItemQuota:
    return ItemQuota.objects.get(item=annotation.item, pool=annotation.pool)


# --- the service ------------------------------------------------------------------------------


def test_accept_stores_the_annotators_labels_as_the_checkers(checker, annotated):
    a = annotated[0]
    before = quota(a)
    result = submit(a, checker, "accepted")
    assert result.ok and not result.duplicate
    review = Review.objects.get(annotation=a)
    assert (review.outcome, review.reviewer, review.note) == ("accepted", checker, "")
    assert review.labels == {"alignment": 0.5, "stereotype": "no", "quality": 1, "overall": 3}
    after = quota(a)
    assert (after.wanted, after.done, after.leased) == (before.wanted, before.done, before.leased)


def test_it_refuses_to_accept_an_annotation_whose_labels_were_changed(checker, annotated):
    result = submit(annotated[0], checker, "accepted", overall="4")
    assert not result.ok
    assert "You changed 1 answer" in result.errors[OUTCOME]
    assert result.changed == [("overall", None)]
    assert not Review.objects.exists()


def test_flag_stores_the_checkers_labels_and_reopens_exactly_one_slot(checker, annotated):
    a = annotated[0]
    before = quota(a)
    result = submit(a, checker, "flagged", overall="1", stereotype="yes")
    assert result.ok
    review = Review.objects.get(annotation=a)
    assert review.outcome == "flagged"
    assert review.labels == {"alignment": 0.5, "stereotype": "yes", "quality": 1, "overall": 1}
    after = quota(a)
    assert (after.wanted, after.done, after.leased) == (before.wanted + 1, before.done, before.leased)
    assert Annotation.objects.filter(pk=a.pk).exists()  # the flagged annotation is kept


def test_a_flagged_item_is_reannotated_by_another_annotator_of_the_pool(checker, pool, items):
    flagged = annotate(pool, annotators=3)[0]
    assert assignment_next(session=f.make_session(f.make_annotator(pool))) is None  # the pool is full
    submit(flagged, checker, "flagged", note="The explanation does not match the image.")
    first = assignment_next(session=f.make_session(f.make_annotator(pool)))
    assert first is not None and first.item_id == flagged.item_id
    annotation_submit(assignment=first, data=valid_answers())
    # Exactly one slot: the next newcomer finds nothing.
    assert assignment_next(session=f.make_session(f.make_annotator(pool))) is None
    assert Annotation.objects.filter(item=flagged.item, pool=pool).count() == 4
    assert Annotation.objects.filter(item=flagged.item, pool=pool).exclude(review__outcome="flagged").count() == 3


def test_the_annotator_of_a_flagged_annotation_does_not_get_the_item_again(checker, pool, annotated):
    flagged = annotated[0]
    submit(flagged, checker, "flagged", note="Wrong.")
    session = f.make_session(flagged.annotator, "another-sitting")
    assert assignment_next(session=session) is None


def test_flag_with_a_note_alone_is_enough(checker, annotated):
    result = submit(annotated[0], checker, "flagged", note="  The explanation is copied from another item.  ")
    assert result.ok
    review = Review.objects.get()
    assert review.note == "The explanation is copied from another item."
    assert review.labels == {"alignment": 0.5, "stereotype": "no", "quality": 1, "overall": 3}


def test_it_refuses_a_flag_without_a_changed_label_or_a_note(checker, annotated):
    result = submit(annotated[0], checker, "flagged", note="   ")
    assert result.errors == {
        NOTE: "To flag, change the answers you disagree with, or write a note saying what is wrong."
    }
    assert not Review.objects.exists()
    assert quota(annotated[0]).wanted == 3


def test_it_refuses_a_label_outside_the_choices_next_to_the_field(checker, annotated):
    result = submit(annotated[0], checker, "flagged", overall="7")
    assert result.errors == {"overall": "Choose one of the options."}
    assert not Review.objects.exists()


def test_it_refuses_a_form_that_drops_a_reviewed_question(checker, annotated):
    result = review_submit(annotation=annotated[0], reviewer=checker, outcome="flagged",
                           data={"alignment": ["0.5"], "stereotype": ["no"], "quality": ["1"]}, note="x")
    assert result.errors == {"overall": "Give your answer to this question."}


def test_it_refuses_an_unknown_outcome(checker, annotated):
    assert OUTCOME in submit(annotated[0], checker, "maybe").errors
    assert not Review.objects.exists()


def test_a_double_submit_stores_one_review_and_reopens_one_slot(checker, annotated):
    a = annotated[0]
    first = submit(a, checker, "flagged", overall="1")
    second = submit(a, checker, "flagged", overall="1")
    assert second.duplicate and second.review == first.review
    assert Review.objects.count() == 1
    assert quota(a).wanted == 4


def test_a_second_checker_gets_the_first_review_back(checker, owner, annotated):
    submit(annotated[0], checker, "accepted")
    result = submit(annotated[0], owner, "flagged", overall="1")
    assert result.duplicate and result.review.reviewer == checker and result.review.outcome == "accepted"
    assert Review.objects.count() == 1 and quota(annotated[0]).wanted == 3


def test_flagging_a_surplus_annotation_reopens_no_slot(checker, annotated):
    a = annotated[0]
    Annotation.objects.filter(pk=a.pk).update(surplus=True)
    a.refresh_from_db()
    submit(a, checker, "flagged", note="Wrong.")
    assert quota(a).wanted == 3


@pytest.mark.django_db
def test_per_document_labels_are_reviewed_per_document(owner):
    study, pool = ravenea(owner)
    a = annotate_ravenea(pool)[0]
    documents = [e["document"] for e in a.answers["documents"]]
    data = {"caption_correct": ["yes"],
            "documents.0.country": ["yes"], "documents.0.topic": ["yes"], "documents.0.visual": ["yes"],
            "documents.1.country": ["no"], "documents.1.topic": ["no"], "documents.1.visual": ["no"]}
    result = review_submit(annotation=a, reviewer=owner, outcome="flagged", data=data)
    assert result.ok and result.changed == [("documents.country", documents[1])]
    assert Review.objects.get().labels == {
        "caption_correct": "yes",
        "documents": [
            {"document": documents[0], "country": "yes", "topic": "yes", "visual": "yes"},
            {"document": documents[1], "country": "no", "topic": "no", "visual": "no"},
        ],
    }
    # Accepting stores the annotator's labels, in the same shape and without the unreviewed fields.
    b = Annotation.objects.exclude(pk=a.pk).get()
    documents = [e["document"] for e in b.answers["documents"]]
    data["documents.1.country"] = ["cannot_determine"]
    assert review_submit(annotation=b, reviewer=owner, outcome="accepted", data=data).ok
    labels = Review.objects.get(annotation=b).labels
    assert set(labels) == {"caption_correct", "documents"}
    assert labels["documents"][1] == {
        "document": documents[1], "country": "cannot_determine", "topic": "no", "visual": "no"
    }


# --- the view ---------------------------------------------------------------------------------


def post(client, annotation, outcome, note="", hx=False, **changes):
    data = {**AS_GIVEN, **{k: [v] for k, v in changes.items()}, "_outcome": outcome, "_note": note}
    return client.post(submit_url(annotation), data, **(HX if hx else {}))


def test_without_javascript_a_review_redirects_to_the_next_one_with_a_message(client, checker, annotated):
    login(client, checker)
    a = annotated[0]
    response = post(client, a, "accepted")
    assert response.status_code == 302 and response.url == review_url(a.study, a.pool)
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [f"Accepted the annotation by {a.annotator.pseudonym}."]
    page = client.get(response.url).content.decode()
    assert "1 reviewed</strong> of 6" in page


def test_with_htmx_the_next_annotation_is_swapped_in_with_a_notice(client, checker, annotated):
    login(client, checker)
    a = annotated[0]
    response = post(client, a, "flagged", hx=True, overall="1")
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert "Flagged the annotation by" in page and "One more annotation of this item is now wanted" in page
    assert "1 reviewed</strong> of 6" in page
    assert submit_url(a) not in page  # the next annotation, not this one


def test_errors_are_shown_next_to_their_field_and_keep_what_was_chosen(client, checker, annotated):
    login(client, checker)
    response = post(client, annotated[0], "flagged", hx=True)
    assert response.status_code == 422
    page = response.content.decode()
    assert '<p class="error" id="err-review-note">To flag, change the answers' in page
    assert submit_url(annotated[0]) in page  # still the same annotation

    response = post(client, annotated[0], "accepted", hx=True, overall="5")
    page = response.content.decode()
    assert response.status_code == 422
    assert 'id="err-review-outcome" role="alert">You changed 1 answer' in page
    assert '<input type="radio" name="overall" value="5" checked>' in page  # the checker's choice kept
    assert "is-changed" in page and not Review.objects.exists()

    response = post(client, annotated[0], "flagged", hx=True, overall="9")
    assert response.status_code == 422
    assert '<p class="error" id="err-overall">Choose one of the options.</p>' in response.content.decode()


def test_a_second_submit_of_the_same_annotation_gets_a_clear_message(client, checker, other_checker, owner, annotated):
    a = annotated[0]
    login(client, checker)
    client.get(post(client, a, "accepted").url)  # the next page shows (and so uses up) its message
    response = post(client, a, "accepted", hx=True)
    assert "Not stored: the annotation by" in response.content.decode()
    assert "already been reviewed by you (accepted)" in response.content.decode()
    login(client, owner)
    response = post(client, a, "flagged", note="Wrong.")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f"Not stored: the annotation by {a.annotator.pseudonym} had already been reviewed by checker-in (accepted). "
        "Here is the next one."
    ]
    assert Review.objects.count() == 1 and quota(a).wanted == 3


def test_the_last_review_leaves_a_clear_page(client, checker, study, pool, items):
    (only,) = annotate(pool)[:1] or [None]
    Annotation.objects.exclude(pk=only.pk).update(answers={"_skip": "Cannot judge"}, skipped=True)
    login(client, checker)
    page = post(client, only, "accepted", hx=True).content.decode()
    assert "Nothing left to review: India" in page and "Every annotation of India has been reviewed" in page


def test_a_get_on_the_submit_url_is_refused(client, checker, annotated):
    login(client, checker)
    assert client.get(submit_url(annotated[0])).status_code == 405


def test_the_reviewer_may_see_an_uploaded_image_of_the_annotation_only_through_the_pool(client, checker, annotated):
    login(client, checker)
    a = annotated[0]
    url = reverse(
        "annotation:review-upload-image", args=[a.study_id, a.pool_id, a.pk, "6f1a2b3c-4d5e-4f7a-8b9c-0d1e2f3a4b5c"]
    )
    assert client.get(url).status_code == 404


def test_a_reopened_slot_survives_saving_the_pool(checker, pool, items):
    from studies.services import quotas_sync

    flagged = annotate(pool, annotators=3)[0]
    submit(flagged, checker, "flagged", note="Wrong.")
    quotas_sync(pool=pool)
    assert quota(flagged).wanted == 4 and quota(flagged).reopened == 1
    pool.annotations_per_item = 5  # the researcher asks for more: the reopened slot stays on top
    pool.save()
    quotas_sync(pool=pool)
    assert quota(flagged).wanted == 6
