"""The colour contract: class colours are never blue, distinct and stable; mixed nodes are blue."""

import colorsys

import pytest

from tnt.viz.colors import BLUE_HUES, MIXED_COLOR, MIXED_FILL, class_palette, fill_color, node_colors, node_fills


def hue_of(color):
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def is_blue(color):
    return 190 <= hue_of(color) <= 260


@pytest.mark.parametrize("n_classes", [1, 2, 10, 50, 200])
def test_no_class_colour_is_blue(n_classes):
    palette = class_palette(n_classes)
    assert len(palette) == n_classes
    assert not [c for c in palette if is_blue(c)]
    assert all(not (BLUE_HUES[0] <= hue_of(c) <= BLUE_HUES[1]) for c in palette)


def test_mixed_colour_is_a_clear_blue():
    assert is_blue(MIXED_COLOR) and is_blue(MIXED_FILL)


def test_fifty_classes_get_fifty_distinct_colours():
    assert len(set(class_palette(50))) == 50


def test_first_ten_colours_are_far_apart():
    rgb = [[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in class_palette(10)]
    closest = min(sum(abs(a - b) for a, b in zip(p, q)) for i, p in enumerate(rgb) for q in rgb[i + 1 :])
    assert closest > 40


def test_palette_is_stable_whatever_the_number_of_classes():
    assert class_palette(50)[:10] == class_palette(10)
    assert class_palette(3) == class_palette(3)


def test_node_colours_follow_the_dominant_class(toy_graph):
    palette = class_palette(2)
    # value rows: [6,4] [4,1] [2,3] [3,0] [2,2] mixed, [1,0], [0,3]
    assert node_colors(toy_graph) == [
        palette[0],
        palette[0],
        palette[1],
        palette[0],
        MIXED_COLOR,
        palette[0],
        palette[1],
    ]
    assert node_fills(toy_graph)[4] == MIXED_FILL


def test_fill_is_a_lighter_tint():
    assert fill_color("#000000", 0.5) == "#808080"
    assert fill_color("#f28e2b", 0.0) == "#f28e2b" and fill_color("#f28e2b", 1.0) == "#ffffff"


def test_negative_class_count_is_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        class_palette(-1)
