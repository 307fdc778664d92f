"""A pool's review page: the next annotation drawn at random, shown as the annotator saw it, with
the reviewed questions pre-set to the annotator's answers; progress; nothing left to review."""

import re

import pytest
from django.urls import reverse

from annotation.models import Annotation, Review, ReviewTarget
from annotation.reviews.access import scope_for_reviewer
from annotation.reviews.selectors import review_next
from annotation.services import annotation_submit, assignment_next
from studies.models import Study
from studies.services import quotas_for_items, study_create_from_preset
from tests import factories as f
from tests.factories import annotate_pool as annotate
from tests.factories import annotate_ravenea, make_checker, ravenea
from tests.helpers import HX, login, review_url


def shown_annotation(page: str) -> int:
    return int(re.search(r'action="/studies/\d+/review/\d+/(\d+)/"', page).group(1))


def test_the_page_shows_the_item_and_the_annotators_answers_preset(client, checker, study, pool, annotated):
    login(client, checker)
    page = client.get(review_url(study, pool)).content.decode()
    annotation = Annotation.objects.get(pk=shown_annotation(page))
    assert "Review: India" in page
    assert reverse("annotation:review-image", args=[study.pk, pool.pk, annotation.pk]) in page
    assert "A family sharing a meal at a festival" in page  # the prompt, as annotators saw it
    assert annotation.annotator.pseudonym in page and annotation.annotator.prolific_pid not in page
    # Reviewed questions (those with a level) are pre-set to the annotator's answers...
    assert '<input type="radio" name="alignment" value="0.5" checked>' in page
    assert '<input type="radio" name="overall" value="3" checked>' in page
    assert '<input type="radio" name="stereotype" value="no" checked>' in page
    # ...the other answers are shown as text.
    assert "The festival food is missing entirely." in page
    assert 'name="error_types"' not in page and 'name="explanation"' not in page
    assert 'name="_outcome" value="accepted"' in page and 'name="_outcome" value="flagged"' in page


def test_progress_counts_reviews_against_the_target(client, owner, study, pool, annotated):
    login(client, owner)
    page = client.get(review_url(study, pool)).content.decode()
    assert "0 reviewed</strong> of 6 annotations; target 10% (1)" in page
    ReviewTarget.objects.create(pool=pool, percent=50)
    Review.objects.create(annotation=annotated[0], reviewer=owner, outcome="accepted", labels={})
    page = client.get(review_url(study, pool)).content.decode()
    assert "1 reviewed</strong> of 6 annotations; target 50% (3)" in page


def test_it_never_serves_an_annotation_already_reviewed(client, owner, study, pool, annotated):
    for a in annotated[:5]:
        Review.objects.create(annotation=a, reviewer=owner, outcome="accepted", labels={})
    login(client, owner)
    for _ in range(5):
        assert shown_annotation(client.get(review_url(study, pool)).content.decode()) == annotated[5].pk


def test_the_next_annotation_is_drawn_at_random(owner, study, pool, annotated):
    scope = scope_for_reviewer(owner, study.pk, pool.pk)
    drawn = {review_next(scope).pk for _ in range(40)}
    assert len(drawn) > 1  # one in 6**39 to fail by chance
    assert drawn <= {a.pk for a in annotated}


def test_a_reviewer_never_gets_their_own_annotation(client, study, pool, items):
    own = annotate(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e")
    others = annotate(pool)
    reviewer = make_checker(pool, "checker-who-annotates", prolific_pid="5f1a2b3c4d5e6f7a8b9c0d1e")
    scope = scope_for_reviewer(reviewer, study.pk, pool.pk)
    assert {review_next(scope).pk for _ in range(30)} <= {a.pk for a in others}
    login(client, reviewer)
    own_url = reverse("annotation:review-submit", args=[study.pk, pool.pk, own[0].pk])
    response = client.post(own_url, {"_outcome": "accepted"})
    assert response.status_code == 404
    for a in others:
        Review.objects.create(annotation=a, reviewer=reviewer, outcome="accepted", labels={})
    page = client.get(review_url(study, pool)).content.decode()
    assert "You have reviewed everything you may review in India" in page
    assert "3 annotations not reviewed yet are your own" in page


def test_skipped_items_are_not_reviewed(owner, study, pool, annotated):
    Annotation.objects.exclude(pk=annotated[0].pk).update(answers={"_skip": "I cannot judge this image"}, skipped=True)
    scope = scope_for_reviewer(owner, study.pk, pool.pk)
    assert {review_next(scope).pk for _ in range(10)} == {annotated[0].pk}


def test_nothing_submitted_yet_shows_a_clear_page(client, checker, study, pool, items):
    login(client, checker)
    response = client.get(review_url(study, pool))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Nothing left to review: India" in page
    assert "No annotation of India has been submitted yet" in page
    assert '<progress value="0" max="100"' in page  # an empty bar, not a full one
    assert 'id="review-form"' not in page


def test_everything_reviewed_shows_a_clear_page(client, checker, owner, study, pool, annotated):
    for a in annotated:
        Review.objects.create(annotation=a, reviewer=owner, outcome="accepted", labels={})
    login(client, checker)
    page = client.get(review_url(study, pool)).content.decode()
    assert "Every annotation of India has been reviewed" in page and "6 of 6" in page
    assert "target reached" in page


def test_htmx_gets_the_panel_alone(client, checker, study, pool, annotated):
    login(client, checker)
    page = client.get(review_url(study, pool), **HX).content.decode()
    assert page.lstrip().startswith('<section id="review-panel"') and "<html" not in page


def test_the_review_page_takes_a_fixed_number_of_queries(client, checker, study, pool, annotated,
                                                         django_assert_num_queries):
    login(client, checker)
    # session, user, pool (scoped), checker's own pid, the candidates counted, one id drawn and its row,
    # the progress counts, the pool's target
    with django_assert_num_queries(9):
        client.get(review_url(study, pool))


@pytest.mark.django_db
def test_the_heading_names_the_item_by_its_own_id_where_no_image_is_shown(client):
    """A prompt filter shows no image, so no image caption: the heading names the item."""
    study, pool = f.preset_study("culturalframes-prompt-filter")
    item = f.add_items(study, 1, external_id="eid-sweets-07", prompt="Neighbours sharing sweets at Eid")[0]
    session = f.make_session(f.make_annotator(pool))
    annotation_submit(assignment=assignment_next(session=session), data={"fits_culture": ["yes"]})
    login(client, study.owner)
    page = client.get(review_url(study, pool)).content.decode()
    assert "zoom-dialog" not in page  # no image, no caption naming it
    heading = re.search(r'<h1 id="review-heading"[^>]*>(.*?)</h1>', page).group(1)
    assert heading == f"Review: India · prompt <code>{item.external_id}</code>"


# --- RAVENEA: documents and their per-document questions --------------------------------------


@pytest.mark.django_db
def test_documents_are_shown_with_their_questions_preset(client, owner):
    study, pool = ravenea(owner)
    annotate_ravenea(pool)
    login(client, owner)
    page = client.get(review_url(study, pool)).content.decode()
    assert "lights diyas" in page  # the caption
    assert '<a href="https://en.wikipedia.org/wiki/Candle" target="_blank" rel="noopener">Candle</a>' in page
    assert "ignitable wick" in page  # the documents' texts, as annotators saw them
    assert '<input type="radio" name="caption_correct" value="yes" checked>' in page
    assert '<input type="radio" name="documents.1.country" value="cannot_determine" checked>' in page
    assert '<input type="radio" name="documents.1.topic" value="no" checked>' in page
    assert "Rangoli" in page  # the missing articles: an answer shown as text


# --- GlobalRG: the annotator's uploaded image and box, shown to the reviewer -------------------


@pytest.mark.django_db
def test_an_uploaded_image_and_its_box_are_shown_and_served_through_the_pool(client, owner, other_researcher):
    from annotation.services import annotation_submit, assignment_next, upload_receive

    study = study_create_from_preset(owner=owner, preset="globalrg-grounding", status=Study.Status.OPEN)
    pool = f.make_pool(study, "IN", "India")
    quotas_for_items(items=[f.make_item(study, "IN", prompt="Dosa")])
    assignment = assignment_next(session=f.make_session(f.make_annotator(pool)))
    photo = upload_receive(assignment=assignment, name="dosa.png", data=f.png_bytes(size=(120, 90)))
    data = {"photo": [str(photo.token)], "box": ["[[10, 10, 30, 20]]"], "prevalent": ["yes"]}
    annotation = annotation_submit(assignment=assignment, data=data).annotation

    page = login(client, owner).get(review_url(study, pool)).content.decode()

    url = reverse("annotation:review-upload-image", args=[study.pk, pool.pk, annotation.pk, photo.token])
    assert f'src="{url}"' in page and "dosa.png (120×90 px)" in page
    assert "box at (10, 10), 30×20 px" in page
    assert '<input type="radio" name="prevalent" value="yes" checked>' in page
    assert "Dosa" in page  # the concept, as annotators saw it
    assert client.get(url).status_code == 200
    assert login(client, other_researcher).get(url).status_code == 404


def test_the_skipped_flag_must_mirror_the_answers(annotated):
    """A database constraint: counts and reads use ``skipped`` without looking inside the JSON."""
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Annotation.objects.filter(pk=annotated[0].pk).update(answers={"_skip": "Cannot judge"})
    with pytest.raises(IntegrityError), transaction.atomic():
        Annotation.objects.filter(pk=annotated[0].pk).update(skipped=True)


def test_the_page_loads_the_shared_script_and_style_once_under_the_sites_bar(client, checker, study, pool, annotated):
    login(client, checker)
    page = client.get(review_url(study, pool)).content.decode()
    annotation = Annotation.objects.get(pk=shown_annotation(page))
    assert page.count("annotation/page.js") == 1 and page.count("annotation/page.css") == 1
    assert page.index("annotation/page.js") < page.index("annotation/review.js") and "annotation/item.js" not in page
    assert page.count('id="shortcuts-help"') == 1 and 'popovertarget="shortcuts-help"' in page
    image = reverse("annotation:review-image", args=[study.pk, pool.pk, annotation.pk])
    assert page.count(image) == 2 and 'id="zoom-dialog"' in page  # the image, and zoomed
    assert f"<code>{annotation.item.external_id}</code>. " in page and "Click the image or press" in page
    assert "Log out" in page  # a checker is a logged-in user of the site
