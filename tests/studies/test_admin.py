import pytest
from django.urls import reverse

from annotation.models import Annotation
from annotation.services import annotation_submit, assignment_next
from studies.models import MockQuestion, Study
from tests import factories as f
from tests.factories import admin_study_form as study_form
from tests.factories import valid_answers


def login(client, user):
    client.force_login(user)
    return client


def test_a_researcher_creates_a_study_they_own(client, owner):
    response = login(client, owner).post(reverse("admin:studies_study_add"), study_form())
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Study.objects.get(name="New study").owner == owner


def test_the_add_form_starts_from_the_culturalframes_preset(client, owner):
    page = login(client, owner).get(reverse("admin:studies_study_add")).content.decode()
    assert "error_types" in page and "stereotype_description" in page


def test_it_refuses_an_invalid_protocol_naming_the_field(client, owner):
    bad = '{"fields": [{"key": "overall", "type": "stars"}]}'
    response = login(client, owner).post(reverse("admin:studies_study_add"), study_form(protocol=bad))
    assert response.status_code == 200
    assert "field &#x27;overall&#x27;: unknown type &#x27;stars&#x27;" in response.content.decode()
    assert not Study.objects.filter(name="New study").exists()


def test_it_refuses_repeated_completion_codes(client, owner):
    response = login(client, owner).post(reverse("admin:studies_study_add"), study_form(code_failed_mock="AAA"))
    assert "Each completion code must be different" in response.content.decode()
    assert not Study.objects.filter(name="New study").exists()


def test_it_refuses_a_mock_question_whose_answer_is_not_a_choice(client, owner, study):
    data = study_form(name=study.name, status="open", **{
        "mock_questions-TOTAL_FORMS": 1, "mock_questions-0-position": 1, "mock_questions-0-text": "Q?",
        "mock_questions-0-choices": '["No", "Yes"]', "mock_questions-0-expected": "Maybe",
        "mock_questions-0-study": study.pk,
    })
    response = login(client, owner).post(reverse("admin:studies_study_change", args=[study.pk]), data)
    assert "The expected answer must be one of the choices: No, Yes." in response.content.decode()
    assert not MockQuestion.objects.exists()


def test_a_protocol_edit_bumps_the_version(client, owner, study):
    version = study.protocol_version
    login(client, owner).post(reverse("admin:studies_study_change", args=[study.pk]), study_form(name=study.name))
    study.refresh_from_db()
    assert study.protocol_version == version + 1


def test_another_researcher_cannot_see_or_edit_the_study(client, other_researcher, study, pool, items):
    login(client, other_researcher)
    assert study.name not in client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert client.get(reverse("admin:studies_study_change", args=[study.pk])).status_code == 302  # "doesn't exist"
    assert client.get(reverse("admin:studies_item_changelist")).content.decode().count("item-") == 0
    assert client.get(reverse("admin:studies_countrypool_change", args=[pool.pk])).status_code == 302


def test_annotations_are_read_only_in_the_admin(client, owner, items, session):
    a = assignment_next(session=session)
    annotation = annotation_submit(assignment=a, data=valid_answers()).annotation
    login(client, owner)
    assert client.get(reverse("admin:annotation_annotation_changelist")).status_code == 200
    page = client.get(reverse("admin:annotation_annotation_change", args=[annotation.pk])).content.decode()
    assert 'name="_save"' not in page
    response = client.post(reverse("admin:annotation_annotation_delete", args=[annotation.pk]), {"post": "yes"})
    assert response.status_code == 403
    assert Annotation.objects.filter(pk=annotation.pk).exists()


def test_changing_a_pool_in_the_admin_creates_quotas_for_its_items(client, owner, study):
    f.make_items(study, "BR", 2)  # imported before the pool existed: no quota yet
    login(client, owner).post(reverse("admin:studies_countrypool_add"), {
        "study": study.pk, "country": "BR", "country_name": "Brazil", "annotations_per_item": 2,
        "min_distinct_annotators": 0, "require_born": "on", "adaptive_budget": 0,  # the admin's form shows all
    })
    from studies.models import ItemQuota

    assert ItemQuota.objects.filter(pool__country="BR", wanted=2).count() == 2


def test_the_expiry_task_runs(db):
    from annotation.tasks import assignments_expire_task

    assert assignments_expire_task.delay().get() == 0


def test_another_researcher_cannot_add_a_pool_to_the_study(client, other_researcher, study):
    response = login(client, other_researcher).post(reverse("admin:studies_countrypool_add"), {
        "study": study.pk, "country": "BR", "country_name": "Brazil", "annotations_per_item": 2,
        "min_distinct_annotators": 0,
    })
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not study.pools.filter(country="BR").exists()


def test_a_study_with_annotations_can_be_deleted_whole_but_an_annotated_item_cannot(owner, study, items, session):
    from django.db.models import RestrictedError

    f.make_mock_question(study)
    a = assignment_next(session=session)
    annotation_submit(assignment=a, data=valid_answers())
    with pytest.raises(RestrictedError):
        a.item.delete()
    study.delete()
    assert not Annotation.objects.exists()


def test_a_member_of_the_study_does_not_see_it_in_the_admin(client, study, pool, items):
    editor = f.make_member(study, "eddie", "editor")
    login(client, editor)
    assert study.name not in client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert client.get(reverse("admin:studies_countrypool_change", args=[pool.pk])).status_code == 302


def test_the_admin_link_is_shown_to_operators_only(client, owner, django_user_model):
    """Researchers are staff (the admin stays scoped for them) but work in the workspace; the top
    bar offers the admin to superusers, the operators."""
    admin = reverse("admin:index")
    page = login(client, owner).get(reverse("studies:study-list")).content.decode()
    assert owner.is_staff and f'href="{admin}"' not in page
    operator = django_user_model.objects.create_superuser("operator", password="pass-for-tests-1")
    page = login(client, operator).get(reverse("studies:study-list")).content.decode()
    assert f'href="{admin}">Admin</a>' in page
