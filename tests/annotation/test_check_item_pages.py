"""The researcher makes an item an attention check or a gold item from its page, or ordinary again;
the annotator sees the instruction in the question; refusals change nothing."""

import pytest
from django.urls import reverse

from annotation.services import annotation_submit, assignment_next
from studies.checks import INSTRUCTION_TEMPLATES, item_set_attention, item_unset_check
from studies.models import CheckKind, Item, ItemQuota, StudyMember
from studies.practice import item_set_example
from studies.services import WorkspaceError
from tests import factories as f
from tests.helpers import as_annotator, login


def item_url(study, item, name="study-item"):
    return reverse(f"annotation:{name}", args=[study.pk, item.pk])


@pytest.fixture
def fresh(study, pool):
    return f.make_items(study, "IN", n=2)[0]


def test_the_owner_makes_an_item_an_attention_check_with_a_wording(client, owner, study, pool, fresh):
    login(client, owner)
    page = client.get(item_url(study, fresh)).content.decode()
    assert 'id="quality-check"' in page and "Make it an attention check" in page
    response = client.post(item_url(study, fresh, "item-attention"), {"answer": "overall:5", "wording": "1"})
    assert response.status_code == 302
    fresh.refresh_from_db()
    assert fresh.check_kind == CheckKind.ATTENTION and fresh.expected == {"overall": 5}
    label = next(c.label for c in study.spec.field("overall").choices if c.value == 5)
    assert fresh.metadata["instruction"] == {"field": "overall", "text": INSTRUCTION_TEMPLATES[1].replace(
        "{answer}", label)}
    assert not ItemQuota.objects.filter(item=fresh).exists()
    assert "Its question reads" in client.get(item_url(study, fresh)).content.decode()


def test_own_words_must_name_the_answer(client, owner, study, pool, fresh):
    login(client, owner)
    response = client.post(item_url(study, fresh, "item-attention"),
                           {"answer": "overall:5", "text": "Please pay attention here."}, follow=True)
    assert "must name the answer" in response.content.decode()
    fresh.refresh_from_db()
    assert fresh.check_kind == "" and ItemQuota.objects.filter(item=fresh).exists()


@pytest.mark.parametrize("answer", ["overall:42", "nope:1", "", "explanation:x"])
def test_an_answer_the_question_does_not_have_is_refused(client, owner, study, pool, fresh, answer):
    login(client, owner)
    client.post(item_url(study, fresh, "item-attention"), {"answer": answer, "wording": "0"})
    fresh.refresh_from_db()
    assert fresh.check_kind == "" and fresh.expected is None


def test_an_item_already_given_to_annotators_cannot_become_a_check(client, owner, study, pool, items):
    annotator = f.make_annotator(pool)
    leased = assignment_next(session=f.make_session(annotator))
    login(client, owner)
    response = client.post(item_url(study, leased.item, "item-attention"), {"answer": "overall:5"}, follow=True)
    assert "given to annotators already" in response.content.decode()
    assert Item.objects.get(pk=leased.item_id).check_kind == ""


def test_the_annotator_reads_the_instruction_in_the_question(client, owner, study, pool):
    study.protocol = {**study.protocol, "quality": {"attention": {"placement": "every", "every": 1}}}
    study.save()
    f.make_items(study, "IN", n=2)
    check = f.make_item(study, "IN")
    label = next(c.label for c in study.spec.field("overall").choices if c.value == 5)
    item_set_attention(item=check, field_key="overall", value=5, text=f"For this one, choose “{label}”.")
    from annotation.services.checks import session_schedule_make
    session = session_schedule_make(session=f.make_session(f.make_annotator(pool)), study=study)
    as_annotator(client, session)
    client.get(reverse("annotation:items"))  # an ordinary item first: its questions' markup is kept for reuse
    annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers())
    page = client.get(reverse("annotation:items")).content.decode()
    assert f"For this one, choose “{label}”." in page.replace("&#x27;", "'").replace("&quot;", '"')


def test_the_gold_form_stores_the_ticked_known_answers(client, owner, study, pool, fresh):
    login(client, owner)
    page = client.get(item_url(study, fresh, "item-gold")).content.decode()
    assert 'name="_gold_fields" value="overall" checked' in page
    assert 'name="_gold_fields" value="explanation"' in page and 'value="explanation" checked' not in page
    data = f.valid_answers(overall="4") | {"_gold_fields": ["overall", "alignment"]}
    assert client.post(item_url(study, fresh, "item-gold"), data).status_code == 302
    fresh.refresh_from_db()
    assert fresh.check_kind == CheckKind.GOLD and fresh.expected == {"overall": 4, "alignment": 0.5}
    assert not ItemQuota.objects.filter(item=fresh).exists()


def test_a_gold_form_with_errors_is_shown_again_and_saves_nothing(client, owner, study, pool, fresh):
    login(client, owner)
    response = client.post(item_url(study, fresh, "item-gold"), {"_gold_fields": ["overall"]})
    assert response.status_code == 422 and 'id="form-errors"' in response.content.decode()
    fresh.refresh_from_db()
    assert fresh.check_kind == ""


def test_an_unticked_gold_form_is_refused(client, owner, study, pool, fresh):
    login(client, owner)
    response = client.post(item_url(study, fresh, "item-gold"), f.valid_answers(), follow=True)
    assert "Tick at least one" in response.content.decode()
    fresh.refresh_from_db()
    assert fresh.check_kind == ""


def test_a_check_item_becomes_ordinary_again_with_its_quotas(client, owner, study, pool, fresh):
    item_set_attention(item=fresh, field_key="overall", value=5, text="Choose “5 – Very well”. 5")
    login(client, owner)
    assert client.post(item_url(study, fresh, "item-ordinary")).status_code == 302
    fresh.refresh_from_db()
    assert fresh.check_kind == "" and fresh.expected is None and "instruction" not in fresh.metadata
    assert ItemQuota.objects.filter(item=fresh, pool=pool).exists()


def test_a_check_item_given_to_an_annotator_stays_one(study, pool, fresh):
    item_set_attention(item=fresh, field_key="overall", value=5, text="Choose 5. 5")
    annotator = f.make_annotator(pool)
    from django.utils import timezone

    from annotation.models import Assignment
    now = timezone.now()
    Assignment.objects.create(session=f.make_session(annotator), annotator=annotator, item=fresh, pool=pool,
                              position=1, leased_at=now, expires_at=now)
    with pytest.raises(WorkspaceError, match="stays one"):
        item_unset_check(item=fresh)


def test_a_practice_example_is_never_a_check_and_a_check_never_an_example(study, pool, fresh):
    item_set_attention(item=fresh, field_key="overall", value=5, text="Choose 5. 5")
    with pytest.raises(WorkspaceError, match="quality check"):
        item_set_example(item=fresh, example=True)


def test_a_viewer_sees_the_card_without_its_forms_and_cannot_change_it(client, study, pool, fresh, other_researcher):
    StudyMember.objects.create(study=study, user=other_researcher, role="viewer")
    login(client, other_researcher)
    page = client.get(item_url(study, fresh)).content.decode()
    assert 'id="quality-check"' in page and "Make it an attention check" not in page
    assert client.post(item_url(study, fresh, "item-attention"), {"answer": "overall:5"}).status_code == 403
    fresh.refresh_from_db()
    assert fresh.check_kind == ""


def test_another_researcher_gets_404(client, study, pool, fresh, other_researcher):
    login(client, other_researcher)
    assert client.post(item_url(study, fresh, "item-attention"), {"answer": "overall:5"}).status_code == 404
    assert client.get(item_url(study, fresh, "item-gold")).status_code == 404


BOX_SPEC = {"fields": [
    {"key": "where", "type": "bbox", "label": "Draw a box around the lamp", "over": "image", "min": 1, "max": 1},
    {"key": "seen", "type": "choice", "label": "Is there a lamp?", "choices": ["yes", "no"]},
]}


def test_a_gold_box_is_typed_as_the_box_script_would_post_it(client, db):
    from tests.factories import add_items, spec_study

    study, pool = spec_study(BOX_SPEC)
    item = add_items(study, 1, size=(64, 48))[0]
    login(client, study.owner)
    url = item_url(study, item, "item-gold")
    page = client.get(url).content.decode()
    assert 'name="where"' in page and "<textarea" in page and 'value="where" checked' in page
    bad = client.post(url, {"where": "[[60, 40, 30, 30]]", "seen": "yes", "_gold_fields": ["where"]})
    assert bad.status_code == 422 and "inside the image" in bad.content.decode()
    item.refresh_from_db()
    assert item.check_kind == ""
    assert client.post(url, {"where": "[[4, 4, 30, 20]]", "seen": "yes", "_gold_fields": ["where", "seen"]}
                       ).status_code == 302
    item.refresh_from_db()
    assert item.check_kind == "gold" and set(item.expected) == {"where", "seen"}
