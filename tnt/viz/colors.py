"""The colour contract shared by every view of a decision graph.

A node whose dominant class holds more than half of its weighted training samples takes that
class's colour; a *mixed* node (no such class) is blue. Blue is therefore reserved: no class colour
has a hue in :data:`BLUE_HUES`. Class ``k`` always gets the same colour, whatever the number of
classes, so a legend, a graph and a plot of the same model agree.

A regression graph's nodes are coloured instead by their mean target on a sequential scale
(:data:`VALUE_SCALE`, light for low values, dark for high), from the smallest to the largest node
mean.
"""

from __future__ import annotations

import colorsys

import numpy as np

from tnt.graph import MIXED

__all__ = [
    "VALUE_SCALE",
    "value_color",
    "value_range",
    "value_ticks",
    "BLUE_HUES",
    "HIGHLIGHT_COLOR",
    "MIXED_COLOR",
    "MIXED_LABEL",
    "MIXED_FILL",
    "class_palette",
    "fill_color",
    "node_colors",
    "node_fills",
]

#: Hue range (degrees) kept free of class colours, so that blue always means "mixed".
BLUE_HUES = (180.0, 265.0)

#: Colour of mixed nodes: a clear blue.
MIXED_COLOR = "#2563eb"
#: How legends name :data:`MIXED_COLOR`.
MIXED_LABEL = "mixed (no class over half)"

#: Colour of a highlighted sample's path (outlines and edges, never a node's fill).
HIGHLIGHT_COLOR = "#c00000"

# Hand-picked first colours (Tableau 10 without its blues), readable under black text.
_CURATED = (
    "#f28e2b",  # orange
    "#59a14f",  # green
    "#e15759",  # red
    "#edc948",  # yellow
    "#b07aa1",  # purple
    "#76b7a2",  # sea green
    "#ff9da7",  # pink
    "#9c755f",  # brown
    "#b5d33d",  # lime
    "#d37295",  # raspberry
)
_GOLDEN = 0.618033988749895
_LIGHTNESS = (0.62, 0.45, 0.75)
_SATURATION = (0.70, 0.55)


def _hex(r: float, g: float, b: float) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(round(255 * c) for c in (r, g, b)))


def _generated_color(i: int) -> str:
    """The ``i``-th colour past the curated ones: golden-ratio hues over the non-blue range."""
    low, high = BLUE_HUES[0] - 5.0, BLUE_HUES[1] + 5.0  # margin: hex rounding moves hues slightly
    allowed = 360.0 - (high - low)
    hue = ((i * _GOLDEN) % 1.0) * allowed
    hue = hue if hue < low else hue + (high - low)
    lightness = _LIGHTNESS[i % len(_LIGHTNESS)]
    saturation = _SATURATION[(i // len(_LIGHTNESS)) % len(_SATURATION)]
    return _hex(*colorsys.hls_to_rgb(hue / 360.0, lightness, saturation))


def class_palette(n_classes: int) -> list[str]:
    """One colour per class, never blue, distinct and stable.

    Class ``k`` gets the same colour for every ``n_classes > k``.

    Parameters
    ----------
    n_classes : int
        Number of classes.

    Returns
    -------
    colors : list of str
        ``n_classes`` lower-case hex colours (``"#rrggbb"``).

    Examples
    --------
    >>> from tnt.viz.colors import class_palette
    >>> class_palette(3)
    ['#f28e2b', '#59a14f', '#e15759']
    >>> len(set(class_palette(50)))
    50
    """
    if n_classes < 0:
        raise ValueError(f"n_classes must be non-negative, got {n_classes}.")
    colors = list(_CURATED[:n_classes])
    rgb = [_rgb(c) for c in colors]
    i, min_distance = 0, 0.15
    while len(colors) < n_classes:
        candidate = _generated_color(i)
        i += 1
        if i % 500 == 0:
            min_distance /= 2  # many classes: accept closer colours rather than loop for ever
        new = _rgb(candidate)
        distance = min((sum(abs(a - b) for a, b in zip(new, c)) for c in rgb), default=1.0)
        if distance >= min_distance and candidate not in colors:
            colors.append(candidate)
            rgb.append(new)
    return colors


def _rgb(color: str) -> tuple[float, float, float]:
    return tuple(int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))


def fill_color(color: str, amount: float = 0.4) -> str:
    """A lighter tint of ``color``: mixed ``amount`` of the way towards white.

    Examples
    --------
    >>> from tnt.viz.colors import fill_color
    >>> fill_color("#000000", 0.5)
    '#808080'
    """
    return _hex(*(c + (1.0 - c) * amount for c in _rgb(color)))


#: Lighter fill of mixed nodes.
MIXED_FILL = fill_color(MIXED_COLOR)


#: The sequential scale of regression graphs: (position, colour) stops from low to high mean target.
VALUE_SCALE = ((0.0, "#fff5d6"), (0.35, "#f9b24a"), (0.7, "#d9482b"), (1.0, "#7a0c30"))


def value_color(fraction: float) -> str:
    """The colour of :data:`VALUE_SCALE` at ``fraction`` (0 the lowest value shown, 1 the highest).

    Examples
    --------
    >>> from tnt.viz.colors import value_color
    >>> value_color(0.0), value_color(1.0)
    ('#fff5d6', '#7a0c30')
    """
    fraction = min(max(float(fraction), 0.0), 1.0)
    for (low, c_low), (high, c_high) in zip(VALUE_SCALE, VALUE_SCALE[1:]):
        if fraction <= high:
            t = (fraction - low) / (high - low)
            return _hex(*(a + (b - a) * t for a, b in zip(_rgb(c_low), _rgb(c_high))))
    return VALUE_SCALE[-1][1]


def value_range(graph) -> tuple[float, float]:
    """The smallest and largest node mean of a regression graph: the two ends of its colour scale
    (and of every colour bar drawn beside it).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.colors import value_range
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2.0], [1.0], [3.0]], regression=True)
    >>> value_range(g)
    (1.0, 3.0)
    """
    mean = graph.value[:, 0]
    return float(mean.min()), float(mean.max())


def value_ticks(low: float, high: float, n: int = 5) -> list[tuple[float, float]]:
    """``n`` evenly spaced (fraction along the scale, value) ticks of a colour bar from ``low`` to ``high``.

    Examples
    --------
    >>> from tnt.viz.colors import value_ticks
    >>> value_ticks(0.0, 10.0, 3)
    [(0.0, 0.0), (0.5, 5.0), (1.0, 10.0)]
    """
    return [(i / (n - 1), low + (high - low) * i / (n - 1)) for i in range(n)]


def _value_colors(graph) -> list[str]:
    low, high = value_range(graph)
    span = high - low if high > low else 1.0
    return [value_color((m - low) / span) for m in graph.value[:, 0]]


def node_colors(graph) -> list[str]:
    """Colour of each node of a :class:`~tnt.graph.DecisionGraph` under the contract.

    Parameters
    ----------
    graph : DecisionGraph

    Returns
    -------
    colors : list of str
        The dominant class's colour, or :data:`MIXED_COLOR` for a mixed node; for a regression
        graph, the node's mean target on :data:`VALUE_SCALE`.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.colors import node_colors
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> node_colors(g)
    ['#2563eb', '#f28e2b', '#59a14f']
    """
    if getattr(graph, "regression", False):
        return _value_colors(graph)
    palette = np.array(class_palette(graph.n_classes) + [MIXED_COLOR])
    dominant = graph.dominant_class()
    return palette[np.where(dominant == MIXED, graph.n_classes, dominant)].tolist()


def node_fills(graph) -> list[str]:
    """Like :func:`node_colors`, in the lighter tints (:func:`fill_color`) used as node backgrounds.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.colors import MIXED_FILL, node_fills
    >>> g = DecisionGraph([-1], [-1], [-2], [-2], [[1, 1]])
    >>> node_fills(g) == [MIXED_FILL]
    True
    """
    if getattr(graph, "regression", False):
        return node_colors(graph)  # the scale is light enough under black text
    colors = node_colors(graph)
    fills = {c: fill_color(c) for c in set(colors)}  # a few colours for many nodes
    return [fills[c] for c in colors]
