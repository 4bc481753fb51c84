"""Plotly figures of what reaches a node, as dtreeviz draws them for a tree: at a split, the
distribution of its feature stacked by class (a regression: the target against the feature) with the
threshold drawn (a categorical feature: a bar per category, those the split sends "yes" first, the
line between the two groups), one panel per parent at a node with several; at a leaf, its class counts (a
regression: the histogram of its targets) with the prediction marked. :func:`graph_small_multiples`
draws every node of a small graph this way, layer by layer.

The data come from :func:`tnt.inspect.distributions.node_distribution`;
:func:`tnt.viz.figure_image.figure_image` writes any of these figures as SVG or PNG.
"""

from __future__ import annotations

import numpy as np

from tnt.graph import DecisionGraph
from tnt.inspect.distributions import NodeDistribution, node_distribution
from tnt.inspect.reach import Routes
from tnt.viz.colors import HIGHLIGHT_COLOR, class_palette
from tnt.wording import categories_text, condition_text, format_number

__all__ = [
    "MAX_PARENT_PANELS",
    "MAX_SMALL_MULTIPLES",
    "UNTESTED_COLOR",
    "graph_by_test_score",
    "graph_small_multiples",
    "node_figure",
]

#: Most nodes :func:`graph_small_multiples` draws (a panel each).
MAX_SMALL_MULTIPLES = 60
#: Most panels of a shared node's chart: one per parent, the rest of the parents together in the last.
MAX_PARENT_PANELS = 6
_BINS = 30
_FEATURE_COLOR = "#4e79a7"


def _name(names, index: int, prefix: str) -> str:
    return str(names[index]) if names is not None else f"{prefix}[{index}]"


def _edges(values: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """Histogram bin edges for ``values``, one of them on ``threshold`` so no bar straddles it."""
    if values.size == 0:
        return np.array([0.0, 1.0]) if threshold is None else np.array([threshold - 1, threshold, threshold + 1])
    low, high = float(values.min()), float(values.max())
    if threshold is not None:
        low, high = min(low, threshold), max(high, threshold)
    if high == low:
        return np.array([low - 0.5, low + 0.5])
    n_unique = np.unique(values).size
    bins = max(1, min(_BINS, n_unique))
    width = (high - low) / bins
    if threshold is None:
        return low + width * np.arange(bins + 1)
    below = max(1, int(np.ceil((threshold - low) / width)))
    above = max(1, int(np.ceil((high - threshold) / width)))
    return threshold + width * np.arange(-below, above + 1)


def _split_panels(dist: NodeDistribution):
    """``(label, mask)`` for each panel: the whole node, or one per parent at a shared node (the
    :data:`MAX_PARENT_PANELS` - 1 parents most samples came through, then the others together)."""
    parents, counts = np.unique(dist.parents, return_counts=True)
    if parents.size <= 1:
        return [("", np.ones(dist.n_samples, dtype=bool))]
    if parents.size <= MAX_PARENT_PANELS:
        return [(f"through #{p}", dist.parents == p) for p in parents]
    top = np.sort(parents[np.argsort(-counts, kind="stable")[: MAX_PARENT_PANELS - 1]])
    rest = ~np.isin(dist.parents, top)
    return [(f"through #{p}", dist.parents == p) for p in top] + [
        (f"through the {parents.size - top.size} other parents", rest)
    ]


def _split_traces(dist: NodeDistribution, mask, edges, class_names, legend: bool) -> list:
    import plotly.graph_objects as go

    centers, widths = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
    values = _axis_values(dist)
    if dist.regression:
        return [
            go.Scattergl(
                x=values[mask], y=dist.targets[mask], mode="markers", name="samples", showlegend=False,
                marker=dict(color=_FEATURE_COLOR, size=4, opacity=0.5),
            )
        ]  # fmt: skip
    colors = class_palette(dist.n_classes)
    traces = []
    for k in range(dist.n_classes):
        chosen = mask & (dist.targets == k)
        if not chosen.any():
            continue
        counts, _ = np.histogram(values[chosen], bins=edges)
        traces.append(
            go.Bar(
                x=centers, y=counts, width=widths, name=_name(class_names, k, "class"), legendgroup=str(k),
                marker=dict(color=colors[k], line=dict(width=0)), showlegend=legend,
            )
        )  # fmt: skip
    return traces


def _leaf_traces(dist: NodeDistribution, class_names) -> list:
    import plotly.graph_objects as go

    if dist.regression:
        edges = _edges(dist.targets)
        counts, _ = np.histogram(dist.targets, bins=edges)
        return [go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges), showlegend=False,
                       name="targets", marker=dict(color=_FEATURE_COLOR, line=dict(width=0)))]  # fmt: skip
    counts = dist.class_counts()
    names = [_name(class_names, k, "class") for k in range(dist.n_classes)]
    colors = class_palette(dist.n_classes)
    predicted = int(dist.prediction)
    return [
        go.Bar(
            x=names, y=counts, showlegend=False, name="samples",
            marker=dict(color=colors, line=dict(color=[HIGHLIGHT_COLOR if k == predicted else "rgba(0,0,0,0)"
                                                      for k in range(dist.n_classes)], width=3)),
        )
    ]  # fmt: skip


def _title(dist: NodeDistribution, feature_names, class_names, part: str) -> str:
    if dist.is_leaf:
        said = (
            f"predicts {format_number(dist.prediction, 3)}"
            if dist.regression
            else f"predicts {_name(class_names, int(dist.prediction), 'class')}"
        )
        return f"Leaf #{dist.node}: {dist.n_samples:,} {part} samples, {said}"
    n_missing = int(np.count_nonzero(np.isnan(dist.values)))
    missing = f", {n_missing:,} missing (not drawn)" if n_missing else ""
    return f"Node #{dist.node}: {_rule(dist, feature_names)}, {dist.n_samples:,} {part} samples{missing}"


def _rule(dist: NodeDistribution, feature_names) -> str:
    name = _name(feature_names, dist.feature, "x")
    if dist.categories is not None:
        left, right = (
            [n for code, n in enumerate(dist.categories) if (code in dist.category_left) == side]
            for side in (True, False)
        )
        return categories_text(name, left, right, missing=dist.missing_left is True)
    return condition_text(name, dist.threshold, missing=dist.missing_left is True)


def _category_order(dist: NodeDistribution) -> np.ndarray:
    """A categorical split's codes in the order its chart draws them: those it sends "yes" first."""
    codes = np.arange(len(dist.categories))
    return np.concatenate(
        [codes[[c in dist.category_left for c in codes]], codes[[c not in dist.category_left for c in codes]]]
    )


def _axis_values(dist: NodeDistribution) -> np.ndarray:
    """The samples' places on a split chart's horizontal axis: their values, or at a categorical
    split the position of their category in :func:`_category_order` (NaN where missing)."""
    if dist.categories is None:
        return dist.values
    position = np.empty(len(dist.categories))
    position[_category_order(dist)] = np.arange(len(dist.categories))
    present = ~np.isnan(dist.values)
    return np.where(present, position[np.where(present, dist.values, 0).astype(np.intp)], np.nan)


def _category_axis(fig, dist: NodeDistribution, row: int, col: int) -> None:
    """A categorical split chart's horizontal axis: each category's name under its bar."""
    names = [dist.categories[c] for c in _category_order(dist)]
    fig.update_xaxes(tickvals=list(range(len(names))), ticktext=names, row=row, col=col)


def _drawn(dist: NodeDistribution):
    """What a split's chart draws: the mask of the samples whose value is present (missing values have
    no place on the feature's axis), the threshold (None for a test of missingness, whose threshold
    is +inf) and the histogram's bin edges."""
    present = ~np.isnan(dist.values)
    if dist.categories is not None:  # a bar per category, the line between "yes" and "no"
        edges = np.arange(len(dist.categories) + 1) - 0.5
        return present, len(dist.category_left) - 0.5, edges
    threshold = dist.threshold if np.isfinite(dist.threshold) else None
    return present, threshold, _edges(dist.values[present], threshold)


def node_figure(dist: NodeDistribution, feature_names=None, class_names=None, *, part: str = "training",
                target_name: str = "target", height: int | None = None):  # fmt: skip
    """The chart of one node: the split feature's distribution stacked by class with the threshold
    (one panel per parent the samples came through), or a leaf's class counts or target histogram
    with its prediction marked.

    Parameters
    ----------
    dist : NodeDistribution
    feature_names, class_names : list of str, optional
    part : str, default="training"
        The samples' part, as the title names it ("training" or "test").
    target_name : str, default="target"
        The axis title of a regression's target.
    height : int, optional
        Pixels; by default 320 per panel.

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> X, y = [[0.1], [0.3], [0.7], [0.9]], [0, 0, 1, 1]
    >>> fig = node_figure(node_distribution(g, routes(g, X), X, y, 0), ["x"], ["a", "b"])
    >>> [t.name for t in fig.data], fig.layout.shapes[0].x0
    (['a', 'b'], 0.5)
    """
    from plotly.subplots import make_subplots

    title = _title(dist, feature_names, class_names, part)
    if dist.is_leaf:
        panels = [("", None)]
    else:
        panels = _split_panels(dist)
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.3 / len(panels),
                        subplot_titles=[label for label, _ in panels] if len(panels) > 1 else None)  # fmt: skip
    if dist.is_leaf:
        for trace in _leaf_traces(dist, class_names):
            fig.add_trace(trace, row=1, col=1)
        if dist.regression:
            fig.add_vline(x=dist.prediction, line=dict(color=HIGHLIGHT_COLOR, width=2),
                          annotation_text=f"predicts {format_number(dist.prediction, 3)}")  # fmt: skip
            fig.update_xaxes(title_text=target_name)
        fig.update_yaxes(title_text="samples")
    else:
        present, threshold, edges = _drawn(dist)
        for row, (_, mask) in enumerate(panels, start=1):
            for trace in _split_traces(dist, mask & present, edges, class_names, legend=row == 1):
                fig.add_trace(trace, row=row, col=1)
            if threshold is not None:
                fig.add_vline(x=threshold, line=dict(color=HIGHLIGHT_COLOR, width=2, dash="dash"), row=row, col=1)
            if dist.categories is not None:
                _category_axis(fig, dist, row, 1)
            fig.update_yaxes(title_text=target_name if dist.regression else "samples", row=row, col=1)
        fig.update_xaxes(title_text=_name(feature_names, dist.feature, "x"), row=len(panels), col=1)
    if dist.n_samples == 0:
        fig.add_annotation(text=f"No {part} samples reach this node.", showarrow=False, xref="paper",
                           yref="paper", x=0.5, y=0.5)  # fmt: skip
    fig.update_layout(
        title=dict(text=title, font=dict(size=14)), barmode="stack", bargap=0, plot_bgcolor="white",
        # Tall enough for the legend of every class (ten digits), its groups without gaps: a legend
        # taller than the plot is cut.
        height=height or max(120 + 220 * len(panels), 150 + 21 * (len(class_names) if class_names is not None else 0)),
        margin=dict(l=50, r=20, t=60, b=40), legend=dict(title="class", tracegroupgap=0),
    )  # fmt: skip
    fig.update_xaxes(showgrid=False, linecolor="#888888")
    fig.update_yaxes(gridcolor="#eeeeee")
    return fig


def graph_small_multiples(graph: DecisionGraph, routes: Routes, X, y, feature_names=None, class_names=None,
                          *, part: str = "training", panel_px: int = 190):  # fmt: skip
    """Every node's chart in one figure, one row per layer (the longest distance from the root), like
    dtreeviz's tree view; for graphs of at most :data:`MAX_SMALL_MULTIPLES` nodes.

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> X, y = [[0.1], [0.3], [0.7], [0.9]], [0, 0, 1, 1]
    >>> fig = graph_small_multiples(g, routes(g, X), X, y, ["x"], ["a", "b"])
    >>> [a.text for a in fig.layout.annotations]
    ['#0 x <= 0.5', '#1 leaf: a', '#2 leaf: b']
    """
    from plotly.subplots import make_subplots

    if graph.node_count > MAX_SMALL_MULTIPLES:
        raise ValueError(
            f"The graph has {graph.node_count:,} nodes; small multiples are drawn for at most "
            f"{MAX_SMALL_MULTIPLES}, so inspect one node at a time instead."
        )
    depth = graph.node_depth()
    layers = [np.flatnonzero(depth == d).tolist() for d in range(int(depth.max()) + 1)]
    width = max(len(layer) for layer in layers)
    cells, titles = {}, [""] * (len(layers) * width)
    for row, layer in enumerate(layers):
        offset = (width - len(layer)) // 2  # each layer centred, as a tree drawing is
        for i, node in enumerate(layer):
            cells[node] = (row + 1, offset + i + 1)
            dist = node_distribution(graph, routes, X, y, node)
            if dist.is_leaf:
                said = (
                    format_number(dist.prediction, 3)
                    if dist.regression
                    else _name(class_names, int(dist.prediction), "class")
                )
                titles[row * width + offset + i] = f"#{node} leaf: {said}"
            else:
                titles[row * width + offset + i] = f"#{node} {_rule(dist, feature_names)}"
    fig = make_subplots(rows=len(layers), cols=width, subplot_titles=titles, horizontal_spacing=0.02,
                        vertical_spacing=0.3 / len(layers))  # fmt: skip
    shown = set()
    for node, (row, col) in cells.items():
        dist = node_distribution(graph, routes, X, y, node)
        if dist.is_leaf:
            traces = _leaf_traces(dist, class_names)
        else:
            present, threshold, edges = _drawn(dist)
            traces = _split_traces(dist, present, edges, class_names, legend=False)
            if threshold is not None:
                fig.add_vline(x=threshold, line=dict(color=HIGHLIGHT_COLOR, width=1.5, dash="dash"), row=row, col=col)
            if dist.categories is not None:
                _category_axis(fig, dist, row, col)
        for trace in traces:
            if trace.name not in shown and not dist.is_leaf and not dist.regression:
                trace.showlegend = True
                shown.add(trace.name)
            fig.add_trace(trace, row=row, col=col)
    fig.update_annotations(font_size=10)
    fig.update_layout(barmode="stack", bargap=0, plot_bgcolor="white", height=panel_px * len(layers) + 80,
                      width=max(600, 210 * width), margin=dict(l=30, r=20, t=40, b=30),
                      title=dict(text=f"Every node, {part} samples", font=dict(size=14)))  # fmt: skip
    fig.update_xaxes(showgrid=False, linecolor="#888888", tickfont_size=8)
    fig.update_yaxes(showticklabels=False, gridcolor="#eeeeee")
    return fig


#: Colour of a node no test sample reaches, in :func:`graph_by_test_score`.
UNTESTED_COLOR = "#d0d0d0"


def graph_by_test_score(graph: DecisionGraph, scores, feature_names=None, class_names=None):
    """The graph's plotly view (:func:`tnt.viz.plotly_view.graph_figure`) with each node coloured by
    the test accuracy of the samples passing it, red (0) to green (1), or in a regression by their
    RMSE, green (the smallest) to red (the largest); grey where no test sample passes. Each node's
    hover text adds its training and test samples and that score.

    Parameters
    ----------
    graph : DecisionGraph
    scores : pandas.DataFrame
        :func:`tnt.inspect.errors.node_scores` of the test samples.

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> from tnt.inspect.errors import node_scores
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    >>> fig = graph_by_test_score(g, node_scores(g, routes(g, [[0.1], [0.2]]), [0, 1]))
    >>> nodes = [t for t in fig.data if t.name == "nodes"][0]
    >>> nodes.marker.color[2], nodes.hovertext[1].split("<br>")[-1]
    ('#d0d0d0', 'test: 2 samples, accuracy 0.500')
    """
    from plotly.colors import sample_colorscale

    from tnt.viz.plotly_view import graph_figure

    figure = graph_figure(graph, feature_names=feature_names, class_names=class_names)
    measure = "test_rmse" if graph.regression else "test_accuracy"
    values = scores[measure].to_numpy(dtype=np.float64)
    tested = np.isfinite(values)
    if graph.regression:  # green for the smallest error, red for the largest
        top = float(values[tested].max()) if tested.any() else 1.0
        position = 1.0 - np.where(tested, values, 0.0) / (top if top > 0 else 1.0)
    else:
        position = np.where(tested, values, 0.0)
    colours = np.array(sample_colorscale("RdYlGn", np.clip(position, 0, 1).tolist()), dtype=object)
    colours = [str(c) if ok else UNTESTED_COLOR for c, ok in zip(colours, tested)]
    counts = scores["test_samples"].tolist()
    label = "RMSE" if graph.regression else "accuracy"
    for trace in figure.data:
        if trace.name == "nodes":
            trace.marker.color = colours
            trace.hovertext = [
                text + f"<br>test: {n:,} samples" + (f", {label} {v:.3f}" if ok else "")
                for text, n, v, ok in zip(trace.hovertext, counts, values.tolist(), tested.tolist())
            ]
    figure.update_layout(showlegend=False)
    return figure
