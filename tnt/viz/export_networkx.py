"""A decision graph as a ``networkx.DiGraph``, for graph algorithms and other drawing tools."""

from __future__ import annotations

from tnt.viz.exporter import GraphText
from tnt.wording import category_split

__all__ = ["to_networkx"]


def to_networkx(graph, feature_names=None, class_names=None, precision: int = 3, show_missing=None):
    """Build a ``networkx.DiGraph`` with one node per graph node and one edge per branch.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names, class_names : sequence of str, default=None
        Names of the features and of the classes (columns of ``graph.value``).
    precision : int, default=3
        Decimals of the thresholds in the ``rule`` and ``condition`` texts.
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True) or at none (False); by default
        only in a graph that learned them from training data with missing values
        (:func:`tnt.wording.shows_missing`). A test of missingness is always written as one.

    Returns
    -------
    digraph : networkx.DiGraph
        Node attributes: ``rule``, ``is_leaf``, ``feature`` and ``feature_name`` (``None`` at
        leaves), ``threshold`` (``None`` at leaves and at a categorical split), ``categories_left``
        (at a split on a categorical feature, the names of the categories it sends left; otherwise
        ``None``), ``n_samples``, ``value`` (weighted class
        counts; the mean target of a regression graph), ``dominant_class`` (class name, ``None`` for
        a mixed node), ``predicted_class``, ``predicted_value`` (the mean target of a regression
        graph's node, otherwise ``None``; ``predicted_class`` is then ``None``), ``color``, ``depth``,
        ``n_parents``. Edge attributes: ``branch`` (``"left"``, ``"right"``,
        or ``"both"`` when both branches lead to the same child) and ``condition``.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.export_networkx import to_networkx
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> nxg = to_networkx(g, feature_names=["petal width"], class_names=["setosa", "other"])
    >>> nxg.nodes[0]["rule"], nxg.edges[0, 2]["branch"], nxg.edges[0, 2]["condition"]
    ('petal width <= 0.8', 'right', 'petal width > 0.8')
    """
    import networkx as nx

    text = GraphText(graph, feature_names, class_names, precision, show_missing)
    digraph = nx.DiGraph()
    is_leaf = text.is_leaf
    for node in range(graph.node_count):
        leaf = bool(is_leaf[node])
        categorical = not leaf and graph.tests_categories(node)
        digraph.add_node(
            node,
            rule=text.rule(node),
            is_leaf=leaf,
            feature=None if leaf else int(graph.feature[node]),
            feature_name=None if leaf else text.feature_name(node),
            threshold=None if leaf or categorical else float(graph.threshold[node]),
            categories_left=[str(n) for n in category_split(graph, node)[0]] if categorical else None,
            n_samples=text.samples(node),
            value=graph.value[node].tolist(),
            dominant_class=text.dominant_name(node),
            predicted_class=None if text.regression else text.class_name(text.predicted[node]),
            predicted_value=float(graph.value[node, 0]) if text.regression else None,
            color=text.colors[node],
            depth=int(text.depth[node]),
            n_parents=int(text.n_parents[node]),
        )
    for node in range(graph.node_count):
        if is_leaf[node]:
            continue
        left, right = int(graph.children_left[node]), int(graph.children_right[node])
        if left == right:
            digraph.add_edge(node, left, branch="both", condition="always")
            continue
        digraph.add_edge(node, left, branch="left", condition=text.condition(node, "left"))
        digraph.add_edge(node, right, branch="right", condition=text.condition(node, "right"))
    return digraph
