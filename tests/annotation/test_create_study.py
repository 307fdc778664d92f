"""Creating a study from a preset: `manage.py presets`, `manage.py create_study`, and the admin's add page."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from studies.models import CountryPool, ItemQuota, ProtocolVersion, Study
from studies.services import preset_get, preset_load, presets_list, study_create_from_preset
from tests import factories as f
from tests.factories import admin_study_form as study_form


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- the service, for every preset ---------------------------------------------------------------


@pytest.mark.parametrize("name", [p.name for p in presets_list()])
def test_every_preset_creates_a_study_with_its_settings(owner, name):
    preset = preset_get(name)
    study = study_create_from_preset(owner=owner, preset=name)
    assert study.owner == owner and study.name == preset.title
    assert study.protocol == preset.protocol
    assert study.routing == preset.study["routing"]
    assert study.instructions_md == preset.study["instructions_md"]
    assert study.consent_md == preset.study["consent_md"]
    codes = [study.code_completed, study.code_failed_mock, study.code_not_eligible, study.code_no_consent]
    assert all(codes) and len(set(codes)) == 4
    assert ProtocolVersion.objects.get(study=study).spec == preset.protocol


# --- manage.py presets ---------------------------------------------------------------------------


def test_presets_lists_every_preset_with_its_fields():
    out = run("presets")
    for preset in presets_list():
        assert f"{preset.name} — {preset.title}" in out
    assert "relevance (scale, ordinal)" in out
    assert (
        "documents (per_document: country (choice, nominal), topic (choice, nominal), visual (choice, nominal))" in out
    )
    assert "photo (upload); box (bbox); prevalent (choice, nominal)" in out
    assert "routing: all_pools" in out
    assert "CAIRE (2025): rate how culturally relevant" in out


def test_presets_prints_one_line_of_description_unless_verbose():
    short, full = run("presets"), run("presets", "--verbosity", "2")
    assert "The paper targets 20 annotators per country." not in short
    assert "The paper targets 20 annotators per country." in full
    assert "in 1–3 words using local terms (e.g. 'Naan', not 'Indian bread').\n" in short


# --- manage.py create_study ----------------------------------------------------------------------


def test_create_study_creates_the_study_its_pools_and_prints_its_codes(owner):
    out = run("create_study", "--preset", "caire-relevance", "--owner", "owner",
              "--pools", "IN:India, jp:Japan", "--annotations-per-item", "20")
    study = Study.objects.get()
    assert study.owner == owner and study.name == "CAIRE cultural relevance rating"
    assert study.routing == Study.Routing.ALL_POOLS
    assert f"Created study {study.pk} " in out
    for code in (study.code_completed, study.code_failed_mock, study.code_not_eligible, study.code_no_consent):
        assert code in out
    assert list(study.pools.order_by("country").values_list("country", "country_name", "annotations_per_item")) == [
        ("IN", "India", 20), ("JP", "Japan", 20),
    ]
    for pool in study.pools.all():
        assert f"/join/{pool.entry_key}/" in out


def test_create_study_takes_a_name_and_default_pool_settings(owner):
    run("create_study", "--preset", "ravenea-doc-relevance", "--owner", "owner", "--name", "RAVENEA Japan",
        "--pools", "JP:Japan")
    study = Study.objects.get(name="RAVENEA Japan")
    assert study.routing == Study.Routing.COUNTRY
    assert study.pools.get().annotations_per_item == CountryPool._meta.get_field("annotations_per_item").default


def test_pools_created_later_get_quotas_for_the_items(owner):
    run("create_study", "--preset", "culturalvqa-judgment", "--owner", "owner")
    study = Study.objects.get()
    f.make_items(study, "IN", 2)
    from studies.services import pool_create

    pool = pool_create(study=study, country="IN", country_name="India", annotations_per_item=5)
    assert ItemQuota.objects.filter(pool=pool, wanted=5).count() == 2


def test_create_study_refuses_an_unknown_preset(owner):
    with pytest.raises(CommandError, match=r"no preset named 'caire' \(known: caire-relevance, "):
        run("create_study", "--preset", "caire", "--owner", "owner")
    assert not Study.objects.exists()


def test_create_study_refuses_an_unknown_owner(db):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        run("create_study", "--preset", "caire-relevance", "--owner", "nobody")
    assert not Study.objects.exists()


@pytest.mark.parametrize(
    "pools, message",
    [
        ("India", "'India' is not CODE:Country name"),
        ("IND:India", "'IND:India' is not CODE:Country name"),
        ("IN:", "'IN:' is not CODE:Country name"),
        ("IN:India,,JP:Japan", "'' is not CODE:Country name"),
        ("IN:India,in:Bharat", "country IN is given twice"),
    ],
)
def test_create_study_refuses_bad_pools_and_creates_nothing(owner, pools, message):
    with pytest.raises(CommandError, match=re.escape(f"--pools: {message}")):
        run("create_study", "--preset", "caire-relevance", "--owner", "owner", "--pools", pools)
    assert not Study.objects.exists() and not CountryPool.objects.exists()


def test_create_study_refuses_zero_annotations_per_item(owner):
    with pytest.raises(CommandError, match="--annotations-per-item must be at least 1"):
        run("create_study", "--preset", "caire-relevance", "--owner", "owner", "--pools", "IN:India",
            "--annotations-per-item", "0")
    assert not Study.objects.exists()


def test_another_researcher_cannot_see_a_study_created_by_command(client, owner, other_researcher):
    run("create_study", "--preset", "globalrg-grounding", "--owner", "owner", "--pools", "IN:India")
    study = Study.objects.get()
    client.force_login(other_researcher)
    assert study.name not in client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert client.get(reverse("admin:studies_study_change", args=[study.pk])).status_code == 302
    client.force_login(owner)
    assert study.name in client.get(reverse("admin:studies_study_changelist")).content.decode()


# --- the admin's add page ------------------------------------------------------------------------


def preset_form(preset, **overrides):
    data = study_form(
        name="", preset=preset, protocol=json.dumps(preset_load("culturalframes-rating")),
        code_completed="", code_failed_mock="", code_not_eligible="", code_no_consent="",
    )
    data.update(overrides)
    return data


def add(client, user, data):
    client.force_login(user)
    return client.post(reverse("admin:studies_study_add"), data)


def test_the_add_page_offers_every_preset(client, owner):
    client.force_login(owner)
    page = client.get(reverse("admin:studies_study_add")).content.decode()
    assert '<select name="preset"' in page
    for preset in presets_list():
        assert f'value="{preset.name}"' in page


def test_the_change_page_offers_no_preset(client, owner, study):
    client.force_login(owner)
    assert 'name="preset"' not in client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()


def test_a_preset_left_with_the_default_protocol_creates_the_study_from_the_preset(client, owner):
    response = add(client, owner, preset_form("caire-relevance", **{
        "pools-TOTAL_FORMS": 1, "pools-0-country": "IN", "pools-0-country_name": "India",
        "pools-0-annotations_per_item": 20, "pools-0-min_distinct_annotators": 0,
    }))
    assert response.status_code == 302, response.content.decode()[:3000]
    study = Study.objects.get()
    preset = preset_get("caire-relevance")
    assert study.owner == owner and study.name == preset.title
    assert study.protocol == preset.protocol
    assert study.routing == Study.Routing.ALL_POOLS and study.items_per_session == 10
    assert study.instructions_md == preset.study["instructions_md"]
    codes = [study.code_completed, study.code_failed_mock, study.code_not_eligible, study.code_no_consent]
    assert all(codes) and len(set(codes)) == 4
    assert study.pools.get().annotations_per_item == 20
    assert ProtocolVersion.objects.get(study=study).spec == preset.protocol
    assert response.url == reverse("admin:studies_study_changelist")


def test_a_preset_with_an_empty_protocol_uses_the_preset(client, owner):
    response = add(client, owner, preset_form("culturalvqa-question", protocol=""))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Study.objects.get().protocol == preset_load("culturalvqa-question")


def test_settings_the_researcher_changed_win_over_the_preset(client, owner):
    response = add(client, owner, preset_form(
        "culturalframes-prompt-filter", name="Prompt filter, India", items_per_session=7, code_completed="DONE1",
        consent_md="Our own consent.",
    ))
    assert response.status_code == 302, response.content.decode()[:3000]
    study = Study.objects.get()
    assert study.name == "Prompt filter, India" and study.items_per_session == 7
    assert study.code_completed == "DONE1" and study.consent_md == "Our own consent."
    assert study.instructions_md == preset_get("culturalframes-prompt-filter").study["instructions_md"]


def test_the_routing_can_be_set_on_the_add_page(client, owner):
    response = add(client, owner, study_form(routing="all_pools"))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Study.objects.get().routing == Study.Routing.ALL_POOLS


def test_it_refuses_a_preset_with_an_edited_protocol(client, owner):
    edited = '{"fields": [{"key": "overall", "type": "scale", "choices": [1, 2, 3], "level": "ordinal"}]}'
    response = add(client, owner, preset_form("caire-relevance", protocol=edited))
    assert response.status_code == 200
    assert "You chose the preset caire-relevance: leave the protocol as it was" in response.content.decode()
    assert not Study.objects.exists()


def test_it_refuses_an_unknown_preset(client, owner):
    response = add(client, owner, preset_form("caire"))
    assert response.status_code == 200
    assert "Select a valid choice. caire is not one of the available choices." in response.content.decode()
    assert not Study.objects.exists()


def test_it_refuses_no_preset_and_no_protocol(client, owner):
    response = add(client, owner, study_form(protocol=""))
    assert response.status_code == 200
    assert "Give the protocol, or choose a preset above." in response.content.decode()
    assert not Study.objects.exists()


def test_without_a_preset_the_codes_are_still_required(client, owner):
    response = add(client, owner, study_form(code_completed=""))
    assert response.status_code == 200
    assert not Study.objects.exists()


def test_a_spec_error_is_shown_on_the_protocol_field_without_a_preset(client, owner):
    response = add(client, owner, study_form(protocol='{"fields": [{"key": "box", "type": "bbox"}]}'))
    assert "field &#x27;box&#x27;: a bbox field needs &#x27;over&#x27;" in response.content.decode()
    assert not Study.objects.exists()


def test_a_study_added_without_a_preset_keeps_its_first_protocol_version(client, owner):
    assert add(client, owner, study_form()).status_code == 302
    study = Study.objects.get()
    assert list(study.protocol_versions.values_list("version", flat=True)) == [1]


def test_a_protocol_edit_in_the_admin_keeps_both_versions(client, owner, study):
    client.force_login(owner)
    client.post(reverse("admin:studies_study_change", args=[study.pk]), study_form(name=study.name))
    study.refresh_from_db()
    assert study.protocol_version == 2
    versions = dict(study.protocol_versions.values_list("version", "spec"))
    assert versions[1] == preset_load("culturalframes-rating") and versions[2] == study.protocol


def test_another_researcher_cannot_see_a_study_created_from_a_preset(client, owner, other_researcher):
    assert add(Client(), owner, preset_form("ravenea-caption-choice")).status_code == 302
    study = Study.objects.get()
    client.force_login(other_researcher)
    assert study.name not in client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert client.get(reverse("admin:studies_study_change", args=[study.pk])).status_code == 302
