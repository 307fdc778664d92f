"""The protocol editor: the spec as JSON checked while typed by the engine the save runs, saved in
place while its version has no annotation, else as a new version (said before saving), the version
history; owner only."""

import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from studies.models import ProtocolVersion, Study
from studies.protocol import spec_pretty, spec_read
from studies.services import preset_load, study_protocol_save
from tests import factories as f
from tests.helpers import HX, as_annotator, login

RATING = {"fields": [{"key": "mood", "type": "choice", "level": "nominal", "choices": ["calm", "busy"]}]}
BAD = {"fields": [
    {"key": "mood", "type": "choice", "choices": []},
    {"key": "box", "type": "bbox"},
]}


def edit_url(study) -> str:
    return reverse("studies:protocol-edit", args=[study.pk])


def check_url(study) -> str:
    return reverse("studies:protocol-check", args=[study.pk])


# --- the text read by the engine (pure) ----------------------------------------------------------


def test_a_json_syntax_error_is_named_by_its_line_and_column():
    read = spec_read('{\n  "fields": [\n    {"key": "a",}\n  ]\n}')
    assert not read.ok
    [problem] = read.problems
    assert problem.where == "line 3, column 17" and problem.message.startswith("JSON syntax:")


def test_nan_is_no_json_number():
    read = spec_read('{"fields": [{"key": "s", "type": "scale", "choices": [NaN, 1]}]}')
    assert not read.ok and read.problems[0].message == "JSON syntax: NaN is not a JSON number"


def test_every_spec_error_is_named_by_its_field():
    read = spec_read(json.dumps({**BAD, "colour": 1}))
    places = {p.where: p.message for p in read.problems}
    assert "field 'mood'" in places and "needs at least one choice" in places["field 'mood'"]
    assert "field 'box'" in places and "'over'" in places["field 'box'"]
    assert places["protocol"].startswith("unknown protocol setting(s) colour")


def test_a_valid_text_is_read_into_the_protocol():
    read = spec_read(json.dumps(RATING))
    assert read.ok and read.data == RATING and [fl.key for fl in read.protocol.fields] == ["mood"]


# --- the page, the check, the save ------------------------------------------------------------------


def test_the_page_shows_the_spec_pretty_printed_and_the_version_history(client, owner, study):
    response = login(client, owner).get(edit_url(study))
    page = response.content.decode()
    assert response.status_code == 200
    # the preset's spec, its keys in reading order whatever order the database keeps them in
    preset = preset_load("culturalframes-rating")
    assert json.loads(response.context["text"]) == preset
    assert response.context["text"] == spec_pretty(json.loads(json.dumps(preset, sort_keys=True)))
    assert "saving replaces it" in page
    assert [(r.version, r.annotations, r.current) for r in response.context["history"]] == [(1, 0, True)]
    assert reverse("annotation:protocol-preview", args=[study.pk]) in page


def test_the_study_page_links_the_protocol_and_practice_editors(client, owner, study):
    page = login(client, owner).get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert edit_url(study) in page and reverse("studies:practice", args=[study.pk]) in page


def test_the_check_names_every_error_by_its_field(client, owner, study):
    response = login(client, owner).post(check_url(study), {"spec": json.dumps(BAD)}, **HX)
    page = response.content.decode()
    assert response.status_code == 200
    assert "<code>field &#x27;mood&#x27;</code>" in page and "needs at least one choice" in page
    assert "<code>field &#x27;box&#x27;</code>" in page


def test_the_check_names_a_json_syntax_error_by_line_and_column(client, owner, study):
    page = login(client, owner).post(check_url(study), {"spec": '{"fields": [}'}, **HX).content.decode()
    assert "<code>line 1, column 13</code>" in page and "JSON syntax" in page


def test_the_check_says_a_valid_spec_is_valid_and_stores_nothing(client, owner, study):
    page = login(client, owner).post(check_url(study), {"spec": json.dumps(RATING)}, **HX).content.decode()
    assert "The spec is valid: 1 question." in page
    study.refresh_from_db()
    assert study.protocol != RATING


def test_a_study_without_answers_keeps_its_version_and_replaces_its_spec(client, owner, study):
    response = login(client, owner).post(edit_url(study), {"spec": json.dumps(RATING)})
    assert response.status_code == 302 and response.url == edit_url(study)
    study.refresh_from_db()
    assert study.protocol == RATING and study.protocol_version == 1
    assert list(study.protocol_versions.values_list("version", "spec")) == [(1, RATING)]


def test_a_study_with_answers_warns_before_saving_then_makes_a_new_version(client, owner, study, annotated):
    login(client, owner)
    page = client.get(edit_url(study)).content.decode()
    warning = "6 annotations were given under version 1; saving creates version 2; earlier answers keep their version."
    assert warning in page
    old = study.protocol
    client.post(edit_url(study), {"spec": json.dumps(RATING)})
    study.refresh_from_db()
    assert study.protocol == RATING and study.protocol_version == 2
    assert dict(study.protocol_versions.values_list("version", "spec")) == {1: old, 2: RATING}
    assert set(study.annotations.values_list("protocol_version", flat=True)) == {1}
    history = client.get(edit_url(study)).context["history"]
    assert [(r.version, r.annotations, r.current) for r in history] == [(2, 0, True), (1, 6, False)]


def test_a_new_version_without_answers_is_replaced_in_place(owner, study, annotated):
    assert study_protocol_save(study=study, protocol=RATING).new_version
    again = {"fields": [{**RATING["fields"][0], "choices": ["calm", "busy", "loud"]}]}
    saved = study_protocol_save(study=study, protocol=again)
    assert (saved.version, saved.new_version, saved.changed) == (2, False, True)
    assert dict(study.protocol_versions.values_list("version", "spec"))[2] == again
    assert Study.objects.get(pk=study.pk).protocol == again and study.spec.fields[0].choices[2].value == "loud"


def test_an_item_held_by_an_annotator_makes_a_new_version_said_before_saving(client, owner, study, pool, items):
    annotator = as_annotator(Client(), f.make_session(f.make_annotator(pool)))
    assert annotator.get(reverse("annotation:items")).status_code == 200  # the first item is leased
    page = login(client, owner).get(edit_url(study)).content.decode()
    assert "1 item is held by annotators at work on version 1; saving creates version 2" in page
    client.post(edit_url(study), {"spec": json.dumps(RATING)})
    study.refresh_from_db()
    assert study.protocol_version == 2 and study.protocol == RATING


def test_an_unchanged_spec_makes_no_version(owner, study, annotated):
    saved = study_protocol_save(study=study, protocol=dict(study.protocol))
    assert not saved.changed and saved.version == 1
    assert ProtocolVersion.objects.filter(study=study).count() == 1


def test_it_refuses_an_invalid_spec_next_to_the_field_and_changes_nothing(client, owner, study):
    old = study.protocol
    response = login(client, owner).post(edit_url(study), {"spec": json.dumps(BAD)})
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="spec-problems"' in page and "needs at least one choice" in page
    assert "&quot;box&quot;" in page  # the text typed is kept
    study.refresh_from_db()
    assert study.protocol == old and study.protocol_version == 1
    assert ProtocolVersion.objects.filter(study=study).count() == 1


def test_it_refuses_broken_json_and_changes_nothing(client, owner, study):
    response = login(client, owner).post(edit_url(study), {"spec": '{"fields": '})
    assert response.status_code == 400 and "JSON syntax" in response.content.decode()
    study.refresh_from_db()
    assert study.protocol_version == 1


@pytest.mark.parametrize("method, url", [
    ("get", edit_url), ("post", edit_url), ("post", check_url),
])
def test_another_researcher_finds_no_such_page(client, other_researcher, study, method, url):
    old = study.protocol
    response = getattr(login(client, other_researcher), method)(url(study), {"spec": json.dumps(RATING)})
    assert response.status_code == 404
    assert Study.objects.get(pk=study.pk).protocol == old


def test_an_annotator_and_a_visitor_are_sent_to_log_in(client, study, session):
    as_annotator(client, session)
    for url in (edit_url(study), check_url(study)):
        response = client.post(url, {"spec": json.dumps(RATING)})
        assert response.status_code == 302 and response.url.startswith(reverse(settings.LOGIN_URL))
    assert Study.objects.get(pk=study.pk).protocol_version == 1


def test_a_checker_finds_no_such_page(client, study, checker):
    assert login(client, checker).get(edit_url(study)).status_code == 404


def test_the_history_lists_a_version_answered_under_but_not_stored(client, owner, study, annotated):
    ProtocolVersion.objects.filter(study=study).delete()
    history = login(client, owner).get(edit_url(study)).context["history"]
    assert [(r.version, r.created_at, r.annotations) for r in history] == [(1, None, 6)]


def test_the_page_reads_the_history_in_two_queries(client, owner, study, annotated, django_assert_num_queries):
    login(client, owner)
    with django_assert_num_queries(5):  # session, user, study, versions, annotations per version
        client.get(edit_url(study))


def test_the_editor_shows_keys_in_reading_order_whatever_the_database_keeps():
    shuffled = {"reports": [{"fields": ["a"], "kind": "human_scores"}], "fields": [
        {"type": "choice", "choices": ["x", "y"], "key": "mood", "label": "Mood"},
    ], "title": "T"}
    text = spec_pretty(shuffled)
    assert json.loads(text) == shuffled
    assert text.index('"title"') < text.index('"fields"') < text.index('"reports"')
    assert text.index('"key"') < text.index('"type"') < text.index('"label"') < text.index('"choices"')
    assert text.index('"kind"') < text.index('"fields": [\n        "a"')
