"""The comparison fields' form templates (``templates/annotation/fields/_pairwise.html``,
``_best_worst.html``, ``_rank.html``), rendered as the item page renders them: a field bound to what
was posted, and the page's ``images`` (id, url, width, height, label) in the order shown. The names
and values posted are the ids, each control has a real label, and the model never shows."""

from dataclasses import dataclass
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string

from studies.protocol import ImageRef, ItemContext, Protocol, bind, parse_spec, validate

SPEC = parse_spec({"fields": [
    {"key": "pair", "type": "pairwise", "label": "Which fits the prompt better?"},
    {"key": "strict", "type": "pairwise", "tie": False},
    {"key": "strong", "type": "pairwise", "both_fail": True, "strength": True},
    {"key": "extremes", "type": "best_worst", "label": "Best and worst"},
    {"key": "ranked", "type": "rank", "label": "Rank them"},
]})  # fmt: skip
F = {f.key: f for f in SPEC.fields}
MODEL = "secret-diffusion-xl"  # what made every image: never on the page


@dataclass(frozen=True)
class PageImage:
    """An image as the item page passes it (``images``); it knows its model, the page must not say it."""

    id: str
    url: str
    width: int
    height: int
    label: str
    model: str = MODEL


def page_images(*ids: str) -> list[PageImage]:
    return [PageImage(i, f"/media/items/img-{i}.png", 640, 480, f"Image {'ABCDEFGH'[n]}") for n, i in enumerate(ids)]


class Tags(HTMLParser):
    """The start tags of a page, each with its attributes, whether it sits inside a <label>, the select
    it is an option of, and the text of its <label> when it is one."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[dict] = []
        self.labels = 0
        self.select: str | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append({"tag": tag, **{k: (v if v is not None else "") for k, v in attrs},
                          "in_label": self.labels > 0, "select": self.select})
        if tag == "label":
            self.labels += 1
        elif tag == "select":
            self.select = dict(attrs).get("name")

    def handle_endtag(self, tag):
        if tag == "label":
            self.labels -= 1
        elif tag == "select":
            self.select = None

    def all(self, tag: str, **attrs) -> list[dict]:
        return [t for t in self.tags if t["tag"] == tag and all(t.get(k) == v for k, v in attrs.items())]


def context_of(images: list[PageImage]) -> ItemContext:
    """The item context of an item shown in the order of ``images``."""
    return ItemContext(images=tuple(ImageRef(i.id, MODEL, i.width, i.height) for i in images))


def read_back(key: str, data: dict, images: list[PageImage]):
    """The answer the server's engine reads from ``data`` for the field ``key`` (none refused)."""
    result = validate(Protocol(fields=(F[key],)), data, context_of(images))
    assert not result.errors, result.errors
    return result.answers[key]


def render(key: str, data: dict, images: list[PageImage], *, errors: dict | None = None) -> str:
    """The field ``key``'s markup, bound to ``data`` (for an item shown in the order of ``images``)."""
    ctx = context_of(images)
    spec = Protocol(fields=(F[key],))
    errors = validate(spec, data, ctx).errors if errors is None else errors
    bound = bind(spec, data, ctx, errors)[0]
    return render_to_string(bound.template, {"bf": bound, "images": images})


def radios(tags: Tags, name: str) -> list[str]:
    return [t["value"] for t in tags.all("input", type="radio", name=name)]


def checked(tags: Tags, name: str) -> list[str]:
    return [t["value"] for t in tags.all("input", type="radio", name=name) if "checked" in t]


def assert_blind_and_accessible(html: str, tags: Tags, images: list[PageImage]):
    """The model nowhere; one fieldset with its legend; every control inside its label; each image a
    link to itself in a new tab with a name, its size set, lazy after the first two."""
    assert MODEL not in html
    assert len(tags.all("fieldset")) >= 1 and len(tags.all("legend")) >= 1
    controls = [t for t in tags.tags if t["tag"] in ("input", "select")]
    assert controls and all(t["in_label"] for t in controls)
    links = tags.all("a", target="_blank")
    assert [a["href"] for a in links] == [i.url for i in images]
    named = zip(links, images, strict=True)
    assert all(a["rel"] == "noopener" and a["aria-label"].startswith(i.label) for a, i in named)
    shown = tags.all("img")
    assert [(img["src"], img["width"], img["height"]) for img in shown] == [(i.url, "640", "480") for i in images]
    assert ["loading" in img for img in shown] == [n >= 2 for n in range(len(images))]
    assert all(t.get("dir") == "auto" for t in tags.tags if t["tag"] == "span" and "class" not in t)


# --- pairwise ---------------------------------------------------------------------------------------


def test_a_pairwise_form_posts_the_ids_of_the_images_as_shown_then_the_tie():
    images = page_images("2", "1")
    html = render("pair", {}, images)
    tags = Tags(html)
    assert radios(tags, "pair") == ["2", "1", "tie"] and checked(tags, "pair") == []
    assert "left" not in radios(tags, "pair") and not tags.all("input", name="pair.strength")
    assert "Image A is better" in html and "Image B is better" in html and "About the same (a tie)" in html
    assert "keys 1–3" in html and "Which fits the prompt better?" in html
    assert tags.all("div", **{"class": "compare-images compare-two", "dir": "ltr"})  # left stays left in Arabic
    assert_blind_and_accessible(html, tags, images)


def test_a_pairwise_form_offers_only_what_its_spec_allows():
    images = page_images("1", "2")
    assert radios(Tags(render("strict", {}, images)), "strict") == ["1", "2"]
    tags = Tags(render("strong", {}, images))
    assert radios(tags, "strong") == ["1", "2", "tie", "both_fail"]
    assert radios(tags, "strong.strength") == ["1", "2", "3"]
    assert tags.all("fieldset", **{"class": "compare-strength", "data-strength": ""})


def test_a_posted_pairwise_answer_is_checked_again_with_its_strength():
    tags = Tags(render("strong", {"strong": ["1"], "strong.strength": ["2"]}, page_images("2", "1")))
    assert checked(tags, "strong") == ["1"] and checked(tags, "strong.strength") == ["2"]


def test_a_refused_pairwise_answer_says_why_next_to_the_question():
    html = render("strong", {"strong": ["1"]}, page_images("2", "1"))
    assert "Say how much better the image you chose is." in html
    assert Tags(html).all("fieldset", **{"aria-invalid": "true", "aria-describedby": "err-strong"})


# --- best_worst -------------------------------------------------------------------------------------


def test_a_best_worst_form_has_a_best_and_a_worst_radio_per_image_by_id():
    images = page_images("3", "1", "2")
    html = render("extremes", {}, images)
    tags = Tags(html)
    assert radios(tags, "extremes") == radios(tags, "extremes.worst") == ["3", "1", "2"]
    assert html.count("Best") >= 3 and html.count("Worst") >= 3
    assert '<span class="visually-hidden">Image C: </span>' in html  # each radio's label names its image
    assert tags.all("fieldset", **{"data-no-number-keys": ""})  # 2 would be the first image's "worst"
    assert tags.all("div", **{"class": "compare-images compare-row", "dir": "ltr"})  # swiped on a phone
    assert_blind_and_accessible(html, tags, images)


def test_a_posted_best_and_worst_are_checked_again():
    tags = Tags(render("extremes", {"extremes": ["1"], "extremes.worst": ["2"]}, page_images("3", "1", "2")))
    assert checked(tags, "extremes") == ["1"] and checked(tags, "extremes.worst") == ["2"]


# --- rank -------------------------------------------------------------------------------------------


def test_a_rank_form_has_one_select_per_image_under_its_id_with_ranks_one_to_k():
    images = page_images("3", "1", "2", "4")
    html = render("ranked", {}, images)
    tags = Tags(html)
    assert [s["name"] for s in tags.all("select")] == ["ranked.3", "ranked.1", "ranked.2", "ranked.4"]
    assert all(s["id"] == f"rank-ranked-{s['name'][-1]}" for s in tags.all("select"))
    for select in tags.all("select"):
        assert [o["value"] for o in tags.all("option", select=select["name"])] == ["", "1", "2", "3", "4"]
    assert "1 (best)" in html and "4 (worst)" in html and "1 is the best, 4 the worst" in html
    assert "Rank of Image A" in html
    assert_blind_and_accessible(html, tags, images)


def test_a_posted_ranking_is_selected_again_and_a_rank_given_twice_is_refused():
    data = {"ranked.1": ["1"], "ranked.2": ["1"], "ranked.3": ["2"]}
    html = render("ranked", data, page_images("3", "1", "2"))
    tags = Tags(html)
    chosen = {t["select"]: t["value"] for t in tags.all("option") if "selected" in t}
    assert chosen == {"ranked.1": "1", "ranked.2": "1", "ranked.3": "2"}
    assert "Rank 1 is given twice: give each image its own rank." in html


def test_two_images_to_rank_stay_side_by_side():
    tags = Tags(render("ranked", {}, page_images("2", "1")))
    assert tags.all("div", **{"class": "compare-images compare-two", "dir": "ltr"})


# --- without images (a preview of the form) ---------------------------------------------------------


@pytest.mark.parametrize("key, note", [
    ("pair", "The item's two images are shown here, side by side."),
    ("extremes", "The item's images are shown here, each with its own choices."),
    ("ranked", "The item's images are shown here, each with its rank to choose."),
])  # fmt: skip
def test_a_form_without_images_says_where_they_go(key, note):
    html = render(key, {}, [], errors={})
    assert note in html and not Tags(html).all("img")
