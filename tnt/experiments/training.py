"""Training for the app: TnT at the chosen C, N1, N2, and CART best-first with the same number of
splits beside it, each measured the same way."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tnt.baselines import CARTClassifier
from tnt.data.datasets import Dataset
from tnt.estimator import TnTClassifier

__all__ = ["C_GRID", "TrainParams", "TrainResult", "train", "metrics", "comparison_table", "history_table"]

#: C on a log scale, 1-2-5 steps from 1e-5 to 1e-1.
C_GRID = tuple(float(f"{m}e{e}") for e in range(-5, -1) for m in (1, 2, 5)) + (1e-1,)


@dataclass(frozen=True)
class TrainParams:
    """The hyperparameters the app exposes (see :class:`tnt.TnTClassifier`)."""

    C: float = 1e-3
    N1: int = 2
    N2: int = 5
    fine_tune: int = 0
    seed: int = 0

    def estimator(self) -> TnTClassifier:
        return TnTClassifier(C=self.C, N1=self.N1, N2=self.N2, fine_tune=self.fine_tune, random_state=self.seed)


@dataclass(frozen=True, eq=False)
class TrainResult:
    """A trained TnT model, the CART tree with as many splits, and their measurements."""

    dataset_key: str
    params: TrainParams
    tnt: TnTClassifier
    cart: CARTClassifier
    tnt_metrics: dict
    cart_metrics: dict

    @property
    def key(self) -> tuple:
        return (self.dataset_key, self.params)


def metrics(model, data: Dataset, fit_time: float) -> dict:
    """Accuracy, size and decision depth of a fitted graph model on a data set."""
    return {
        "train accuracy": float(model.score(data.X_train, data.y_train)),
        "test accuracy": float(model.score(data.X_test, data.y_test)),
        "splits": int(model.n_splits_),
        "leaves": int(model.n_leaves_),
        "nodes with several parents": int(model.n_shared_nodes_),
        "mean decision depth (test)": float(np.mean(model.decision_depth(data.X_test))),
        "fit time (s)": float(fit_time),
    }


def train(data: Dataset, params: TrainParams, progress_callback=None) -> TrainResult:
    """Fit TnT with ``params`` on the training part, then CART with ``max_leaf_nodes = splits + 1``.

    ``progress_callback`` receives every :class:`tnt.GrowthEvent` of the TnT fit.

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> result = train(load_bundled("iris"), TrainParams(C=1e-2))
    >>> result.cart.n_splits_ <= result.tnt.n_splits_
    True
    """
    start = time.perf_counter()
    tnt = params.estimator().fit(data.X_train, data.y_train, progress_callback=progress_callback)
    tnt_time = time.perf_counter() - start
    start = time.perf_counter()
    cart = CARTClassifier(max_leaf_nodes=max(tnt.n_splits_ + 1, 2), random_state=params.seed)
    cart.fit(data.X_train, data.y_train)
    cart_time = time.perf_counter() - start
    return TrainResult(
        dataset_key=data.key,
        params=params,
        tnt=tnt,
        cart=cart,
        tnt_metrics=metrics(tnt, data, tnt_time),
        cart_metrics=metrics(cart, data, cart_time),
    )


def comparison_table(result: TrainResult) -> pd.DataFrame:
    """The measurements of both models side by side, one row per measure, formatted for display."""
    rows = []
    for name in result.tnt_metrics:
        pair = [result.tnt_metrics[name], result.cart_metrics[name]]
        if "accuracy" in name:
            cells = [f"{v:.3f}" for v in pair]
        elif "depth" in name:
            cells = [f"{v:.2f}" for v in pair]
        elif "time" in name:
            cells = [f"{v:.2f}" for v in pair]
        else:
            cells = [str(v) for v in pair]
        rows.append([name, *cells])
    return pd.DataFrame(rows, columns=["measure", "TnT", "CART (same splits)"]).set_index("measure")


def history_table(results) -> pd.DataFrame:
    """One row per trained model (settings, size, accuracies), sorted by C then the other settings."""
    rows = [
        {
            "C": format_C(r.params.C),
            "N1": r.params.N1,
            "N2": r.params.N2,
            "fine-tune": r.params.fine_tune,
            "seed": r.params.seed,
            "splits": r.tnt_metrics["splits"],
            "shared nodes": r.tnt_metrics["nodes with several parents"],
            "TnT test": round(r.tnt_metrics["test accuracy"], 3),
            "CART test": round(r.cart_metrics["test accuracy"], 3),
            "_order": (r.params.C, r.params.N1, r.params.N2, r.params.fine_tune, r.params.seed),
        }
        for r in results
    ]
    frame = pd.DataFrame(rows, columns=[*(rows[0] if rows else ["_order"])])
    return frame.sort_values("_order").drop(columns="_order").reset_index(drop=True)


def format_C(C: float) -> str:
    """``1e-03`` style label for a value of C."""
    return f"{C:.0e}"
