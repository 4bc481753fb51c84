"""Snapshots of training for a step-through: the graph after every grow pass and every merge."""

from __future__ import annotations

import numpy as np

from ._base import DTYPE, graph_from_flat
from .estimator import TnTClassifier
from .graph import DecisionGraph

__all__ = ["training_snapshots"]

_KIND = {"grow": "grow pass", "merge": "merge", "fine_tune": "fine-tuning round"}


def training_snapshots(X, y, **params) -> list[tuple[str, DecisionGraph]]:
    """Train TnT and keep the graph after each step of Algorithm 2.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    **params
        Parameters of :class:`tnt.TnTClassifier` (``C``, ``N1``, ``N2``, ``fine_tune``,
        ``random_state``).

    Returns
    -------
    snapshots : list of (str, DecisionGraph)
        A label such as ``"phase 1, grow pass 2 of 5: 6 splits"`` and the graph at that moment,
        with the training statistics of ``(X, y)``; one per grow pass, merge and fine-tuning
        round, in order. The last one is the fitted model's graph.

    Examples
    --------
    >>> from tnt.teaching import training_snapshots
    >>> from tnt.toy import corners
    >>> X, y = corners(seed=0)
    >>> steps = training_snapshots(X, y, C=1e-2, N1=2, N2=2, random_state=0)
    >>> len(steps), steps[-1][0]
    (6, 'phase 2, merge: 6 splits')
    """
    model = TnTClassifier(**params)
    flats = []

    def record(event) -> None:
        flats.append((event, event.snapshot()))

    model.fit(X, y, progress_callback=record)
    Xv = np.ascontiguousarray(model._validate_X_predict(X), dtype=DTYPE)
    y_idx = np.searchsorted(model.classes_, np.asarray(y))
    per_phase = int(model.N2)
    out = []
    for event, flat in flats:
        graph = graph_from_flat(flat, Xv, y_idx, None, model.n_classes_)
        if event.kind == "grow":
            where = f"phase {event.phase}, grow pass {(event.step - 1) % (per_phase + 1) + 1} of {per_phase}"
        elif event.kind == "merge":
            where = f"phase {event.phase}, merge"
        else:
            where = f"fine-tuning round {event.step - model.N1 * (per_phase + 1)}"
        out.append((f"{where}: {graph.n_splits} splits", graph))
    return out
