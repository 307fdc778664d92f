"""A comparison's item page (pairwise, best_worst, rank) in the annotator's language: the words of its
templates (templates/annotation/fields/_pairwise.html, _best_worst.html, _rank.html, _compare_image.html)
and the images' blind labels ("Image A") come from the catalogs, and none of their English remains."""

import html

import pytest
from django.urls import reverse
from django.utils import translation

from studies.services import quotas_for_items
from tests import factories as f
from tests.helpers import as_annotator

pytestmark = pytest.mark.django_db

PAIRWISE = {"key": "better", "type": "pairwise", "label": "Q", "both_fail": True, "strength": True}
BEST_WORST = {"key": "extremes", "type": "best_worst", "label": "Q"}
RANK = {"key": "ranked", "type": "rank", "label": "Q"}

# what each field's page says in English, every one of it from its templates or the image labels
ENGLISH = {
    "pairwise": [
        "Image A is better",
        "Image B is better",
        "About the same (a tie)",
        "Both fail",
        "How much better is the image you chose?",
        "Slightly better",
        "Clearly better",
        "Much better",
        "Not asked when you choose neither image.",
        "Image A, full size (opens in a new tab)",
    ],
    "best_worst": [
        "Swipe sideways to see every image.",
        ">Best</span>",
        ">Worst</span>",
        "Image C: ",
        "Image B, full size (opens in a new tab)",
    ],
    "rank": [
        "Give each image its own rank: 1 is the best, 3 the worst.",
        "Swipe sideways to see every image.",
        "Rank of Image A",
        "Choose…",
        "1 (best)",
        "3 (worst)",
        "Image C, full size (opens in a new tab)",
    ],
}
# one word of each field's page, as a crowd worker reads it in each language
SAID = {
    "hi": {"pairwise": "छवि A बेहतर है", "best_worst": "सबसे ख़राब", "rank": "छवि B की रैंक"},
    "ja": {"pairwise": "画像 A の方が良い", "best_worst": "最も悪い", "rank": "画像 B の順位"},
    "ar": {"pairwise": "الصورة A أفضل", "best_worst": "الأسوأ", "rank": "ترتيب الصورة B"},
}
FIELDS = {"pairwise": (PAIRWISE, 2), "best_worst": (BEST_WORST, 3), "rank": (RANK, 3)}


def item_page(client, field: dict, images: int, language: str) -> str:
    study, pool = f.spec_study({"fields": [field]})
    pool.language = language
    pool.save()
    item = f.make_comparison_item(study, "IN", models=tuple(f"model-{n}" for n in range(images)))
    quotas_for_items(items=[item])
    as_annotator(client, f.make_session(f.make_annotator(pool)))
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@pytest.mark.parametrize("kind", FIELDS)
def test_the_english_page_says_what_the_test_looks_for(client, kind):
    field, images = FIELDS[kind]
    page = item_page(client, field, images, "en")
    assert [text for text in ENGLISH[kind] if text not in page] == []


@pytest.mark.parametrize("language", ["hi", "ja", "ar"])
@pytest.mark.parametrize("kind", FIELDS)
def test_a_comparison_s_page_is_in_the_annotator_s_language(client, kind, language):
    field, images = FIELDS[kind]
    page = item_page(client, field, images, language)
    assert f'lang="{language}"' in page
    assert SAID[language][kind] in page
    assert [text for text in ENGLISH[kind] if text in page] == []
    assert "model-" not in page  # the comparison stays blind in every language


@pytest.mark.parametrize("language", ["hi", "ja", "ar"])
def test_the_pairwise_page_shows_the_catalog_s_words(client, language):
    page = item_page(client, PAIRWISE, 2, language)
    with translation.override(language):
        words = [translation.gettext(text) for text in ENGLISH["pairwise"][2:9]]  # the words of no image label
        label = translation.gettext("Image %(letter)s") % {"letter": "B"}
        better = translation.gettext("%(label)s is better") % {"label": label}
    assert [w for w in words + [better] if w not in page] == []
