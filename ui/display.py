"""How the app shows the library's results: display labels for snake_case measures, the C grid of
its sliders and C's labels, and the tables of the Train page. The library's tables carry snake_case
keys; this module is the one place they get words."""

from __future__ import annotations

import pandas as pd

from tnt.experiments.training import TrainResult

__all__ = ["C_GRID", "LABELS", "comparison_table", "format_C", "history_table", "labelled"]

#: C on a log scale, 1-2-5 steps from 1e-5 to 1e-1.
C_GRID = tuple(float(f"{m}e{e}") for e in range(-5, -1) for m in (1, 2, 5)) + (1e-1,)

#: Display label of each measure the library reports.
LABELS = {
    "train_accuracy": "train accuracy",
    "test_accuracy": "test accuracy",
    "splits": "splits",
    "leaves": "leaves",
    "shared_nodes": "nodes with several parents",
    "mean_depth": "mean decision depth (test)",
    "fit_time": "fit time (s)",
    "total_splits": "total splits",
    "mean_splits": "mean splits",
}


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its snake_case columns shown as words.

    Examples
    --------
    >>> labelled(pd.DataFrame({"test_accuracy": [0.9], "seed": [0]})).columns.tolist()
    ['test accuracy', 'seed']
    """
    return frame.rename(columns=lambda c: LABELS.get(c, c))


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
        rows.append([LABELS.get(name, name), *cells])
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
            "shared nodes": r.tnt_metrics["shared_nodes"],
            "TnT test": round(r.tnt_metrics["test_accuracy"], 3),
            "CART test": round(r.cart_metrics["test_accuracy"], 3),
            "_order": (r.params.C, r.params.N1, r.params.N2, r.params.fine_tune, r.params.seed),
        }
        for r in results
    ]
    frame = pd.DataFrame(rows, columns=[*(rows[0] if rows else ["_order"])])
    return frame.sort_values("_order").drop(columns="_order").reset_index(drop=True)


def format_C(C: float) -> str:
    """``1e-03`` style label for a value of C."""
    return f"{C:.0e}"
