"""Two-feature points on the unit square as a plotly figure: the Teach page's gallery thumbnails
and its drawing board.

The drawing board puts an invisible grid of points under the drawn ones (trace 0). Streamlit's
plotly selection reports the points a click selects, not a click on empty space, so a click
anywhere on the board selects the nearest grid point and its coordinates become a new drawn
point. This needs nothing beyond plotly and Streamlit; a drawing-canvas component would add a
third-party frontend to install and keep compatible with each Streamlit release.
"""

from __future__ import annotations

import numpy as np

from tnt.viz.colors import class_palette

__all__ = ["add_points", "points_figure"]

#: Axis range of the unit square with a little room for points on its border.
SQUARE = (-0.03, 1.03)


def points_figure(
    X,
    y,
    *,
    n_classes: int | None = None,
    grid=None,
    title: str = "",
    height: int = 300,
    max_points: int = 600,
    marker_size: int = 5,
    legend: bool = True,
):
    """The points of each class on the unit square, optionally over an invisible clickable grid.

    Parameters
    ----------
    X : array-like of shape (n, 2)
    y : array-like of int, shape (n,)
        Classes ``0..n_classes-1``.
    n_classes : int, default=None
        Number of classes whose colours to use (``max(y) + 1`` when omitted).
    grid : (ndarray, ndarray), default=None
        Coordinates of the invisible grid (:func:`tnt.services.drawn_data.drawing_grid`), trace 0
        when given.
    title : str
    height : int, default=300
    max_points : int, default=600
        At most this many points are drawn (a fixed subsample beyond that).
    marker_size : int, default=5
    legend : bool, default=True
        Whether to show the classes' legend above the plot.

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> from tnt.viz.drawing_board import points_figure
    >>> from tnt.services.drawn_data import drawing_grid
    >>> fig = points_figure([[0.1, 0.2], [0.7, 0.9]], [0, 1], grid=drawing_grid(0.5))
    >>> [(t.name, len(t.x)) for t in fig.data]
    [('grid', 9), ('class 0', 1), ('class 1', 1)]
    """
    import plotly.graph_objects as go

    X = np.asarray(X, dtype=float).reshape(-1, 2)
    y = np.asarray(y, dtype=int).reshape(-1)
    k = int(n_classes if n_classes is not None else (y.max() + 1 if y.size else 1))
    fig = go.Figure()
    if grid is not None:
        # Transparent, not hidden: plotly only reports clicks on points it draws.
        fig.add_trace(
            go.Scatter(
                x=grid[0],
                y=grid[1],
                mode="markers",
                name="grid",
                marker={"size": 10, "color": "rgba(0,0,0,0)"},
                selected={"marker": {"opacity": 0}},
                unselected={"marker": {"opacity": 0}},
                hoverinfo="none",
                showlegend=False,
            )
        )
    add_points(
        fig,
        X,
        y,
        range(k),
        max_points=max_points,
        marker_size=marker_size,
        unselected={"marker": {"opacity": 1}},
        hoverinfo="skip" if grid is not None else "x+y+name",
    )
    fig.update_layout(
        title=title,
        template="plotly_white",
        height=height,
        margin={"l": 50, "r": 10, "t": 50 if title or legend else 10, "b": 45},
        showlegend=legend,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        hovermode="closest",
        dragmode=False,
    )
    if grid is not None:  # where a click lands
        fig.add_shape(type="rect", x0=0, y0=0, x1=1, y1=1, line={"color": "#999999", "width": 1}, layer="below")
    fig.update_xaxes(title="x1", range=list(SQUARE), constrain="domain", fixedrange=True)
    fig.update_yaxes(title="x2", range=list(SQUARE), scaleanchor="x", scaleratio=1, constrain="domain", fixedrange=True)
    return fig


def add_points(fig, X, y, classes, *, max_points: int = 600, marker_size: int = 4, **scatter) -> None:
    """Add one trace of markers per class to ``fig``, in the colours of :func:`tnt.viz.colors.class_palette`.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    classes : sequence
        The values of ``y`` to draw, in colour order (the i-th gets the i-th colour).
    max_points : int, default=600
        At most this many points are drawn (a fixed subsample beyond that).
    marker_size : int, default=4
    **scatter
        More properties of each ``go.Scatter``.
    """
    import plotly.graph_objects as go

    classes = list(classes)
    palette = class_palette(len(classes))
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.shape[0] > max_points:
        keep = np.random.default_rng(0).choice(X.shape[0], max_points, replace=False)
        X, y = X[keep], y[keep]
    for i, cls in enumerate(classes):
        mask = y == cls
        fig.add_trace(
            go.Scatter(
                x=X[mask, 0],
                y=X[mask, 1],
                mode="markers",
                name=f"class {cls}",
                marker={"color": palette[i], "size": marker_size, "line": {"width": 0.4, "color": "#333333"}},
                **scatter,
            )
        )
