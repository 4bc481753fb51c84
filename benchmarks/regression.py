"""TnTRegressor against scikit-learn's DecisionTreeRegressor: accuracy at the same number of splits, and
fit time against cost-complexity pruned CART. Writes its results into ``docs/regression.md`` (between
the ``results`` markers) and prints them.

Run from the repository root::

    python benchmarks/regression.py            # everything (about ten minutes on one core)
    python benchmarks/regression.py --speed    # only the fit-time comparison

Data: ``regression/`` of the project's data sets (California housing, Friedman #1, cpu_act), found as
``docs/data-sets.md`` says.
Accuracy: for each data set two values of C (about 100 and about 500 splits), mean over 5 seeded
67/33 splits of the test R² of TnTRegressor(C, N1=2, N2=5) and of DecisionTreeRegressor grown
best-first to the same number of splits (``max_leaf_nodes = splits + 1``); then the default size
(``ccp_alpha="auto"``) on the same splits, with the refit rule its held-out part chose and each of
the two rules it chooses from.
Speed: TnTRegressor(n_jobs=1) against DecisionTreeRegressor(ccp_alpha=C * var(y)) on all of
California housing at the C of about 500 splits, medians of 5 fits of each, interleaved, in CPU
time of this process (the machine is shared, so wall time measures the neighbours).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tnt import TnTRegressor  # noqa: E402
from tnt.data.external import find_data, stop_if_missing  # noqa: E402

DOC = ROOT / "docs" / "regression.md"
SEEDS = range(5)
# C of about 100 and about 500 splits on a 67% training split of each data set.
C_VALUES = {
    "california_housing": (1e-3, 2.5e-4),
    "friedman1": (1.5e-3, 2e-4),
    "cpu_act": (1.3e-4, 2e-5),
}
DATA_SETS = [f"regression/{name}" for name in C_VALUES]
SPEED_SET, SPEED_C = "california_housing", C_VALUES["california_housing"][1]


def load(name: str):
    data = np.load(find_data(f"regression/{name}"), allow_pickle=False)
    return data["X"], data["y"]


def accuracy_rows():
    rows = []
    for name, Cs in C_VALUES.items():
        X, y = load(name)
        for C in Cs:
            splits, tnt_r2, cart_r2 = [], [], []
            for seed in SEEDS:
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=seed)
                tnt = TnTRegressor(ccp_alpha=0.0, C=C, random_state=seed).fit(X_tr, y_tr)
                cart = DecisionTreeRegressor(max_leaf_nodes=tnt.n_splits_ + 1, random_state=seed).fit(X_tr, y_tr)
                splits.append(tnt.n_splits_)
                tnt_r2.append(tnt.score(X_te, y_te))
                cart_r2.append(cart.score(X_te, y_te))
            row = (name, C, float(np.mean(splits)), float(np.mean(tnt_r2)), float(np.mean(cart_r2)))
            print(f"{name:<20} C={C:<8g} splits {row[2]:6.1f}  TnT R2 {row[3]:.4f}  CART R2 {row[4]:.4f}", flush=True)
            rows.append(row)
    return rows


#: The default size's refit rules: the one held-out data chooses, and each of the two it chooses from.
DEFAULT_RULES = {
    "default": {},
    "every refit": {"internal_refit": "always"},
    "priced": {"internal_refit": "cost_complexity"},
}


def default_rows():
    """The default size (``ccp_alpha="auto"``) on the same splits: per (data set, C), the mean test
    R² of the default, of CART at its splits, of each refit rule it chooses from, and how many seeds
    chose the priced rule (``refit_rule_``)."""
    rows = []
    for name, Cs in C_VALUES.items():
        X, y = load(name)
        for C in Cs:
            r2 = {rule: [] for rule in DEFAULT_RULES}
            cart_r2, splits, priced = [], [], 0
            for seed in SEEDS:
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.33, random_state=seed)
                for rule, params in DEFAULT_RULES.items():
                    tnt = TnTRegressor(C=C, random_state=seed, **params).fit(X_tr, y_tr)
                    r2[rule].append(tnt.score(X_te, y_te))
                    if rule == "default":
                        priced += tnt.refit_rule_ == "cost_complexity"
                        splits.append(tnt.n_splits_)
                        cart = DecisionTreeRegressor(max_leaf_nodes=tnt.n_splits_ + 1, random_state=seed)
                        cart_r2.append(cart.fit(X_tr, y_tr).score(X_te, y_te))
            row = (name, C, float(np.mean(splits)), float(np.mean(cart_r2)), priced)
            row += tuple(float(np.mean(r2[rule])) for rule in DEFAULT_RULES)
            print(f"{name:<20} C={C:<8g} default: splits {row[2]:6.1f}  R2 {row[5]:.4f}  CART {row[3]:.4f}", flush=True)
            rows.append(row)
    return rows


def speed_row(repeats: int = 5):
    X, y = load(SPEED_SET)
    tnt_times, cart_times = [], []
    for _ in range(repeats):
        start = time.process_time()
        tnt = TnTRegressor(ccp_alpha=0.0, C=SPEED_C, random_state=0, n_jobs=1).fit(X, y)
        tnt_times.append(time.process_time() - start)
        start = time.process_time()
        cart = DecisionTreeRegressor(ccp_alpha=SPEED_C * y.var(), random_state=0).fit(X, y)
        cart_times.append(time.process_time() - start)
    row = (
        SPEED_SET,
        SPEED_C,
        tnt.n_splits_,
        cart.tree_.node_count - cart.get_n_leaves(),
        float(np.median(tnt_times)),
        float(np.median(cart_times)),
    )
    name, C, s_tnt, s_cart, t_tnt, t_cart = row
    print(f"{name} C={C:g}: TnT {s_tnt} splits {t_tnt:.3f} s, CART(ccp_alpha) {s_cart} splits {t_cart:.3f} s")
    return row


def write_doc(acc, speed, default=None) -> None:
    lines = []
    if acc:
        wins = sum(t >= c for *_, t, c in acc)
        lines += [
            "| data set | C | mean splits | TnT test R² | CART test R² (same splits) | TnT ≥ CART |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {C:g} | {s:.1f} | {t:.4f} | {c:.4f} | {'yes' if t >= c else 'no'} |" for n, C, s, t, c in acc
        ]
        lines += ["", f"TnT at least as good as CART on {wins} of {len(acc)} pairs.", ""]
    if default:
        lines += [
            "At the default size (`ccp_alpha=\"auto\"`, same splits of the data): the default's test R², CART's at "
            "the default's splits, the seeds whose held-out part chose the priced refits (`refit_rule_`), and "
            "the test R² of each of the two rules it chooses from, at the same size rule:",
            "",
            "| data set | C | mean splits | default R² | CART R² (same splits) | seeds priced | every refit R² | priced R² |",
            "|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {C:g} | {s:.1f} | {d:.4f} | {c:.4f} | {k} / {len(SEEDS)} | {e:.4f} | {p:.4f} |"
            for n, C, s, c, k, d, e, p in default
        ]
        lines += [""]
    if speed:
        name, C, s_tnt, s_cart, t_tnt, t_cart = speed
        lines += [
            f"Fit CPU time on all of {name} (20,640 rows) at C={C:g}, one thread, median of 5: "
            f"TnTRegressor {t_tnt:.3f} s ({s_tnt} splits), DecisionTreeRegressor(ccp_alpha=C·var(y)) "
            f"{t_cart:.3f} s ({s_cart} splits): ratio {t_tnt / t_cart:.2f}.",
        ]
    text = DOC.read_text()
    block = "<!-- results:start -->\n" + "\n".join(lines) + "\n<!-- results:end -->"
    DOC.write_text(re.sub(r"<!-- results:start -->.*<!-- results:end -->", lambda _: block, text, flags=re.S))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="only the fit-time comparison (the doc is not written)")
    args = parser.parse_args()
    stop_if_missing(DATA_SETS)
    speed = speed_row()
    if not args.speed:
        write_doc(accuracy_rows(), speed, default_rows())


if __name__ == "__main__":
    main()
