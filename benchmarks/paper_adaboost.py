"""AdaBoost of CART at two base sizes: how much of Table 2's AdaBoost gap is the size of its trees.

    .venv/bin/python benchmarks/paper_adaboost.py [--data FOLDER] [--out docs/paper] [--datasets connect_4 mnist]

Table 2 gives scikit-learn's AdaBoost (SAMME, learning rate 1.0) CART base trees with as many
splits as our TnT-AdaBoost's base estimators have on average; reweighted data make TnT's later
base estimators smaller than the first, so they come out smaller than the paper's. This trains the
same AdaBoost on the same split (5 seeds, 20 base estimators; 5 and 10 are the first of them) with
our base size, read from ``table2.csv`` in ``--out``, and with the paper's splits per base
estimator, and writes ``adaboost_sizes.csv``, which the report of ``benchmarks/paper.py`` shows
(``--report`` writes it again). By default every data set with a Table 2 in ``--out``: Connect-4
and MNIST after a full run, 22 minutes on 2 cores (MNIST's 200 AdaBoost trees most of them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt.experiments.ensembles import fit_ensemble_sizes  # noqa: E402
from tnt.experiments.paper import parse_table2_side_study  # noqa: E402
from tnt.experiments.paper_numbers import TABLE2  # noqa: E402

SIZES = (5, 10, 20)


def base_leaves(table2: pd.DataFrame, name: str) -> dict:
    """``max_leaf_nodes`` of the base trees: ours (Table 2's AdaBoost of 20, mean splits + 1) and
    the paper's (its splits for 20 base estimators / 20, + 1)."""
    ours = table2[(table2["data"] == name) & (table2["ensemble"] == "AdaBoost") & (table2["size"] == max(SIZES))]
    return {
        "ours": int(round(ours["mean_splits"].mean())) + 1,
        "paper's": int(round(TABLE2[name][("AdaBoost", max(SIZES))][0] / max(SIZES))) + 1,
    }


def one_run(split, name, base, leaves, seed) -> list[dict]:
    """AdaBoost of ``leaves``-leaf CART trees on ``split`` (X, y, X_test, y_test) of data set ``name``."""
    rows = fit_ensemble_sizes("AdaBoost", *split, sizes=SIZES, seed=seed, max_leaf_nodes=leaves)
    return [{"data": name, "base": base, "max_leaf_nodes": leaves, **row} for row in rows]


def main(argv=None) -> int:
    args, table2, splits = parse_table2_side_study(argv, __doc__.splitlines()[0], ROOT / "docs" / "paper")
    parts = Parallel(n_jobs=args.n_jobs)(
        delayed(one_run)(splits[name], name, base, leaves, seed)
        for name in args.datasets
        for base, leaves in base_leaves(table2, name).items()
        for seed in range(args.seeds)
    )
    table = pd.DataFrame([row for part in parts for row in part])
    table.to_csv(args.out / "adaboost_sizes.csv", index=False)
    print(table.groupby(["data", "base", "size"])[["mean_splits", "train_accuracy", "test_accuracy"]].mean())
    return 0


if __name__ == "__main__":
    sys.exit(main())
