"""Countries on Prolific (the study's Prolific page): each pool's country as Prolific's own list
has it, found by ISO code and names, picked by hand where nothing matches, used by the launch."""

import pytest
from django.core.cache import cache

from recruitment.models import ProlificCountryPick, ProlificStudy

from .. import factories as f
from .fake_prolific_rules import RESIDENCE_CHOICES
from .test_study_page import LAUNCH, logged_in, page

KOREA = next(k for k, v in RESIDENCE_CHOICES.items() if v == "Korea")
MACAU = next(k for k, v in RESIDENCE_CHOICES.items() if v == "Macao")


@pytest.fixture(autouse=True)
def _no_cached_catalogue():
    cache.clear()


@pytest.fixture
def korea(study):
    pool = f.make_pool(study, "KR", "South Korea")
    f.make_items(study, "KR", 2)
    return pool


@pytest.fixture
def north(study):
    pool = f.make_pool(study, "KP", "North Korea")
    f.make_items(study, "KP", 2)
    return pool


def test_the_fragment_shows_each_pool_s_choice_and_what_matches_nothing(fake_prolific, owner, study, korea, north):
    text = logged_in(owner).get(f"{page(study)}countries/").content.decode()
    assert "Korea <span class=\"muted\">(found as Korea)</span>" in text
    assert "No match" in text and "has no choice for North Korea (KP)" in text
    assert f'<option value="{KOREA}">Korea</option>' in text  # Prolific's choices to pick from
    asked = len(fake_prolific.calls("GET", "filters/"))  # its pages
    logged_in(owner).get(f"{page(study)}countries/")
    assert len(fake_prolific.calls("GET", "filters/")) == asked  # the list is cached


def test_south_korea_launches_as_prolific_s_korea(fake_prolific, owner, study, korea):
    logged_in(owner).post(f"{page(study)}launch/", {**LAUNCH, "filters": ""})
    row = ProlificStudy.objects.get(pool=korea)
    assert row.created and row.filters[0]["selected_values"] == [KOREA]


def test_a_country_picked_by_hand_is_what_the_launch_sends(fake_prolific, owner, study, north):
    client = logged_in(owner)
    response = client.post(f"{page(study)}pools/{north.pk}/country/", {"choice": MACAU})
    assert response.status_code == 302
    assert "(found by hand)" in client.get(f"{page(study)}countries/").content.decode()
    client.post(f"{page(study)}launch/", {**LAUNCH, "filters": ""})
    assert ProlificStudy.objects.get(pool=north).filters[0]["selected_values"] == [MACAU]
    # once on Prolific, the pick stays what was sent
    text = client.post(f"{page(study)}pools/{north.pk}/country/", {"choice": KOREA}, follow=True).content.decode()
    assert "on Prolific already" in text and ProlificCountryPick.objects.get().choice_key == MACAU


def test_a_choice_prolific_does_not_have_is_refused_and_changes_nothing(fake_prolific, owner, study, north):
    text = logged_in(owner).post(
        f"{page(study)}pools/{north.pk}/country/", {"choice": "nope"}, follow=True
    ).content.decode()
    assert "&#x27;nope&#x27; is not one of Prolific&#x27;s countries of residence" in text
    assert not ProlificCountryPick.objects.exists()


def test_an_empty_pick_goes_back_to_the_names(fake_prolific, owner, study, north):
    ProlificCountryPick.objects.create(pool=north, choice_key=MACAU, choice_label="Macao")
    logged_in(owner).post(f"{page(study)}pools/{north.pk}/country/", {"choice": ""})
    assert not ProlificCountryPick.objects.exists()


def test_a_pick_no_longer_in_prolific_s_list_is_refused_at_launch(fake_prolific, owner, study, north):
    ProlificCountryPick.objects.create(pool=north, choice_key="9999", choice_label="Atlantis")
    text = logged_in(owner).post(f"{page(study)}launch/", {**LAUNCH, "filters": ""}, follow=True).content.decode()
    assert "the choice picked by hand, &#x27;Atlantis&#x27;, is no longer in Prolific" in text
    assert not fake_prolific.calls("POST", "studies/")


def test_another_researcher_neither_sees_nor_picks(fake_prolific, other_researcher, study, north):
    client = logged_in(other_researcher)
    assert client.get(f"{page(study)}countries/").status_code == 404
    assert client.post(f"{page(study)}pools/{north.pk}/country/", {"choice": MACAU}).status_code == 404
    assert not ProlificCountryPick.objects.exists() and fake_prolific.requests == []


def test_the_page_shows_rewards_as_money_and_the_study_s_budget(fake_prolific, owner, study, pool, other_pool, items):
    logged_in(owner).post(f"{page(study)}launch/", LAUNCH)
    text = logged_in(owner).get(page(study)).content.decode()
    assert "minor units" not in text and ">£1.50<" in text
    # two pools of two places at £1.50, and Prolific's totals with its third in fees
    assert "rewards £6.00; Prolific's total with its fees and VAT £8.00 (fees and VAT £2.00)." in text
    # with a bonus paid (a draft one is not counted)
    from recruitment.models import ProlificBonus

    row = ProlificStudy.objects.get(pool=pool)
    ProlificBonus.objects.create(prolific_study=row, lines=[], amount=250, total_amount=350, currency="GBP",
                                 state=ProlificBonus.State.PAID)
    ProlificBonus.objects.create(prolific_study=row, lines=[], amount=999, currency="GBP")
    text = logged_in(owner).get(page(study)).content.decode()
    assert "(fees and VAT £2.00); bonuses paid £2.50 (£3.50 with Prolific's fees and VAT)." in text
