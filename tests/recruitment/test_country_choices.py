"""A pool's country found in Prolific's own country lists by its ISO code and the names other lists
give it; never by one exact English spelling."""

import pytest

from recruitment.country_choices import country_match
from studies.countries import COUNTRIES, normalised

from .fake_prolific_rules import NOT_ON_PROLIFIC, RESIDENCE_CHOICES


def test_every_country_prolific_lists_is_found_by_its_code_and_our_name():
    missing = []
    for code, name in COUNTRIES:
        found = country_match(RESIDENCE_CHOICES, code=code, name=name)
        if code in NOT_ON_PROLIFIC:
            assert found is None, (code, found)
        elif found is None:
            missing.append(code)
    assert missing == []


@pytest.mark.parametrize(
    "code, ours, theirs",
    [
        ("KR", "South Korea", "Korea"),
        ("TR", "Türkiye", "Turkey"),
        ("CZ", "Czechia", "Czech Republic"),
        ("SY", "Syria", "Syrian Arab Republic"),
        ("LA", "Laos", "Lao People's Democratic Republic"),
        ("VE", "Venezuela", "Venezuela, Bolivarian Republic of"),
        ("CI", "Côte d'Ivoire", "Cote d'Ivoire"),
        ("MK", "North Macedonia", "Macedonia"),
        ("PS", "Palestine, State of", "Palestinian Territory, Occupied"),
        ("CD", "Congo, Democratic Republic of the", "Congo, The Democratic Republic of the"),
    ],
)
def test_the_names_that_failed_before_are_found(code, ours, theirs):
    found = country_match(RESIDENCE_CHOICES, code=code, name=ours)
    assert found is not None and found.label == theirs
    assert RESIDENCE_CHOICES[found.key] == theirs


def test_a_name_two_countries_could_share_goes_to_the_one_lists_mean():
    choices = {"a": "Congo", "b": "Democratic Republic of the Congo", "c": "Korea"}
    assert country_match(choices, code="CG", name="Congo").key == "a"
    assert country_match(choices, code="CD", name="Congo - Kinshasa").key == "b"
    assert country_match(choices, code="KR", name="South Korea").key == "c"
    assert country_match(choices, code="KP", name="North Korea") is None  # never "Korea"


def test_how_it_was_found_is_said():
    assert country_match({"1": "India"}, code="IN", name="India").how == "by name"
    assert country_match({"1": "Korea"}, code="KR", name="South Korea").how == "as Korea"


def test_spelling_differences_that_do_not_matter():
    assert normalised("Côte d’Ivoire") == normalised("COTE D'IVOIRE") == "cote d ivoire"
    assert normalised("The Gambia") == "gambia"
    assert normalised("Trinidad & Tobago") == normalised("Trinidad and Tobago")
