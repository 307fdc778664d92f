"""What each protocol reports: pure functions over plain rows, no database."""

import json
import math
from pathlib import Path

import pytest
from scipy import stats

from stats import decisions
from stats.reports import (
    answer_agreement,
    box_agreement,
    caption_win_rates,
    complete_prompts,
    criteria_spearman,
    document_scores,
    error_type_shares,
    human_scores,
    iou,
    iou_against_gold,
    normalise_answer,
    prompt_filter_majority,
    word_frequency,
)
from stats.reports.globalrg import box_xywh
from studies.protocol import parse_spec

PRESETS = Path(__file__).resolve().parents[2] / "studies" / "presets"


def json_safe(result) -> dict:
    d = result.as_dict()
    json.dumps(d, allow_nan=False)
    return d


# --- CAIRE -------------------------------------------------------------------------------------


def test_caire_human_score_is_the_mean_of_the_countrys_ratings():
    rows = [(1, "IN", 4), (1, "IN", 5), (1, "IN", 3), (1, "US", 1), (2, "IN", 2), (2, "US", None), (2, "US", "n/a")]
    result = human_scores(rows)
    assert result.rows == [(1, "IN", 4.0, 3, 1.0), (1, "US", 1.0, 1, None), (2, "IN", 2.0, 1, None)]
    assert result.ratings == 5 and result.missing == 2
    assert result.countries == [
        {"country": "IN", "pairs": 2, "ratings": 4, "mean": 3.0},
        {"country": "US", "pairs": 1, "ratings": 1, "mean": 1.0},
    ]
    d = json_safe(result)
    assert d["columns"] == ["item_id", "country", "mean", "n", "sd"] and d["pairs"] == 3


def test_caire_human_scores_of_nothing_and_of_some_items():
    assert human_scores([]).rows == []
    assert human_scores([(1, "IN", 4), (2, "IN", 5)], only_items={2}).rows == [(2, "IN", 5.0, 1, None)]
    json_safe(human_scores([]))


# --- CulturalFrames: prompt filter -------------------------------------------------------------


def test_the_prompt_filter_decides_as_the_seeding_does():
    rows = [
        ("p1", "IN", "yes"), ("p1", "IN", "yes"),  # kept at two Yes
        ("p2", "IN", "no"), ("p2", "IN", "no"),  # dropped: the third vote cannot make two Yes
        ("p3", "IN", "yes"), ("p3", "IN", "no"),  # pending: the third vote decides
        ("p4", "JP", "Yes"), ("p4", "JP", True), ("p4", "JP", "no"),
        ("p5", "JP", "maybe"),
    ]
    result = prompt_filter_majority(rows)
    decided = {(r[0], r[1]): r[2:] for r in result.rows}
    assert decided[("p1", "IN")] == (2, 0, 3, "kept")
    assert decided[("p2", "IN")] == (0, 2, 3, "dropped")
    assert decided[("p3", "IN")] == (1, 1, 3, "pending")
    assert decided[("p4", "JP")] == (2, 1, 3, "kept")
    assert ("p5", "JP") not in decided and result.other_votes == 1
    for _item, _country, yes, no, wanted, decision in result.rows:
        assert decision == decisions.prompt_decision(yes=yes, no=no, wanted=wanted, min_yes=2)
    assert result.totals == {"kept": 2, "dropped": 1, "pending": 1}
    assert result.countries == [{"country": "IN", "kept": 1, "dropped": 1, "pending": 1},
                                {"country": "JP", "kept": 1, "dropped": 0, "pending": 0}]
    json_safe(result)


def test_the_prompt_filter_takes_the_quotas_and_another_threshold():
    wanted = {("p1", "IN"): 3, ("p2", "IN"): 3, ("p3", "IN"): 5}
    rows = [("p1", "IN", "yes"), ("p1", "IN", "yes"), ("p3", "IN", "no"), ("p3", "IN", "no"), ("p9", "IN", "yes")]
    result = prompt_filter_majority(rows, min_yes=3, wanted=wanted)
    decided = {r[0]: (r[4], r[5]) for r in result.rows}
    assert decided == {"p1": (3, "pending"), "p2": (3, "pending"), "p3": (5, "pending"), "p9": (1, "dropped")}


# --- CulturalFrames: error types ---------------------------------------------------------------


ALIGNMENT_ROWS = [
    (1, "IN", 1, None),
    (1, "IN", 0.5, ["explicit"]),
    (2, "IN", 0, ["explicit", "implicit"]),
    (2, "IN", 0.5, ["implicit"]),
    (3, "JP", 0, ["implicit"]),
    (3, "JP", 1, []),
    (3, "JP", 0.5, []),  # answered before the question existed
    (4, "JP", None, ["explicit"]),
]


def test_error_types_share_the_sub_perfect_ratings():
    result = error_type_shares(ALIGNMENT_ROWS)
    overall = result.overall
    assert (overall["ratings"], overall["sub_perfect"], result.missing) == (7, 5, 1)
    assert overall["counts"] == {"explicit_only": 1, "implicit_only": 2, "both": 1, "unspecified": 1}
    assert overall["shares"] == {"explicit_only": 0.2, "implicit_only": 0.4, "both": 0.2, "unspecified": 0.2}
    india, japan = result.countries
    assert india["country"] == "IN" and india["sub_perfect_share"] == 0.75
    assert india["shares"] == {"explicit_only": 1 / 3, "implicit_only": 1 / 3, "both": 1 / 3, "unspecified": 0.0}
    assert japan["counts"] == {"explicit_only": 0, "implicit_only": 1, "both": 0, "unspecified": 1}
    json_safe(result)


def test_error_types_without_sub_perfect_ratings_have_no_shares():
    result = error_type_shares([(1, "IN", 1, None)])
    assert result.overall["sub_perfect"] == 0 and result.overall["shares"]["both"] is None
    json_safe(result)


def test_error_types_restricted_to_some_items():
    result = error_type_shares(ALIGNMENT_ROWS, only_items={2})
    assert result.overall["counts"] == {"explicit_only": 0, "implicit_only": 1, "both": 1, "unspecified": 0}


# --- CulturalFrames: highlighted words ---------------------------------------------------------


def words(*texts):
    return [{"index": i, "start": 0, "end": len(t), "text": t} for i, t in enumerate(texts)]


def test_highlighted_words_are_counted_lower_cased_per_country_and_overall():
    rows = [
        (1, "IN", words("Sari", "temple", "sari")),
        (2, "IN", words("SARI")),
        (3, "JP", words("Kimono", "temple")),
        (4, "JP", []),
        (5, "JP", None),
    ]
    result = word_frequency(rows)
    assert result.overall["top"] == [["sari", 3, 2], ["temple", 2, 2], ["kimono", 1, 1]]
    assert (result.overall["annotations"], result.overall["words"], result.overall["distinct"]) == (3, 6, 3)
    india, japan = result.countries
    assert india["top"] == [["sari", 3, 2], ["temple", 1, 1]]
    assert japan["top"] == [["kimono", 1, 1], ["temple", 1, 1]]  # ties: alphabetical
    json_safe(result)


def test_highlighted_words_top_n_stopwords_and_plain_strings():
    rows = [(1, "IN", ["The", "dog", "a"]), (2, "IN", ["dog", "cat"])]
    result = word_frequency(rows, top=1, stopwords={"the", "a"})
    assert result.overall["top"] == [["dog", 2, 2]] and result.overall["distinct"] == 2


# --- CulturalFrames: Spearman between criteria -------------------------------------------------


CRITERIA_ROWS = [
    (1, "IN", 0, 0, 1), (1, "IN", 0.5, 0.5, 2), (1, "IN", 0, 0.5, 1),
    (2, "IN", 1, 1, 5), (2, "IN", 1, 0.5, 4), (2, "IN", 0.5, 1, 4),
    (3, "JP", 0.5, 0, 2), (3, "JP", 1, 0.5, None), (3, "JP", 0, 0, 1),
    (4, "JP", 1, 1, 5), (4, "JP", 0.5, 1, 3), (4, "JP", 1, 1, 5),
]


def test_criteria_spearman_per_annotation_and_on_item_means():
    result = criteria_spearman(CRITERIA_ROWS)
    pairs = {(p["a"], p["b"]): p for p in result.overall}
    assert list(pairs) == [("alignment", "quality"), ("alignment", "overall"), ("quality", "overall")]
    a = [r[2] for r in CRITERIA_ROWS]
    o = [r[4] for r in CRITERIA_ROWS]
    keep = [i for i, v in enumerate(o) if v is not None]
    expected = stats.spearmanr([a[i] for i in keep], [o[i] for i in keep])
    found = pairs[("alignment", "overall")]["annotations"]
    assert (found.value, found.p_value, found.n) == pytest.approx((expected.statistic, expected.pvalue, 11))
    mean_a = [sum(a[k:k + 3]) / 3 for k in (0, 3, 6, 9)]
    mean_o = [4 / 3, 13 / 3, 1.5, 13 / 3]
    by_item = pairs[("alignment", "overall")]["item_means"]
    assert by_item.n == 4 and by_item.value == pytest.approx(stats.spearmanr(mean_a, mean_o).statistic)
    assert [c["country"] for c in result.countries] == ["IN", "JP"]
    json_safe(result)


def test_criteria_spearman_without_variation_is_none_with_a_reason():
    rows = [(i, "IN", 1, 1, i) for i in range(1, 6)]
    pairs = {(p["a"], p["b"]): p for p in criteria_spearman(rows).overall}
    assert pairs[("alignment", "overall")]["annotations"].value is None
    assert pairs[("alignment", "overall")]["annotations"].reason == "no variation: every alignment value is the same"
    one = criteria_spearman([(1, "IN", 1, 0.5, 3)])
    assert one.overall[0]["annotations"].reason == "fewer than 3 paired values"
    json_safe(one)


# --- CulturalFrames: complete prompts ----------------------------------------------------------


def test_complete_prompts_have_an_image_from_every_model():
    items = [
        (1, "p1", "sd"), (2, "p1", "dalle"), (3, "p1", "flux"),
        (4, "p2", "sd"), (5, "p2", "dalle"),
        (6, "p3", "sd"), (7, "p3", "dalle"), (8, "p3", "flux"), (9, "p3", "flux"),
        (10, "p4", ""),
    ]
    result = complete_prompts(items)
    assert result.models == ["dalle", "flux", "sd"]
    assert (result.prompts, result.complete, result.without_model) == (4, 2, 1)
    assert result.item_ids == {1, 2, 3, 6, 7, 8, 9}
    assert result.missing_by_model == {"dalle": 1, "flux": 2, "sd": 1}
    two = complete_prompts(items, models=["sd", "dalle"])
    assert two.complete == 3 and two.item_ids == {1, 2, 4, 5, 6, 7}
    assert json_safe(result)["items"] == 7


def test_reports_restrict_to_the_complete_prompts():
    items = [(1, "p1", "sd"), (2, "p1", "dalle"), (3, "p2", "sd"), (4, "p3", "dalle")]
    keep = complete_prompts(items).item_ids
    rows = [
        (1, "IN", 0.5, ["explicit"]), (2, "IN", 0, ["implicit"]), (3, "IN", 0, ["explicit"]), (4, "IN", 0, ["both"]),
    ]
    assert error_type_shares(rows, only_items=keep).overall["sub_perfect"] == 2


def test_no_model_named_means_no_complete_prompt():
    result = complete_prompts([(1, "p1", ""), (2, "p2", None)])
    assert (result.models, result.complete, result.item_ids) == ([], 0, frozenset())


# --- RAVENEA: document scores ------------------------------------------------------------------


def ravenea_subfields():
    spec = parse_spec(json.loads((PRESETS / "ravenea-doc-relevance.json").read_text())["protocol"])
    return next(f for f in spec.fields if f.type == "per_document").fields


def doc(document, country, topic, visual):
    return {"document": document, "country": country, "topic": topic, "visual": visual}


def test_document_scores_are_the_mean_combined_score_per_image_and_document():
    rows = [
        (1, "IN", [doc(10, "yes", "yes", "yes"), doc(11, "no", "no", "no"), doc(12, "cannot_determine", "yes", "no")]),
        (1, "IN", [doc(10, "yes", "no", "yes"), doc(11, "no", "no", "yes"), doc(12, "cannot_determine", "no", None)]),
        (2, "JP", [doc(20, "yes", "no", "no")]),
        (3, "JP", None),  # a skipped annotation has no documents
    ]
    result = document_scores(rows, ravenea_subfields())
    assert result.rows == [
        (1, 10, 2.0, 2, pytest.approx(math.sqrt(2))),
        (1, 11, -2.0, 2, pytest.approx(math.sqrt(2))),
        (1, 12, 0.0, 1, None),
        (2, 20, -1.0, 1, None),
    ]
    assert (result.answers, result.unscored) == (6, 1)
    assert result.fields == ["country", "topic", "visual"]
    assert result.mean == pytest.approx(-0.25)
    assert result.histogram == [(-2, 1), (-1, 1), (0, 1), (2, 1)]
    assert result.countries == [{"country": "IN", "pairs": 3, "mean": 0.0}, {"country": "JP", "pairs": 1, "mean": -1.0}]
    d = json_safe(result)
    assert d["mapping"] == [["yes", 1], ["no", -1], ["cannot_determine", 0]]


def test_document_means_are_rounded_half_up_in_the_histogram():
    rows = [(1, "IN", [doc(10, "yes", "yes", "yes")]), (1, "IN", [doc(10, "yes", "yes", "no")]),
            (2, "IN", [doc(20, "no", "no", "no")]), (2, "IN", [doc(20, "cannot_determine", "no", "no")])]
    result = document_scores(rows, ravenea_subfields())
    assert [r[2] for r in result.rows] == [2.0, -2.5]
    assert result.histogram == [(-2, 1), (2, 1)]


def test_document_scores_take_another_mapping_and_a_rows_own_fields():
    subs = ravenea_subfields()
    older = [f for f in subs if f.key != "visual"]  # an older version asked two questions
    rows = [(1, "IN", [doc(10, "yes", "yes", "no")]), (1, "IN", [doc(10, "yes", "no", None)], older)]
    result = document_scores(rows, subs, mapping={"yes": 2, "no": 0, "cannot_determine": 1})
    assert result.rows == [(1, 10, 3.0, 2, pytest.approx(math.sqrt(2)))]
    assert document_scores([], subs).rows == [] and json_safe(document_scores([], subs))["mean"] is None


# --- RAVENEA: caption choice -------------------------------------------------------------------


CANDIDATES = {
    1: [{"id": "a", "text": "…", "system": "gpt"}, {"id": "b", "text": "…", "system": "llava"},
        {"id": "c", "text": "…"}],
    2: [{"id": "d", "text": "…", "system": "gpt"}, {"id": "e", "text": "…", "system": "llava"},
        {"id": "f", "text": "…"}],
}
CHOICES = [
    (1, "IN", {"choice": "a", "order": ["a", "b", "c"]}),
    (1, "IN", {"choice": "a", "order": ["b", "a", "c"]}),
    (1, "IN", {"choice": "c", "order": ["c", "b", "a"]}),
    (2, "JP", {"choice": "e", "order": ["e", "f", "d"]}),
    (2, "JP", {"choice": "d"}),  # no order recorded
    (2, "JP", {"order": ["d", "e", "f"]}),  # no choice: unreadable
]


def test_caption_win_rates_per_system():
    result = caption_win_rates(CHOICES, candidates=CANDIDATES)
    overall = {s["system"]: s for s in result.overall["systems"]}
    assert result.overall["answers"] == 5 and result.overall["with_order"] == 4 and result.unreadable == 1
    assert [s["system"] for s in result.overall["systems"]] == ["gpt", "c", "llava", "f"]
    assert (overall["gpt"]["shown"], overall["gpt"]["wins"], overall["gpt"]["win_rate"], overall["gpt"]["share"]) == (
        5, 3, 0.6, 0.6)
    assert (overall["c"]["shown"], overall["c"]["wins"]) == (3, 1)  # candidate c has no system: its id
    assert (overall["llava"]["wins"], overall["f"]["wins"]) == (1, 0)
    assert (overall["gpt"]["shown_first"], overall["gpt"]["first_rate"]) == (1, 0.25)
    assert overall["gpt"]["expected_first_rate"] == pytest.approx(1 / 3)
    assert (overall["llava"]["shown_first"], overall["llava"]["first_rate"]) == (2, 0.5)
    india, japan = result.countries
    assert india["country"] == "IN"
    assert {s["system"]: s["wins"] for s in india["systems"]} == {"gpt": 2, "c": 1, "llava": 0}
    assert japan["answers"] == 2
    json_safe(result)


def test_caption_wins_by_position_against_a_uniform_shuffle():
    result = caption_win_rates(CHOICES, candidates=CANDIDATES)
    positions = result.overall["positions"]
    assert [p["wins"] for p in positions] == [3, 1, 0]
    assert [p["expected"] for p in positions] == pytest.approx([4 / 3] * 3)
    expected = stats.chisquare([3, 1, 0], [4 / 3] * 3)
    assert result.overall["position_test"]["p_value"] == pytest.approx(expected.pvalue)


def test_caption_systems_default_to_the_candidate_ids():
    result = caption_win_rates([(1, "IN", {"choice": "a", "order": ["a", "b"]}), (1, "IN", {"choice": "x"})])
    systems = {s["system"]: s for s in result.overall["systems"]}
    assert set(systems) == {"a", "b", "x"} and systems["x"]["first_rate"] is None
    assert result.overall["positions"][0]["wins"] == 1
    assert caption_win_rates([]).overall["position_test"]["reason"]


# --- GlobalRG ----------------------------------------------------------------------------------


def stored(x, y, w, h, width=100, height=100):
    return [{"x": x, "y": y, "w": w, "h": h, "nx": x / width, "ny": y / height, "nw": w / width, "nh": h / height,
             "area_ratio": w * h / (width * height)}]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([0, 0, 10, 10], [20, 20, 5, 5], 0.0),  # disjoint
        ([0, 0, 10, 10], [0, 0, 10, 10], 1.0),  # identical
        ([0, 0, 10, 10], [2, 2, 5, 5], 0.25),  # contained: 25 / 100
        ([0, 0, 10, 10], [10, 0, 10, 10], 0.0),  # touching edges
        ([0, 0, 10, 10], [10, 10, 3, 3], 0.0),  # touching corners
        ([0, 0, 10, 10], [5, 0, 10, 10], 50 / 150),  # half overlap
        ([0, 0, 0, 0], [0, 0, 0, 0], 0.0),  # no area, no union
    ],
)
def test_iou(a, b, expected):
    assert iou(a, b) == pytest.approx(expected)
    assert iou(b, a) == pytest.approx(expected)


def test_iou_of_stored_boxes_in_normalised_or_pixel_coordinates():
    a, b = stored(0, 0, 40, 40, 200, 100), stored(20, 0, 40, 40, 200, 100)
    assert iou(a, b) == pytest.approx(800 / 2400)
    assert iou(a, b, normalised=False) == pytest.approx(800 / 2400)
    assert iou(a[0], [0, 0, 0.2, 0.4]) == pytest.approx(1.0)  # a bare box, normalised


def test_a_box_that_is_not_one_is_refused():
    with pytest.raises(ValueError, match="2 boxes"):
        box_xywh(stored(0, 0, 1, 1) + stored(2, 2, 1, 1))
    with pytest.raises(ValueError, match="negative"):
        box_xywh([0, 0, -1, 1])
    with pytest.raises(ValueError, match="nx/ny/nw/nh must be numbers"):
        box_xywh({"x": 1, "y": 1, "w": 1, "h": 1})
    with pytest.raises(ValueError, match="not a box"):
        box_xywh(None)


def test_box_agreement_pairs_annotators_of_the_same_image():
    rows = [
        ("img-a", 1, stored(0, 0, 10, 10)),
        ("img-a", 2, stored(0, 0, 10, 10)),
        ("img-a", 3, stored(5, 0, 10, 10)),
        ("img-a", 3, stored(0, 0, 10, 10)),  # annotator 3 again: never paired with itself
        ("img-b", 4, stored(0, 0, 10, 10)),  # alone on its image
        ("img-c", 5, None),
    ]
    result = box_agreement(rows)
    ious = [1, 1 / 3, 1, 1 / 3, 1]  # 1-2, 1-3, 1-3', 2-3, 2-3'
    assert (result.images, result.images_paired, result.boxes, result.unreadable) == (2, 1, 5, 1)
    assert result.pairs == 5 and result.mean_iou == pytest.approx(sum(ious) / 5)
    assert (result.at_threshold, result.share_at_threshold) == (3, 0.6)
    assert result.rows == [("img-a", 3, 5, pytest.approx(sum(ious) / 5))]
    json_safe(result)


def test_box_agreement_without_pairs_has_a_reason():
    result = box_agreement([("img-a", 1, stored(0, 0, 10, 10)), ("img-b", 2, stored(0, 0, 10, 10))])
    assert result.pairs == 0 and result.mean_iou is None and result.share_at_threshold is None
    assert result.reason == "no image has boxes from two annotators"
    json_safe(result)


def test_predicted_boxes_against_the_gold_boxes():
    gold = [("i1", stored(0, 0, 10, 10)), ("i2", stored(0, 0, 10, 10)), ("i2", stored(50, 50, 10, 10)),
            ("i3", stored(0, 0, 10, 10)), ("i4", "junk")]
    pred = [
        ("i1", "m", [0, 0, 0.1, 0.1]),  # IoU 1
        ("i2", "m", [0.5, 0.5, 0.1, 0.05]),  # 0.5 against the second gold box
        ("i2", "m", [0, 0, 0.1, 0.1]),  # a second prediction: left out
        ("i9", "m", [0, 0, 0.1, 0.1]),  # no gold box
        ("i1", "n", [0.05, 0, 0.1, 0.1]),  # IoU 1/3
    ]
    result = iou_against_gold(pred, gold)
    m, n = result.systems
    assert (result.gold_images, result.unreadable_gold) == (3, 1)
    assert (m["system"], m["predicted"], m["missing"], m["duplicates"], m["without_gold"]) == ("m", 2, 1, 1, 1)
    assert m["mean_iou"] == pytest.approx(0.75) and m["hits"] == 2 and m["precision"] == pytest.approx(2 / 3)
    assert (n["hits"], n["precision"], n["missing"]) == (0, 0.0, 2)
    json_safe(result)


# --- CulturalVQA -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The Naan.", "naan"),
        ("Crème Brûlée", "creme brulee"),
        ("an  Oolong   tea", "oolong tea"),
        ("Mother's Day", "mothers day"),
        ("hot-dog", "hot dog"),
        ("ＮＡＡＮ", "naan"),  # full-width letters (NFKD)
        ("Straße", "strasse"),
    ],
)
def test_answers_are_normalised_before_they_are_compared(a, b):
    assert normalise_answer(a) == normalise_answer(b)


def test_normalising_keeps_the_vowel_signs_of_other_scripts():
    assert normalise_answer("पूरी") != normalise_answer("परी")
    assert normalise_answer("김치") == "김치"
    assert normalise_answer("theatre") == "theatre" and normalise_answer("a") == ""


def test_answer_agreement_is_the_share_of_matching_pairs_averaged_per_country():
    rows = [
        ("q1", "IN", "Naan"), ("q1", "IN", "the naan"), ("q1", "IN", "Roti"),  # 1 of 3 pairs
        ("q2", "IN", "Diwali"), ("q2", "IN", "diwali!"),  # 1 of 1
        ("q3", "IN", "Holi"),  # a single answer
        ("q4", "JP", "Sake"), ("q4", "JP", "Shochu"), ("q4", "JP", "Umeshu"), ("q4", "JP", "sake"),  # 1 of 6
        ("q5", "JP", "The"),  # empty once normalised
    ]
    result = answer_agreement(rows)
    india, japan = result.countries
    assert (india["questions"], india["answers"], india["single_answer_questions"]) == (2, 5, 1)
    assert india["mean_agreement"] == pytest.approx((1 / 3 + 1) / 2) and india["unanimous"] == 0.5
    assert (japan["questions"], japan["empty_answers"]) == (1, 1)
    assert japan["mean_agreement"] == pytest.approx(1 / 6) and japan["unanimous"] == 0.0
    assert result.overall["questions"] == 3
    assert result.overall["mean_agreement"] == pytest.approx((1 / 3 + 1 + 1 / 6) / 3)
    assert result.rows[0] == ("q1", "IN", 3, 3, pytest.approx(1 / 3))
    json_safe(result)


def test_answer_agreement_with_no_pairs_is_none_not_a_crash():
    result = answer_agreement([("q1", "IN", "naan")])
    assert result.overall["mean_agreement"] is None and result.countries[0]["single_answer_questions"] == 1
    json_safe(result)


@pytest.mark.parametrize(
    "report",
    [
        lambda: human_scores([]),
        lambda: prompt_filter_majority([]),
        lambda: error_type_shares([]),
        lambda: word_frequency([]),
        lambda: criteria_spearman([]),
        lambda: complete_prompts([]),
        lambda: document_scores([], ravenea_subfields()),
        lambda: caption_win_rates([]),
        lambda: box_agreement([]),
        lambda: iou_against_gold([], []),
        lambda: answer_agreement([]),
    ],
)
def test_no_rows_is_an_empty_report_not_a_crash(report):
    json_safe(report())
