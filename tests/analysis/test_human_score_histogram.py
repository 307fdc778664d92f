"""CAIRE's human-score histogram is binned by the analysis (a background job), so the page does
not walk every (item, country) row; the bins are the ones the page would draw from the rows."""

import numpy as np

from analysis.plots import figures
from stats.reports import human_scores


def test_the_stored_histogram_draws_the_plot_the_rows_would():
    rng = np.random.default_rng(3)
    rows = [(i, country, int(rng.integers(1, 6))) for i in range(300) for country in ("JP", "IN", None)]
    res = human_scores(rows).as_dict()
    assert res["histogram"]["edges"][0] <= 1 and res["histogram"]["edges"][-1] >= 5
    assert [c["country"] for c in res["histogram"]["countries"]] == ["IN", "JP", None]
    assert [sum(c["counts"]) for c in res["histogram"]["countries"]] == [300, 300, 300]
    from_stored = figures.human_scores(res)
    from_rows = figures.human_scores({**res, "histogram": None})
    assert from_stored == from_rows and len(from_stored) == 3


def test_a_single_value_still_gets_a_bin():
    res = human_scores([(1, "IN", 4), (2, "IN", 4)]).as_dict()
    assert res["histogram"]["countries"] == [{"country": "IN", "counts": [2]}]
    assert figures.human_scores(res) == figures.human_scores({**res, "histogram": None})


def test_the_stored_iou_histogram_draws_the_plot_the_rows_would():
    from stats.reports import box_agreement

    boxes = []
    for image in range(30):
        for annotator, shift in enumerate((0, image % 7, 2 * (image % 5))):
            boxes.append((f"img-{image}", annotator, [0.1 + shift / 100, 0.1, 0.3, 0.3]))
    res = box_agreement(boxes).as_dict()
    assert sum(res["iou_histogram"]) == res["images_paired"] == 30
    assert figures.box_agreement(res) == figures.box_agreement({**res, "iou_histogram": None}) != ""
