"""Each paper's gold (stats.gold.papers) through a study's gold (stats.gold.study.study_gold), on
the presets' protocols and small hand-made annotations with hand-computed values. Pure, no database.

The cast: annotators 1–3 of India's pool (10), annotator 5 of Japan's (20), annotator 9 flagged
by a checker (left out), annotator 4 who skipped."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from stats.columns import columns_from_chunks
from stats.gold import GOLD, plain_rows, study_gold
from stats.gold.study import gold_keys
from stats.reports.catalog import REPORTS
from stats.versions import ProtocolSet
from studies.protocol import parse_spec

PRESETS = Path(__file__).resolve().parents[2] / "studies" / "presets"
COUNTRY_OF = {10: "IN", 20: "JP"}
NAMES = {1: "img-1", 2: "img-2"}
FLAGGED = {9}


def protocols(preset):
    spec = json.loads((PRESETS / f"{preset}.json").read_text())["protocol"]
    return ProtocolSet(current=parse_spec(spec), current_version=1)


def gold(preset, rows):
    """``rows``: (item, pool, annotator, answers or None for a skip)."""
    ps = protocols(preset)
    keys = gold_keys(ps)
    chunk = [
        list(range(1, len(rows) + 1)), [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
        [1] * len(rows), [r[3] is None for r in rows], [1000] * len(rows), [True] * len(rows),
        *[[json.dumps(r[3][k]) if r[3] and k in r[3] else None for r in rows] for k in keys],
    ]
    result = study_gold(columns_from_chunks([chunk], keys), ps, country_of=COUNTRY_OF, item_names=NAMES,
                        excluded=FLAGGED)
    assert not result.errors
    return result


def by(frame, *keys):
    return {tuple(r[k] for k in keys): r for r in plain_rows(frame)}


def test_every_declared_kind_has_a_gold_table():
    assert set(GOLD) == set(REPORTS)


def test_caire_human_score_per_image_and_country():
    result = gold("caire-relevance", [
        (1, 10, 1, {"relevance": 2}), (1, 10, 2, {"relevance": 4}), (1, 10, 3, {"relevance": 5}),
        (1, 10, 9, {"relevance": 1}), (1, 10, 4, None), (1, 20, 5, {"relevance": 3}),
    ])
    rows = by(result.papers["human_scores"], "item", "country")
    india = rows["img-1", "IN"]
    sd = np.std([2, 4, 5], ddof=1)
    low, high = stats.t.interval(0.95, 2, loc=11 / 3, scale=sd / math.sqrt(3))
    assert (india["mean"], india["n"], india["sd"]) == (pytest.approx(11 / 3), 3, pytest.approx(sd))
    assert (india["ci_low"], india["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert rows["img-1", "JP"] == {"item": "img-1", "country": "JP", "mean": 3.0, "n": 1, "sd": None,
                                   "ci_low": None, "ci_high": None}
    field = by(result.by_country, "item", "country")["img-1", "IN"]  # the ordinal field's own gold
    assert (field["median"], field["mean"], field["n"]) == (4.0, pytest.approx(11 / 3), 3)


def test_culturalframes_kept_prompts_and_the_vote_s_gold():
    result = gold("culturalframes-prompt-filter", [
        (1, 10, 1, {"fits_culture": "yes"}), (1, 10, 2, {"fits_culture": "yes"}), (1, 10, 3, {"fits_culture": "no"}),
        (2, 10, 1, {"fits_culture": "yes"}), (2, 10, 2, {"fits_culture": "no"}), (2, 10, 3, {"fits_culture": "no"}),
        (1, 20, 5, {"fits_culture": "yes"}), (2, 10, 9, {"fits_culture": "yes"}),
    ])
    assert plain_rows(result.papers["prompt_filter"]) == [
        {"item": "img-1", "country": "IN", "yes": 2, "no": 1, "wanted": 3, "decision": "kept"}
    ]
    vote = by(result.by_country, "item", "country")
    assert (vote["img-2", "IN"]["majority"], vote["img-2", "IN"]["majority_share"]) == ("no", 2 / 3)
    assert vote["img-2", "IN"]["ds_label"] is None and vote["img-2", "IN"]["ds_note"].startswith("too little data")
    assert result.annotators.empty  # at most two items each: below Dawid–Skene's floor, no competence


WORDS = [{"index": 0, "start": 0, "end": 3, "text": "Red"}, {"index": 2, "start": 8, "end": 14, "text": "temple"}]


def test_culturalframes_ratings_with_error_types_and_words_of_two_annotators():
    result = gold("culturalframes-rating", [
        (1, 10, 1, {"alignment": 0.5, "error_types": ["explicit"], "words": WORDS, "quality": 1, "overall": 3}),
        (1, 10, 2, {"alignment": 0, "error_types": ["explicit", "implicit"], "words": [WORDS[0]], "quality": 0.5,
                    "overall": 2}),
        (1, 10, 3, {"alignment": 1, "error_types": [], "words": [], "quality": 1, "overall": 5}),
        (1, 10, 9, {"alignment": 0, "error_types": ["implicit"], "words": [WORDS[1]], "quality": 0, "overall": 1}),
    ])
    assert plain_rows(result.papers["error_types"]) == [{
        "item": "img-1", "country": "IN", "ratings": 3, "alignment_mean": 0.5, "sub_perfect": 2,
        "explicit_only": 1, "implicit_only": 0, "both": 1, "unspecified": 0,
    }]
    # "temple" has a second highlight only from the flagged annotator: not kept
    assert plain_rows(result.papers["highlighted_words"]) == [
        {"item": "img-1", "country": "IN", "word": "red", "annotators": 2, "ratings": 3}
    ]
    criteria = by(result.papers["criteria_spearman"], "criterion")
    assert (criteria["alignment",]["n"], criteria["alignment",]["mean"], criteria["alignment",]["sd"]) == (3, 0.5, 0.5)
    assert criteria["overall",]["mean"] == pytest.approx(10 / 3)
    assert by(result.papers["human_scores"], "item")["img-1",]["mean"] == pytest.approx(10 / 3)


def doc(document, country, topic, visual):
    return {"document": document, "country": country, "topic": topic, "visual": visual}


def test_ravenea_score_per_image_and_document():
    result = gold("ravenea-doc-relevance", [
        (1, 10, 1, {"caption_correct": "yes", "documents": [doc(7, "yes", "yes", "no"), doc(8, "no", "no", "no")]}),
        (1, 10, 2, {"caption_correct": "yes", "documents": [doc(7, "yes", "yes", "yes")]}),
        (1, 20, 5, {"caption_correct": "no", "documents": [doc(7, "cannot_determine", "no", "no")]}),
        (1, 10, 9, {"caption_correct": "no", "documents": [doc(8, "yes", "yes", "yes")]}),
    ])
    rows = by(result.papers["document_scores"], "item", "document")
    assert (rows["img-1", 7]["mean"], rows["img-1", 7]["n"]) == (pytest.approx(2 / 3), 3)  # 1, 3, −2
    assert rows["img-1", 7]["sd"] == pytest.approx(np.std([1, 3, -2], ddof=1))
    assert (rows["img-1", 8]["mean"], rows["img-1", 8]["n"], rows["img-1", 8]["sd"]) == (-3.0, 1, None)
    # each sub-question's own gold per (image, document) and country
    subs = by(result.by_country, "item", "document", "country", "field")
    visual = subs["img-1", 7, "IN", "documents.visual"]
    assert (visual["n"], visual["majority"], visual["tie"], visual["tied"]) == (2, None, True, "yes|no")
    country = subs["img-1", 7, "IN", "documents.country"]
    assert (country["n"], country["majority"], country["agreement"]) == (2, "yes", 1.0)
    assert subs["img-1", 8, "IN", "documents.topic"]["majority"] == "no"  # annotator 9's "yes" left out
    assert subs["img-1", None, "IN", "caption_correct"]["majority"] == "yes"
    pooled = by(result.by_item, "item", "document", "field")["img-1", 7, "documents.country"]
    assert (pooled["n"], pooled["tied"], pooled["majority_share"]) == (3, "yes", pytest.approx(2 / 3))


def pick(choice, *order):
    return {"best_caption": {"choice": choice, "order": list(order)}}


def test_ravenea_caption_win_rates():
    result = gold("ravenea-caption-choice", [
        (1, 10, 1, pick("c1", "c1", "c2")), (1, 10, 2, pick("c2", "c2", "c1")), (1, 10, 3, pick("c1", "c2", "c1")),
        (2, 20, 5, pick("c2", "c1", "c2")), (2, 20, 9, pick("c1", "c1", "c2")),
    ])
    rows = by(result.papers["caption_wins"], "country", "system")
    assert (rows["IN", "c1"]["shown"], rows["IN", "c1"]["wins"], rows["IN", "c1"]["win_rate"]) == (3, 2, 2 / 3)
    assert (rows[None, "c1"]["shown"], rows[None, "c1"]["wins"], rows[None, "c1"]["win_rate"]) == (4, 2, 0.5)
    assert (rows["JP", "c2"]["wins"], rows["JP", "c2"]["share"]) == (1, 1.0)


def box(x, y, w, h):
    return [{"nx": x, "ny": y, "nw": w, "nh": h}]


def test_globalrg_fused_box_per_image_and_country_with_its_iou_spread():
    result = gold("globalrg-grounding", [
        (1, 10, 1, {"box": box(0, 0, 0.4, 0.4), "prevalent": "yes"}),
        (1, 10, 2, {"box": box(0.1, 0.1, 0.4, 0.4), "prevalent": "yes"}),
        (1, 10, 3, {"box": box(0, 0, 0.5, 0.5), "prevalent": "no"}),
        (1, 10, 9, {"box": box(0.5, 0.5, 0.5, 0.5), "prevalent": "no"}),
        (2, 20, 5, {"photo": {"sha256": "abc", "width": 10, "height": 10}, "box": box(0.2, 0.2, 0.1, 0.1)}),
        (2, 20, 6, {"photo": {"sha256": "def"}, "box": box(0, 0, 0.1, 0.1) * 2}),  # two boxes: unreadable
    ])
    rows = by(result.papers["box_agreement"], "image", "country")
    india = rows["img-1", "IN"]
    # the median of each edge: left 0, top 0, right 0.5, bottom 0.5; IoUs with it 0.64, 0.64, 1
    assert [india[k] for k in ("x", "y", "w", "h")] == pytest.approx([0, 0, 0.5, 0.5])
    assert (india["annotators"], india["iou_min"], india["iou_max"]) == (3, pytest.approx(0.64), 1.0)
    assert india["iou_mean"] == pytest.approx(0.76)
    pairs = [0.09 / (0.16 + 0.16 - 0.09), 0.16 / 0.25, 0.16 / 0.25]  # 1–2 overlap 0.3 × 0.3; 1 and 2 inside 3
    assert india["pairwise_iou"] == pytest.approx(np.mean(pairs))
    uploaded = rows["abc", "JP"]
    assert (uploaded["annotators"], uploaded["iou_mean"], uploaded["pairwise_iou"]) == (1, pytest.approx(1), None)
    assert ("def", "JP") not in rows


def test_culturalvqa_answers_in_the_vqa_style():
    result = gold("culturalvqa-answer", [
        (1, 10, 1, {"answer": "The naan."}), (1, 10, 2, {"answer": "naan"}), (1, 10, 3, {"answer": "roti"}),
        (1, 10, 9, {"answer": "roti"}),
        (1, 20, 5, {"answer": "sushi"}), (1, 20, 6, {"answer": "Ramen"}),
        (2, 10, 1, {"answer": "chai"}),
    ])
    rows = by(result.papers["answer_agreement"], "item", "country")
    india = rows["img-1", "IN"]
    assert (india["answers"], india["n"], india["majority"], india["tie"]) == (["The naan.", "naan", "roti"], 3,
                                                                             "naan", False)
    assert (india["majority_share"], india["agreement"]) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    japan = rows["img-1", "JP"]
    assert (japan["majority"], japan["tie"], japan["tied"], japan["agreement"]) == (None, True, "ramen|sushi", 0.0)
    assert (rows["img-2", "IN"]["majority"], rows["img-2", "IN"]["agreement"]) == ("chai", None)
