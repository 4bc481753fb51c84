"""The exporter core: node labels, colours, parents and escaping, shared by every writer.

DOT, plotly, text, networkx and JSON writers all describe a node through :class:`GraphText`,
so a rule, a class name or a colour reads the same in every view (as scikit-learn's
``_BaseTreeExporter`` serves its DOT and matplotlib exporters).
"""

from __future__ import annotations

import html
import re
from functools import cached_property

import numpy as np

from tnt.graph import MIXED
from tnt.viz.colors import node_colors, node_fills
from tnt.wording import format_number, format_value, missing_branch, node_condition, shows_missing

__all__ = [
    "GraphText",
    "escape_dot",
    "escape_html",
    "names_of",
    "path_mask",
]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def escape_dot(text: str) -> str:
    """Escape plain text for a quoted DOT string, so Graphviz shows it literally.

    Backslashes and quotes are escaped, ``&`` becomes ``&amp;`` (Graphviz decodes entities in
    labels), a newline becomes a Graphviz line break and other control characters a space.

    Examples
    --------
    >>> from tnt.viz.exporter import escape_dot
    >>> print(escape_dot('a"b\\\\c&d\\ne'))
    a\\"b\\\\c&amp;d\\ne
    """
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return _CONTROL.sub(" ", text)


def escape_html(text: str) -> str:
    """Escape plain text for plotly hover labels, which understand a subset of HTML.

    Examples
    --------
    >>> from tnt.viz.exporter import escape_html
    >>> escape_html("<b>x</b>\\ny")
    '&lt;b&gt;x&lt;/b&gt;<br>y'
    """
    return html.escape(str(text), quote=True).replace("\n", "<br>")


def names_of(estimator) -> tuple[list[str] | None, list[str] | None]:
    """Feature names (or ``None``) and class names (as text) of a fitted graph classifier; a
    regressor has no class names (``None``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> from tnt.viz.exporter import names_of
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> features, classes = names_of(CARTClassifier(max_leaf_nodes=3).fit(X, y))
    >>> features[0], classes
    ('sepal length (cm)', ['0', '1', '2'])
    """
    features = getattr(estimator, "feature_names_in_", None)
    classes = getattr(estimator, "classes_", None)
    return (None if features is None else [str(f) for f in features]), (
        None if classes is None else [str(c) for c in classes]
    )


def path_mask(graph, sample) -> np.ndarray:
    """Mask of the nodes on one sample's root-to-leaf path (all False when ``sample`` is None).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.exporter import path_mask
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> path_mask(g, [0.9]).tolist(), path_mask(g, None).tolist()
    ([True, False, True], [False, False, False])
    """
    if sample is None:
        return np.zeros(graph.node_count, dtype=bool)
    sample = np.asarray(sample, dtype=np.float64).reshape(1, -1)
    return np.asarray(graph.decision_path(sample).toarray()[0], dtype=bool)


class GraphText:
    """What every exporter says about each node of a graph, in plain (unescaped) text.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names : sequence of str, default=None
        Name of each feature; ``x[i]`` when omitted.
    class_names : sequence of str, default=None
        Name of each class (column of ``graph.value``); the class index when omitted.
    precision : int, default=3
        Decimals of thresholds and shares.
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True), at none (False), or, when
        None, only in a graph that learned them from missing values (:func:`shows_missing`).

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.exporter import GraphText
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
    ...                   [[2, 2], [2, 0], [0, 2]])
    >>> text = GraphText(g, feature_names=["petal width"], class_names=["setosa", "other"])
    >>> text.rule(0), text.condition(0, "right"), text.rule(2)
    ('petal width <= 0.8', 'petal width > 0.8', 'other')
    """

    def __init__(self, graph, feature_names=None, class_names=None, precision: int = 3, show_missing=None):
        self.graph = graph
        self.precision = int(precision)
        self.shows_missing = shows_missing(graph, show_missing)
        self.is_leaf = graph.is_leaf  # the graph computes it on each access; the per-node methods use it
        internal = ~self.is_leaf
        n_features = int(graph.feature[internal].max()) + 1 if internal.any() else 0
        if feature_names is not None and len(feature_names) < n_features:
            raise ValueError(
                f"feature_names has {len(feature_names)} names but the graph tests feature {n_features - 1}."
            )
        self.regression = bool(getattr(graph, "regression", False))
        if self.regression and class_names is not None:
            raise ValueError("A regression graph has no classes: pass class_names=None.")
        if class_names is not None and len(class_names) != graph.n_classes:
            raise ValueError(f"class_names has {len(class_names)} names but the graph has {graph.n_classes} classes.")
        self.feature_names = None if feature_names is None else [str(f) for f in feature_names]
        self.class_names = [str(c) for c in (range(graph.n_classes) if class_names is None else class_names)]
        self.colors = node_colors(graph)
        self.dominant = graph.dominant_class()
        self.predicted = graph.leaf_class()
        self.proba = graph.proba()
        self.n_parents = graph.n_parents
        self.depth = graph.node_depth()

    @cached_property
    def fills(self) -> list[str]:
        """Each node's background: the lighter tint of its colour (:func:`~tnt.viz.colors.node_fills`)."""
        return node_fills(self.graph)

    # ------------------------------------------------------------------ rules
    def feature_name(self, node: int) -> str:
        f = int(self.graph.feature[node])
        return f"x[{f}]" if self.feature_names is None else self.feature_names[f]

    def condition(self, node: int, branch: str) -> str:
        """The test a sample passes to take ``branch`` ("left" or "right") out of ``node``."""
        return node_condition(self.graph, node, self.feature_name(node), branch, self.precision, self.shows_missing)

    def missing_goes(self, node: int) -> str | None:
        """Where a missing value goes out of split ``node`` when the rule does not say it: "no" (right)
        at a threshold split that sends missing values right; None otherwise (the rule says "or
        missing", the split tests missingness itself, or the texts do not say where missing values
        go: :func:`shows_missing`)."""
        if (
            self.shows_missing
            and missing_branch(self.graph, node) == "right"
            and not np.isposinf(self.graph.threshold[node])
        ):
            return "no"
        return None

    def rule(self, node: int) -> str:
        """The split of an internal node (``petal width <= 0.8``), the predicted class of a leaf
        (its predicted value in a regression graph)."""
        if self.is_leaf[node]:
            if self.regression:
                return self.value_text(node)
            return self.class_name(self.predicted[node])
        return self.condition(node, "left")

    def leaf_text(self, node: int) -> str:
        """What a leaf predicts, with its kind: ``class: setosa`` or ``value: 2.07``."""
        return f"{'value' if self.regression else 'class'}: {self.rule(node)}"

    # ------------------------------------------------------------------ regression
    def value_text(self, node: int) -> str:
        """The mean training target at ``node`` (regression graphs)."""
        return format_value(self.graph.value[node, 0], self.precision)

    def spread_text(self, node: int) -> str:
        """Mean and standard deviation of the training targets at ``node`` (regression graphs)."""
        sd = float(np.sqrt(max(self.graph.impurity[node], 0.0)))
        return f"mean {self.value_text(node)}, sd {format_value(sd, self.precision)}"

    # ------------------------------------------------------------------ classes
    def class_name(self, k: int) -> str:
        return self.class_names[int(k)]

    def dominant_name(self, node: int) -> str | None:
        """Name of the class holding more than half of the node's samples, ``None`` if mixed (and
        in a regression graph)."""
        if self.regression:
            return None
        k = self.dominant[node]
        return None if k == MIXED else self.class_name(k)

    def shares_text(self, node: int, top: int | None = None) -> str:
        """Class shares as ``"setosa 98%, versicolor 2%"``, largest first, the classes present only,
        then how many more there are beyond ``top`` (mean and spread in a regression graph)."""
        return self.all_shares_text(top, nodes=[node])[0]

    def all_shares_text(self, top: int | None = None, nodes=None) -> list[str]:
        """:meth:`shares_text` of every node (or of ``nodes``), computed for them all at once.

        Parameters
        ----------
        top : int, default=None
            Show at most this many classes (the largest shares) of each node; all when omitted.
        nodes : sequence of int, default=None
            The nodes, in this order; all of them when omitted.

        Returns
        -------
        texts : list of str

        Examples
        --------
        >>> from tnt import DecisionGraph
        >>> from tnt.viz.exporter import GraphText
        >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.8, -2, -2],
        ...                   [[3, 1, 0], [3, 0, 0], [0, 1, 0]])
        >>> GraphText(g).all_shares_text(top=1)
        ['0 75%, +1 more', '0 100%', '1 100%']
        """
        nodes = range(self.graph.node_count) if nodes is None else nodes
        if self.regression:
            return [self.spread_text(node) for node in nodes]
        proba = self.proba[np.asarray(nodes, dtype=np.intp)]
        decimals = max(self.precision - 2, 0)
        # Nodes share few distinct shares (a pure node's 100%, halves...): each is formatted once.
        percents: dict[float, str] = {}
        order = np.argsort(-proba, axis=1, kind="stable")  # largest first, ties by class
        ranked = np.take_along_axis(proba, order, axis=1)
        present = np.count_nonzero(proba > 0, axis=1)
        texts = []
        for classes, shares, n_present in zip(order.tolist(), ranked.tolist(), present.tolist()):
            parts = []
            for k, share in zip(classes[:n_present][:top], shares):  # the classes present lead
                if share not in percents:
                    percents[share] = format_number(100 * share, decimals)
                parts.append(f"{self.class_names[k]} {percents[share]}%")
            hidden = n_present - len(parts)
            texts.append(", ".join(parts) + (f", +{hidden} more" if hidden > 0 else ""))
        return texts

    # ------------------------------------------------------------------ structure
    def parents(self) -> list[list[int]]:
        """Parent ids of every node, computed once for the whole graph."""
        return self.graph.parent_lists()

    def is_shared(self, node: int) -> bool:
        return bool(self.n_parents[node] > 1)

    def samples(self, node: int) -> int:
        return int(self.graph.n_node_samples[node])
