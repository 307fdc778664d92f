"""New study (from a preset or a copy of one's own study), its settings, the Markdown preview."""

import pytest
from django.urls import reverse

from annotation.models import Checker
from studies.models import CountryPool, Item, ItemQuota, MockQuestion, ProtocolVersion, Study
from studies.services import preset_get
from tests import factories as f
from tests.helpers import login

NEW = reverse("studies:study-new")


def study_data(**overrides) -> dict:
    data = {
        "name": "Festival images",
        "instructions_md": "## Your task\n\n- Look at the image\n- Rate it",
        "consent_md": "You **agree**.",
        "items_per_session": "8",
        "lease_minutes": "20",
        "code_completed": "DONE1",
        "code_failed_mock": "MOCK1",
        "code_not_eligible": "NOTEL1",
        "code_no_consent": "NOCON1",
        "routing": "country",
    }
    data.update(overrides)
    return data


def test_the_start_page_offers_every_preset_and_the_researchers_own_studies(client, owner, study, other_researcher):
    theirs = f.make_study(other_researcher, name="Someone else's study")
    login(client, owner)
    page = client.get(NEW).content.decode()
    caire = preset_get("caire-relevance")
    assert caire.title in page and caire.description[:40] in page
    assert f"{NEW}?preset=caire-relevance" in page
    assert f"{NEW}?copy={study.pk}" in page
    assert theirs.name not in page and f"?copy={theirs.pk}" not in page


def test_a_preset_form_is_filled_with_the_presets_settings_and_fresh_distinct_codes(client, owner):
    login(client, owner)
    response = client.get(f"{NEW}?preset=caire-relevance")
    form = response.context["form"]
    assert form.initial["routing"] == "all_pools" and form.initial["items_per_session"] == 10
    codes = [form.initial[k] for k in (
        "code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent", "code_all_skipped")]
    assert len(set(codes)) == 5
    # The instructions are shown rendered, as the annotator will see them: a heading, a real list.
    assert "<h2>Your task</h2>" in response.content.decode() and "<li><strong>1" in response.content.decode()


def test_it_creates_a_study_from_a_preset_owned_by_the_researcher(client, owner):
    login(client, owner)
    response = client.post(f"{NEW}?preset=caire-relevance", study_data(routing="all_pools"))
    study = Study.objects.get(name="Festival images")
    assert response.status_code == 302 and response.url == reverse("studies:pool-list", args=[study.pk])
    assert study.owner == owner
    assert study.protocol == preset_get("caire-relevance").protocol
    assert (study.items_per_session, study.lease_minutes, study.routing) == (8, 20, "all_pools")
    assert (study.code_completed, study.code_no_consent) == ("DONE1", "NOCON1")
    assert study.mock_attempts_allowed == preset_get("caire-relevance").study["mock_attempts_allowed"]
    assert ProtocolVersion.objects.filter(study=study, version=1).exists()


def test_it_copies_a_study_with_its_pools_but_not_its_items_or_answers(
    client, owner, study, pool, other_pool, annotated, checker
):
    """What the walk-through of docs/guide.md says a copy brings (and leaves behind)."""
    CountryPool.objects.filter(pk=pool.pk).update(annotations_per_item=4, require_born=False, min_distinct_annotators=3)
    Study.objects.filter(pk=study.pk).update(mock_attempts_allowed=4)
    f.make_mock_question(study)
    login(client, owner)
    response = client.post(f"{NEW}?copy={study.pk}", study_data(name="Round two"))
    copy = Study.objects.get(name="Round two")
    assert response.status_code == 302
    assert copy.owner == owner and copy.protocol == study.protocol and copy.status == Study.Status.DRAFT
    india = copy.pools.get(country="IN")
    assert (india.annotations_per_item, india.require_born, india.min_distinct_annotators) == (4, False, 3)
    assert india.entry_key != pool.entry_key
    assert sorted(copy.pools.values_list("country", flat=True)) == ["IN", "JP"]
    assert not Item.objects.filter(study=copy).exists()
    assert not ItemQuota.objects.filter(pool__study=copy).exists()
    assert not copy.annotations.exists()
    assert copy.mock_attempts_allowed == 4 and not MockQuestion.objects.filter(study=copy).exists()
    assert not Checker.objects.filter(pool__study=copy).exists()


def test_the_copy_form_starts_from_the_source_studys_settings(client, owner, study):
    login(client, owner)
    form = client.get(f"{NEW}?copy={study.pk}").context["form"]
    assert form.initial["name"] == "CulturalFrames rating (copy)"
    assert form.initial["instructions_md"] == study.instructions_md
    assert form.initial["code_completed"] != study.code_completed  # fresh codes: each study its own


def test_it_refuses_to_copy_another_researchers_study(client, owner, other_researcher):
    theirs = f.make_study(other_researcher, name="Theirs")
    login(client, owner)
    assert client.get(f"{NEW}?copy={theirs.pk}").status_code == 404
    assert client.post(f"{NEW}?copy={theirs.pk}", study_data()).status_code == 404
    assert client.get(f"{NEW}?preset=no-such-preset").status_code == 404
    assert client.get(f"{NEW}?copy=abc").status_code == 404
    assert not Study.objects.filter(name="Festival images").exists()


def test_it_refuses_the_same_completion_code_twice_next_to_the_field(client, owner):
    login(client, owner)
    response = client.post(f"{NEW}?preset=caire-relevance", study_data(code_not_eligible="DONE1"))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["code_not_eligible"]
    assert "Completed" in errors["code_not_eligible"][0]
    assert 'id="id_code_not_eligible_error"' in response.content.decode()
    assert not Study.objects.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [("name", ""), ("items_per_session", "0"), ("lease_minutes", "-5"), ("routing", "nowhere"), ("code_completed", "")],
)
def test_it_refuses_bad_input_and_creates_nothing(client, owner, field, value):
    login(client, owner)
    response = client.post(f"{NEW}?preset=caire-relevance", study_data(**{field: value}))
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not Study.objects.exists()


def test_the_owner_changes_the_settings(client, owner, study):
    login(client, owner)
    url = reverse("studies:study-settings", args=[study.pk])
    assert client.get(url).context["form"].initial["name"] == study.name
    response = client.post(url, study_data(name="Renamed", routing="all_pools"))
    assert response.status_code == 302 and response.url == reverse("analysis:study-dashboard", args=[study.pk])
    study.refresh_from_db()
    assert (study.name, study.items_per_session, study.routing, study.code_failed_mock) == (
        "Renamed", 8, "all_pools", "MOCK1",
    )


def test_settings_refuse_duplicate_codes_and_change_nothing(client, owner, study):
    login(client, owner)
    response = client.post(
        reverse("studies:study-settings", args=[study.pk]), study_data(name="Renamed", code_no_consent="MOCK1")
    )
    assert response.status_code == 400 and "code_no_consent" in response.context["form"].errors
    study.refresh_from_db()
    assert study.name == "CulturalFrames rating" and study.code_no_consent == "NOCONSENT"


def test_settings_cap_skips_and_give_the_all_skipped_outcome_its_own_code(client, owner, study):
    login(client, owner)
    url = reverse("studies:study-settings", args=[study.pk])
    assert 'name="max_skips_per_session"' in client.get(url).content.decode()

    response = client.post(url, study_data(max_skips_per_session="3", code_all_skipped="SKIPPED1"))

    assert response.status_code == 302
    study.refresh_from_db()
    assert (study.max_skips_per_session, study.code_all_skipped) == (3, "SKIPPED1")
    client.post(url, study_data(max_skips_per_session="", code_all_skipped=""))
    study.refresh_from_db()
    assert (study.max_skips_per_session, study.code_all_skipped) == (None, "SKIPPED1"), "empty: no cap, code kept"


def test_settings_refuse_an_all_skipped_code_equal_to_another(client, owner, study):
    login(client, owner)
    response = client.post(reverse("studies:study-settings", args=[study.pk]), study_data(code_all_skipped="DONE1"))
    assert response.status_code == 400 and "code_all_skipped" in response.context["form"].errors
    study.refresh_from_db()
    assert study.code_all_skipped == "ALLSKIP"


def test_the_routing_stays_once_the_study_has_items(client, owner, study, items):
    login(client, owner)
    response = client.post(reverse("studies:study-settings", args=[study.pk]), study_data(routing="all_pools"))
    assert response.status_code == 400
    assert "once the study has items" in response.context["form"].errors["routing"][0]
    study.refresh_from_db()
    assert study.routing == "country" and study.name == "CulturalFrames rating"


def test_the_markdown_preview_renders_a_list_with_the_annotator_pages_renderer(client, owner):
    login(client, owner)
    response = client.post(
        reverse("studies:markdown-preview"),
        {"instructions_md": "Steps:\n\n- one\n- two\n\n<script>alert(1)</script>"},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in html
    assert "<script>" not in html
    consent = client.post(reverse("studies:markdown-preview"), {"consent_md": "I **agree**"}).content.decode()
    assert "<strong>agree</strong>" in consent


def test_the_markdown_preview_renders_a_list_right_under_a_line_of_text(client, owner):
    """GitHub-style: no blank line between "Steps:" and its list."""
    login(client, owner)
    response = client.post(
        reverse("studies:markdown-preview"), {"instructions_md": "Steps:\n- one\n- two"}, HTTP_HX_REQUEST="true"
    )
    assert "<p>Steps:</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in response.content.decode()


def test_the_consent_preview_shows_the_consent_typed_in(client, owner):
    """htmx posts the whole form; the header names the textarea typed in."""
    login(client, owner)
    response = client.post(
        reverse("studies:markdown-preview"),
        {"instructions_md": "## Your task", "consent_md": "I **agree** to take part."},
        HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER_NAME="consent_md",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>agree</strong> to take part" in html and "Your task" not in html
    typed = client.post(
        reverse("studies:markdown-preview"), {"instructions_md": "## Your task", "consent_md": "I agree"},
        HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER_NAME="instructions_md",
    ).content.decode()
    assert "<h2>Your task</h2>" in typed and "I agree" not in typed


def test_an_invited_editor_who_is_not_staff_gets_the_preview(client, study):
    editor = f.make_invited_member(study, "ines", "editor")
    assert not editor.is_staff
    login(client, editor)
    response = client.post(
        reverse("studies:markdown-preview"), {"consent_md": "I **agree**"}, HTTP_HX_TRIGGER_NAME="consent_md"
    )
    assert response.status_code == 200 and "<strong>agree</strong>" in response.content.decode()


def test_the_preview_refuses_an_account_of_no_study_and_a_visitor(client, study, checker):
    """A checker (a pool's, no member of any study) finds no preview; a visitor is sent to log in."""
    url = reverse("studies:markdown-preview")
    response = client.post(url, {"consent_md": "x"})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    login(client, checker)
    assert client.post(url, {"consent_md": "x"}).status_code == 404


def test_the_form_asks_for_a_preview_on_input_debounced(client, owner, study):
    login(client, owner)
    page = client.get(reverse("studies:study-settings", args=[study.pk])).content.decode()
    assert f'hx-post="{reverse("studies:markdown-preview")}"' in page
    assert 'hx-trigger="input changed delay:400ms"' in page and 'hx-target="#preview-consent_md"' in page


def test_the_study_list_and_the_study_page_link_to_the_workspace(client, owner, study):
    login(client, owner)
    assert f'href="{NEW}"' in client.get(reverse("studies:study-list")).content.decode()
    page = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert reverse("studies:study-settings", args=[study.pk]) in page
    assert reverse("studies:pool-list", args=[study.pk]) in page
    assert "in the admin" not in page


def test_an_empty_study_list_links_new_study_and_names_the_import_page(client, owner):
    login(client, owner)
    page = client.get(reverse("studies:study-list")).content.decode()
    assert f'<a href="{NEW}">Create your first study</a>' in page and "<strong>Import items</strong> page" in page
    assert "manage.py" not in page


def test_the_study_names_the_language_of_its_texts(client, owner, study):
    login(client, owner)
    url = reverse("studies:study-settings", args=[study.pk])
    assert client.post(url, study_data(language="hi")).status_code == 302
    study.refresh_from_db()
    assert study.language == "hi"
    assert client.post(url, study_data()).status_code == 302  # left out: kept
    study.refresh_from_db()
    assert study.language == "hi"
    response = client.post(url, study_data(language="xx"))
    assert response.status_code == 400 and "language" in response.context["form"].errors
