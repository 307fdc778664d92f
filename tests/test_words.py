"""The words people read: the practice test is called that everywhere (pages, labels, choices, admin,
commands), never by the code's old name "mock test"; the study form counts its own code fields."""

import io
import re
import tokenize
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
APPS = ("studies", "annotation", "recruitment", "analysis", "exports", "api", "stats", "config")
OLD = re.compile(r"mock[ -]test|mock question", re.IGNORECASE)


def test_no_page_says_mock_test():
    said = [str(p.relative_to(ROOT)) for p in (ROOT / "templates").rglob("*.html") if OLD.search(p.read_text())]
    assert said == []


def test_no_string_in_the_code_says_mock_test():
    said = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
                if token.type == tokenize.STRING and OLD.search(token.string):
                    said.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert said == []


def test_no_model_label_says_mock():
    said = []
    for model in apps.get_models():
        if model._meta.app_label not in APPS:
            continue
        words = [str(model._meta.verbose_name), str(model._meta.verbose_name_plural)]
        for field in model._meta.get_fields():
            words += [str(getattr(field, "verbose_name", "")), str(getattr(field, "help_text", ""))]
            words += [str(label) for _, label in (getattr(field, "choices", None) or [])]
        said += [f"{model.__name__}: {w}" for w in words if "mock" in w.lower()]
    assert said == []


def test_the_study_form_counts_its_own_code_fields(client, owner, study):
    from django.urls import reverse

    from tests.helpers import login

    login(client, owner)
    text = client.get(reverse("studies:study-settings", args=[study.pk])).content.decode()
    assert "all six must differ" not in text and "all five must differ" not in text
    assert "its own code; all 6 must differ." in text
