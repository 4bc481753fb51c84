"""Snapshots of training for a step-through: the graph after every grow pass and every merge."""

from __future__ import annotations

import numpy as np

from tnt._base import DTYPE, graph_from_flat
from tnt.baselines import CARTClassifier
from tnt.estimator import TnTClassifier
from tnt.graph import DecisionGraph
from tnt.reduction import reduce_model
from tnt.experiments.toy import four_split_graph

__all__ = ["teaching_models", "training_accuracy", "training_snapshots"]

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
    >>> from tnt.experiments.teaching import training_snapshots
    >>> from tnt.experiments.toy import corners
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


def teaching_models(X, y, *, C: float = 1e-2, seed: int = 0, corners: bool = True) -> dict:
    """The models of the Teach page on two-feature data: CART, TnT and TnT after graph reduction,
    and on the corners problem the paper's hand-built four-split graph (Fig. 2c).

    CART is grown best-first to TnT's number of splits.

    Returns
    -------
    models : dict
        ``{name: fitted classifier or DecisionGraph}``, in display order.

    Examples
    --------
    >>> from tnt.experiments.teaching import teaching_models, training_accuracy
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> models = teaching_models(X, y, C=1e-2, seed=0)
    >>> {name: (m.n_splits if hasattr(m, "n_splits") else m.n_splits_) for name, m in models.items()}
    {'CART': 6, 'TnT': 6, "The paper's graph (Fig. 2c)": 4, 'TnT after graph reduction': 4}
    >>> training_accuracy(models["The paper's graph (Fig. 2c)"], X, y)
    1.0
    """
    tnt = TnTClassifier(C=C, random_state=seed).fit(X, y)
    models = {
        "CART": CARTClassifier.with_splits(tnt.n_splits_, random_state=seed).fit(X, y),
        "TnT": tnt,
    }
    if corners:
        models["The paper's graph (Fig. 2c)"] = four_split_graph(X, y)
    models["TnT after graph reduction"] = reduce_model(tnt, X, y)
    return models


def training_accuracy(model, X, y) -> float:
    """Accuracy on ``(X, y)`` of a fitted classifier or of a bare DecisionGraph (classes 0..k-1).

    Examples
    --------
    >>> from tnt.experiments.teaching import training_accuracy
    >>> from tnt.experiments.toy import corners, four_split_graph
    >>> X, y = corners(seed=1)
    >>> training_accuracy(four_split_graph(X, y, low=0.5), X, y) < 1.0
    True
    """
    if isinstance(model, DecisionGraph):
        return float(np.mean(model.leaf_class()[model.apply(X)] == np.asarray(y)))
    return float(model.score(X, y))
