"""Points drawn by hand on the unit square, for the Teach page: the grid a click lands on, points
added from a plot's selection, and the training data they make (with one plain sentence when
they cannot be trained on).

A drawn point is ``[x1, x2, class]`` with ``x1, x2`` in [0, 1] and a class ``0..MAX_CLASSES-1``:
a JSON-able list, so the workspace can keep it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "GRID_STEP",
    "MAX_CLASSES",
    "MAX_POINTS",
    "MIN_POINTS",
    "DrawnDataError",
    "add_selected",
    "check_points",
    "drawing_grid",
    "drawn_data",
]

#: Distance between neighbouring points of the grid a click lands on.
GRID_STEP = 0.02
#: Classes a user can draw.
MAX_CLASSES = 3
#: Fewest points to train on, and most points kept.
MIN_POINTS, MAX_POINTS = 6, 500


class DrawnDataError(ValueError):
    """Drawn points that cannot be trained on; the message says what to do."""


def drawing_grid(step: float = GRID_STEP) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of a regular grid over the unit square, corners included, one point per entry.

    Examples
    --------
    >>> from tnt.services.drawn_data import drawing_grid
    >>> x, y = drawing_grid(0.5)
    >>> x.tolist(), y.tolist()
    ([0.0, 0.5, 1.0, 0.0, 0.5, 1.0, 0.0, 0.5, 1.0], [0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0])
    """
    ticks = np.round(np.linspace(0.0, 1.0, int(round(1.0 / step)) + 1), 6)
    gx, gy = np.meshgrid(ticks, ticks)
    return gx.ravel(), gy.ravel()


def add_selected(points: list, selected: list, cls: int) -> list:
    """``points`` with one point of class ``cls`` added at each selected plot point.

    Parameters
    ----------
    points : list of [x1, x2, class]
    selected : list of dict
        A plotly selection's points (Streamlit's ``event.selection.points``), each with ``x`` and ``y``.
    cls : int

    Returns
    -------
    points : list of [x1, x2, class]
        A new list; the selected points outside the unit square and those beyond :data:`MAX_POINTS` are left out.

    Examples
    --------
    >>> from tnt.services.drawn_data import add_selected
    >>> add_selected([[0.1, 0.2, 0]], [{"x": 0.5, "y": 0.52, "curve_number": 0}], 1)
    [[0.1, 0.2, 0], [0.5, 0.52, 1]]
    """
    out = [list(p) for p in points]
    for point in selected:
        x, y = _coordinate(point.get("x")), _coordinate(point.get("y"))
        if x is not None and y is not None and len(out) < MAX_POINTS:
            out.append([x, y, int(cls)])
    return out


def _coordinate(value) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return round(v, 6) if math.isfinite(v) and 0.0 <= v <= 1.0 else None


def check_points(value) -> list:
    """``value`` as a list of drawn points, or ValueError if it is not one (a damaged saved state).

    Examples
    --------
    >>> from tnt.services.drawn_data import check_points
    >>> check_points([[0.1, 0.2, 1]])
    [[0.1, 0.2, 1]]
    >>> check_points([[0.1, 2.0, 1]])
    Traceback (most recent call last):
    ...
    ValueError: Drawn point 1 is not [x1, x2, class] with x1, x2 in [0, 1] and a class 0 to 2.
    """
    if not isinstance(value, list) or len(value) > MAX_POINTS:
        raise ValueError(f"Drawn points must be a list of at most {MAX_POINTS:,} points.")
    out = []
    for i, point in enumerate(value, start=1):
        ok = isinstance(point, (list, tuple)) and len(point) == 3
        x, y = (_coordinate(point[0]), _coordinate(point[1])) if ok else (None, None)
        cls = point[2] if ok else None
        if x is None or y is None or type(cls) is not int or not 0 <= cls < MAX_CLASSES:
            raise ValueError(
                f"Drawn point {i} is not [x1, x2, class] with x1, x2 in [0, 1] and a class 0 to {MAX_CLASSES - 1}."
            )
        out.append([x, y, cls])
    return out


def drawn_data(points) -> tuple[np.ndarray, np.ndarray]:
    """Training data from drawn points.

    Parameters
    ----------
    points : list of [x1, x2, class]

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of int, shape (n,)

    Raises
    ------
    DrawnDataError
        With fewer than :data:`MIN_POINTS` points, or with points of one class only.

    Examples
    --------
    >>> from tnt.services.drawn_data import drawn_data
    >>> X, y = drawn_data([[0.1, 0.1, 0], [0.2, 0.1, 0], [0.1, 0.3, 0], [0.8, 0.9, 1], [0.9, 0.7, 1], [0.7, 0.8, 1]])
    >>> X.shape, y.tolist()
    ((6, 2), [0, 0, 0, 1, 1, 1])
    >>> drawn_data([[0.1, 0.1, 0]] * 6)
    Traceback (most recent call last):
    ...
    tnt.services.drawn_data.DrawnDataError: All 6 points are of class 0: add points of another class, then train.
    """
    points = check_points(points)
    if len(points) < MIN_POINTS:
        raise DrawnDataError(
            f"Draw at least {MIN_POINTS} points to train on (there {'is' if len(points) == 1 else 'are'} "
            f"{len(points)}): click on the plot to add some."
        )
    X = np.array([p[:2] for p in points], dtype=float)
    y = np.array([p[2] for p in points], dtype=int)
    if len(set(y.tolist())) < 2:
        raise DrawnDataError(f"All {len(y)} points are of class {y[0]}: add points of another class, then train.")
    return X, y
