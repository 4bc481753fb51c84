"""A decision graph drawn inline in a Jupyter notebook: ``tnt.plot_graph(model)``.

The drawing is the app's and the exporters' (:func:`tnt.viz.export_dot.to_dot`, rendered by
:func:`tnt.viz.render.render`): same colours, legend, double borders for shared nodes and the
highlighted path. Jupyter shows the returned object through its ``_repr_svg_``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["GraphDrawing", "plot_graph"]

_SAVE_FORMATS = ("svg", "png", "pdf", "dot")


class GraphDrawing:
    """A rendered-on-demand drawing of a decision graph (shown inline by Jupyter as SVG).

    Attributes
    ----------
    source : str
        The Graphviz DOT source.
    """

    def __init__(self, source: str):
        self.source = source
        self._svg = None

    def _repr_svg_(self) -> str:
        if self._svg is None:
            from tnt.viz.render import render

            svg = render(self.source, "svg").decode("utf-8")
            self._svg = svg[svg.find("<svg") :]  # inline SVG: no XML prologue or doctype
        return self._svg

    def save(self, path) -> Path:
        """Write the drawing to ``path``; its suffix picks the format (.svg, .png, .pdf or .dot)."""
        from tnt.viz.render import render

        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in _SAVE_FORMATS:
            raise ValueError(f"Cannot save as '{path.suffix}'; use one of {', '.join('.' + f for f in _SAVE_FORMATS)}.")
        if fmt == "dot":
            path.write_text(self.source)
        else:
            path.write_bytes(render(self.source, fmt))
        return path


def plot_graph(
    model,
    *,
    highlight=None,
    feature_names=None,
    class_names=None,
    depth_window=None,
    show_ids: bool = False,
    show_shares: bool = False,
    legend: bool = True,
    rankdir: str = "TB",
    show_missing: bool | None = None,
    expand=None,
) -> GraphDrawing:
    """Draw a fitted TnT, CART, TAO or loaded model (or a scikit-learn ``DecisionTreeClassifier``,
    or a :class:`~tnt.DecisionGraph`) for a notebook.

    Parameters
    ----------
    model : fitted graph classifier, DecisionTreeClassifier or DecisionGraph
    highlight : array-like of shape (n_features,), default=None
        A sample whose root-to-leaf path is drawn bold in red.
    feature_names, class_names : sequence of str, default=None
        Names to show; by default the model's own (``feature_names_in_``, ``classes_``).
    depth_window : (int, int), default=None
        Draw only these layers (0 is the root's), as on the app's Graph page.
    show_ids, show_shares : bool, default=False
        Start each label with the node id; add the largest class shares.
    legend : bool, default=True
        A key of the class colours (and the path) above the graph.
    rankdir : {"TB", "LR", "BT", "RL"}, default="TB"
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True) or at none (False); by default
        only in a graph that learned them from training data with missing values
        (:func:`tnt.wording.shows_missing`). A test of missingness is always written as one.
    expand : "auto", "all", int or iterable of int, default=None
        Draw the part of the graph these splits open (:mod:`tnt.viz.focus`), every split whose
        subgraph is not drawn as a summary node: ``"auto"`` the root and the layers that fit 1,440 px
        at a readable size, ``"all"`` every split, an int ``k`` the layers down to depth ``k``, or
        the ids of the splits to open. The path of ``highlight`` is opened too. ``None`` (the
        default) draws the whole graph. Not with ``depth_window``.

    Returns
    -------
    drawing : GraphDrawing
        Shown inline as SVG by Jupyter; ``drawing.save("graph.pdf")`` writes a file.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import tnt
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = tnt.TnTClassifier(C=1e-2, ccp_alpha=0.0, random_state=0).fit(X, y)
    >>> drawing = tnt.plot_graph(clf, highlight=X[0], feature_names=["sl", "sw", "pl", "pw"])
    >>> svg = drawing._repr_svg_()
    >>> svg.startswith("<svg"), "#c00000" in svg, "sample&#39;s path" in svg
    (True, True, True)

    The top of the graph and one sample's path, the rest folded into summary nodes:

    >>> "below" in tnt.plot_graph(clf, expand=1, highlight=X[100]).source
    True
    """
    from tnt.model_io import _converted_tree
    from tnt.viz.export_dot import to_dot
    from tnt.viz.exporter import names_of

    if hasattr(model, "children_left"):  # a DecisionGraph
        graph, own_features, own_classes = model, None, None
    elif hasattr(model, "graph_"):
        graph = model.graph_
        own_features, own_classes = names_of(model)
    else:
        graph = _converted_tree(model)
        own_features, own_classes = names_of(model)
    highlight = None if highlight is None else np.asarray(highlight, dtype=np.float64).ravel()
    names = own_features if feature_names is None else list(feature_names)
    classes = own_classes if class_names is None else list(class_names)
    view = None if expand is None else _view(graph, expand, highlight, names, classes)
    source = to_dot(
        graph,
        feature_names=names,
        class_names=classes,
        show_ids=show_ids,
        show_shares=show_shares,
        rankdir=rankdir,
        depth_window=depth_window,
        highlight_sample=highlight,
        legend=legend,
        show_missing=show_missing,
        view=view,
    )
    return GraphDrawing(source)


def _view(graph, expand, highlight, feature_names, class_names):
    """The :class:`~tnt.viz.focus.GraphView` ``plot_graph``'s ``expand`` asks for."""
    from tnt.viz import focus

    if isinstance(expand, str):
        if expand not in ("auto", "all"):
            raise ValueError(f'expand must be "auto", "all", a depth or split ids, got {expand!r}.')
        opened = (
            focus.default_expansion(graph, feature_names, class_names) if expand == "auto" else focus.expand_all(graph)
        )
    elif isinstance(expand, (int, np.integer)) and not isinstance(expand, bool):
        opened = focus.expand_to_depth(graph, int(expand))
    else:
        opened = frozenset(int(n) for n in expand)
    if highlight is not None:
        path = graph.decision_path(highlight.reshape(1, -1)).indices
        opened = focus.expand_to(graph, opened, path)
    return focus.graph_view(graph, opened)
