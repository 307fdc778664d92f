"""Seeding: written questions become answer items; the prompts a filter kept go to a file."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.utils import timezone

from annotation import seeding
from annotation.models import Assignment
from annotation.services import annotation_submit, assignment_next
from studies.models import Item, ItemQuota
from studies.protocol import parse_spec
from studies.services import preset_load, quotas_for_items, study_create_from_preset
from tests import factories as f

pytest_db = pytest.mark.django_db  # the decision tests need no database

# --- decisions (no database) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "votes, kept",
    [
        (["yes", "yes", "yes"], True),
        (["yes", "yes", "no"], True),
        (["no", "yes", "yes"], True),
        (["yes", "no", "no"], False),
        (["no", "no", "no"], False),
        (["yes", "yes"], True),  # the third vote cannot change it
        (["yes"], False),
        ([], False),
        ([True, "Yes", 0], True),  # whatever the choice values are
        (["yes", "maybe", "no"], False),
    ],
)
def test_a_prompt_is_kept_when_at_least_two_say_yes(votes, kept):
    assert seeding.prompt_kept(votes) is kept


def test_the_number_of_yes_votes_that_keeps_a_prompt_can_be_set():
    assert seeding.prompt_kept(["yes", "yes", "no"], min_yes=3) is False
    assert seeding.prompt_kept(["yes", "no", "no"], min_yes=1) is True


@pytest.mark.parametrize(
    "yes, no, wanted, decision",
    [
        (2, 0, 3, "kept"),
        (2, 1, 3, "kept"),
        (3, 0, 3, "kept"),
        (0, 2, 3, "dropped"),
        (1, 2, 3, "dropped"),
        (1, 1, 3, "pending"),
        (0, 1, 3, "pending"),
        (0, 0, 3, "pending"),
        (1, 0, 1, "dropped"),  # one annotator per prompt can never reach two Yes
    ],
)
def test_a_prompt_is_decided_once_the_votes_to_come_cannot_change_it(yes, no, wanted, decision):
    assert seeding.prompt_decision(yes=yes, no=no, wanted=wanted, min_yes=2) == decision


def test_the_fields_read_from_the_presets():
    assert seeding.vote_field(parse_spec(preset_load("culturalframes-prompt-filter"))) == "fits_culture"
    assert seeding.question_field(parse_spec(preset_load("culturalvqa-question"))) == "question"
    with pytest.raises(seeding.SeedError, match="no Yes/No choice field"):
        seeding.vote_field(parse_spec(preset_load("caire-relevance")))
    with pytest.raises(seeding.SeedError, match="no text field 'question'"):
        seeding.question_field(parse_spec(preset_load("culturalframes-rating")))


def test_an_answer_item_id_names_its_question_and_fits_the_column():
    assert seeding.answer_item_id("img-7", 42) == "img-7-q42"
    long = seeding.answer_item_id("x" * 200, 42)
    assert len(long) == 200 and long.endswith("-q42")


# --- CulturalVQA: questions become answer items -------------------------------------------------

AUTHOR, OTHER, THIRD = "pidauthor0000000000000001", "pidother00000000000000002", "pidthird00000000000000003"


def vqa_study(owner, preset, name, items_per_session=10):
    study = study_create_from_preset(owner=owner, preset=preset, name=name, status="open",
                                     items_per_session=items_per_session)
    f.make_pool(study, "IN", "India")
    f.make_pool(study, "JP", "Japan")
    return study


def write_questions(study, pid, answers: list[dict]):
    """The annotator ``pid`` of India takes items one by one and submits each of ``answers``."""
    annotator = f.make_annotator(study.pools.get(country="IN"), pid)
    session = f.make_session(annotator)
    written = []
    for data in answers:
        assignment = assignment_next(session=session)
        result = annotation_submit(assignment=assignment, data=data)
        assert result.annotation is not None, result.validation.errors
        written.append(result.annotation)
    return written


@pytest.fixture
def questions(owner, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    study = vqa_study(owner, "culturalvqa-question", "CulturalVQA questions")
    f.make_items(study, "IN", 3)
    f.make_items(study, "JP", 1)
    return study


@pytest.fixture
def answers(owner):
    return vqa_study(owner, "culturalvqa-answer", "CulturalVQA answers", items_per_session=3)


SKIPPED = {"_skip": ["I am not familiar with what it shows"]}


@pytest_db
def test_every_written_question_becomes_an_answer_item(questions, answers):
    written = write_questions(questions, AUTHOR, [
        {"question": ["What is this sweet called?"]}, SKIPPED, {"question": ["Which festival uses these lamps?"]},
    ])

    created = seeding.seed_answer_items(source=questions, target=answers)

    assert created == 2  # the skipped image is not seeded
    items = {item.texts["question"]: item for item in Item.objects.filter(study=answers)}
    assert set(items) == {"What is this sweet called?", "Which festival uses these lamps?"}
    first = written[0]
    item = items["What is this sweet called?"]
    assert item.external_id == f"{first.item.external_id}-q{first.pk}"
    assert (item.author_pid, item.source_id, item.country) == (AUTHOR, first.item_id, "IN")
    assert item.image.name != first.item.image.name  # the target study owns a copy
    assert item.image.name.startswith(f"items/{answers.pk}/")
    assert (item.width, item.height, item.sha256) == (first.item.width, first.item.height, first.item.sha256)
    assert item.image.read() == first.item.image.read()
    pool = answers.pools.get(country="IN")
    assert set(ItemQuota.objects.filter(item__study=answers).values_list("pool", "wanted")) == {
        (pool.pk, pool.annotations_per_item)
    }


@pytest_db
def test_the_seeded_copies_get_their_lighter_copies(questions, answers, django_capture_on_commit_callbacks):
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])
    with django_capture_on_commit_callbacks(execute=True):
        assert seeding.seed_answer_items(source=questions, target=answers) == 1
    [item] = Item.objects.filter(study=answers)
    assert item.derived_widths == []  # recorded: the small demo image needs none


@pytest_db
def test_two_questions_on_one_image_share_one_copy_that_outlives_the_source(
    questions, answers, django_capture_on_commit_callbacks
):
    from studies.services import study_delete

    image = questions.items.filter(country="IN").first()
    for pid, text in ((AUTHOR, "What is this sweet called?"), ("5f0000000000000000000002", "Who makes it?")):
        annotator = f.make_annotator(questions.pools.get(country="IN"), pid)
        assignment = Assignment.objects.create(
            session=f.make_session(annotator), annotator=annotator, item=image, pool=annotator.pool, position=1,
            leased_at=timezone.now(), expires_at=timezone.now() + timedelta(minutes=30),
        )
        ItemQuota.objects.filter(item=image).update(leased=F("leased") + 1)  # the lease a real one takes
        assert annotation_submit(assignment=assignment, data={"question": [text]}).annotation

    assert seeding.seed_answer_items(source=questions, target=answers) == 2

    seeded = list(Item.objects.filter(study=answers))
    assert len({i.image.name for i in seeded}) == 1
    with django_capture_on_commit_callbacks(execute=True):
        study_delete(study=questions)
    assert seeded[0].image.storage.exists(seeded[0].image.name)


@pytest_db
def test_seeding_twice_creates_only_what_was_written_since(questions, answers):
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])
    assert seeding.seed_answer_items(source=questions, target=answers) == 1

    assert seeding.seed_answer_items(source=questions, target=answers) == 0
    write_questions(questions, OTHER, [{"question": ["Who cooks this dish at weddings?"]}])
    assert seeding.seed_answer_items(source=questions, target=answers) == 1

    assert Item.objects.filter(study=answers).count() == 2
    assert ItemQuota.objects.filter(item__study=answers).count() == 2


@pytest_db
def test_the_author_never_gets_their_own_question_and_another_annotator_does(questions, answers):
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])
    write_questions(questions, OTHER, [{"question": ["Which festival uses these lamps?"]}])
    seeding.seed_answer_items(source=questions, target=answers)
    india = answers.pools.get(country="IN")

    author = f.make_session(f.make_annotator(india, AUTHOR))
    got = assignment_next(session=author)
    assert got.item.author_pid == OTHER  # the only question they may answer
    assert annotation_submit(assignment=got, data={"answer": ["Diya"]}).annotation is not None
    assert assignment_next(session=author) is None  # only their own question is left

    third = f.make_session(f.make_annotator(india, THIRD))
    first = assignment_next(session=third)
    annotation_submit(assignment=first, data={"answer": ["Laddoo"]})
    second = assignment_next(session=third)
    assert {first.item.author_pid, second.item.author_pid} == {AUTHOR, OTHER}


@pytest_db
def test_answer_items_go_to_the_pool_of_their_country_only(questions, answers):
    japan = questions.pools.get(country="JP")
    session = f.make_session(f.make_annotator(japan, OTHER))
    annotation_submit(
        assignment=assignment_next(session=session), data={"question": ["What is this shrine gate called?"]}
    )

    seeding.seed_answer_items(source=questions, target=answers)

    item = Item.objects.get(study=answers)
    assert item.country == "JP"
    assert list(ItemQuota.objects.filter(item=item).values_list("pool__country", flat=True)) == ["JP"]


@pytest_db
def test_it_refuses_a_target_without_the_pool_of_a_question(questions, owner):
    target = study_create_from_preset(owner=owner, preset="culturalvqa-answer", name="Only Japan")
    f.make_pool(target, "JP", "Japan")
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])

    with pytest.raises(seeding.SeedError, match="no pool for IN"):
        seeding.seed_answer_items(source=questions, target=target)
    assert not Item.objects.filter(study=target).exists()


@pytest_db
def test_it_refuses_a_target_that_routes_to_every_pool_and_the_same_study(questions, answers):
    answers.routing = "all_pools"
    answers.save()
    with pytest.raises(seeding.SeedError, match="pool of their country"):
        seeding.seed_answer_items(source=questions, target=answers)
    with pytest.raises(seeding.SeedError, match="two studies"):
        seeding.seed_answer_items(source=questions, target=questions)


@pytest_db
def test_the_command_seeds_answer_items(questions, answers):
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])
    out = io.StringIO()

    call_command(
        "seed_study", "--from", str(questions.pk), "--to", str(answers.pk), "--kind", "vqa-answers", stdout=out
    )

    assert "Created 1 answer item(s) in 'CulturalVQA answers'" in out.getvalue()
    with pytest.raises(CommandError, match="--to needs --kind"):
        call_command("seed_study", "--from", str(questions.pk), "--to", str(answers.pk))
    with pytest.raises(CommandError, match="either --to TARGET --kind KIND or --kept-prompts FILE"):
        call_command("seed_study", "--from", str(questions.pk))
    with pytest.raises(CommandError, match="no study with id 999999"):
        call_command("seed_study", "--from", "999999", "--to", str(answers.pk), "--kind", "vqa-answers")


# --- CulturalFrames: the prompts the filter kept ----------------------------------------------


@pytest.fixture
def prompt_filter(owner):
    study = study_create_from_preset(owner=owner, preset="culturalframes-prompt-filter", status="open")
    f.make_pool(study, "IN", "India", annotations_per_item=3)
    f.make_pool(study, "JP", "Japan", annotations_per_item=3)
    return study


def prompt(study, external_id, country, text):
    item = Item.objects.create(study=study, external_id=external_id, country=country, prompt=text, category="food")
    quotas_for_items(items=[item])
    return item


def vote(study, item, votes: list[str]):
    pool = study.pools.get(country=item.country)
    for answer in votes:
        session = f.make_session(f.make_annotator(pool))
        assignment = assignment_next(session=session)
        assert assignment.item == item
        assert annotation_submit(assignment=assignment, data={"fits_culture": [answer]}).annotation is not None


@pytest_db
def test_the_kept_prompts_are_written_for_the_researcher_to_complete(prompt_filter, tmp_path):
    for external_id, country, text, votes in (
        ("fp-1", "IN", "A family sharing thali at lunch", ["yes", "no", "yes"]),
        ("fp-2", "IN", "A man skiing to work", ["no", "yes", "no"]),
        ("fp-3", "JP", "Commuters on a crowded train", ["yes"]),
    ):  # one prompt at a time, so each vote lands on the prompt just added
        vote(prompt_filter, prompt(prompt_filter, external_id, country, text), votes)
    out = tmp_path / "kept.csv"

    report = seeding.seed_kept_prompts(source=prompt_filter, out=out)

    assert (report.kept, report.dropped, report.pending) == (1, 1, 1)
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows == [{
        "id": "fp-1", "prompt_id": "fp-1", "prompt": "A family sharing thali at lunch", "country": "IN",
        "category": "food", "image": "", "model": "", "yes_votes": "2", "no_votes": "1",
    }]


@pytest_db
def test_the_kept_prompts_import_into_a_rating_study_once_images_are_added(prompt_filter, owner, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    vote(prompt_filter, prompt(prompt_filter, "fp-1", "IN", "A family sharing thali at lunch"), ["yes", "yes"])
    out = tmp_path / "kept.jsonl"
    call_command("seed_study", "--from", str(prompt_filter.pk), "--kept-prompts", str(out), stdout=io.StringIO())
    [line] = [json.loads(text) for text in out.read_text().splitlines()]
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(f.png_bytes())
    out.write_text(json.dumps({**line, "id": "fp-1-a", "image": "a.png", "model": "model-a"}) + "\n")
    rating = study_create_from_preset(owner=owner, preset="culturalframes-rating")
    f.make_pool(rating, "IN", "India")

    call_command("import_items", str(rating.pk), str(out), images=str(tmp_path / "images"), stdout=io.StringIO())

    item = Item.objects.get(study=rating)
    assert (item.prompt, item.model_name, item.category) == ("A family sharing thali at lunch", "model-a", "food")
    assert item.metadata == {"prompt_id": "fp-1", "yes_votes": 2, "no_votes": 0}


@pytest_db
def test_the_command_refuses_a_source_without_votes_to_count(questions, tmp_path):
    with pytest.raises(CommandError, match="Nothing seeded: the source study's protocol has no Yes/No choice field"):
        call_command("seed_study", "--from", str(questions.pk), "--kept-prompts", str(tmp_path / "kept.csv"))
    with pytest.raises(CommandError, match="write to a .csv or .jsonl file"):
        call_command("seed_study", "--from", str(questions.pk), "--kept-prompts", str(tmp_path / "kept.txt"))
