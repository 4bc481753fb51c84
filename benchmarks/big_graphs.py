"""The two large graphs of issue 51's benchmarks and screenshots, trained once and kept as model files.

- MNIST at C=1e-4 (its 60,000 training images), about a thousand splits;
- the 3,000-split graph: ``make_classification(n_samples=14_000, n_features=30, n_informative=15,
  n_classes=10, random_state=0)``, TnT trained to a budget of 3,000 splits
  (:func:`tnt.services.budget.fit_to_budget`).

Both are kept in ``$XDG_CACHE_HOME/tnt-explorer/benchmark-graphs`` (else ``~/.cache/...``) as model
files, so a second run and the screenshots reuse them. Run it alone to train them:

    .venv/bin/python benchmarks/big_graphs.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt.model_io import model_from_json, model_to_json  # noqa: E402

BUDGET = 3_000


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "tnt-explorer" / "benchmark-graphs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def classification_3000_data():
    """The 3,000-split graph's data, as the issue writes it: (X, y) of 14,000 rows and 30 features."""
    from sklearn.datasets import make_classification

    return make_classification(n_samples=14_000, n_features=30, n_informative=15, n_classes=10, random_state=0)


def mnist_data():
    """MNIST's (X_train, y_train, X_test, y_test)."""
    from tnt.data.external import find_data, stop_if_missing

    stop_if_missing(["mnist"])  # the loader's sentence on stderr, status 1, before any work
    with np.load(find_data("mnist")) as d:
        return d["X_train"], d["y_train"], d["X_test"], d["y_test"]


def _kept(name: str, train):
    path = cache_dir() / f"{name}.json"
    if path.exists():
        return model_from_json(path.read_bytes())
    model = train()
    path.write_text(model_to_json(model))
    return model


def mnist_model():
    """TnT at C=1e-4 on MNIST's 60,000 training images (:func:`tnt.data.external.find_data`)."""
    from tnt import TnTClassifier

    def train():
        X, y, _, _ = mnist_data()
        return TnTClassifier(ccp_alpha=0.0, C=1e-4, random_state=0).fit(X, y)

    return _kept("mnist_C1e-4", train)


def classification_3000_model():
    """TnT trained to a budget of 3,000 splits on :func:`classification_3000_data`."""
    from tnt.services.budget import fit_to_budget

    def train():
        X, y = classification_3000_data()
        return fit_to_budget(X, y, BUDGET, C_start=1e-5, random_state=0).model

    return _kept("classification_3000", train)


if __name__ == "__main__":
    for name, make in (("MNIST C=1e-4", mnist_model), ("3,000-split", classification_3000_model)):
        model = make()
        print(f"{name}: {model.graph_.n_splits} splits, {model.graph_.node_count} nodes, "
              f"{int(np.count_nonzero(model.graph_.reachable()))} reached")  # fmt: skip
