"""Every foreign key and many-to-many of every admin form, a ModelAdmin's or an inline's, add and
change alike, offers a researcher only rows of their own studies: the forms are enumerated from the
admin site, so a field added later cannot be forgotten."""

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from annotation.models import Checker, ReviewTarget
from studies.models import Document, StudyMember
from studies.selectors import owner_path_for
from tests import factories as f
from tests.helpers import login, review


def options(page: str, name: str) -> set[int]:
    """The choices of the page's <select name=...>."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"no select {name}"
    return {int(v) for v in re.findall(r'<option value="(\d+)"', select.group(1))}


def build_world(username: str) -> dict:
    """A researcher's study with a row of every kind a form could offer."""
    researcher = f.make_researcher(username)
    study = f.make_study(researcher, name=f"{username}'s study")
    pool = f.make_pool(study)
    items = f.make_items(study, "IN", 2)
    derived = f.make_item(study, source=items[0])
    Document.objects.create(item=items[0], position=1, title="A document", text="Text")
    question = f.make_mock_question(study)
    annotations = f.annotate_pool(pool)
    checker = f.make_checker(pool, f"{username}-checker")
    review(annotations[0], checker, "accepted")
    ReviewTarget.objects.create(pool=pool, percent=50)
    StudyMember.objects.create(study=study, user=f.make_researcher(f"{username}-viewer"), role="viewer")
    return {"researcher": researcher, "study": study, "pool": pool, "item": derived, "question": question,
            "checker": Checker.objects.get(user=checker)}


def rows_by_model(world_owner) -> dict[type, set]:
    """Every row of ``world_owner``'s studies, and their accounts, by model."""
    rows: dict[type, set] = {get_user_model(): set(get_user_model().objects.filter(
        username__startswith=world_owner.username).values_list("pk", flat=True))}
    for model in apps.get_models():
        path = owner_path_for(model)
        if path:
            rows[model] = set(model._default_manager.filter(**{path: world_owner}).values_list("pk", flat=True))
    return rows


def forms_of(model_admin, request, obj):
    """(name, form class) of the admin's add form and inline forms, or its change forms for ``obj``."""
    change = obj is not None
    if not (model_admin.has_change_permission(request, obj) if change else model_admin.has_add_permission(request)):
        if not (change and model_admin.has_view_permission(request, obj)):
            return
    yield "form", model_admin.get_form(request, obj, change=change)
    for formset, inline in model_admin.get_formsets_with_inlines(request, obj):
        yield type(inline).__name__, formset.form


def own_object(model_admin, request, world):
    return model_admin.get_queryset(request).filter(
        **{owner_path_for(model_admin.model): world["researcher"]}
    ).first()


@pytest.fixture
def worlds(db):
    return build_world("alice"), build_world("bob")


def test_no_admin_form_offers_another_researchers_rows(worlds):
    alice, bob = worlds
    theirs = rows_by_model(bob["researcher"])
    request = RequestFactory().get("/admin/")
    request.user = alice["researcher"]
    checked, reachable = [], []
    for model, model_admin in admin.site._registry.items():
        if owner_path_for(model) is None:
            continue  # accounts, groups, login attempts: the operators' (a researcher may not open them)
        obj = own_object(model_admin, request, alice)
        assert obj is not None, f"the world has no {model.__name__} of alice's"
        for obj_or_none in (None, obj):
            for name, form in forms_of(model_admin, request, obj_or_none):
                reachable.append(model.__name__)
                for field_name, field in form.base_fields.items():
                    queryset = getattr(field, "queryset", None)
                    if queryset is None:
                        continue
                    where = f"{model.__name__} admin, {name}, {'change' if obj_or_none else 'add'}: {field_name}"
                    assert theirs.get(queryset.model), f"{where}: the world has no {queryset.model.__name__}"
                    leaked = queryset.filter(pk__in=theirs[queryset.model])
                    assert not leaked.exists(), f"{where} offers another researcher's {list(leaked)}"
                    checked.append(where)

    assert {"Study", "CountryPool", "Item", "Checker", "ReviewTarget"} <= set(reachable)
    assert {w for w in checked if w.endswith(": source")}, "the item form's source is among the checked fields"
    assert any("MockQuestionInline" in w and w.endswith(": item") for w in checked)


def test_a_practice_question_offers_only_examples_of_its_own_study(client, worlds):
    alice, _ = worlds
    other = f.make_study(alice["researcher"], name="Alice's second study")
    foreign_example = f.make_item(other, example=True)
    own_example = alice["question"].item
    not_an_example = alice["item"]

    page = login(client, alice["researcher"]).get(
        reverse("admin:studies_study_change", args=[alice["study"].pk])).content.decode()

    offered = options(page, "mock_questions-0-item")
    assert own_example.pk in offered
    assert foreign_example.pk not in offered and not_an_example.pk not in offered


def test_an_items_source_is_an_item_of_its_own_study(client, worlds):
    alice, bob = worlds
    other = f.make_study(alice["researcher"], name="Alice's second study")
    other_item = f.make_item(other)

    page = login(client, alice["researcher"]).get(
        reverse("admin:studies_item_change", args=[alice["item"].pk])).content.decode()

    offered = options(page, "source")
    assert alice["item"].source_id in offered
    assert other_item.pk not in offered and bob["item"].source_id not in offered and alice["item"].pk not in offered


def test_a_superuser_is_offered_every_study(worlds):
    alice, bob = worlds
    root = get_user_model().objects.create_superuser("root", password="x")
    request = RequestFactory().get("/admin/")
    request.user = root
    form = admin.site._registry[type(alice["pool"])].get_form(request, None)

    assert {alice["study"], bob["study"]} <= set(form.base_fields["study"].queryset)
