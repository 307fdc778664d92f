"""Builders for the fixed cast and its study. Plain functions so any test can compose them."""

import hashlib
import io
import itertools

from django.core.files.base import ContentFile
from django.utils import timezone
from PIL import Image

from annotation.models import Annotator, Session
from studies.models import CountryPool, Item, MockQuestion, Study
from studies.services import preset_load, quotas_for_items, researcher_create, study_create

_counter = itertools.count(1)


def png_bytes(color=(200, 80, 40), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def make_researcher(username: str):
    return researcher_create(username=username, password="pass-for-tests-1")


def make_study(owner, *, name="CulturalFrames rating", status=Study.Status.OPEN, **settings) -> Study:
    defaults = dict(
        status=status,
        consent_md="You agree that your answers are used for research.",
        instructions_md="Rate each image. **Be careful.**",
        code_completed="C0MPLETE",
        code_failed_mock="FAILMOCK",
        code_not_eligible="NOTELIG",
        code_no_consent="NOCONSENT",
        mock_attempts_allowed=2,
    )
    defaults.update(settings)
    return study_create(owner=owner, name=name, protocol=preset_load("culturalframes-rating"), **defaults)


def make_pool(study, country="IN", country_name="India", **settings) -> CountryPool:
    return CountryPool.objects.create(study=study, country=country, country_name=country_name, **settings)


def make_item(study, country="IN", *, prompt="A family sharing a meal at a festival", example=False, **fields) -> Item:
    n = next(_counter)
    data = png_bytes(color=(n * 37 % 256, n * 91 % 256, n * 53 % 256), size=(64, 48))
    sha = hashlib.sha256(data).hexdigest()
    item = Item(
        study=study,
        external_id=fields.pop("external_id", f"item-{n}"),
        country=country,
        prompt=prompt,
        model_name=fields.pop("model_name", "model-a"),
        category=fields.pop("category", "festival"),
        sha256=sha,
        width=64,
        height=48,
        is_example=example,
        **fields,
    )
    item.image.save(f"{sha}.png", ContentFile(data), save=False)
    item.save()
    return item


def make_items(study, country="IN", n=3, **fields) -> list[Item]:
    items = [make_item(study, country, **fields) for _ in range(n)]
    quotas_for_items(items=items)
    return items


def make_mock_question(study, *, text="Does this image match the prompt?", expected="No") -> MockQuestion:
    example = make_item(study, example=True, prompt="A red bicycle")
    return MockQuestion.objects.create(
        study=study, item=example, text=text, choices=["No", "Partially", "Completely"], expected=expected
    )


def make_annotator(pool, pid=None, *, onboarded=True) -> Annotator:
    now = timezone.now()
    pid = pid or f"pid{next(_counter):021d}"
    annotator = Annotator.objects.create(study=pool.study, pool=pool, prolific_pid=pid)
    if onboarded:
        annotator.consented_at = annotator.eligible_at = annotator.instructions_read_at = now
        annotator.mock_passed_at = now
        annotator.save()
    return annotator


def make_session(annotator, session_id=None) -> Session:
    return Session.objects.create(
        annotator=annotator,
        prolific_session_id=session_id or f"sess{next(_counter)}",
        prolific_study_id="STUDY1",
        items_target=annotator.study.items_per_session,
    )


def valid_answers(**overrides) -> dict[str, list[str]]:
    """A complete, valid CulturalFrames rating as an HTML form would post it."""
    data = {
        "alignment": ["0.5"],
        "error_types": ["explicit"],
        "words": ["1"],
        "explanation": ["The festival food is missing entirely."],
        "stereotype": ["no"],
        "quality": ["1"],
        "overall": ["3"],
    }
    data.update({k: v if isinstance(v, list) else [v] for k, v in overrides.items()})
    return data
