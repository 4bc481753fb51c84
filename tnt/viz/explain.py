"""Plain-language views of one node and of one sample's path through a :class:`~tnt.graph.DecisionGraph`,
and the choice of how to draw a graph of a given size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tnt.categorical import read_codes
from tnt.graph import MIXED, DecisionGraph
from tnt.viz.exporter import format_value, node_condition

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "INTERACTIVE_GRAPH_NODES",
    "LARGE_GRAPH_NODES",
    "MAX_DRAWN_NODES",
    "NodeInfo",
    "PathStep",
    "category_name",
    "drawing_mode",
    "drawing_note",
    "goes_left",
    "node_info",
    "path_table",
    "sample_path",
    "shown_value",
]

#: Graphs with more nodes than this are drawn on the server at natural size (readable, scrollable,
#: with a depth window) rather than laid out in the browser and shrunk to the page's width.
LARGE_GRAPH_NODES = 60
# Above this many nodes the app shows the plotly view first (pendigits at C=1e-4 has about 430).
INTERACTIVE_GRAPH_NODES = 300
#: Most nodes one Graphviz drawing holds (the depth window's nodes and stubs): beyond, the
#: interactive plotly view is shown instead, with a note.
MAX_DRAWN_NODES = 2_000


def _feature(names, index: int) -> str:
    return str(names[index]) if names is not None else f"x[{index}]"


def _class(names, index: int) -> str:
    return str(names[index]) if names is not None else str(index)


def rule(graph: DecisionGraph, node: int, feature_names=None, precision: int = 3, show_missing=None) -> str:
    """The test at an internal node, e.g. ``"petal length (cm) <= 2.45"`` (``"leaf"`` at a leaf), written
    as the drawings write it (:func:`tnt.viz.exporter.node_condition`, ``show_missing`` as there)."""
    if graph.is_leaf[node]:
        return "leaf"
    return node_condition(graph, node, _feature(feature_names, graph.feature[node]), "left", precision, show_missing)


@dataclass(frozen=True)
class NodeInfo:
    node: int
    is_leaf: bool
    rule: str
    n_samples: int
    distribution: dict  # class name -> weighted count of training samples (empty in a regression graph)
    dominant: str  # dominant class name, or "mixed" ("" in a regression graph)
    parents: list
    left: int | None  # child when the rule holds
    right: int | None  # child when it does not
    mean: float | None = None  # regression graphs: weighted mean training target at the node
    std: float | None = None  # and its weighted standard deviation


def node_info(graph: DecisionGraph, node: int, feature_names=None, class_names=None) -> NodeInfo:
    """Everything the app shows about one node.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> info = node_info(g, 0, feature_names=["x"], class_names=["a", "b"])
    >>> info.rule, info.left, info.right, info.dominant
    ('x <= 0.5', 1, 2, 'mixed')

    A regression graph's node has the mean and standard deviation of its training targets:

    >>> r = DecisionGraph([-1], [-1], [-2], [-2], [[2.5]], n_node_samples=[4], impurity=[0.25], regression=True)
    >>> info = node_info(r, 0)
    >>> info.mean, info.std, info.n_samples, info.distribution
    (2.5, 0.5, 4, {})
    """
    if not 0 <= node < graph.node_count:
        raise ValueError(f"Node {node} does not exist; the graph has nodes 0 to {graph.node_count - 1}.")
    leaf = bool(graph.is_leaf[node])
    shape = dict(
        node=node,
        is_leaf=leaf,
        rule=rule(graph, node, feature_names),
        n_samples=int(graph.n_node_samples[node]),
        parents=graph.parents(node),
        left=None if leaf else int(graph.children_left[node]),
        right=None if leaf else int(graph.children_right[node]),
    )
    if graph.regression:
        mean, std = float(graph.value[node, 0]), float(np.sqrt(max(graph.impurity[node], 0.0)))
        return NodeInfo(**shape, distribution={}, dominant="", mean=mean, std=std)
    dominant = int(graph.dominant_class()[node])
    return NodeInfo(
        **shape,
        distribution={_class(class_names, k): float(v) for k, v in enumerate(graph.value[node])},
        dominant="mixed" if dominant == MIXED else _class(class_names, dominant),
    )


@dataclass(frozen=True)
class PathStep:
    node: int
    rule: str
    value: float | None  # the sample's value of the feature tested (NaN when missing, None at the leaf)
    holds: bool | None  # whether the rule holds, i.e. the sample goes left (None at the leaf)
    category: str | None = None  # at a categorical split, the sample's category by name (None: missing or unseen)

    @property
    def missing(self) -> bool:
        """Whether the sample's value of the tested feature is missing (its way is the stored one)."""
        return self.value is not None and bool(np.isnan(self.value))


def sample_path(graph: DecisionGraph, x, feature_names=None) -> list[PathStep]:
    """The nodes one sample passes from the root to its leaf, with the test made at each.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> [(s.node, s.holds) for s in sample_path(g, [0.7], ["x"])]
    [(0, False), (2, None)]
    >>> r = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2.0], [1.0], [3000.0]], regression=True)
    >>> sample_path(r, [0.7], ["x"])[-1].rule
    'leaf, predicts 3,000'

    A missing value goes where the graph's direction sends it, and its step says so, whether or not
    the graph learned that direction from missing values (the drawings say it only then):

    >>> m = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]],
    ...                   missing_go_to_left=[1, 0, 0])
    >>> step = sample_path(m, [float("nan")], ["x"])[0]
    >>> step.rule, step.holds, step.missing
    ('x <= 0.5 or missing', True, True)
    >>> sample_path(m, [0.2], ["x"])[0].rule
    'x <= 0.5'
    """
    x = np.asarray(x, dtype=np.float64).reshape(1, -1)
    nodes = graph.decision_path(x).indices.tolist()
    xv = np.ascontiguousarray(x, dtype=graph.input_dtype)[0]
    steps = []
    for node, following in zip(nodes, [*nodes[1:], None]):
        if graph.is_leaf[node]:  # a regression graph's leaf says what it predicts: its mean
            text = f"leaf, predicts {format_value(graph.value[node, 0])}" if graph.regression else "leaf"
            steps.append(PathStep(node, text, None, None))
        else:
            value = xv[graph.feature[node]]
            # The way the routing took (both children may be one node: then the rule decides).
            went_left = bool(following == graph.children_left[node]) and bool(
                graph.children_left[node] != graph.children_right[node] or goes_left(graph, node, value)
            )
            # A step whose value is missing says where missing values go: a fact about this sample.
            category = category_name(graph, node, value)
            unknown = np.isnan(value) or (graph.tests_categories(node) and category is None)
            said = rule(graph, node, feature_names, show_missing=True if unknown else None)
            value = np.nan if unknown else value
            steps.append(PathStep(node, said, float(value), went_left, category))
    return steps


def goes_left(graph: DecisionGraph, node: int, value) -> bool:
    """Whether a sample whose tested feature has ``value`` (already cast to the graph's input type;
    NaN when missing) goes left out of split ``node``, as the graph routes it.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]],
    ...                   missing_go_to_left=[1, 0, 0])
    >>> goes_left(g, 0, 0.7), goes_left(g, 0, float("nan"))
    (False, True)
    """
    if graph.tests_categories(node):  # by the sample's category code; an unseen one as missing
        code = read_codes([value], graph.categories[int(graph.feature[node])].shape[0])[0]
        if code >= 0:
            return bool(code in set(graph.left_categories(node).tolist()))
        value = np.nan
    if np.isnan(value):
        return graph.missing_go_to_left is not None and bool(graph.missing_go_to_left[node])
    return bool(value <= graph.threshold[node])


def category_name(graph: DecisionGraph, node: int, code) -> str | None:
    """The name of the category of code ``code`` at the categorical split ``node`` (None elsewhere,
    and for a missing value or a code of no category)."""
    if not graph.tests_categories(node):
        return None
    names = graph.categories[int(graph.feature[node])]
    known = read_codes([code], names.shape[0])[0]
    return None if known < 0 else str(names[known])


def value_text(value: float | None) -> str:
    """A sample's value of a tested feature as a path table shows it: ``missing`` for NaN, blank for none.

    Examples
    --------
    >>> value_text(0.123456), value_text(float("nan")), value_text(None)
    ('0.1235', 'missing', '')
    """
    if value is None:
        return ""
    return "missing" if np.isnan(value) else f"{value:.4g}"


def shown_value(graph: DecisionGraph, node: int, value) -> str:
    """A sample's value of the feature split ``node`` tests, as a path table shows it: the
    category's name at a categorical split (``missing`` for a missing or unseen one), else
    :func:`value_text`."""
    if graph.tests_categories(node):
        name = category_name(graph, node, value)
        return "missing" if name is None else name
    return value_text(value)


def path_table(steps: list[PathStep]) -> pd.DataFrame:
    """A sample's path as a table: node, test, the sample's value, and which way it goes.

    Examples
    --------
    >>> path_table([PathStep(0, "x <= 0.5", 0.7, False), PathStep(2, "leaf", None, None)]).values.tolist()
    [[0, 'x <= 0.5', '0.7', 'no'], [2, 'leaf', '', '']]
    >>> path_table([PathStep(0, "x > 0.5 or missing", float("nan"), False)]).values.tolist()
    [[0, 'x > 0.5 or missing', 'missing', 'no (missing)']]
    """
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "node": s.node,
                "test": s.rule,
                "value": s.category if s.category is not None else value_text(s.value),
                "goes": "" if s.holds is None else ("yes" if s.holds else "no") + (" (missing)" if s.missing else ""),
            }
            for s in steps
        ],
        columns=["node", "test", "value", "goes"],
    )


def drawing_mode(graph: DecisionGraph) -> str:
    """How the app draws a graph by default: ``"browser"`` (Graphviz in the browser) up to
    :data:`LARGE_GRAPH_NODES` nodes, ``"server"`` (an SVG rendered on the server, readable at
    natural size) up to :data:`INTERACTIVE_GRAPH_NODES`, ``"interactive"`` (the plotly view: the
    whole shape at once, zoom and pan, laid out in linear time) above.

    Examples
    --------
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> drawing_mode(g)
    'browser'
    """
    if graph.node_count <= LARGE_GRAPH_NODES:
        return "browser"
    return "server" if graph.node_count <= INTERACTIVE_GRAPH_NODES else "interactive"


def drawing_note(graph: DecisionGraph, depth_window: tuple[int, int] | None = None) -> str | None:
    """Why a Graphviz drawing of ``graph`` (or of the layers of ``depth_window``) is not made: it
    would hold more than :data:`MAX_DRAWN_NODES` nodes, which Graphviz takes minutes to lay out, so
    the interactive view is shown instead. ``None`` when Graphviz can draw it."""
    from tnt.viz.export_dot import drawn_node_count

    count = drawn_node_count(graph, depth_window)
    if count <= MAX_DRAWN_NODES:
        return None
    return (
        f"This drawing would hold {count:,} nodes, more than Graphviz lays out quickly ({MAX_DRAWN_NODES:,}), "
        "so the graph is shown in the interactive view; a narrower depth window brings the Graphviz views back."
    )
