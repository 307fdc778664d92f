"""Builders for the fixed cast and its study. Plain functions so any test can compose them."""

import hashlib
import io
import itertools

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from annotation.models import Annotation, Annotator, Assignment, Checker, Session, Upload
from annotation.services import annotation_submit, assignment_next
from studies.models import CountryPool, Document, Item, ItemImage, MockQuestion, Study
from studies.services import (
    preset_load,
    quotas_for_items,
    researcher_create,
    study_create,
    study_create_from_preset,
)

_counter = itertools.count(1)


def png_bytes(color=(200, 80, 40), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def make_researcher(username: str):
    return researcher_create(username=username, password="pass-for-tests-1")


def make_study(owner, *, name="CulturalFrames rating", status=Study.Status.OPEN, **settings) -> Study:
    defaults = {
        "status": status,
        "consent_md": "You agree that your answers are used for research.",
        "instructions_md": "Rate each image. **Be careful.**",
        "code_completed": "C0MPLETE",
        "code_failed_mock": "FAILMOCK",
        "code_not_eligible": "NOTELIG",
        "code_no_consent": "NOCONSENT",
        "code_all_skipped": "ALLSKIP",
        "code_failed_check": "FAILCHECK",
        "mock_attempts_allowed": 2,
    }
    defaults.update(settings)
    return study_create(owner=owner, name=name, protocol=preset_load("culturalframes-rating"), **defaults)


def make_pool(study, country="IN", country_name="India", **settings) -> CountryPool:
    return CountryPool.objects.create(study=study, country=country, country_name=country_name, **settings)


def make_item(
    study, country="IN", *, prompt="A family sharing a meal at a festival", example=False, size=(64, 48), **fields
) -> Item:
    n = next(_counter)
    data = png_bytes(color=(n * 37 % 256, n * 91 % 256, n * 53 % 256), size=size)
    sha = hashlib.sha256(data).hexdigest()
    item = Item(
        study=study,
        external_id=fields.pop("external_id", f"item-{n}"),
        country=country,
        prompt=prompt,
        model_name=fields.pop("model_name", "model-a"),
        category=fields.pop("category", "festival"),
        sha256=sha,
        width=size[0],
        height=size[1],
        is_example=example,
        **fields,
    )
    item.image.save(f"{sha}.png", ContentFile(data), save=False)
    item.save()
    return item


def make_comparison_item(study, country="IN", *, models=("model-a", "model-b"), size=(64, 48), **fields) -> Item:
    """An item of several images (a comparison's), image n made by ``models[n - 1]``, with no
    image of its own."""
    n = next(_counter)
    item = Item.objects.create(
        study=study, external_id=fields.pop("external_id", f"pair-{n}"), country=country,
        prompt=fields.pop("prompt", "A family sharing a meal at a festival"), **fields,
    )
    for position, model in enumerate(models, start=1):
        data = png_bytes(color=(n * 37 % 256, position * 91 % 256, n * 53 % 256), size=size)
        image = ItemImage(item=item, position=position, width=size[0], height=size[1],
                          sha256=hashlib.sha256(data).hexdigest(), model_name=model, params={"seed": position})
        image.image.save(f"{image.sha256}.png", ContentFile(data), save=False)
        image.save()
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
        annotator.mock_passed_at = annotator.cleared_at = now
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


# The answers of ``valid_answers`` to the reviewed questions, as a checker's form posts them.
AS_GIVEN = {"alignment": ["0.5"], "stereotype": ["no"], "quality": ["1"], "overall": ["3"]}

PASSWORD = "pass-for-tests-1"

# The seed presets, in the order the presets page lists them.
PRESET_NAMES = [
    "caire-relevance", "culturalframes-prompt-filter", "culturalframes-rating",
    "ravenea-doc-relevance", "ravenea-caption-choice", "globalrg-grounding",
    "culturalvqa-question", "culturalvqa-answer", "culturalvqa-judgment",
    "culturalframes-pairwise", "culturalframes-best-worst",
]


def entry_url(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e", study_id="STUDY1", session_id="SESSION1"):
    """The pool's entry link as Prolific sends a participant to it (a path, for the test client)."""
    url = reverse("annotation:entry", kwargs={"key": pool.entry_key})
    return f"{url}?PROLIFIC_PID={pid}&STUDY_ID={study_id}&SESSION_ID={session_id}"


def make_leased(pool) -> tuple[Annotator, Assignment]:
    """A fresh annotator of ``pool`` in a session, holding the lease of their first item."""
    annotator = make_annotator(pool)
    return annotator, assignment_next(session=make_session(annotator))


def make_upload(assignment, name="u.png") -> Upload:
    """An image the annotator of ``assignment`` uploaded for it."""
    data = png_bytes()
    return Upload.objects.create(
        study=assignment.pool.study, assignment=assignment, file=ContentFile(data, name=name), suffix=".png",
        original_name=name, width=64, height=48, sha256=hashlib.sha256(data).hexdigest(),
    )


def make_checker(pool, username: str, **fields):
    """A user account that checks ``pool``'s annotations."""
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    Checker.objects.create(pool=pool, user=user, **fields)
    return user


def annotate_pool(pool, *, annotators: int = 1, pid: str | None = None, **answers) -> list[Annotation]:
    """Fresh annotators of ``pool`` each annotate every item they are given in one session,
    through the annotator's services (leases and submits)."""
    out = []
    for n in range(annotators):
        session = make_session(make_annotator(pool, pid if n == 0 else None))
        while (assignment := assignment_next(session=session)) is not None:
            out.append(annotation_submit(assignment=assignment, data=valid_answers(**answers)).annotation)
    return out


# --- RAVENEA: documents and their per-document questions --------------------------------------

DOCUMENTS = [
    ("Diwali", "https://en.wikipedia.org/wiki/Diwali", "Diwali is the Hindu festival of lights."),
    ("Candle", "https://en.wikipedia.org/wiki/Candle", "A candle is an ignitable wick embedded in wax."),
]

RAVENEA_ANSWERS = {
    "caption_correct": "yes",
    "documents.0.country": "yes", "documents.0.topic": "yes", "documents.0.visual": "yes",
    "documents.1.country": "cannot_determine", "documents.1.topic": "no", "documents.1.visual": "no",
    "missing_documents.title": "Rangoli", "missing_documents.url": "https://en.wikipedia.org/wiki/Rangoli",
}


def ravenea(owner):
    """An open RAVENEA document-relevance study with an India pool and two items of two documents."""
    study = study_create_from_preset(owner=owner, preset="ravenea-doc-relevance", status=Study.Status.OPEN)
    pool = make_pool(study, "IN", "India")
    items = [make_item(study, "IN", caption="A woman lights diyas on her doorstep for Diwali.") for _ in range(2)]
    for item in items:
        Document.objects.bulk_create(
            Document(item=item, position=i, title=t, url=u, text=x) for i, (t, u, x) in enumerate(DOCUMENTS)
        )
    quotas_for_items(items=items)
    return study, pool


def annotate_ravenea(pool) -> list[Annotation]:
    """One annotator of ``pool`` answers every RAVENEA item with ``RAVENEA_ANSWERS``."""
    session = make_session(make_annotator(pool))
    out = []
    while (a := assignment_next(session=session)) is not None:
        out.append(annotation_submit(assignment=a, data={k: [v] for k, v in RAVENEA_ANSWERS.items()}).annotation)
    return out


def admin_study_form(**overrides):
    """The admin's add-study form, filled in, as a browser posts it."""
    data = {
        "name": "New study", "status": "draft", "prolific_study_id": "",
        "items_per_session": 5, "lease_minutes": 30, "mock_attempts_allowed": 2,
        "code_completed": "AAA", "code_failed_mock": "BBB", "code_not_eligible": "CCC", "code_no_consent": "DDD",
        "consent_md": "", "instructions_md": "",
        "protocol": '{"fields": [{"key": "overall", "type": "scale", "choices": [1, 2, 3], "level": "ordinal"}]}',
        "pools-TOTAL_FORMS": 0, "pools-INITIAL_FORMS": 0,
        "mock_questions-TOTAL_FORMS": 0, "mock_questions-INITIAL_FORMS": 0,
    }
    data.update(overrides)
    return data


# --- studies of a preset or an inline spec, with items ---------------------------------------


def preset_study(preset: str, *, country="IN", **settings):
    """An open study of ``preset`` with one pool; returns (study, pool)."""
    owner = make_researcher(f"owner-{preset}")
    study = study_create_from_preset(owner=owner, preset=preset, status=Study.Status.OPEN, **settings)
    return study, make_pool(study, country, "India")


def spec_study(protocol: dict, *, country="IN", **settings):
    """An open study of an inline protocol spec with one pool; returns (study, pool)."""
    owner = make_researcher("owner-inline")
    study = study_create(owner=owner, name="Inline protocol", protocol=protocol, status=Study.Status.OPEN,
                         code_completed="C0MPLETE", code_failed_mock="FAILMOCK", code_not_eligible="NOTELIG",
                         code_no_consent="NOCONSENT", **settings)
    return study, make_pool(study, country, "India")


def add_items(study, n=2, *, documents=(), **fields) -> list:
    """``n`` items of the pool's country, each with ``documents`` as (title, url, text) triples."""
    items = [make_item(study, "IN", **fields) for _ in range(n)]
    for item in items:
        Document.objects.bulk_create(
            Document(item=item, position=i, title=title, url=url, text=text)
            for i, (title, url, text) in enumerate(documents)
        )
    quotas_for_items(items=items)
    return items


def make_member(study, username: str, role: str = "viewer"):
    """A researcher who is a member of ``study`` with ``role`` (viewer or editor)."""
    from studies.models import StudyMember

    user = make_researcher(username)
    StudyMember.objects.create(study=study, user=user, role=role, created_by=study.owner)
    return user


def make_invited_member(study, username: str, role: str = "editor"):
    """A member of ``study`` whose account was made on the invitation page: not staff, in no group
    (``make_member``'s are researchers' staff accounts)."""
    from studies.models import StudyMember

    user = get_user_model().objects.create_user(username, password=PASSWORD)
    StudyMember.objects.create(study=study, user=user, role=role, created_by=study.owner)
    return user
