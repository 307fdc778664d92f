"""The demo studies: each folder of fixtures/demo/ holds ``study.json`` (the study, its two pools
and its practice questions) and ``items.csv`` or ``items.jsonl`` (its items, in import_items' format),
built through the real import path (``studies.importing.items_import``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from studies.importing import ImportReport, ItemImportError, items_import
from studies.models import CountryPool, Item, MockQuestion, Study
from studies.services import WorkspaceError, study_create_from_preset, study_translations_save

DEFAULT_FIXTURES = Path(settings.BASE_DIR) / "fixtures" / "demo"
ORDER = (  # CulturalFrames first: docs/guide.md and the browser test walk through it (study id 1)
    "culturalframes-rating", "culturalframes-prompt-filter", "caire-relevance", "ravenea-doc-relevance",
    "ravenea-caption-choice", "globalrg-grounding",
    "culturalvqa-question", "culturalvqa-answer", "culturalvqa-judgment",
)
ROWS_FILES = ("items.csv", "items.jsonl")


class DemoError(ValueError):
    """A demo folder that cannot be built; the message says which and why."""


@dataclass(frozen=True)
class Demo:
    """One folder of fixtures/demo: a study spec and its items."""

    folder: Path
    spec: dict

    @property
    def name(self) -> str:
        return self.spec["study"]["name"]

    @property
    def preset(self) -> str:
        return self.spec["study"]["protocol_preset"]

    @property
    def rows_file(self) -> Path:
        found = [self.folder / name for name in ROWS_FILES if (self.folder / name).is_file()]
        if len(found) != 1:
            raise DemoError(f"{self.folder}: needs one of {' or '.join(ROWS_FILES)}")
        return found[0]

    @property
    def images(self) -> Path | None:
        folder = self.folder / "images"
        return folder if folder.is_dir() else None


def demos_load(fixtures: Path) -> list[Demo]:
    """The demo of ``fixtures`` itself when it holds a study.json, else one per sub-folder."""
    if (fixtures / "study.json").is_file():
        folders = [fixtures]
    else:
        found = [p for p in fixtures.iterdir() if (p / "study.json").is_file()] if fixtures.is_dir() else []
        folders = sorted(found, key=lambda p: (ORDER.index(p.name) if p.name in ORDER else len(ORDER), p.name))
    if not folders:
        raise DemoError(f"{fixtures}: no study.json, nor folders holding one")
    return [Demo(folder, json.loads((folder / "study.json").read_text(encoding="utf-8"))) for folder in folders]


def _text(value):
    """A text of study.json: a string, or a list of lines (Markdown reads better so)."""
    return "\n".join(value) if isinstance(value, list) else value


def study_build(*, demo: Demo, owner) -> tuple[Study, ImportReport]:
    fields = {key: _text(v) for key, v in demo.spec["study"].items()}
    name, preset = fields.pop("name"), fields.pop("protocol_preset")
    translated = fields.pop("translations", {})
    study = study_create_from_preset(owner=owner, preset=preset, name=name, **fields)
    for language, texts in translated.items():  # checked as the Translations page checks them
        try:
            study_translations_save(study=study, language=language, texts={k: _text(v) for k, v in texts.items()})
        except WorkspaceError as exc:
            raise DemoError(f"{name}: the {language} texts: {exc}") from None
    for pool in demo.spec["pools"]:
        CountryPool.objects.create(study=study, **pool)
    try:
        report = items_import(study=study, rows_file=demo.rows_file, images=demo.images)
    except ItemImportError as exc:
        raise DemoError(f"The items of {name!r} could not be imported:\n" + "\n".join(exc.errors)) from None
    for position, question in enumerate(demo.spec.get("mock_questions", []), start=1):
        question = dict(question)
        item = Item.objects.get(study=study, external_id=question.pop("item"), is_example=True)
        if question["expected"] not in question["choices"]:
            raise DemoError(f"{name}: practice question {position}: expected answer is not one of its choices")
        MockQuestion.objects.create(study=study, item=item, position=position, **question)
    return study, report
