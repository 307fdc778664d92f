"""The researcher's preview of a pool's whole annotator path: each step for the owner, the
refusals, and nothing stored across a whole walk."""

import pytest
from django.db.models import Sum
from django.urls import reverse

from annotation.models import Annotation, Annotator, Assignment, MockAttempt, Session, Upload
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import HX, as_annotator, login

PROLIFIC = "https://app.prolific.com/submissions/complete?cc="
BANNER = "Preview — nothing is saved"


def url(study, pool, step=None, *args):
    name = "annotation:path-preview" + (f"-{step}" if step else "")
    return reverse(name, args=[study.pk, pool.pk, *args])


@pytest.fixture
def question(study):
    return f.make_mock_question(study, expected="No")


@pytest.fixture
def owner_client(client, owner, items, question):
    return login(client, owner)


def yes_to_all(pool):
    return {key: "yes" for key, _ in pool.eligibility_questions()}


def to_items(client, study, pool, question):
    client.get(url(study, pool))
    client.post(url(study, pool, "consent"), {"consent": "yes"})
    client.post(url(study, pool, "eligibility"), yes_to_all(pool))
    client.post(url(study, pool, "instructions"))
    client.post(url(study, pool, "mock"), {f"q{question.pk}": "No"})


def stored():
    """What a walk must leave as it was: the annotator's rows and the quotas' counts."""
    quotas = ItemQuota.objects.aggregate(done=Sum("done"), leased=Sum("leased"))
    return {
        "annotators": Annotator.objects.count(), "sessions": Session.objects.count(),
        "assignments": Assignment.objects.count(), "annotations": Annotation.objects.count(),
        "attempts": MockAttempt.objects.count(), "uploads": Upload.objects.count(), **quotas,
    }


def test_the_start_leads_to_consent_under_the_banner(owner_client, study, pool):
    response = owner_client.get(url(study, pool))
    assert response.url == url(study, pool, "consent")
    page = owner_client.get(response.url).content.decode()
    assert BANNER in page and study.consent_md in page
    assert reverse("studies:pool-list", args=[study.pk]) in page  # the way out, back to the study


def test_each_step_is_the_annotators_page(owner_client, study, pool, question):
    owner_client.get(url(study, pool))
    assert owner_client.post(url(study, pool, "consent"), {"consent": "yes"}).url == url(study, pool, "eligibility")

    page = owner_client.get(url(study, pool, "eligibility")).content.decode()
    assert "Were you born in India?" in page and BANNER in page
    refused = owner_client.post(url(study, pool, "eligibility"), {"born": "yes"})
    assert refused.status_code == 422 and refused.content.decode().count("Please answer yes or no.") == 3
    done = owner_client.post(url(study, pool, "eligibility"), yes_to_all(pool))
    assert done.url == url(study, pool, "instructions")

    page = owner_client.get(url(study, pool, "instructions")).content.decode()
    assert "<strong>Be careful.</strong>" in page  # the instructions' Markdown, rendered
    assert owner_client.post(url(study, pool, "instructions")).url == url(study, pool, "mock")

    page = owner_client.get(url(study, pool, "mock")).content.decode()
    assert question.text in page
    assert reverse("studies:item-image", args=[study.pk, question.item_id]) in page
    assert owner_client.post(url(study, pool, "mock"), {f"q{question.pk}": "No"}).url == url(study, pool, "items")

    page = owner_client.get(url(study, pool, "items")).content.decode()
    assert "Image 1 of 3" in page and BANNER in page
    assert url(study, pool, "item-submit", 1) in page and url(study, pool, "item-draft", 1) in page


def test_a_wrong_practice_answer_gets_the_real_feedback(owner_client, study, pool):
    question = f.make_mock_question(study, text="Is this a festival?", expected="Completely")
    question.explanation = "The lamps are lit for Diwali."
    question.save()
    owner_client.get(url(study, pool))
    owner_client.post(url(study, pool, "consent"), {"consent": "yes"})
    owner_client.post(url(study, pool, "eligibility"), yes_to_all(pool))
    owner_client.post(url(study, pool, "instructions"))
    answers = {f"q{q.pk}": q.expected for q in study.mock_questions.all()} | {f"q{question.pk}": "No"}
    response = owner_client.post(url(study, pool, "mock"), answers)
    page = response.content.decode()
    assert response.status_code == 422
    assert "You answered 1 of 2 correctly" in page
    assert ('<strong dir="auto">Is this a festival?</strong> <span dir="auto">The lamps are lit for Diwali.</span>'
            in page)
    assert "Attempts left: <strong>1</strong>" in page
    # The last attempt failed ends the path with the failed code, as it would for an annotator.
    last = owner_client.post(url(study, pool, "mock"), answers)
    assert last.url == url(study, pool, "end")
    assert PROLIFIC + study.code_failed_mock in owner_client.get(last.url).content.decode()


def test_a_bad_item_submit_shows_the_engines_errors(owner_client, study, pool, question):
    to_items(owner_client, study, pool, question)
    owner_client.get(url(study, pool, "items"))
    response = owner_client.post(url(study, pool, "item-submit", 1), {"alignment": ["0.5"]}, **HX)
    page = response.content.decode()
    assert response.status_code == 422
    assert "Please fix" in page and 'id="err-error_types"' in page
    assert "Image 1 of 3" in page  # still the first item


def test_a_whole_walk_stores_nothing_and_ends_with_the_completion_code(owner_client, study, pool, question):
    before = stored()
    to_items(owner_client, study, pool, question)
    first = owner_client.get(url(study, pool, "items")).content.decode()
    assert "Image 1 of 3" in first
    owner_client.post(url(study, pool, "item-submit", 1), {}, **HX)  # refused
    draft = owner_client.post(url(study, pool, "item-draft", 1), {"explanation": "Kept in the walk"})
    assert draft.json() == {"saved": True}
    assert "Kept in the walk" in owner_client.get(url(study, pool, "items")).content.decode()  # a reload restores it
    second = owner_client.post(url(study, pool, "item-submit", 1), valid_answers(), **HX)
    assert "Image 2 of 3" in second.content.decode()
    owner_client.post(url(study, pool, "item-submit", 2), valid_answers(), **HX)
    # The pool has three items: the session ends early, as an annotator's does when the pool runs dry.
    last = owner_client.post(url(study, pool, "item-submit", 3), valid_answers(), **HX)
    assert last.status_code == 204 and last["HX-Redirect"] == url(study, pool, "end")

    page = owner_client.get(url(study, pool, "end")).content.decode()
    assert 'id="completion-code">C0MPLETE<' in page and PROLIFIC + study.code_completed in page
    assert 'http-equiv="refresh"' not in page  # the researcher is not sent to Prolific
    assert "We are taking you back" not in page and "the preview stays here" in page
    assert stored() == before


def test_a_no_to_eligibility_shows_the_refusal_the_annotator_sees(owner_client, study, pool):
    owner_client.get(url(study, pool))
    owner_client.post(url(study, pool, "consent"), {"consent": "yes"})
    response = owner_client.post(url(study, pool, "eligibility"), yes_to_all(pool) | {"childhood": "no"})
    assert response.url == url(study, pool, "end")
    page = owner_client.get(response.url).content.decode()
    assert "we cannot include you" in page and PROLIFIC + study.code_not_eligible in page
    # As for an annotator, the decision is final: the later steps lead to the end.
    assert owner_client.get(url(study, pool, "items")).url == url(study, pool, "end")


def test_declining_consent_ends_with_the_no_consent_code(owner_client, study, pool):
    owner_client.get(url(study, pool))
    owner_client.post(url(study, pool, "consent"), {"consent": "no"})
    assert PROLIFIC + study.code_no_consent in owner_client.get(url(study, pool, "end")).content.decode()


def test_a_step_ahead_of_the_walk_sends_back_to_the_current_one(owner_client, study, pool):
    owner_client.get(url(study, pool))
    assert owner_client.get(url(study, pool, "items")).url == url(study, pool, "consent")
    assert owner_client.get(url(study, pool, "end")).url == url(study, pool, "consent")


def test_starting_again_forgets_the_walk(owner_client, study, pool, question):
    to_items(owner_client, study, pool, question)
    owner_client.get(url(study, pool))
    assert owner_client.get(url(study, pool, "items")).url == url(study, pool, "consent")


def test_an_upload_is_refused_in_a_preview(owner_client, study, pool, question):
    to_items(owner_client, study, pool, question)
    response = owner_client.post(url(study, pool, "item-upload", 1), {})
    assert response.status_code == 400 and "keeps no file" in response.json()["error"]


def test_a_pool_without_items_shows_the_annotators_no_items_page(client, owner, study, question):
    empty = f.make_pool(study, "BR", "Brazil")
    login(client, owner)
    to_items(client, study, empty, question)
    response = client.get(url(study, empty, "items"))
    assert response.status_code == 410 and "No items are left for you" in response.content.decode()


def test_the_pool_list_links_each_pool_to_its_preview(owner_client, study, pool, other_pool):
    page = owner_client.get(reverse("studies:pool-list", args=[study.pk])).content.decode()
    assert url(study, pool) in page and url(study, other_pool) in page


def test_another_researcher_gets_404(client, other_researcher, study, pool, items):
    login(client, other_researcher)
    assert client.get(url(study, pool)).status_code == 404
    assert client.get(url(study, pool, "consent")).status_code == 404


def test_a_pool_of_another_study_is_404(client, owner, study, pool, items):
    elsewhere = f.make_study(owner, name="Another study")
    login(client, owner)
    assert client.get(reverse("annotation:path-preview", args=[elsewhere.pk, pool.pk])).status_code == 404


@pytest.mark.parametrize("step", [None, "consent", "items", "end"])
def test_an_anonymous_visitor_is_sent_to_log_in(client, study, pool, items, step):
    response = client.get(url(study, pool, step))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_an_annotator_is_sent_to_log_in(client, session, study, pool, items):
    as_annotator(client, session)
    response = client.get(url(study, pool))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert client.post(url(study, pool, "item-submit", 1), valid_answers()).status_code == 302
    assert Annotation.objects.count() == 0


def test_a_walk_kept_in_another_shape_starts_again(owner_client, study, pool):
    session = owner_client.session
    session[f"tessera_path_preview:{pool.pk}"] = {"annotator": "?"}
    session.save()
    assert owner_client.get(url(study, pool, "consent")).url == url(study, pool)
