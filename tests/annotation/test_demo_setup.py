"""demo_setup: a demo study for every preset, built once, through the real import path."""

import io
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from studies.demo import demos_load
from studies.demo_images import images_generate
from studies.models import CountryPool, Document, Item, ItemQuota, MockQuestion, Study
from studies.services import presets_list
from studies.translations import localized

pytestmark = pytest.mark.django_db

FIXTURES = Path(django_settings.BASE_DIR) / "fixtures" / "demo"
NAMES = {
    "culturalframes-rating": "CulturalFrames demo",
    "culturalframes-prompt-filter": "CulturalFrames prompt filter demo",
    "caire-relevance": "CAIRE demo",
    "ravenea-doc-relevance": "RAVENEA documents demo",
    "ravenea-caption-choice": "RAVENEA captions demo",
    "globalrg-grounding": "GlobalRG demo",
    "culturalvqa-question": "CulturalVQA questions demo",
    "culturalvqa-answer": "CulturalVQA answers demo",
    "culturalvqa-judgment": "CulturalVQA judgment demo",
    "culturalframes-pairwise": "Pairwise fidelity demo",
    "culturalframes-best-worst": "Best-worst fidelity demo",
}


@pytest.fixture(scope="session")
def drawn_fixtures(tmp_path_factory):
    """A copy of the demo fixtures with their images drawn once, never inside the repository."""
    target = tmp_path_factory.mktemp("fixtures") / "demo"
    shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("images"))
    for demo in demos_load(target):
        images_generate(rows_file=demo.rows_file, folder=demo.folder / "images")
    return target


@pytest.fixture
def fixtures(drawn_fixtures, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path / "media"
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    return drawn_fixtures


def demo_setup(fixtures: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("demo_setup", *args, fixtures=fixtures, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    models = (Study, CountryPool, Item, Document, ItemQuota, MockQuestion, get_user_model())
    return {model.__name__: model.objects.count() for model in models}


# --- the CulturalFrames demo (the browser test walks through it) -------------------------------


def test_it_builds_the_culturalframes_demo_study(fixtures):
    out = demo_setup(fixtures)

    study = Study.objects.get(name="CulturalFrames demo")
    assert study.is_open and (study.items_per_session, study.lease_minutes, study.mock_attempts_allowed) == (5, 30, 2)
    codes = {study.code_completed, study.code_failed_mock, study.code_not_eligible, study.code_no_consent}
    assert len(codes) == 4
    assert "explicit" in study.instructions_md.lower() and "stereotype" in study.instructions_md.lower()
    pools = {pool.country: pool for pool in study.pools.all()}
    assert set(pools) == {"IN", "JP"}
    assert {pool.require_resident for pool in pools.values()} == {True, False}
    items = Item.objects.filter(study=study, is_example=False)
    assert items.count() >= 12
    for country, pool in pools.items():
        routed = items.filter(country=country)
        assert routed.count() >= 6
        assert ItemQuota.objects.filter(pool=pool, wanted=3).count() == routed.count()
    assert Item.objects.filter(study=study, is_example=True).count() == 2
    images = fixtures / "culturalframes-rating" / "images"
    assert len(list(images.glob("*.png"))) == Item.objects.filter(study=study).count()
    assert not Item.objects.filter(study=study).exclude(caption="").exists()  # the banner is not a caption
    assert "Imported 20 items (IN: 10, JP: 10), 2 of them practice-test examples" in out
    assert study.pk == Study.objects.order_by("pk").first().pk  # created first: id 1 on a fresh database


def test_the_culturalframes_demo_s_japan_pool_sees_every_text_in_japanese(fixtures):
    demo_setup(fixtures)

    study = Study.objects.get(name="CulturalFrames demo")
    assert study.pools.get(country="JP").language == "ja" and study.pools.get(country="IN").language == ""
    shown = localized(study, "ja")
    assert shown.fallbacks == () and shown.total > 30  # nothing falls back to English
    assert shown.spec.field("alignment").label == "画像はプロンプトに合っていますか？"
    assert "## 画像の評価のしかた" in shown.instructions_md and "\n" in shown.consent_md  # lines joined


def test_mock_questions_ask_about_examples_with_a_right_answer_among_the_choices(fixtures):
    demo_setup(fixtures)

    assert MockQuestion.objects.filter(study__name="CulturalFrames demo").count() == 2
    assert MockQuestion.objects.filter(study__name="RAVENEA documents demo").count() == 1
    for question in MockQuestion.objects.all():
        assert question.expected in question.choices
        assert question.item.is_example and question.item.study_id == question.study_id


# --- a demo per preset -------------------------------------------------------------------------


def test_there_is_a_demo_for_every_preset(fixtures):
    assert {demo.preset for demo in demos_load(fixtures)} == {preset.name for preset in presets_list()} == set(NAMES)


def test_it_builds_a_demo_study_for_every_preset_with_quotas_for_every_item(fixtures):
    out = demo_setup(fixtures)

    for preset in presets_list():
        study = Study.objects.get(name=NAMES[preset.name])
        assert study.protocol == preset.protocol and study.is_open
        assert f"{study.name}  (preset {preset.name}, study id {study.pk})" in out
        pools = list(study.pools.order_by("country"))
        assert [p.country for p in pools] == ["IN", "JP"]
        items = Item.objects.filter(study=study, is_example=False)
        for pool in pools:
            routed = items if study.routing == "all_pools" else items.filter(country=pool.country)
            assert ItemQuota.objects.filter(pool=pool).count() == routed.count() > 0
            if preset.name != "culturalframes-rating":
                assert 4 <= routed.count() <= 6, (study.name, pool.country)
        if preset.name != "culturalframes-rating":
            assert study.items_per_session == 3  # a short walk


def test_the_demo_items_carry_what_their_protocol_shows(fixtures):
    demo_setup(fixtures)

    def items(name):
        return Item.objects.filter(study__name=name, is_example=False)

    assert all(i.image and i.width for i in items("CAIRE demo"))
    assert all(not i.image and i.prompt for i in items("CulturalFrames prompt filter demo"))
    assert all(not i.image and i.prompt for i in items("GlobalRG demo"))  # the annotator uploads the image
    for item in items("RAVENEA documents demo"):
        documents = list(item.documents.all())
        assert item.caption and len(documents) == 3
        assert all(d.title and d.text and urlsplit(d.url).scheme == "https" for d in documents)
    for item in items("RAVENEA captions demo"):
        assert len(item.candidates) == 3 and len({c["id"] for c in item.candidates}) == 3
    assert all(i.texts.get("background") for i in items("CulturalVQA questions demo"))
    for item in items("CulturalVQA answers demo"):
        assert item.texts.get("question") and item.author_pid.startswith("demoauthor")
    for item in items("CulturalVQA judgment demo"):
        assert {"question", "reference", "answer"} <= set(item.texts) and item.model_name


def test_every_demo_link_carries_its_own_participant_and_session(fixtures):
    out = demo_setup(fixtures)

    pids = re.findall(r"PROLIFIC_PID=([^&\s]+)&", out)
    sessions = re.findall(r"SESSION_ID=([^&\s]+)", out)
    assert len(pids) == CountryPool.objects.count() == len(sessions) > 2 * len(NAMES) - 1
    assert len(set(pids)) == len(pids) and len(set(sessions)) == len(sessions)  # no two links share one
    assert all(f"participant {pid}: " in out for pid in pids)  # each printed beside its link
    assert re.findall(r"PROLIFIC_PID=([^&\s]+)&", demo_setup(fixtures)) == pids  # the same on a rerun


def test_a_demo_walker_is_never_the_author_of_an_answer_item(fixtures):
    out = demo_setup(fixtures)

    authors = set(Item.objects.exclude(author_pid="").values_list("author_pid", flat=True))
    assert authors and not any(f"PROLIFIC_PID={pid}&" in out for pid in authors)


def test_the_answer_items_can_be_leased_by_a_walker_of_each_pool(fixtures):
    from annotation.services import assignment_next
    from tests import factories as f

    demo_setup(fixtures)

    for pool in CountryPool.objects.filter(study__name="CulturalVQA answers demo"):
        assignment = assignment_next(session=f.make_session(f.make_annotator(pool)))
        assert assignment is not None and assignment.item.country == pool.country


# --- idempotence, reset, links, password -------------------------------------------------------


def test_it_runs_twice_without_duplicating_anything(fixtures):
    demo_setup(fixtures)
    before = counts()

    out = demo_setup(fixtures)

    assert counts() == before and before["Study"] == len(NAMES)
    assert out.count("exists; --reset recreates it") == len(NAMES)


def test_it_creates_only_the_demo_studies_that_are_missing(fixtures):
    demo_setup(fixtures)
    before = counts()
    Study.objects.get(name="GlobalRG demo").delete()

    out = demo_setup(fixtures)

    assert counts() == before
    assert "Created the demo study 'GlobalRG demo'" in out and out.count("exists;") == len(NAMES) - 1


def test_reset_recreates_every_demo_study(fixtures):
    demo_setup(fixtures)
    old = set(Study.objects.values_list("pk", flat=True))
    before = counts()

    out = demo_setup(fixtures, "--reset")

    assert not Study.objects.filter(pk__in=old).exists()
    assert counts() == before
    assert out.count("Deleted the demo study") == len(NAMES)
    assert "(id None)" not in out


def test_one_demo_folder_can_be_set_up_alone(fixtures):
    out = demo_setup(fixtures / "caire-relevance")

    assert list(Study.objects.values_list("name", flat=True)) == ["CAIRE demo"]
    assert "Imported 6 items (IN: 3, JP: 3)" in out


def test_the_researcher_can_log_in_and_the_links_are_printed(fixtures, client):
    out = demo_setup(fixtures)

    assert client.login(username="researcher", password="tessera-demo")
    assert "http://127.0.0.1:8000/login/" in out and "tessera-demo" in out
    for study in Study.objects.all():
        for pool in study.pools.order_by("country"):
            pid = f"demo{pool.pk:019d}"
            line = f"{pool.country_name} ({pool.country}), participant {pid}: http://127.0.0.1:8000/join/{pool.entry_key}/"
            assert f"{line}?PROLIFIC_PID={pid}&STUDY_ID=demostudy&SESSION_ID=demosession{pool.pk}" in out
    # grouped by study: each study's heading comes before its own links
    heading = out.index("CAIRE demo  (preset caire-relevance")
    caire_pool = CountryPool.objects.get(study__name="CAIRE demo", country="IN")
    assert heading < out.index(str(caire_pool.entry_key))


def test_the_password_comes_from_the_environment_and_is_not_printed(fixtures, client, monkeypatch):
    monkeypatch.setenv("DEMO_PASSWORD", "a-local-secret-9")

    out = demo_setup(fixtures)

    assert client.login(username="researcher", password="a-local-secret-9")
    assert "a-local-secret-9" not in out


def test_reset_also_deletes_a_demo_study_that_has_annotations(fixtures):
    from annotation.models import Annotation
    from annotation.services import annotation_submit, assignment_next
    from tests import factories as f

    demo_setup(fixtures)
    before = counts()
    annotator = f.make_annotator(CountryPool.objects.get(study__name="CulturalFrames demo", country="IN"))
    assignment = assignment_next(session=f.make_session(annotator))
    assert annotation_submit(assignment=assignment, data=f.valid_answers()).annotation is not None

    demo_setup(fixtures, "--reset")

    assert not Annotation.objects.exists()
    assert counts() == before


def test_it_refuses_a_folder_without_demos(tmp_path):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="no study.json"):
        demo_setup(tmp_path)
