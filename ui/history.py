"""Display of the workspace's history: column labels and formats, and a short label for each run."""

from __future__ import annotations

import pandas as pd

from tnt.experiments.training import format_C

LABELS = {
    "run": "run",
    "saved": "saved",
    "dataset": "data set",
    "data_hash": "data hash (SHA-256)",
    "test_size": "test share",
    "split_seed": "split seed",
    "C": "C",
    "N1": "N1",
    "N2": "N2",
    "fine_tune": "fine-tune",
    "seed": "seed",
    "splits": "splits",
    "tnt_train_accuracy": "TnT train",
    "tnt_test_accuracy": "TnT test",
    "cart_test_accuracy": "CART test",
    "fit_time_s": "fit time (s)",
}


def display_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The history frame of :func:`tnt.workspace.runs.history_frame` with display labels and rounding."""
    shown = frame.copy()
    shown["C"] = shown["C"].map(lambda c: format_C(c) if isinstance(c, (int, float)) else c)
    for key in ("tnt_train_accuracy", "tnt_test_accuracy", "cart_test_accuracy"):
        shown[key] = shown[key].round(3)
    shown["fit_time_s"] = shown["fit_time_s"].round(2)
    return shown.rename(columns=LABELS)


def run_label(run) -> str:
    """``#3 Iris, C=1e-02, N1=2, N2=5 (2026-01-01 10:00:00 UTC)`` for a picker."""
    p = run.params
    C = format_C(p["C"]) if isinstance(p.get("C"), (int, float)) else "?"
    return f"#{run.id} {run.dataset_name}, C={C}, N1={p.get('N1')}, N2={p.get('N2')}, seed={p.get('seed')}"
