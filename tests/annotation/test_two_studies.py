"""Two studies in one browser: a participant who opens a second study's link keeps the first one; each
tab's submits and drafts reach its own study's session, a submit makes its study the one a reload
shows, and the way back is the first study's link (its resume code unchanged)."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.browser import BrowserKey, key_loads
from annotation.models import Annotation, Annotator, Assignment
from tests import factories as f
from tests.helpers import HX, enter

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(owner):
    """Two open studies, each with a pool and items."""
    pools = []
    for name, code in (("Festivals of Kerala", "KERALA01"), ("Markets of Osaka", "OSAKA002")):
        study = f.make_study(owner, name=name, code_completed=code)
        pool = f.make_pool(study, "IN", "India")
        f.make_items(study, "IN", 3)
        pools.append(pool)
    return pools


def onboarded():
    now = timezone.now()
    Annotator.objects.update(consented_at=now, eligible_at=now, instructions_read_at=now, cleared_at=now)


def brand(page: str) -> str:
    return re.search(r'<span class="brand">([^<]*)</span>', page).group(1)


def items_page(client) -> str:
    return client.get(reverse("annotation:items")).content.decode()


def leased(study_name: str) -> Assignment:
    return Assignment.objects.get(item__study__name=study_name, status="leased")


def resume_code(page: str) -> str:
    return re.search(r'Your resume code: <strong class="code-inline">([A-Z0-9-]+)</strong>', page).group(1)


@pytest.fixture
def both(client, two):
    """One browser in both studies: the first study's tab on its item, then the second study's link."""
    kerala, osaka = two
    enter(client, kerala, session_id="SESSIONKERALA")
    onboarded()
    assert brand(items_page(client)) == "Festivals of Kerala"
    enter(client, osaka, session_id="SESSIONOSAKA")
    onboarded()
    assert brand(items_page(client)) == "Markets of Osaka"
    return client


def test_the_first_studys_tab_still_submits_after_the_second_study_was_opened(both):
    first = leased("Festivals of Kerala")
    response = both.post(reverse("annotation:item-submit", args=[first.pk]), f.valid_answers(), **HX)
    assert response.status_code == 200 and Annotation.objects.get().assignment_id == first.pk
    page = response.content.decode()  # the first study's next item, swapped into its tab
    assert "Image 2 of" in page and f'/a/items/{leased("Festivals of Kerala").pk}/' in page
    # the submit made the first study the current one: a reload of its tab shows it
    assert brand(items_page(both)) == "Festivals of Kerala"


def test_the_first_studys_last_submit_ends_with_its_own_completion_code(both):
    while Assignment.objects.filter(item__study__name="Festivals of Kerala", status="leased").exists():
        response = both.post(reverse("annotation:item-submit", args=[leased("Festivals of Kerala").pk]),
                             f.valid_answers(), **HX)
    assert response["HX-Redirect"] == reverse("annotation:end")
    page = both.get(reverse("annotation:end")).content.decode()
    assert "KERALA01" in page and "OSAKA002" not in page


def test_a_draft_reaches_its_own_study_without_changing_what_a_reload_shows(both):
    second, first = leased("Markets of Osaka"), leased("Festivals of Kerala")
    draft = both.post(reverse("annotation:item-draft", args=[first.pk]), {"explanation": "typed in the first tab"})
    assert draft.json() == {"saved": True}
    first.refresh_from_db()
    assert first.draft["explanation"] == ["typed in the first tab"]
    page = items_page(both)
    assert brand(page) == "Markets of Osaka" and f"/a/items/{second.pk}/" in page


def test_each_tab_submits_in_turn_and_each_submit_lands_in_its_own_study(both):
    first, second = leased("Festivals of Kerala"), leased("Markets of Osaka")
    for study in ("Festivals of Kerala", "Markets of Osaka", "Festivals of Kerala"):
        response = both.post(reverse("annotation:item-submit", args=[leased(study).pk]), f.valid_answers(), **HX)
        assert response.status_code == 200 and f"/a/items/{leased(study).pk}/" in response.content.decode()
    stored = Annotation.objects.order_by("id")
    assert [a.assignment.item.study.name for a in stored] == [
        "Festivals of Kerala", "Markets of Osaka", "Festivals of Kerala"
    ]
    assert first.pk in [a.assignment_id for a in stored] and second.pk in [a.assignment_id for a in stored]


def test_the_first_studys_link_leads_back_to_it_with_its_resume_code_unchanged(client, two):
    kerala, osaka = two
    enter(client, kerala, session_id="SESSIONKERALA")
    onboarded()
    code = resume_code(items_page(client))
    enter(client, osaka, session_id="SESSIONOSAKA")
    onboarded()
    assert resume_code(items_page(client)) != code  # the second study's own code
    enter(client, kerala, session_id="SESSIONKERALA")
    page = items_page(client)
    assert brand(page) == "Festivals of Kerala" and resume_code(page) == code
    assert Assignment.objects.filter(status="leased").count() == 2  # nothing of either study was lost


def test_a_stranger_cannot_reach_either_studys_items_and_an_item_of_neither_is_refused(both, two):
    first = leased("Festivals of Kerala")
    stranger = Client()
    assert stranger.post(reverse("annotation:item-submit", args=[first.pk]), f.valid_answers(), **HX).status_code == 403
    _, other = f.make_leased(two[0])  # another participant's item in the first study
    response = both.post(reverse("annotation:item-submit", args=[other.pk]), f.valid_answers(), **HX)
    assert response.status_code == 404 and not Annotation.objects.exists()


def test_the_cookie_keeps_a_few_sessions_latest_first():
    key = BrowserKey(1, "s3cret", "AAAAAAAA")
    for pk in range(2, 8):
        key = BrowserKey(pk, "s3cret", f"CODE{pk}XYZ"[:8]).joined(key)
    assert key.session_pk == 7 and [pk for pk, _ in key.others] == [6, 5, 4, 3]
    assert key_loads(key.dumps()) == key
    switched = key.switched(4)
    assert (switched.session_pk, switched.code) == (4, "CODE4XYZ")
    assert [pk for pk, _ in switched.others] == [7, 6, 5, 3]
    assert BrowserKey(9, "another-browser").joined(key).others == ()  # another browser's key is not merged
    assert key_loads("5;6:AAAA") is None and key_loads("5:s:c;x:y") is None


def test_the_bar_names_the_other_study_open_here_and_switches_to_it(both):
    page = items_page(both)
    assert brand(page) == "Markets of Osaka"
    assert "You have another study open in this browser:" in page and "Switch to Festivals of Kerala" in page
    kerala = Assignment.objects.get(item__study__name="Festivals of Kerala").session_id
    response = both.post(reverse("annotation:switch", args=[kerala]))
    assert response.status_code == 302 and response.url == reverse("annotation:next")
    page = items_page(both)
    assert brand(page) == "Festivals of Kerala" and "Switch to Markets of Osaka" in page


def test_a_switch_to_a_session_the_browser_does_not_hold_changes_nothing(both, two):
    _, stranger = f.make_leased(two[0])
    response = both.post(reverse("annotation:switch", args=[stranger.session_id]))
    assert response.status_code == 302
    assert brand(items_page(both)) == "Markets of Osaka"


def test_a_browser_in_one_study_is_offered_no_switch(client, two):
    enter(client, two[0], session_id="SESSIONKERALA")
    onboarded()
    assert "also-open" not in items_page(client)
