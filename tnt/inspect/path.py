"""One sample's path through a :class:`~tnt.graph.DecisionGraph`, step by step: the test at each
split, the sample's value of the feature tested, and which way it goes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tnt.categorical import read_codes
from tnt.graph import DecisionGraph
from tnt.wording import format_value, node_condition

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PathStep", "category_name", "goes_left", "path_table", "rule", "sample_path", "shown_value", "value_text"]


def _feature(names, index: int) -> str:
    return str(names[index]) if names is not None else f"x[{index}]"


def rule(graph: DecisionGraph, node: int, feature_names=None, precision: int = 3, show_missing=None) -> str:
    """The test at an internal node, e.g. ``"petal length (cm) <= 2.45"`` (``"leaf"`` at a leaf), written
    as the drawings write it (:func:`tnt.wording.node_condition`, ``show_missing`` as there)."""
    if graph.is_leaf[node]:
        return "leaf"
    return node_condition(graph, node, _feature(feature_names, graph.feature[node]), "left", precision, show_missing)


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
