"""How every text of tnt writes a number and a split's test: drawings, exports, the node inspector,
rule lists, path tables and counterfactuals all write the same threshold the same way.

It sits below both the drawings (:mod:`tnt.viz`) and the inspection tools (:mod:`tnt.inspect`), which
import it; it imports only numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "MOST_NAMES_SHOWN",
    "categories_text",
    "category_split",
    "condition_text",
    "format_number",
    "format_value",
    "missing_branch",
    "node_condition",
    "shows_missing",
]


def format_number(x: float, precision: int) -> str:
    """``x`` rounded to ``precision`` decimals, without trailing zeros.

    A number too small to show any digit that way keeps ``precision`` significant digits, so a
    threshold is never shown as ``0`` unless it is 0.

    Examples
    --------
    >>> from tnt.wording import format_number
    >>> format_number(0.80000001, 3), format_number(2.0, 3), format_number(-0.00012345, 3)
    ('0.8', '2', '-0.000123')
    """
    x = float(x)
    if x != 0 and abs(x) < 0.5 * 10.0**-precision:
        return np.format_float_positional(x, precision=max(precision, 1), unique=False, fractional=False, trim="-")
    text = f"{round(x, precision):.{max(precision, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_value(x: float, precision: int = 3) -> str:
    """A target value (a regression node's mean or spread): :func:`format_number`, but from 1,000 up a
    whole number with thousands separators, so that house prices read ``394,864``, not ``394863.856``.

    Examples
    --------
    >>> from tnt.wording import format_value
    >>> format_value(394863.856), format_value(-1234.5), format_value(14.2345, 2), format_value(0.5)
    ('394,864', '-1,234', '14.23', '0.5')
    """
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 1000 else format_number(x, precision)


def condition_text(
    feature_name: str, threshold: float, branch: str = "left", precision: int = 3, missing: bool = False
) -> str:
    """The test a sample passes to take ``branch`` ("left" or "right") out of a split.

    The one place a split's rule is written: drawings, exports, the node inspector and the path
    table all show the same threshold for the same node. ``missing`` says that samples whose
    feature is missing take this branch too (`` or missing``). A threshold of ``+inf`` is a test of
    missingness: present values go left, missing ones right.

    Examples
    --------
    >>> from tnt.wording import condition_text
    >>> condition_text("pixel", 127.5), condition_text("pixel", 127.5, "right")
    ('pixel <= 127.5', 'pixel > 127.5')
    >>> condition_text("age", 37.5, "right", missing=True), condition_text("age", float("inf"), "right")
    ('age > 37.5 or missing', 'age is missing')
    """
    if np.isposinf(threshold):
        return f"{feature_name} is {'not ' if branch == 'left' else ''}missing"
    operator = "<=" if branch == "left" else ">"
    return f"{feature_name} {operator} {format_number(threshold, precision)}{' or missing' if missing else ''}"


#: Most category names a condition lists before it says how many more there are.
MOST_NAMES_SHOWN = 8


def categories_text(feature_name: str, names_in, names_out, missing: bool = False) -> str:
    """The test a sample passes when its category is one of ``names_in`` (the others being
    ``names_out``): ``colour in {blue, red}``, or ``colour not in {green}`` when that is shorter.
    ``missing`` adds `` or missing``: a missing value, and a category unseen in training, pass too.
    Past :data:`MOST_NAMES_SHOWN` names the rest are counted (``… and 12 more``).

    Examples
    --------
    >>> from tnt.wording import categories_text
    >>> categories_text("colour", ["blue", "red"], ["green"])
    'colour not in {green}'
    >>> categories_text("colour", ["green"], ["blue", "red"], missing=True)
    'colour in {green} or missing'
    """
    names_in, names_out = [str(n) for n in names_in], [str(n) for n in names_out]
    negated = len(", ".join(names_out)) < len(", ".join(names_in))
    shown = names_out if negated else names_in
    listed = ", ".join(shown[:MOST_NAMES_SHOWN])
    if len(shown) > MOST_NAMES_SHOWN:
        listed += f", … and {len(shown) - MOST_NAMES_SHOWN} more"
    return f"{feature_name} {'not in' if negated else 'in'} {{{listed}}}{' or missing' if missing else ''}"


def category_split(graph, node: int) -> tuple[list, list]:
    """The categories (by name) the categorical split ``node`` of ``graph`` sends left, and those it
    sends right, each in the feature's order."""
    names = graph.categories[int(graph.feature[node])]
    left = np.zeros(names.shape[0], dtype=bool)
    left[graph.left_categories(node)] = True
    return names[left].tolist(), names[~left].tolist()


def shows_missing(graph, show_missing: bool | None = None) -> bool:
    """Whether the texts of ``graph`` say, at its threshold splits, where a missing value goes.

    The one rule every drawing, text, rule list and node inspector follows: ``show_missing`` when
    given (True or False), otherwise whether the graph learned its directions from training data with
    missing values (``graph.missing_in_training``). A graph trained without any missing value only
    holds scikit-learn's default direction (to the child that received more training samples), so
    its texts read as they did before missing values were supported. Never for a graph that stores
    no direction. A test of missingness (``age is missing``) is written as such whatever this says.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.wording import shows_missing
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [37.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]], missing_go_to_left=[0, 0, 0])
    >>> shows_missing(g), shows_missing(g, show_missing=True)
    (False, True)
    """
    if graph.missing_go_to_left is None:
        return False
    return bool(graph.missing_in_training if show_missing is None else show_missing)


def node_condition(
    graph, node: int, feature_name: str, branch: str = "left", precision: int = 3, show_missing: bool | None = None
) -> str:
    """:func:`condition_text` of a split of ``graph``, saying `` or missing`` on the branch its
    stored direction sends missing values when :func:`shows_missing` says so.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.wording import node_condition
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [37.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]], missing_go_to_left=[0, 0, 0], missing_in_training=True)
    >>> node_condition(g, 0, "age", "left"), node_condition(g, 0, "age", "right")
    ('age <= 37.5', 'age > 37.5 or missing')
    >>> node_condition(g, 0, "age", "right", show_missing=False)
    'age > 37.5'
    """
    missing = shows_missing(graph, show_missing) and missing_branch(graph, node) == branch
    if graph.tests_categories(node):
        left, right = category_split(graph, node)
        return categories_text(feature_name, *((left, right) if branch == "left" else (right, left)), missing=missing)
    return condition_text(feature_name, graph.threshold[node], branch, precision, missing=missing)


def missing_branch(graph, node: int) -> str | None:
    """The branch ("left" or "right") a missing value takes out of split ``node``; None when the
    graph stores no direction."""
    if graph.missing_go_to_left is None:
        return None
    return "left" if graph.missing_go_to_left[node] else "right"
