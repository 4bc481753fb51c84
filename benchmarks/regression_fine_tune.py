"""Should TnTRegressor fine-tune by default? Chosen on validation data, never on the test split.

For each (data set, C) pair and seed of ``benchmarks/regression.py`` (same 67/33 splits), the training
part is split again 75/25 (seeded): TnTRegressor with ``fine_tune`` 0 and 2 is fitted on the 75% and
scored on the 25% beside CART grown best-first to the same number of splits. The default is the
value with the most pairs at or above CART on validation (ties: the higher mean validation R²);
only then is the test split used, to report that value's test R² against CART's as
``benchmarks/regression.py`` does. Prints both tables.

Run from the repository root: ``python benchmarks/regression_fine_tune.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from regression import C_VALUES, DATA_SETS, SEEDS, load  # noqa: E402

from tnt import TnTRegressor  # noqa: E402
from tnt.data.external import missing_data  # noqa: E402

CANDIDATES = (0, 2)


def pair_scores(X_fit, y_fit, X_eval, y_eval, C, seed, fine_tune):
    tnt = TnTRegressor(ccp_alpha=0.0, C=C, fine_tune=fine_tune, random_state=seed).fit(X_fit, y_fit)
    cart = DecisionTreeRegressor(max_leaf_nodes=tnt.n_splits_ + 1, random_state=seed).fit(X_fit, y_fit)
    return tnt.n_splits_, tnt.score(X_eval, y_eval), cart.score(X_eval, y_eval)


def table(evaluate):
    """``{(name, C, fine_tune): (mean splits, mean TnT R², mean CART R²)}`` over the seeds."""
    rows = {}
    for name, Cs in C_VALUES.items():
        X, y = load(name)
        for C in Cs:
            for fine_tune in evaluate["candidates"]:
                found = [evaluate["split"](X, y, seed, C, fine_tune) for seed in SEEDS]
                rows[name, C, fine_tune] = tuple(float(v) for v in np.mean(found, axis=0))
                s, t, c = rows[name, C, fine_tune]
                print(f"{evaluate['label']:<10} {name:<20} C={C:<8g} fine_tune={fine_tune}  splits {s:6.1f}  "
                      f"TnT {t:.4f}  CART {c:.4f}  {'yes' if t >= c else 'no'}", flush=True)  # fmt: skip
    return rows


def validation_split(X, y, seed, C, fine_tune):
    X_tr, _, y_tr, _ = train_test_split(X, y, test_size=0.33, random_state=seed)
    X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.25, random_state=seed)
    return pair_scores(X_fit, y_fit, X_val, y_val, C, seed, fine_tune)


def test_split(X, y, seed, C, fine_tune):
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=seed)
    return pair_scores(X_tr, y_tr, X_te, y_te, C, seed, fine_tune)


def main():
    missing = missing_data(DATA_SETS)
    if missing:
        sys.exit(missing)  # the sentence, on stderr, status 1
    validation = table({"label": "validation", "candidates": CANDIDATES, "split": validation_split})
    wins = {
        ft: (sum(validation[k][1] >= validation[k][2] for k in validation if k[2] == ft),
             np.mean([validation[k][1] for k in validation if k[2] == ft]))
        for ft in CANDIDATES
    }  # fmt: skip
    chosen = max(CANDIDATES, key=lambda ft: wins[ft])
    print(f"validation: pairs at or above CART, mean R² by fine_tune: {wins}; chosen fine_tune={chosen}")
    test = table({"label": "test", "candidates": (chosen,), "split": test_split})
    print(
        f"test: fine_tune={chosen} at or above CART on {sum(t >= c for _, t, c in test.values())} of {len(test)} pairs"
    )


if __name__ == "__main__":
    main()
