"""demo_setup: builds the CulturalFrames demo once, through the real import path."""

import io
import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from studies.models import CountryPool, Item, ItemQuota, MockQuestion, Study

pytestmark = pytest.mark.django_db

FIXTURES = Path(django_settings.BASE_DIR) / "fixtures" / "demo"


@pytest.fixture
def fixtures(tmp_path, settings, monkeypatch):
    """A copy of the demo fixtures, so drawing the images never writes into the repository."""
    settings.MEDIA_ROOT = tmp_path / "media"
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    target = tmp_path / "demo"
    target.mkdir()
    for name in ("study.json", "items.csv"):
        shutil.copy(FIXTURES / name, target / name)
    return target


def demo_setup(fixtures: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("demo_setup", *args, fixtures=fixtures, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    models = (Study, CountryPool, Item, ItemQuota, MockQuestion, get_user_model())
    return {model.__name__: model.objects.count() for model in models}


def test_it_builds_the_demo_study(fixtures):
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
    assert len(list(fixtures.glob("images/*.png"))) == Item.objects.filter(study=study).count()
    assert "Imported 20 items (IN: 10, JP: 10), 2 of them mock-test examples" in out


def test_mock_questions_ask_about_examples_with_a_right_answer_among_the_choices(fixtures):
    demo_setup(fixtures)

    questions = list(MockQuestion.objects.all())
    assert len(questions) == 2
    for question in questions:
        assert question.expected in question.choices
        assert question.item.is_example


def test_it_runs_twice_without_duplicating_anything(fixtures):
    demo_setup(fixtures)
    before = counts()

    out = demo_setup(fixtures)

    assert counts() == before
    assert "exists; --reset recreates it" in out


def test_reset_recreates_the_study(fixtures):
    demo_setup(fixtures)
    old = Study.objects.get()
    before = counts()

    demo_setup(fixtures, "--reset")

    assert not Study.objects.filter(pk=old.pk).exists()
    assert counts() == before


def test_the_researcher_can_log_in_and_the_links_are_printed(fixtures, client):
    out = demo_setup(fixtures)

    assert client.login(username="researcher", password="tessera-demo")
    assert "http://127.0.0.1:8000/login/" in out and "tessera-demo" in out
    for number, pool in enumerate(CountryPool.objects.order_by("country"), start=1):
        assert f"/join/{pool.entry_key}/?PROLIFIC_PID=demo{number:019d}&STUDY_ID=demostudy" in out


def test_the_password_comes_from_the_environment_and_is_not_printed(fixtures, client, monkeypatch):
    monkeypatch.setenv("DEMO_PASSWORD", "a-local-secret-9")

    out = demo_setup(fixtures)

    assert client.login(username="researcher", password="a-local-secret-9")
    assert "a-local-secret-9" not in out


def test_reset_also_deletes_a_demo_study_that_has_annotations(fixtures):
    from annotation.models import Annotation
    from annotation.services import annotation_submit, assignment_current
    from tests import factories as f

    demo_setup(fixtures)
    annotator = f.make_annotator(CountryPool.objects.get(country="IN"))
    assignment = assignment_current(session=f.make_session(annotator))
    assert annotation_submit(assignment=assignment, data=f.valid_answers()).annotation is not None

    demo_setup(fixtures, "--reset")

    assert not Annotation.objects.exists()
    assert Study.objects.count() == 1 and Item.objects.count() == 20
