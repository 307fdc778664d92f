"""/api/v1/studies/: the list, a new study (a preset or a spec), a study read and changed, its
protocol versions; the fixed cast's refusals (another researcher 404, a viewer 403 on a change)."""

import pytest

from studies.models import ProtocolVersion, Study
from studies.services import preset_get, preset_load, study_set_protocol
from tests import factories as f

STUDIES = "/api/v1/studies/"
SPEC = preset_load("culturalvqa-answer")


def detail(study) -> str:
    return f"{STUDIES}{study.pk}/"


def test_the_list_holds_own_and_shared_studies_only(study, other_researcher, viewer, as_user):
    theirs = f.make_study(other_researcher, name="Someone else's study")
    mine = as_user(study.owner).get(STUDIES).json()
    assert [s["id"] for s in mine["results"]] == [study.pk] and mine["results"][0]["owner"] == "owner"
    assert [s["id"] for s in as_user(viewer).get(STUDIES).json()["results"]] == [study.pk]
    assert [s["id"] for s in as_user(other_researcher).get(STUDIES).json()["results"]] == [theirs.pk]


def test_the_list_costs_the_same_few_queries_for_many_studies(owner, as_user, django_assert_max_num_queries):
    for n in range(8):
        f.make_study(owner, name=f"Study {n}")
    client = as_user(owner)
    client.get(STUDIES)  # the token's first use is written once
    with django_assert_max_num_queries(3):  # the token, the researcher check, the page
        assert len(client.get(STUDIES).json()["results"]) == 8


def test_it_creates_a_study_from_a_preset_with_its_settings_and_fresh_codes(owner, as_user):
    response = as_user(owner).post(STUDIES, {"preset": "caire-relevance", "items_per_session": 7}, format="json")
    assert response.status_code == 201, response.json()
    study = Study.objects.get(pk=response.json()["id"])
    preset = preset_get("caire-relevance")
    assert study.owner == owner and study.name == preset.title and study.protocol == preset.protocol
    assert study.routing == "all_pools" and study.items_per_session == 7
    codes = {study.code_completed, study.code_failed_mock, study.code_not_eligible, study.code_no_consent}
    assert len(codes) == 4 and ProtocolVersion.objects.filter(study=study, version=1).exists()


def test_it_creates_a_study_from_a_spec(owner, as_user):
    response = as_user(owner).post(STUDIES, {"name": "Mine", "protocol": SPEC, "routing": "all_pools"}, format="json")
    assert response.status_code == 201, response.json()
    assert Study.objects.get(name="Mine").protocol == SPEC


@pytest.mark.parametrize("body, field, says", [
    ({"preset": "nope"}, "preset", "no preset named 'nope'"),
    ({"name": "x", "protocol": {"fields": []}}, "protocol", ""),
    ({"name": "x"}, "non_field_errors", "either a preset"),
    ({"preset": "caire-relevance", "protocol": {}}, "non_field_errors", "either a preset"),
    ({"preset": "caire-relevance", "code_completed": "SAME", "code_failed_mock": "SAME"}, "code_failed_mock",
     "every outcome needs its own code"),
    ({"preset": "caire-relevance", "items_per_session": 0}, "items_per_session", "greater than or equal to 1"),
    ({"preset": "caire-relevance", "items_per_session": "many"}, "items_per_session", "valid integer"),
    ({"preset": "caire-relevance", "routing": "sideways"}, "routing", "not one of the available choices"),
    ({"preset": "caire-relevance", "colour": "red"}, "colour", "Unknown field"),
    ({"name": "", "protocol": SPEC}, "name", "required"),
])
def test_a_bad_new_study_is_a_400_naming_the_field_and_nothing_is_made(owner, as_user, body, field, says):
    response = as_user(owner).post(STUDIES, body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert says in " ".join(response.json()[field])
    assert not Study.objects.exists()


def test_a_member_who_is_not_staff_may_not_make_studies(study, as_user):
    member = f.make_invited_member(study, "invited", "editor")
    response = as_user(member).post(STUDIES, {"preset": "caire-relevance"}, format="json")
    assert response.status_code == 403 and Study.objects.count() == 1


def test_a_study_is_read_by_its_members_and_not_found_by_others(study, viewer, other_researcher, as_user, anonymous):
    assert as_user(viewer).get(detail(study)).json()["name"] == study.name
    assert as_user(other_researcher).get(detail(study)).status_code == 404
    assert as_user(study.owner).get(f"{STUDIES}999999/").status_code == 404
    assert anonymous.get(detail(study)).status_code == 401


def test_the_owner_and_an_editor_change_settings_and_the_rest_is_kept(study, editor, as_user):
    response = as_user(editor).patch(detail(study), {"items_per_session": 9, "name": "Renamed"}, format="json")
    assert response.status_code == 200, response.json()
    study.refresh_from_db()
    assert (study.items_per_session, study.name, study.code_completed) == (9, "Renamed", "C0MPLETE")
    assert response.json()["items_per_session"] == 9


def test_a_viewer_may_not_change_a_study_and_another_researcher_does_not_find_it(
    study, viewer, other_researcher, as_user
):
    refused = as_user(viewer).patch(detail(study), {"name": "Mine now"}, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert as_user(other_researcher).patch(detail(study), {"name": "Mine now"}, format="json").status_code == 404
    study.refresh_from_db()
    assert study.name == "CulturalFrames rating"


@pytest.mark.parametrize("body, field, says", [
    ({"code_completed": "FAILMOCK"}, "code_failed_mock", "every outcome needs its own code"),
    ({"lease_minutes": 0}, "lease_minutes", "greater than or equal to 1"),
    ({"instructions_md": "#" * 10 + "x" * 200_001}, "instructions_md", ""),
    ({"name": None}, "name", "null"),
    ({"name": ""}, "name", "required"),
])
def test_a_bad_change_is_a_400_naming_the_field_and_nothing_changes(study, as_user, body, field, says):
    response = as_user(study.owner).patch(detail(study), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert says in " ".join(response.json()[field])
    fresh = Study.objects.get(pk=study.pk)
    assert (fresh.name, fresh.code_completed, fresh.lease_minutes) == ("CulturalFrames rating", "C0MPLETE", 30)


def test_the_routing_is_fixed_once_there_are_items_as_on_the_page(study, items, as_user):
    response = as_user(study.owner).patch(detail(study), {"routing": "all_pools"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"routing": ["The routing cannot change once the study has items."]}
    assert Study.objects.get(pk=study.pk).routing == "country"


def test_protocol_versions_newest_first_with_their_annotations(study, annotated, as_user, viewer, other_researcher):
    changed = {**study.protocol, "title": "Second version"}
    study_set_protocol(study=study, protocol=changed)
    url = f"{detail(study)}protocol-versions/"
    rows = as_user(viewer).get(url).json()["results"]
    assert [(r["version"], r["current"]) for r in rows] == [(2, True), (1, False)]
    assert rows[1]["annotations"] == len(annotated) and rows[0]["annotations"] == 0
    assert rows[0]["spec"]["title"] == "Second version"
    assert as_user(other_researcher).get(url).status_code == 404


def test_presets_are_listed_by_name_title_and_description(owner, as_user):
    rows = as_user(owner).get("/api/v1/presets/").json()
    caire = next(r for r in rows if r["name"] == "caire-relevance")
    assert caire == {"name": "caire-relevance", "title": preset_get("caire-relevance").title,
                     "description": preset_get("caire-relevance").description}
