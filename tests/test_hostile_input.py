"""Hostile input never reaches a 500, and a refusal stores nothing: NUL characters and lone
surrogates, deep and huge JSON, non-finite numbers, oversized drafts, broken import files and images
too small to use, through the URLs annotators and researchers post to (issue 13)."""

import io
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from django import forms
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Annotation, Assignment, Upload
from studies.models import Item
from studies.protocol import JsonRefused, SpecError, draft_problem, json_bounded, parse_spec, spec_read
from studies.services import preset_load
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import HX, as_annotator, login, on_items

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = [
    "\x00", "a\x00b", "x" * 1_000_000, DEEP, '{"a":' * 5_000 + "1" + "}" * 5_000,
    "1e309", "-1e309", "-0", "-0.0", "NaN", "Infinity", "[NaN, 1, 2, 3]", "[[0, 0, 1e309, 5]]",
    "9" * 5_000, "\ufffd", "'; DROP TABLE annotation_annotation; --", "<script>alert(1)</script>",
]
# What a form post of a lone surrogate becomes: its UTF-8-like bytes, percent-encoded.
SURROGATE_BYTES = "%ED%A0%80"


@pytest.fixture
def annotating(client, session, items):
    as_annotator(client, session)
    client.get(reverse("annotation:items"))
    return client, Assignment.objects.get(session=session)


def draft_url(a):
    return reverse("annotation:item-draft", args=[a.pk])


def submit_url(a):
    return reverse("annotation:item-submit", args=[a.pk])


def stored_draft(a) -> dict:
    return Assignment.objects.get(pk=a.pk).draft


def raw_post(client, url, body: str, **extra):
    """A form post of exactly ``body`` (so that bytes a browser could send, not only what the test
    client encodes, arrive)."""
    return client.post(url, body, content_type="application/x-www-form-urlencoded", **extra)


# --- a NUL in an answer or a draft ------------------------------------------------------------


def test_a_nul_in_a_text_answer_is_refused_next_to_the_field(annotating):
    client, a = annotating
    response = client.post(submit_url(a), valid_answers(explanation="The festival food\x00 is missing."), **HX)
    assert response.status_code == 422
    assert 'id="err-explanation">Remove the invisible NUL character' in response.content.decode()
    assert not Annotation.objects.exists()


def test_a_nul_in_a_choice_is_refused_by_the_engine_too(annotating):
    client, a = annotating
    response = client.post(submit_url(a), valid_answers(stereotype="no\x00"), **HX)
    assert response.status_code == 422 and 'id="err-stereotype"' in response.content.decode()
    assert not Annotation.objects.exists()


def test_a_draft_with_a_nul_is_refused_and_not_stored(annotating):
    client, a = annotating
    response = client.post(draft_url(a), {"explanation": "half\x00 a thought"})
    assert response.status_code == 400 and "NUL" in response.json()["error"]
    assert stored_draft(a) == {}


def test_a_lone_surrogate_in_a_form_arrives_replaced_and_is_stored_safely(annotating):
    client, a = annotating
    response = raw_post(client, draft_url(a), f"explanation=half{SURROGATE_BYTES}thought")
    assert response.status_code == 200
    assert stored_draft(a)["explanation"] == ["half\ufffd\ufffd\ufffdthought"]


# --- drafts: keys, sizes, counts --------------------------------------------------------------


def test_a_draft_of_1_8_mb_of_form_keys_is_refused_and_nothing_is_stored(annotating):
    client, a = annotating
    body = "&".join(f"k{n}{'x' * 2_000}=1" for n in range(900))
    assert len(body) > 1_800_000
    response = raw_post(client, draft_url(a), body)
    assert response.status_code == 400 and "does not have" in response.json()["error"]
    assert stored_draft(a) == {}


def test_a_draft_with_a_huge_value_is_refused(annotating):
    client, a = annotating
    response = client.post(draft_url(a), {"explanation": "x" * 30_000})
    assert response.status_code == 400 and "too large" in response.json()["error"]
    assert stored_draft(a) == {}


def test_a_draft_with_too_many_values_for_one_field_is_refused(annotating):
    client, a = annotating
    response = client.post(draft_url(a), {"words": [str(n) for n in range(600)]})
    assert response.status_code == 400
    assert stored_draft(a) == {}


def test_a_draft_of_the_forms_own_names_is_kept(annotating):
    client, a = annotating
    response = client.post(draft_url(a), {"alignment": "0.5", "words": ["1", "2"], "explanation": "half"})
    assert response.status_code == 200
    assert stored_draft(a) == {"alignment": ["0.5"], "words": ["1", "2"], "explanation": ["half"]}


def test_the_draft_rule_knows_sub_fields_of_documents_and_article_rows():
    protocol = parse_spec(preset_load("ravenea-doc-relevance"))
    sub = protocol.field("documents").fields[0].key
    good = {"caption_correct": ["yes"], f"documents.0.{sub}": ["yes"], f"documents.12.{sub}": ["no"],
            "missing_documents.title": ["A"], "missing_documents.url": ["https://example.org"], "_skip": [""]}
    assert draft_problem(protocol, good) is None
    for bad in ({"documents": ["x"]}, {f"documents.x.{sub}": ["1"]}, {"documents.0.nope": ["1"]},
                {"missing_documents": ["x"]}, {f"documents.9999.{sub}": ["1"]}, {"documents.0._skip": ["x"]}):
        assert draft_problem(protocol, bad) is not None, bad


def test_the_path_preview_refuses_a_hostile_draft_and_keeps_nothing(client, owner, study, pool, items):
    question = f.make_mock_question(study, expected="No")
    login(client, owner)
    base = [study.pk, pool.pk]
    client.get(reverse("annotation:path-preview", args=base))
    client.post(reverse("annotation:path-preview-consent", args=base), {"consent": "yes"})
    client.post(reverse("annotation:path-preview-eligibility", args=base),
                {key: "yes" for key, _ in pool.eligibility_questions()})
    client.post(reverse("annotation:path-preview-instructions", args=base))
    client.post(reverse("annotation:path-preview-mock", args=base), {f"q{question.pk}": "No"})
    client.get(reverse("annotation:path-preview-items", args=base))
    url = reverse("annotation:path-preview-item-draft", args=[*base, 1])
    refused = client.post(url, {"nope" * 100: "x", "explanation": "a\x00b"})
    assert refused.status_code == 400 and refused.json()["saved"] is False
    session = client.session[f"tessera_path_preview:{pool.pk}"]
    assert session["drafts"] == {}
    assert client.post(url, {"explanation": "fine"}).status_code == 200


# --- JSON: depth, size, numbers ---------------------------------------------------------------


@pytest.mark.parametrize("text", [DEEP, '{"a":' * 100 + "1" + "}" * 100, "[NaN]", "[Infinity]", "[1e309]",
                                  '["\\u0000"]', '["\\ud800"]', "x" * 2_000_000, "1" * 5_000])
def test_json_bounded_refuses_hostile_json_with_a_message(text):
    with pytest.raises(JsonRefused) as info:
        json_bounded(text)
    assert str(info.value)


def test_json_bounded_reads_ordinary_json_and_brackets_inside_strings():
    assert json_bounded('{"a": "[[[[{{{{", "b": [-0.0, 1.5, "x\\"]"]}') == {"a": "[[[[{{{{", "b": [-0.0, 1.5, 'x"]']}


def test_a_spec_nested_100000_levels_or_carrying_a_nul_is_refused_by_the_editor_check():
    for text in ('{"fields": ' + DEEP + "}", '{"fields": [{"key": "a", "type": "text", "label": "\\u0000"}]}'):
        read = spec_read(text)
        assert not read.ok and read.problems


@pytest.fixture
def grounding(client):
    client, assignment, _ = on_items(client, "globalrg-grounding", prompt="Kathakali")
    return client, assignment


def upload(client, a, size=(120, 90), field="photo"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    file = SimpleUploadedFile("photo.png", f.png_bytes(size=size), content_type="image/png")
    return client.post(reverse("annotation:item-upload", args=[a.pk]), {"file": file, "field": field})


@pytest.mark.parametrize("box", [DEEP, "[[0, 0, 1e309, 5]]", "[[NaN, 0, 5, 5]]", '[["nan", 0, 5, 5]]',
                                 '[["inf", 0, 5, 5]]', "[" * 50 + "]" * 50, "[[\"\\u0000\", 0, 5, 5]]"])
def test_a_hostile_box_value_is_refused_next_to_the_field(grounding, box):
    client, a = grounding
    token = upload(client, a).json()["token"]
    response = client.post(submit_url(a), {"photo": token, "box": box, "prevalent": "yes"}, **HX)
    assert response.status_code == 422
    assert 'id="err-box"' in response.content.decode()
    assert not Annotation.objects.exists()


# --- uploads: the smallest image --------------------------------------------------------------


def test_a_1x1_image_is_refused_with_the_size_it_needs(grounding):
    client, a = grounding
    response = upload(client, a, size=(1, 1))
    assert response.status_code == 400
    assert response.json()["error"].startswith("The image is 1×1 pixels; this question needs one at least 64×64")
    assert not Upload.objects.exists()


def test_an_upload_without_its_field_name_is_held_to_the_least_demanding_field(grounding):
    client, a = grounding
    assert upload(client, a, size=(1, 1), field="").status_code == 400
    assert upload(client, a, size=(64, 64), field="").status_code == 200


def test_the_spec_sets_each_upload_fields_smallest_image():
    base = {"key": "photo", "type": "upload", "label": "Photo"}
    small = parse_spec({"fields": [{**base, "min_width": 10, "min_height": 8}]}).field("photo")
    assert small.kind.min_image_size(small) == (10, 8)
    default = parse_spec({"fields": [base]}).field("photo")
    assert default.kind.min_image_size(default) == (64, 64)
    for bad in ({"min_width": -1}, {"min_height": "64"}, {"min_width": 20_000}, {"min_height": True}):
        with pytest.raises(SpecError):
            parse_spec({"fields": [{**base, **bad}]})


def test_a_stored_upload_too_small_for_its_field_is_refused_at_the_submit(grounding):
    from studies.models import Study

    client, a = grounding
    token = upload(client, a, size=(70, 70)).json()["token"]
    study = Study.objects.get(pk=a.item.study_id)
    spec = study.protocol
    spec["fields"][0]["min_width"] = 100
    Study.objects.filter(pk=study.pk).update(protocol=spec)
    response = client.post(submit_url(a), {"photo": token, "box": "[[1, 1, 10, 10]]", "prevalent": "yes"}, **HX)
    assert response.status_code == 422 and "at least 100×64 pixels" in response.content.decode()
    assert not Annotation.objects.exists()


# --- the import: broken files refused by line -------------------------------------------------


@pytest.fixture
def images(tmp_path):
    root = tmp_path / "images"
    root.mkdir()
    for n in (1, 2, 3):
        (root / f"{n}.png").write_bytes(f.png_bytes(color=(n * 40, 90, 90)))
    return root


def refused(study, path: Path, images: Path) -> str:
    with pytest.raises(CommandError) as info:
        call_command("import_items", str(study.pk), str(path), images=str(images), stdout=io.StringIO())
    assert not Item.objects.filter(study=study).exists()
    return str(info.value)


def test_a_csv_with_an_unclosed_quote_is_refused_with_its_line(study, pool, images, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text('id,prompt,image,country\np1,Prompt one,1.png,IN\np2,"Prompt two,2.png,IN\np3,Three,3.png,IN\n')
    message = refused(study, path, images)
    assert "line 3" in message and "never closed" in message


@pytest.mark.parametrize("hostile", [
    '{"id": "p2", "prompt": "x", "image": "2.png", "country": "IN", "deep": ' + DEEP + "}",
    '{"id": "p2", "prompt": "x\\u0000", "image": "2.png", "country": "IN"}',
    '{"id": "p2", "prompt": "x\\ud800", "image": "2.png", "country": "IN"}',
    '{"id": "p2", "prompt": "x", "image": "2.png", "country": "IN", "score": 1e309}',
    '{"id": "p2", "prompt": "x", "image": "2.png", "country": "IN", "score": NaN}',
    '{"id": "p2", "prompt": "x", "image": "2.png", "country": "IN", "metadata": "' + "[" * 5_000 + '"}',
])
def test_a_hostile_jsonl_line_is_refused_with_its_line(study, pool, images, tmp_path, hostile):
    path = tmp_path / "items.jsonl"
    first = json.dumps({"id": "p1", "prompt": "ok", "image": "1.png", "country": "IN"})
    path.write_text(first + "\n" + hostile + "\n")
    message = refused(study, path, images)
    assert "line 2" in message and "Traceback" not in message


def test_a_csv_cell_with_a_nul_or_deep_json_is_refused_with_its_line(study, pool, images, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("id,prompt,image,country,metadata\np1,Pro\x00mpt,1.png,IN,\n"
                    f"p2,Two,2.png,IN,\"{'[' * 3_000}\"\n")
    message = refused(study, path, images)
    assert "line 2: Remove the invisible NUL" in message and "line 3" in message


# --- the fuzz: every hostile string in every field of the annotator's posts ------------------


@pytest.mark.parametrize("hostile", HOSTILE, ids=lambda s: repr(s[:12]))
def test_no_hostile_string_in_any_field_reaches_a_500_and_a_refusal_stores_nothing(annotating, hostile):
    client, a = annotating
    for key in valid_answers():
        draft = client.post(draft_url(a), {key: hostile})
        assert draft.status_code in (200, 400), (key, draft.status_code)
        if draft.status_code == 400:
            assert draft.json()["error"]
        assert "\x00" not in json.dumps(stored_draft(a))
        response = client.post(submit_url(a), valid_answers(**{key: hostile}), **HX)
        assert response.status_code in (200, 422), (key, response.status_code)
        if response.status_code == 422:
            assert not Annotation.objects.exists()
        else:  # accepted: the value was harmless to its field (e.g. a long text where none is bounded)
            assert "\x00" not in json.dumps(Annotation.objects.get().answers)
            return


@pytest.mark.parametrize("encoded", [SURROGATE_BYTES, "%00", "%FF%FE", "%C0%80", "%F4%90%80%80"])
def test_undecodable_bytes_in_a_form_never_reach_a_500(annotating, encoded):
    client, a = annotating
    fields = "&".join(f"{quote(k)}={quote(v[0])}" for k, v in valid_answers().items() if k != "explanation")
    body = f"{fields}&explanation=The+festival+food+is+missing{encoded}entirely"
    assert raw_post(client, draft_url(a), body).status_code in (200, 400)
    response = raw_post(client, submit_url(a), body, **HX)
    assert response.status_code in (200, 422)
    for annotation in Annotation.objects.all():
        answers = json.dumps(annotation.answers)
        assert "\x00" not in answers and "\\u0000" not in answers
        answers.encode("utf-8")  # no lone surrogate


@pytest.mark.parametrize("params", [
    {"pid": "a\x00b"}, {"pid": "p" * 100_000}, {"pid": "\ufffd", "study_id": "s\x00"}, {"session_id": "\x00"},
])
def test_hostile_entry_parameters_are_refused_without_a_500(client, pool, items, params):
    response = client.get(f.entry_url(pool, **params))
    assert response.status_code == 400


# --- the researcher's pages: one shared check (Django's NUL validator on every CharField, the
# engine's ``safetext`` elsewhere) ---------------------------------------------------------------


def no_nul_stored():
    from annotation.models import Review
    from studies.models import CountryPool, MockQuestion, Study

    for model in (Study, CountryPool, MockQuestion, Review):
        for row in model.objects.values():
            assert "\x00" not in json.dumps(row, default=str) and "\\u0000" not in json.dumps(row, default=str)


def test_a_nul_in_any_researcher_form_is_refused_without_a_500(client, owner, study, pool, items):
    login(client, owner)
    example = f.make_item(study, example=True)
    posts = [
        (reverse("studies:study-settings", args=[study.pk]), {
            "name": "N\x00", "instructions_md": "a\x00", "consent_md": "b\x00", "items_per_session": "5",
            "lease_minutes": "30", "code_completed": "C\x00", "routing": "country"}),
        (reverse("studies:study-settings", args=[study.pk]), {
            "name": "N", "items_per_session": "1e309", "lease_minutes": "9" * 5_000, "routing": "country"}),
        (reverse("studies:pool-add", args=[study.pk]), {
            "country": "FR\x00", "annotations_per_item": "1e309", "min_distinct_annotators": "-0"}),
        (reverse("studies:practice-add", args=[study.pk]), {
            "item": str(example.pk), "text": "Q\x00", "choices": "Yes\nNo\x00", "expected": "Yes",
            "explanation": "x\x00"}),
        (reverse("studies:protocol-edit", args=[study.pk]), {"spec": '{"fields": [{"key": "a", "type": "text", '
                                                                     '"label": "\\u0000"}]}'}),
        (reverse("studies:protocol-edit", args=[study.pk]), {"spec": DEEP}),
        (reverse("studies:protocol-check", args=[study.pk]), {"spec": DEEP}),
        (reverse("studies:markdown-preview"), {"instructions_md": "a\x00" + DEEP}),
    ]
    for url, data in posts:
        response = client.post(url, data)
        assert response.status_code < 500, url
    no_nul_stored()
    for query in ("q=%00", "model=a%00b", "country=%00&category=%ED%A0%80", "page=%00", "page=1e309"):
        response = client.get(reverse("studies:item-list", args=[study.pk]) + "?" + query)
        assert response.status_code == 200, query
    for query in ("preset=a%00b", "copy=%00", "copy=1e309"):
        assert client.get(reverse("studies:study-new") + "?" + query).status_code in (200, 404)


def test_a_checkers_note_with_a_nul_is_refused_next_to_it(client, owner, pool, annotated):
    from annotation.models import Review
    from tests.factories import AS_GIVEN
    from tests.helpers import submit_url

    login(client, owner)
    annotation = Annotation.objects.filter(pool=pool).first()
    response = client.post(submit_url(annotation), {**AS_GIVEN, "_outcome": "flagged", "_note": "wrong\x00"}, **HX)
    assert response.status_code == 422 and "NUL" in response.content.decode()
    assert not Review.objects.exists()


def test_markdown_nested_past_its_bound_is_refused_by_the_form_and_shown_as_text(client, owner, study):
    from studies.markdown import render_markdown

    login(client, owner)
    data = {"name": study.name, "instructions_md": "a" + "[" * 4_000, "consent_md": "ok", "items_per_session": "5",
            "lease_minutes": "30", "code_completed": "C1", "routing": "country"}
    response = client.post(reverse("studies:study-settings", args=[study.pk]), data)
    assert response.status_code == 400 and "nested more than 32 deep" in response.content.decode()
    assert "[[[" not in type(study).objects.get(pk=study.pk).instructions_md
    assert str(render_markdown("<b>" + "[" * 100_000)).startswith("<p>&lt;b&gt;[[[")


def test_a_metric_file_with_a_nul_is_refused_by_line():
    from stats.correlation.upload import MetricCSVError, parse_metric_csv

    with pytest.raises(MetricCSVError) as info:
        parse_metric_csv("item,metric,score\np1,clip\x00,0.5\np2,clip,0.7\n")
    assert "line 2: Remove the invisible NUL" in str(info.value.errors)


@pytest.mark.parametrize("name, rows, line", [
    ("items.csv", b'id,prompt,image,country\np1,One,1.png,IN\np2,"Two,2.png,IN\np3,Three,3.png,IN\n', 3),
    ("items.jsonl", b'{"id": "p1", "image": "1.png", "country": "IN"}\n{"id": "p2", "x": ' + DEEP.encode() + b"}\n", 2),
    ("items.jsonl", b'{"id": "p1", "image": "1.png", "country": "IN", "prompt": "a\\u0000"}\n', 1),
])
def test_the_browsers_import_refuses_a_broken_file_by_line(client, owner, study, pool, name, rows, line):
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import TestCase

    from studies.models import ImportJob

    client.force_login(owner)
    images = io.BytesIO()
    with zipfile.ZipFile(images, "w") as zf:
        for n in (1, 2, 3):
            zf.writestr(f"{n}.png", f.png_bytes(color=(n * 40, 90, 90)))
    data = {"rows": SimpleUploadedFile(name, rows), "images": SimpleUploadedFile("images.zip", images.getvalue())}
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(reverse("analysis:import-items", args=[study.pk]), data)
    assert response.status_code == 302
    job = ImportJob.objects.get(study=study)
    assert job.status == "failed" and any(p.startswith(f"line {line}:") for p in job.problems), job.problems
    assert not Item.objects.filter(study=study).exists()


@pytest.mark.parametrize("body", [
    b"[" * 30_000 + b"]" * 30_000, b'{"event_type": "a\\u0000"}', b"[1e309]", b"\xff\xfe",
])
def test_a_hostile_webhook_body_is_refused_without_a_500(client, body):
    import time

    from tests.recruitment.test_webhooks import WEBHOOK

    stamp = str(int(time.time()))
    response = client.post(WEBHOOK, data=body, content_type="application/json",
                           HTTP_X_PROLIFIC_REQUEST_SIGNATURE="x", HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp)
    assert response.status_code in (400, 403)


# --- JSON typed into the admin: bounded like every other JSON a page reads --------------------

ADMIN_JSON = [DEEP, '{"a":' * 5_000 + "1" + "}" * 5_000, '["No\\u0000", "Yes"]', '["No", "Yes\\ud800"]',
              '{"\\u0000": "key"}', "[NaN]", "[1e309]"]


def admin_change(client, url: str, **changed) -> dict:
    """The admin change form at ``url`` posted back as the browser shows it, with ``changed``."""
    form = client.get(url).context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if value is None or isinstance(field, forms.FileField):
            continue
        data[name] = field.prepare_value(value) if isinstance(value, (list, dict)) else value
    return {**data, **changed}


def admin_refused(response) -> str:
    assert response.status_code in (200, 400), response.status_code
    page = response.content.decode()
    assert "errorlist" in page, page[:2000]
    return page


@pytest.mark.parametrize("text", ADMIN_JSON, ids=lambda s: repr(s[:16]))
def test_hostile_json_in_the_study_admins_protocol_is_refused_and_nothing_changes(client, owner, study, text):
    from tests.factories import admin_study_form

    before = type(study).objects.values().get(pk=study.pk)
    response = login(client, owner).post(reverse("admin:studies_study_change", args=[study.pk]),
                                         admin_study_form(name=study.name, protocol=text))

    admin_refused(response)
    assert type(study).objects.values().get(pk=study.pk) == before


@pytest.mark.parametrize("text", ADMIN_JSON, ids=lambda s: repr(s[:16]))
def test_hostile_json_in_a_practice_questions_choices_is_refused_and_nothing_is_stored(client, owner, study, text):
    from studies.models import MockQuestion
    from tests.factories import admin_study_form

    data = admin_study_form(name=study.name, **{
        "protocol": json.dumps(study.protocol),
        "mock_questions-TOTAL_FORMS": 1, "mock_questions-0-position": 1, "mock_questions-0-text": "Q?",
        "mock_questions-0-choices": text, "mock_questions-0-expected": "Yes", "mock_questions-0-study": study.pk,
    })
    response = login(client, owner).post(reverse("admin:studies_study_change", args=[study.pk]), data)

    admin_refused(response)
    assert not MockQuestion.objects.exists()


@pytest.mark.parametrize("field", ["texts", "candidates", "metadata"])
@pytest.mark.parametrize("text", ADMIN_JSON, ids=lambda s: repr(s[:16]))
def test_hostile_json_in_an_items_admin_fields_is_refused_and_nothing_changes(client, owner, study, items, field,
                                                                              text):
    item = items[0]
    url = reverse("admin:studies_item_change", args=[item.pk])
    before = Item.objects.values().get(pk=item.pk)

    response = login(client, owner).post(url, admin_change(client, url, **{field: text}))

    admin_refused(response)
    assert Item.objects.values().get(pk=item.pk) == before


def test_the_item_admin_still_saves_ordinary_json(client, owner, study, items):
    item = items[0]
    url = reverse("admin:studies_item_change", args=[item.pk])

    response = login(client, owner).post(url, admin_change(client, url, metadata='{"source": "survey", "n": 2}'))

    assert response.status_code == 302, response.content.decode()[:2000]
    assert Item.objects.get(pk=item.pk).metadata == {"source": "survey", "n": 2}


def test_every_json_field_of_every_admin_is_bounded(owner):
    from django.contrib import admin
    from django.db import models
    from django.test import RequestFactory

    from studies.forms import BoundedJSONField

    request = RequestFactory().get("/admin/")
    request.user = owner
    checked = []
    for model, model_admin in admin.site._registry.items():
        admins = [model_admin, *(inline(model, admin.site) for inline in model_admin.inlines)]
        for each in admins:
            for db_field in each.model._meta.get_fields():
                if isinstance(db_field, models.JSONField):
                    formfield = each.formfield_for_dbfield(db_field, request)
                    assert isinstance(formfield, BoundedJSONField), f"{type(each).__name__}.{db_field.name}"
                    checked.append(f"{each.model.__name__}.{db_field.name}")
    assert {"Study.protocol", "MockQuestion.choices", "Item.texts", "Item.candidates", "Item.metadata"} <= set(checked)
