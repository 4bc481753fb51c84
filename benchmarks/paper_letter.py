"""Letter over several random test splits: how much of Table 1's gap on Letter is the split.

    .venv/bin/python benchmarks/paper_letter.py [--data FOLDER] [--out docs/paper]

Letter has no official split; the paper draws a random 33% test part, and so do we (seed 0). This
trains TnT (N1=2, N2=5) at two values of C, best-first CART with TnT's split count and unpruned
CART on each of five stratified 67/33 splits, and writes ``letter_splits.csv``, which the report of
``benchmarks/paper.py`` shows (``--report`` writes it again).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt import CARTClassifier, TnTClassifier  # noqa: E402
from tnt.data.external import stop_if_missing  # noqa: E402
from tnt.experiments.paper import load_paper_data  # noqa: E402

#: The smallest C of the paper's range for Letter (chosen by our cross-validation) and one with
#: about the paper's 1.2k splits.
CS = (5e-5, 1.2e-4)


def one_split(data, split: int) -> list[dict]:
    from sklearn.tree import DecisionTreeClassifier

    X, y, X_test, y_test = load_paper_data("letter", data, seed=split)
    unpruned = DecisionTreeClassifier(random_state=0).fit(X, y)
    rows = [
        {
            "split": split,
            "model": "CART unpruned",
            "C": None,
            "splits": unpruned.tree_.node_count // 2,
            "shared_nodes": 0,
            "train_accuracy": unpruned.score(X, y),
            "test_accuracy": unpruned.score(X_test, y_test),
        }
    ]
    for C in CS:
        tnt = TnTClassifier(ccp_alpha=0.0, C=C, random_state=0).fit(X, y)
        cart = CARTClassifier.with_splits(tnt.n_splits_, random_state=0).fit(X, y)
        for name, model in (("TnT", tnt), ("CART", cart)):
            rows.append(
                {
                    "split": split,
                    "model": name,
                    "C": C,
                    "splits": int(model.n_splits_),
                    "shared_nodes": int(getattr(model, "n_shared_nodes_", 0)),
                    "train_accuracy": model.score(X, y),
                    "test_accuracy": model.score(X_test, y_test),
                }
            )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="folder holding letter.npz (default: see docs/data-sets.md)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "paper")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--n-jobs", type=int, default=-1)
    args = parser.parse_args(argv)
    stop_if_missing(["letter"], args.data)
    rows = Parallel(n_jobs=args.n_jobs)(delayed(one_split)(args.data, s) for s in range(args.splits))
    table = pd.DataFrame([row for part in rows for row in part])
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "letter_splits.csv", index=False)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
