"""The smallest box a bbox field takes: ``min_side`` of the image's width and height (2% unless the
spec says), checked by the engine at the edges, and the settings the page's script reads."""

import pytest

from studies.protocol import ItemContext, parse_spec, validate
from studies.protocol.submission import bind

IMAGE = ItemContext(image=(400, 300))  # 2% of each side: 8 × 6 px


def box_spec(**settings) -> dict:
    return {"fields": [{"key": "spot", "type": "bbox", "over": "image", **settings}]}


def submit(box: str, **settings):
    return validate(parse_spec(box_spec(**settings)), {"spot": [box]}, IMAGE)


@pytest.mark.parametrize("box", ["[[10, 10, 8, 6]]", "[[0, 0, 8, 300]]", "[[392, 294, 8, 6]]"])
def test_it_accepts_a_box_of_two_percent_of_each_side_by_default(box):
    assert submit(box).ok


@pytest.mark.parametrize("box, size", [
    ("[[10, 10, 7, 7]]", "7×7"),  # the box
    ("[[10, 10, 7, 6]]", "7×6"),  # one pixel short in width
    ("[[10, 10, 8, 5]]", "8×5"),  # one pixel short in height
    ("[[10, 0, 7.9, 300]]", "7.9×300"),
])
def test_it_refuses_a_box_under_two_percent_of_a_side_saying_how_large_it_must_be(box, size):
    assert submit(box).errors == {"spot": (
        f"The box is too small: {size} px, and a box needs at least 8×6 px. "
        "Drag across the whole area you mean to mark."
    )}


def test_one_small_box_among_good_ones_refuses_the_answer():
    assert not submit("[[10, 10, 50, 50], [100, 100, 3, 3]]").ok


def test_the_spec_sets_the_share_and_rounds_the_pixels_up():
    # 5% of 400 × 300 is 20 × 15 px; 3% is 12 × 9 px
    assert submit("[[0, 0, 20, 15]]", min_side=0.05).ok
    assert submit("[[0, 0, 19, 15]]", min_side=0.05).errors["spot"].startswith("The box is too small: 19×15 px")
    assert submit("[[0, 0, 12, 9]]", min_side=0.03).ok
    assert not submit("[[0, 0, 12, 8]]", min_side=0.03).ok
    # 1% of 150 is 1.5 px: 2 px at least
    square = ItemContext(image=(150, 150))
    assert validate(parse_spec(box_spec(min_side=0.01)), {"spot": ["[[0, 0, 2, 2]]"]}, square).ok
    assert not validate(parse_spec(box_spec(min_side=0.01)), {"spot": ["[[0, 0, 1, 2]]"]}, square).ok


def test_a_min_side_of_zero_takes_any_box_inside_the_image():
    assert submit("[[10, 10, 1, 1]]", min_side=0).ok


def test_the_page_reads_the_min_side_the_maximum_and_the_area_ratio():
    [default] = bind(parse_spec(box_spec()), {}, IMAGE)
    assert default.page_data == {"min-side": "0.02"}
    [set_] = bind(parse_spec(box_spec(min_side=0.05, max=2, max_area_ratio=0.3)), {}, IMAGE)
    assert set_.page_data == {"min-side": "0.05", "max": "2", "max-ratio": "0.3"}
