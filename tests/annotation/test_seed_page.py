"""The page of a study that feeds another: a question study makes answer items in one of the
researcher's own answer studies (owner or editor), a prompt filter's kept prompts are counted and
downloaded. Members read it, a viewer may not create, another researcher gets 404, a visitor or an
annotator the login page. What a study feeds is read from its protocol, never its preset's name."""

import csv
import io
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from annotation import seeding
from studies.models import Item, StudyMember
from studies.protocol import parse_spec
from studies.services import preset_load, study_create_from_preset
from tests import factories as f
from tests.annotation.test_seeding import AUTHOR, OTHER, prompt, vote, vqa_study, write_questions
from tests.helpers import as_annotator, login


def page_url(study):
    return reverse("annotation:seed", args=[study.pk])


def create_url(study):
    return reverse("annotation:seed-answer-items", args=[study.pk])


def download_url(study):
    return reverse("annotation:seed-kept-prompts", args=[study.pk])


@pytest.fixture
def questions(owner):
    study = vqa_study(owner, "culturalvqa-question", "CulturalVQA questions")
    f.make_items(study, "IN", 3)
    return study


@pytest.fixture
def answers(owner):
    return vqa_study(owner, "culturalvqa-answer", "CulturalVQA answers")


@pytest.fixture
def written(questions):
    return write_questions(questions, AUTHOR, [
        {"question": ["What is this sweet called?"]}, {"question": ["Which festival uses these lamps?"]},
    ])


@pytest.fixture
def prompt_filter(owner):
    study = study_create_from_preset(owner=owner, preset="culturalframes-prompt-filter", name="Frames filter",
                                     status="open")
    f.make_pool(study, "IN", "India", annotations_per_item=3)
    f.make_pool(study, "JP", "Japan", annotations_per_item=3)
    for external_id, country, text, votes in (
        ("fp-1", "IN", "A family sharing thali at lunch", ["yes", "no", "yes"]),
        ("fp-2", "IN", "A man skiing to work", ["no", "yes", "no"]),
        ("fp-3", "JP", "Commuters on a crowded train", ["yes"]),
    ):
        vote(study, prompt(study, external_id, country, text), votes)
    return study


# --- what a protocol feeds (no database) -------------------------------------------------------


@pytest.mark.parametrize("preset, answer_items, kept_prompts, takes_answers", [
    ("culturalvqa-question", True, False, False),
    ("culturalvqa-answer", False, False, True),  # it shows a question: it answers, it does not write one
    ("culturalframes-prompt-filter", False, True, False),
    ("culturalframes-rating", False, False, False),  # its Yes/No question is about an image, among others
    ("globalrg-grounding", False, False, False),  # a Yes/No vote, but a photo and a box are asked too
    ("culturalvqa-judgment", False, False, False),  # shows a question but asks for no written answer
    ("caire-relevance", False, False, False),
])
def test_what_a_study_feeds_is_read_from_its_protocol(preset, answer_items, kept_prompts, takes_answers):
    spec = parse_spec(preset_load(preset))
    assert seeding.study_feeds(spec) == seeding.Feeds(answer_items=answer_items, kept_prompts=kept_prompts)
    assert seeding.takes_answer_items(spec) is takes_answers


# --- the study page's link -----------------------------------------------------------------------


def test_the_study_page_links_to_it_only_for_a_study_that_feeds_another(client, owner, questions, prompt_filter, study):
    login(client, owner)
    for source in (questions, prompt_filter):
        page = client.get(reverse("analysis:study-dashboard", args=[source.pk])).content.decode()
        assert f'href="{page_url(source)}">Feed another study' in page
    page = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert page_url(study) not in page


# --- CulturalVQA: answer items -------------------------------------------------------------------


def test_the_owner_creates_answer_items_once_and_again_only_the_new_ones(client, owner, questions, answers, written):
    login(client, owner)
    page = client.get(page_url(questions)).content.decode()
    assert "<strong>2</strong> questions written so far" in page
    assert f'<option value="{answers.pk}">CulturalVQA answers</option>' in page

    response = client.post(create_url(questions), {"target": answers.pk})

    assert response.status_code == 302 and response["Location"] == page_url(questions)
    assert "Created 2 answer item(s) in “CulturalVQA answers”." in client.get(page_url(questions)).content.decode()
    assert Item.objects.filter(study=answers).count() == 2
    again = client.post(create_url(questions), {"target": answers.pk}, follow=True).content.decode()
    assert "Nothing new: every question written is already an item of “CulturalVQA answers”." in again
    write_questions(questions, OTHER, [{"question": ["Who cooks this dish at weddings?"]}])
    said = client.post(create_url(questions), {"target": answers.pk}, follow=True).content.decode()
    assert "Created 1 answer item(s)" in said and Item.objects.filter(study=answers).count() == 3


def test_an_editor_creates_them_in_a_study_of_their_own(client, questions, written):
    editor = f.make_member(questions, "editor", "editor")
    theirs = vqa_study(editor, "culturalvqa-answer", "Editor's answers")

    login(client, editor)

    response = client.post(create_url(questions), {"target": theirs.pk})

    assert response.status_code == 302
    assert Item.objects.filter(study=theirs).count() == 2


def test_it_offers_only_the_researchers_own_studies_that_take_answers(client, owner, questions, answers, written,
                                                                      other_researcher, study):
    strangers = vqa_study(other_researcher, "culturalvqa-answer", "Someone else's answers")
    read_only = vqa_study(other_researcher, "culturalvqa-answer", "Shared read-only")
    StudyMember.objects.create(study=read_only, user=owner, role="viewer", created_by=other_researcher)
    login(client, owner)

    page = client.get(page_url(questions)).content.decode()

    assert "CulturalVQA answers" in page
    for absent in (strangers, read_only, study, questions):  # another's, read-only, no question shown, itself
        assert f'<option value="{absent.pk}"' not in page
    for target in (strangers, read_only, study, questions):
        refused = client.post(create_url(questions), {"target": target.pk})
        assert refused.status_code == 400
        assert "Choose one of your answer studies." in refused.content.decode()
        assert not Item.objects.filter(study=target, derived=True).exists()


def test_a_refusal_of_the_seeding_is_shown_and_changes_nothing(client, owner, questions, written):
    only_japan = study_create_from_preset(owner=owner, preset="culturalvqa-answer", name="Only Japan")
    f.make_pool(only_japan, "JP", "Japan")
    login(client, owner)

    refused = client.post(create_url(questions), {"target": only_japan.pk})

    assert refused.status_code == 400
    assert "Nothing was created: the target study has no pool for IN: add one, then seed again." in (
        refused.content.decode()
    )
    assert not Item.objects.filter(study=only_japan).exists()


def test_two_clicks_at_once_create_each_item_once_and_the_late_one_says_so(client, owner, questions, answers, written):
    """The second of two requests racing finds an item the first just made: it writes nothing."""
    first = written[0]
    raced = []

    def first_click_lands_now(execute, sql, params, many, context):
        if sql.startswith('INSERT INTO "studies_item"') and not raced:
            raced.append(first)  # before the insert of its own, which passes here too
            Item.objects.create(
                study=answers, external_id=seeding.answer_item_id(first.item.external_id, first.pk), country="IN",
                derived=True,
            )
        return execute(sql, params, many, context)

    login(client, owner)
    with connection.execute_wrapper(first_click_lands_now):
        refused = client.post(create_url(questions), {"target": answers.pk})

    assert raced and refused.status_code == 400
    assert "Nothing was created: another seeding of these studies ran at the same time" in refused.content.decode()
    copies = Path(Item._meta.get_field("image").storage.path(f"items/{answers.pk}"))
    assert [p for p in copies.rglob("*") if p.is_file()] == []  # the images it had copied are deleted


def test_it_says_when_no_study_of_the_researcher_takes_answers(client, owner, questions, written):
    login(client, owner)
    page = client.get(page_url(questions)).content.decode()
    assert "None of your studies can take answer items yet" in page
    assert "Create answer items" not in page


def test_a_viewer_reads_the_page_but_cannot_create(client, owner, questions, answers, written):
    viewer = f.make_member(questions, "viewer", "viewer")
    login(client, viewer)

    page = client.get(page_url(questions))

    assert page.status_code == 200 and "<strong>2</strong> questions written" in page.content.decode()
    assert "Create answer items" not in page.content.decode()
    refused = client.post(create_url(questions), {"target": answers.pk})
    assert refused.status_code == 403 and "Your role on this study is read-only" in refused.content.decode()
    assert not Item.objects.filter(study=answers).exists()


# --- CulturalFrames: the kept prompts ------------------------------------------------------------


def test_the_kept_prompts_are_counted_and_downloaded_as_the_command_writes_them(client, owner, prompt_filter,
                                                                              tmp_path):
    login(client, owner)
    page = client.get(page_url(prompt_filter)).content.decode()
    assert "<strong>1</strong> kept, 1 dropped,\n    1 still waiting for votes." in page
    assert 'name="min_yes" value="2"' in page and "A family sharing thali at lunch" in page
    assert "<strong>3</strong> kept, 0 dropped" in client.get(page_url(prompt_filter), {"min_yes": 1}).content.decode()

    response = client.get(download_url(prompt_filter), {"min_yes": 2})

    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="frames-filter_kept-prompts_20')
    body = b"".join(response.streaming_content)
    assert list(csv.DictReader(io.StringIO(body.decode()))) == [{
        "id": "fp-1", "prompt_id": "fp-1", "prompt": "A family sharing thali at lunch", "country": "IN",
        "category": "food", "image": "", "model": "", "yes_votes": "2", "no_votes": "1",
    }]
    seeding.seed_kept_prompts(source=prompt_filter, out=tmp_path / "kept.csv")
    assert body == (tmp_path / "kept.csv").read_bytes()  # one code path: the same bytes


@pytest.mark.parametrize("bad", ["0", "-1", "two", "", "1001"])
def test_it_refuses_a_number_of_yes_votes_that_is_not_one_or_more(client, owner, prompt_filter, bad):
    login(client, owner)
    for url in (page_url(prompt_filter), download_url(prompt_filter)):
        response = client.get(url, {"min_yes": bad})
        assert response.status_code == 400
        assert response["Content-Type"].startswith("text/html")
        assert 'class="errorlist' in response.content.decode()
        assert "kept-tally" not in response.content.decode()


def test_a_viewer_downloads_the_kept_prompts(client, prompt_filter):
    login(client, f.make_member(prompt_filter, "viewer", "viewer"))
    assert client.get(page_url(prompt_filter)).status_code == 200
    assert client.get(download_url(prompt_filter), {"min_yes": 2}).status_code == 200


# --- a study that feeds nothing, and who may come -------------------------------------------------


def test_a_study_that_feeds_nothing_says_so_and_refuses(client, owner, study, answers):
    login(client, owner)
    page = client.get(page_url(study))
    assert page.status_code == 200 and "feeds no other study" in page.content.decode()
    assert client.post(create_url(study), {"target": answers.pk}).status_code == 400
    assert not Item.objects.filter(study=answers).exists()
    assert client.get(download_url(study), {"min_yes": 2}).status_code == 400


def test_another_researcher_gets_404_on_every_address(client, other_researcher, questions, prompt_filter, answers):
    login(client, other_researcher)
    for study in (questions, prompt_filter):
        assert client.get(page_url(study)).status_code == 404
        assert client.get(download_url(study), {"min_yes": 2}).status_code == 404
        assert client.post(create_url(study), {"target": answers.pk}).status_code == 404
    assert not Item.objects.filter(study=answers).exists()


def test_a_visitor_and_an_annotator_are_sent_to_the_login_page(client, questions, answers, session):
    for who in ("visitor", "annotator"):
        if who == "annotator":
            as_annotator(client, session)
        for response in (
            client.get(page_url(questions)),
            client.get(download_url(questions)),
            client.post(create_url(questions), {"target": answers.pk}),
        ):
            assert response.status_code == 302 and response["Location"].startswith("/login/"), who
    assert not Item.objects.filter(study=answers).exists()


def test_the_kept_prompts_download_neutralises_a_prompt_a_spreadsheet_would_run(client, owner, prompt_filter):
    from studies.models import Item

    Item.objects.filter(study=prompt_filter, external_id="fp-1").update(prompt='＝HYPERLINK("https://evil.example")')
    Item.objects.filter(study=prompt_filter, external_id="fp-3").update(prompt="=1+1")
    login(client, owner)
    body = b"".join(client.get(download_url(prompt_filter), {"min_yes": 1}).streaming_content).decode()
    prompts = {row["id"]: row["prompt"] for row in csv.DictReader(io.StringIO(body))}
    assert prompts == {"fp-1": '\'＝HYPERLINK("https://evil.example")', "fp-2": "A man skiing to work", "fp-3": "'=1+1"}
