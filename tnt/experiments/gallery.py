"""A gallery of two-feature problems for teaching: where a decision graph is much smaller than a
tree, and where it is not.

Every generator draws ``n`` points in the unit square from ``numpy.random.default_rng(seed)`` and
returns ``(X, y)`` with integer classes; :func:`with_label_noise` makes a noisy copy of any of them.
:data:`PROBLEMS` lists them with a sentence on what each shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tnt.experiments.toy import corners

__all__ = [
    "NOISE",
    "PROBLEMS",
    "Problem",
    "checkerboard",
    "diagonal",
    "make_problem",
    "moons",
    "rings",
    "with_label_noise",
    "xor",
]

#: Share of labels a problem's noisy copy flips.
NOISE = 0.1


def checkerboard(n: int = 2000, cells: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points on a ``cells`` by ``cells`` checkerboard: the class is the colour of the square.

    Examples
    --------
    >>> from tnt.experiments.gallery import checkerboard
    >>> X, y = checkerboard(n=4, cells=2, seed=0)
    >>> bool(((X[:, 0] < 0.5) ^ (X[:, 1] < 0.5) == y.astype(bool)).all())
    True
    """
    X = np.random.default_rng(seed).uniform(0.0, 1.0, size=(n, 2))
    square = np.minimum((X * cells).astype(int), cells - 1)
    return X, (square.sum(axis=1) % 2).astype(int)


def xor(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Exclusive or: class 1 where exactly one coordinate is above 0.5 (a 2 by 2 checkerboard).

    Examples
    --------
    >>> from tnt.experiments.gallery import xor
    >>> X, y = xor(n=1000, seed=0)
    >>> bool(0.45 < y.mean() < 0.55)
    True
    """
    return checkerboard(n, cells=2, seed=seed)


def diagonal(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Class 1 above the diagonal ``x2 > x1``.

    Examples
    --------
    >>> from tnt.experiments.gallery import diagonal
    >>> X, y = diagonal(n=100, seed=0)
    >>> bool((y == (X[:, 1] > X[:, 0])).all())
    True
    """
    X = np.random.default_rng(seed).uniform(0.0, 1.0, size=(n, 2))
    return X, (X[:, 1] > X[:, 0]).astype(int)


def rings(n: int = 2000, width: float = 0.15, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Concentric rings of ``width`` around the square's centre, classes alternating (0 in the middle).

    Examples
    --------
    >>> import numpy as np
    >>> from tnt.experiments.gallery import rings
    >>> X, y = rings(n=500, seed=0)
    >>> r = np.hypot(X[:, 0] - 0.5, X[:, 1] - 0.5)
    >>> sorted(set(y[r < 0.15].tolist())), sorted(set(y[(r > 0.15) & (r < 0.3)].tolist()))
    ([0], [1])
    """
    X = np.random.default_rng(seed).uniform(0.0, 1.0, size=(n, 2))
    radius = np.hypot(X[:, 0] - 0.5, X[:, 1] - 0.5)
    return X, ((radius // width).astype(int) % 2).astype(int)


def moons(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's two interleaving half circles (``make_moons``, noise 0.1), scaled into the unit square.

    Examples
    --------
    >>> from tnt.experiments.gallery import moons
    >>> X, y = moons(n=200, seed=0)
    >>> bool(X.min() >= 0 and X.max() <= 1), int(y.sum())
    (True, 100)
    """
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=n, noise=0.1, random_state=seed)
    low, high = X.min(axis=0), X.max(axis=0)
    return (X - low) / (high - low), y.astype(int)


def with_label_noise(y, rate: float = NOISE, seed: int = 0, n_classes: int | None = None) -> np.ndarray:
    """A copy of ``y`` in which a share ``rate`` of the labels (chosen at random) is changed to another class.

    Parameters
    ----------
    y : array-like of int
        Classes ``0..n_classes-1``.
    rate : float, default=NOISE
        Share of labels to change, in [0, 1].
    seed : int, default=0
    n_classes : int, default=None
        Number of classes (``max(y) + 1`` when omitted).

    Examples
    --------
    >>> import numpy as np
    >>> from tnt.experiments.gallery import with_label_noise
    >>> y = np.zeros(100, dtype=int)
    >>> int(with_label_noise(y, 0.1, n_classes=2).sum())
    10
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"The share of labels to flip must be between 0 and 1, got {rate}.")
    y = np.array(y, dtype=int)
    k = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if k < 2:
        raise ValueError("Label noise needs at least two classes to change a label into another.")
    rng = np.random.default_rng(seed)
    flip = rng.choice(y.size, size=int(round(rate * y.size)), replace=False)
    y[flip] = (y[flip] + rng.integers(1, k, size=flip.size)) % k
    return y


@dataclass(frozen=True)
class Problem:
    """One problem of the gallery.

    Attributes
    ----------
    id : str
        Short key (``"xor"``).
    name : str
        Its title in the app.
    shows : str
        One sentence on what the problem teaches.
    make : callable
        ``make(n=..., seed=...) -> (X, y)``.
    """

    id: str
    name: str
    shows: str
    make: Callable


PROBLEMS = {
    p.id: p
    for p in [
        Problem(
            "corners",
            "The corners (the paper's Fig. 2)",
            "Class 1 in the four corner squares: a tree tests x2 twice, once under each outer band of x1, "
            "while a graph shares one test of x2 between both bands.",
            corners,
        ),
        Problem(
            "xor",
            "XOR",
            "Exclusive or of x1 > 0.5 and x2 > 0.5: a tree of three splits is exact, but no single split "
            "lowers the error on its own, so a learner that judges each split by its own gain may stop at "
            "the root.",
            xor,
        ),
        Problem(
            "checkerboard",
            "Checkerboard (4 by 4)",
            "Repeated structure: every column of squares asks the same questions of x2, which a tree "
            "writes out once per column and a graph can share.",
            checkerboard,
        ),
        Problem(
            "diagonal",
            "Diagonal boundary",
            "Class 1 above the line x2 = x1: splits on one feature at a time can only approximate it by "
            "a staircase, graph or not, and each step costs splits.",
            diagonal,
        ),
        Problem(
            "rings",
            "Concentric rings",
            "Classes alternate in rings around the centre: curved boundaries again drawn as staircases, "
            "with little structure to share.",
            rings,
        ),
        Problem(
            "moons",
            "Two moons",
            "Two interleaving half circles (scikit-learn's make_moons): a curved boundary, where the first "
            "splits a greedy learner picks decide how many more it needs.",
            moons,
        ),
    ]
}


def make_problem(problem_id: str, *, n: int = 2000, seed: int = 0, noisy: bool = False):
    """The data of one gallery problem, or of its noisy copy (a share :data:`NOISE` of the labels changed).

    Parameters
    ----------
    problem_id : str
        A key of :data:`PROBLEMS`.
    n : int, default=2000
    seed : int, default=0
        Seeds both the points and the noise.
    noisy : bool, default=False

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of int, shape (n,)

    Examples
    --------
    >>> from tnt.experiments.gallery import make_problem
    >>> X, y = make_problem("xor", n=500, seed=1)
    >>> X2, y2 = make_problem("xor", n=500, seed=1, noisy=True)
    >>> bool((X == X2).all()), int((y != y2).sum())
    (True, 50)
    """
    if problem_id not in PROBLEMS:
        raise ValueError(f"Unknown problem {problem_id!r}; choose one of {', '.join(PROBLEMS)}.")
    X, y = PROBLEMS[problem_id].make(n=n, seed=seed)
    if noisy:
        y = with_label_noise(y, NOISE, seed=seed, n_classes=2)
    return X, y
