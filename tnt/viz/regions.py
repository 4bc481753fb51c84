"""Decision regions of a fitted two-feature model on a grid, and a plotly figure of them."""

from __future__ import annotations

import numpy as np

from tnt.graph import DecisionGraph
from tnt.viz.colors import class_palette, fill_color
from tnt.viz.drawing_board import add_points

__all__ = ["decision_regions", "regions_figure"]


def decision_regions(model, X, resolution: int = 200, margin: float = 0.05, bounds=None):
    """The class a fitted two-feature model predicts at each point of a grid covering ``X``.

    Parameters
    ----------
    model : fitted classifier with ``predict`` and ``classes_``, or a DecisionGraph
        A bare graph predicts each leaf's majority class; its classes are ``0..n_classes-1``.
    X : array-like of shape (n_samples, 2)
        The data whose range (widened by ``margin`` of it on each side) the grid covers.
    resolution : int, default=200
        Grid points along each axis.
    margin : float, default=0.05
    bounds : ((x_low, x_high), (y_low, y_high)), default=None
        The rectangle the grid covers, instead of the data's range widened by ``margin``.

    Returns
    -------
    xs, ys : ndarray of shape (resolution,)
        Grid coordinates along the two features.
    classes : ndarray of int, shape (resolution, resolution)
        Index (into ``model.classes_``) of the predicted class; row ``i`` is ``ys[i]``.

    Examples
    --------
    >>> from tnt.viz.regions import decision_regions
    >>> from tnt.experiments.toy import corners
    >>> from tnt import CARTClassifier
    >>> X, y = corners(seed=0)
    >>> xs, ys, z = decision_regions(CARTClassifier(max_leaf_nodes=7).fit(X, y), X, resolution=4, margin=0)
    >>> z.tolist()
    [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 1]]
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"Decision regions need exactly two features, got data of shape {X.shape}.")
    if bounds is None:
        low, high = X.min(axis=0), X.max(axis=0)
        pad = (high - low) * margin
    else:
        (x_low, x_high), (y_low, y_high) = bounds
        low, high, pad = np.array([x_low, y_low], float), np.array([x_high, y_high], float), np.zeros(2)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], resolution)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    grid = np.c_[gx.ravel(), gy.ravel()]
    if isinstance(model, DecisionGraph):
        return xs, ys, model.leaf_class()[model.apply(grid)].reshape(gx.shape)
    classes = np.searchsorted(model.classes_, model.predict(grid)).reshape(gx.shape)
    return xs, ys, classes


def regions_figure(
    model,
    X,
    y,
    *,
    title="",
    feature_names=("x1", "x2"),
    resolution: int = 200,
    max_points: int = 600,
    height: int = 420,
    bounds=None,
):
    """Decision regions (light class colours) with the training points on top.

    Parameters
    ----------
    model : fitted two-feature classifier, or a DecisionGraph
    X, y : array-like
        Points to draw (at most ``max_points``, a fixed subsample beyond that).
    title : str
    feature_names : pair of str
    height : int, default=420
        Figure height in pixels (the plot keeps the data's aspect ratio within it).
    bounds : ((x_low, x_high), (y_low, y_high)), default=None
        The rectangle drawn (see :func:`decision_regions`).

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> from tnt import CARTClassifier
    >>> from tnt.viz.regions import regions_figure
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(n=200, seed=0)
    >>> fig = regions_figure(CARTClassifier(max_leaf_nodes=7).fit(X, y), X, y, resolution=20)
    >>> [t.type for t in fig.data]
    ['heatmap', 'scatter', 'scatter']
    """
    import plotly.graph_objects as go

    xs, ys, z = decision_regions(model, X, resolution=resolution, bounds=bounds)
    classes = list(np.arange(model.n_classes) if isinstance(model, DecisionGraph) else model.classes_)
    k = len(classes)
    palette = class_palette(k)
    # A stepped colour scale: class i fills [i/k, (i+1)/k] of the range.
    scale = []
    for i, color in enumerate(palette):
        scale += [[i / k, fill_color(color, 0.55)], [(i + 1) / k, fill_color(color, 0.55)]]
    fig = go.Figure(
        go.Heatmap(x=xs, y=ys, z=z, zmin=-0.5, zmax=k - 0.5, colorscale=scale, showscale=False, hoverinfo="skip")
    )
    add_points(fig, X, y, classes, max_points=max_points)
    fig.update_layout(
        title=title,
        xaxis_title=feature_names[0],
        yaxis_title=feature_names[1],
        template="plotly_white",
        height=height,
        margin={"l": 50, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
    fig.update_xaxes(range=[xs[0], xs[-1]], constrain="domain")
    fig.update_yaxes(range=[ys[0], ys[-1]], scaleanchor="x", scaleratio=1, constrain="domain")
    return fig
