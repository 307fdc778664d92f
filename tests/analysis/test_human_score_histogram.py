"""CAIRE's human-score histogram and GlobalRG's IoU histogram are binned by the analysis (a
background job), so the page does not walk every row: the bins are those of the rows."""

import numpy as np

from analysis.plots import figures
from stats.binning import bin_counts, bin_edges
from stats.reports import box_agreement, human_scores


def test_the_stored_histogram_holds_the_rows_binned():
    rng = np.random.default_rng(3)
    rows = [(i, country, int(rng.integers(1, 6))) for i in range(300) for country in ("JP", "IN", None)]
    res = human_scores(rows).as_dict()
    edges = res["histogram"]["edges"]
    assert edges == bin_edges([1, 5]) and edges[0] <= 1 and edges[-1] >= 5
    assert [c["country"] for c in res["histogram"]["countries"]] == ["IN", "JP", None]
    for country in res["histogram"]["countries"]:
        means = [row[2] for row in res["rows"] if row[1] == country["country"]]
        assert country["counts"] == bin_counts(means, edges) and sum(country["counts"]) == 300
    assert len(figures.human_scores(res)) == 3


def test_a_single_value_still_gets_a_bin():
    res = human_scores([(1, "IN", 4), (2, "IN", 4)]).as_dict()
    assert res["histogram"]["countries"] == [{"country": "IN", "counts": [2]}]
    assert len(figures.human_scores(res)) == 1


def test_nothing_rated_draws_nothing():
    res = human_scores([(1, "IN", None)]).as_dict()
    assert not res["histogram"] and figures.human_scores(res) == []


def test_the_stored_iou_histogram_holds_the_images_binned():
    boxes = []
    for image in range(30):
        for annotator, shift in enumerate((0, image % 7, 2 * (image % 5))):
            boxes.append((f"img-{image}", annotator, [0.1 + shift / 100, 0.1, 0.3, 0.3]))
    res = box_agreement(boxes).as_dict()
    means = [row[3] for row in res["rows"] if row[3] is not None]
    assert res["iou_histogram"] == bin_counts(means, [k / 10 for k in range(11)])
    assert sum(res["iou_histogram"]) == res["images_paired"] == 30
    assert figures.box_agreement(res) != "" and figures.box_agreement({**res, "iou_histogram": [0] * 10}) == ""
