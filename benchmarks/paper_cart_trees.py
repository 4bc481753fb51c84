"""Table 2's CART ensembles grown by both growers: the binned best-first CART and scikit-learn's.

    .venv/bin/python benchmarks/paper_cart_trees.py [--data FOLDER] [--out docs/paper] [--datasets connect_4 mnist]

Table 2 grows the base trees of Random Forest and AdaBoost with the project's binned best-first
CART (``cart_trees="binned"``, see :mod:`tnt.experiments.ensembles`): the trees of scikit-learn's
``DecisionTreeClassifier(max_leaf_nodes=...)`` up to ties between equally good splits. Pixels and
board cells tie often, so the trees, and the accuracies, can differ a little. This trains the same
CART ensembles as Table 2 (the base sizes read from ``table2.csv`` in ``--out``, 5 seeds, 5, 10 and
20 base estimators) with each grower, in turns, timing each ensemble's fit and scoring, and writes
``cart_trees.csv``, which the report of ``benchmarks/paper.py`` shows (``--report`` writes it
again). By default every data set with a Table 2 in ``--out``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt.experiments.ensembles import CART_TREES, fit_ensemble_sizes, matched_leaves  # noqa: E402
from tnt.experiments.paper import parse_table2_side_study  # noqa: E402

SIZES = (5, 10, 20)


def one_run(split, name, kind, leaves, cart_trees, seed) -> list[dict]:
    """One CART ensemble of ``leaves``-leaf trees from grower ``cart_trees`` on ``split`` (X, y,
    X_test, y_test) of data set ``name``; ``seconds`` is the fit and scoring of all its sizes."""
    start = time.perf_counter()
    rows = fit_ensemble_sizes(kind, *split, sizes=SIZES, seed=seed, max_leaf_nodes=leaves, cart_trees=cart_trees)
    seconds = time.perf_counter() - start
    return [
        {"data": name, "cart_trees": cart_trees, "max_leaf_nodes": leaves, "seconds": seconds, **row} for row in rows
    ]


def main(argv=None) -> int:
    args, table2, splits = parse_table2_side_study(argv, __doc__.splitlines()[0], ROOT / "docs" / "paper")
    # The two growers in turns, seed by seed, so that a change of load falls on both.
    parts = Parallel(n_jobs=args.n_jobs)(
        delayed(one_run)(splits[name], name, kind, leaves, cart_trees, seed)
        for name in args.datasets
        for kind, leaves in matched_leaves(table2[table2["data"] == name]).items()
        for seed in range(args.seeds)
        for cart_trees in CART_TREES
    )
    table = pd.DataFrame([row for part in parts for row in part])
    table.to_csv(args.out / "cart_trees.csv", index=False)
    print(table.groupby(["data", "ensemble", "size", "cart_trees"])[["mean_splits", "test_accuracy"]].mean())
    return 0


if __name__ == "__main__":
    sys.exit(main())
