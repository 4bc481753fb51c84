"""TnT against optimal decision trees of the same size (STreeD) and best-first CART, written to docs/optimal_trees.md.

Run from the repository root (needs the ``bench`` extra: ``pip install -e .[bench]``):

    .venv/bin/python benchmarks/optimal_trees.py [--sets yeast credit_g ...] [--seeds 3] [--thresholds 4]

For each classification set of the suite and each depth d in 3, 4, 5 (at most N = 2^d - 1 = 7, 15,
31 splits), every feature is binarised at the same candidate thresholds for all three models (the
training part's quantiles, ``--thresholds`` per feature), so that they choose from the same questions:

- **optimal tree**: STreeD (``pystreed.STreeDClassifier``), the tree of depth at most d and at most N
  splits with the fewest training errors, within ``--time-limit`` seconds (otherwise not proven
  optimal, and the row says so);
- **TnT**: the graph with the most splits not above N, found by a search over C
  (:func:`tnt.services.budget.fit_to_budget`), its depth unlimited;
- **CART**: scikit-learn's tree grown best-first to TnT's number of splits.

Training accuracy answers whether a graph represents more than a tree of its size: the optimal tree
has the highest training accuracy of all trees within its limits, so a TnT graph above it with no more
splits is a function no such tree can express. Test accuracy says whether that helps.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from accuracy import split, suite  # noqa: E402

from tnt.services.budget import fit_to_budget  # noqa: E402

REPORT = HERE.parent / "docs" / "optimal_trees.md"
DEPTHS = (3, 4, 5)
THRESHOLDS = 4
TIME_LIMIT = 60.0


def binarise(X_train, X_test, thresholds: int = THRESHOLDS):
    """Both parts as 0/1 columns ``x_j <= t`` for each feature j and each of its candidate thresholds t.

    The thresholds are the training part's quantiles at ``1/(k+1), ..., k/(k+1)`` for k =
    ``thresholds``, taken among the feature's distinct values; a threshold that leaves every
    training sample on one side is dropped, and so is a column equal to one before it.

    Returns
    -------
    B_train, B_test : ndarray of uint8
    questions : list of (int, float)
        The feature and threshold of each column.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> B, _, questions = binarise(X, X, thresholds=1)
    >>> B[:, 0].tolist(), questions
    ([1, 1, 0, 0], [(0, 1.0)])
    """
    X_train, X_test = np.asarray(X_train, dtype=np.float64), np.asarray(X_test, dtype=np.float64)
    levels = np.arange(1, thresholds + 1) / (thresholds + 1)
    columns, questions, seen = [], [], set()
    for j in range(X_train.shape[1]):
        values = np.unique(X_train[:, j])
        for t in np.unique(np.quantile(values, levels, method="lower")):
            column = X_train[:, j] <= t
            key = column.tobytes()
            if column.all() or not column.any() or key in seen:
                continue
            seen.add(key)
            columns.append(j)
            questions.append((j, float(t)))
    if not questions:
        empty = np.zeros((len(X_train), 0), np.uint8), np.zeros((len(X_test), 0), np.uint8)
        return (*empty, questions)
    feature = np.array(columns)
    cut = np.array([t for _, t in questions])
    return (
        (X_train[:, feature] <= cut).astype(np.uint8),
        (X_test[:, feature] <= cut).astype(np.uint8),
        questions,
    )


def optimal_tree(B_train, y_train, depth: int, splits: int, time_limit: float = TIME_LIMIT):
    """STreeD's most accurate tree on the training part with depth at most ``depth`` and at most
    ``splits`` splits: ``(model, seconds, proven optimal)``."""
    from pystreed import STreeDClassifier

    model = STreeDClassifier(max_depth=depth, max_num_nodes=splits, time_limit=time_limit)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(B_train, y_train)
    return model, time.perf_counter() - start, bool(model.fit_result.is_optimal())


def one_seed(name: str, path: Path, seed: int, depths=DEPTHS, thresholds=THRESHOLDS, time_limit=TIME_LIMIT):
    """The three models at each depth on one seed's split of one set: one row per depth, up to the
    first depth whose optimal tree STreeD does not prove optimal within ``time_limit`` (deeper ones
    take longer still). Where TnT's graph has fewer splits than the budget, the optimal tree with
    at most as many splits as TnT (same depth limit) is also fitted (``same_*``)."""
    X_train, X_test, y_train, y_test = split("classification", path, seed)
    B_train, B_test, questions = binarise(X_train, X_test, thresholds)
    rows = []
    for depth in depths:
        N = 2**depth - 1
        tree, tree_s, optimal = optimal_tree(B_train, y_train, depth, N, time_limit)
        start = time.perf_counter()
        found = fit_to_budget(B_train, y_train, N, random_state=seed)
        tnt_s = time.perf_counter() - start
        tnt, cart = found.model, found.cart
        same, same_optimal = tree, optimal
        if 0 < tnt.n_splits_ < N:
            same, _, same_optimal = optimal_tree(B_train, y_train, depth, int(tnt.n_splits_), time_limit)
        rows.append(
            {
                "set": name,
                "seed": seed,
                "depth": depth,
                "budget": N,
                "questions": len(questions),
                "tree_splits": int(tree.get_n_leaves() - 1),
                "tree_train": float(tree.score(B_train, y_train)),
                "tree_test": float(tree.score(B_test, y_test)),
                "tree_optimal": optimal,
                "tree_s": tree_s,
                "same_train": float(same.score(B_train, y_train)),
                "same_test": float(same.score(B_test, y_test)),
                "same_optimal": same_optimal,
                "tnt_splits": int(tnt.n_splits_),
                "tnt_depth": int(tnt.decision_depth(B_train).max()),
                "tnt_train": float(tnt.score(B_train, y_train)),
                "tnt_test": float(tnt.score(B_test, y_test)),
                "tnt_s": tnt_s,
                "cart_train": float(cart.score(B_train, y_train)),
                "cart_test": float(cart.score(B_test, y_test)),
            }
        )
        if not optimal:
            break
    return rows


def compare(entries, seeds: int, thresholds=THRESHOLDS, time_limit=TIME_LIMIT, n_jobs=-1) -> pd.DataFrame:
    """:func:`one_seed` over every (set, seed) job on ``n_jobs`` joblib workers."""
    jobs = [(name, path, seed) for _, name, path in entries for seed in range(seeds)]
    results = Parallel(n_jobs=n_jobs)(
        delayed(one_seed)(name, path, seed, DEPTHS, thresholds, time_limit) for name, path, seed in jobs
    )
    return pd.DataFrame([row for rows in results for row in rows])


def by_set(runs: pd.DataFrame, seeds: int) -> pd.DataFrame:
    """Means over the seeds per (set, depth). ``optimal``: STreeD proved every tree of the row
    optimal, on all ``seeds`` seeds (a seed stopped at a shallower depth leaves the row unproven)."""
    flags = ("tree_optimal", "same_optimal")
    numbers = [c for c in runs.columns if c not in ("set", "seed", "depth", *flags)]
    groups = runs.groupby(["set", "depth"], sort=False)
    table = groups[numbers].mean()
    table["optimal"] = groups[list(flags)].all().all(axis=1) & (groups["seed"].count() == seeds)
    table = table.reset_index()
    table["train_over_same"] = 100 * (table["tnt_train"] - table["same_train"])
    table["test_over_same"] = 100 * (table["tnt_test"] - table["same_test"])
    table["test_over_tree"] = 100 * (table["tnt_test"] - table["tree_test"])
    table["test_over_cart"] = 100 * (table["tnt_test"] - table["cart_test"])
    return table


def depth_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per depth, over the sets where STreeD proved its trees optimal: how often TnT's graph is above
    the optimal tree with at most as many splits on the training part, how often at least as good on
    the test part, and the mean differences in points. ``train_above_both``: TnT's training accuracy
    above both the optimal depth-limited tree and best-first CART (depth unlimited) of its size;
    ``test_best``: TnT's test accuracy the best of the three."""
    proven = table[table["optimal"]].assign(
        above_both=lambda t: (t["tnt_train"] > t["same_train"]) & (t["tnt_train"] > t["cart_train"]),
        test_best=lambda t: (t["tnt_test"] >= t["same_test"]) & (t["tnt_test"] >= t["cart_test"]),
    )
    return (
        proven.groupby("depth")
        .agg(
            sets=("set", "count"),
            train_above=("train_over_same", lambda d: int((d > 0).sum())),
            train_above_both=("above_both", "sum"),
            test_best=("test_best", "sum"),
            test_at_least=("test_over_same", lambda d: int((d >= 0).sum())),
            mean_train_over_same=("train_over_same", "mean"),
            mean_test_over_same=("test_over_same", "mean"),
            mean_test_over_tree=("test_over_tree", "mean"),
            mean_test_over_cart=("test_over_cart", "mean"),
        )
        .reset_index()
    )


def report(table, summ, *, command, seconds, seeds, thresholds, time_limit, stamp) -> str:
    lines = [
        "# TnT against optimal trees of the same size\n",
        "Written by `benchmarks/optimal_trees.py`; nothing here is edited by hand. Each classification set of "
        f"the suite, seeds {', '.join(map(str, range(seeds)))} (the 67/33 splits of `docs/accuracy.md`), every feature "
        f"binarised at {thresholds} quantile thresholds of the training part (the same 0/1 columns for every model). "
        "**TnT**: the graph with the most splits not above 2^d - 1, by a search over C (`fit_to_budget`, defaults "
        "N1=2, N2=5), its depth unlimited. **Optimal tree**: STreeD's (pystreed) most accurate tree on the training "
        "part of depth at most d, with at most 2^d - 1 splits (*tree*) and with at most TnT's number of splits "
        f"(*same*: the tree of TnT's size; the same as *tree* where TnT reached 2^d - 1), time limit {time_limit:g} s. "
        "**CART**: best-first to TnT's splits. Accuracies are means over the seeds, differences in points (x 100). "
        "A set stops at the first depth whose tree STreeD did not prove optimal in time (deeper ones take longer); "
        "the time limit is STreeD's, in wall-clock seconds. The optimal tree is limited in depth, TnT and CART are "
        "not: a TnT graph above *same* on the training part may owe it to depth; above both *same* and CART, it "
        "fits better than the best depth-limited tree and the greedy unlimited one of its size.\n",
        f"Run: {stamp}, `{command}`, {os.cpu_count()} cores, Python {platform.python_version()}. "
        f"Took {seconds / 60:.1f} minutes of wall time.\n",
        "## Summary (sets where STreeD proved every tree optimal)\n",
        "| depth (splits at most) | sets | TnT train above *same* | TnT train above *same* and CART | "
        "TnT test >= *same* | TnT test the best of the three | mean train: TnT - *same* | "
        "mean test: TnT - *same* | mean test: TnT - *tree* | mean test: TnT - CART |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in summ.itertuples():
        lines.append(
            f"| {r.depth} ({2**r.depth - 1}) | {r.sets} | {r.train_above} / {r.sets} | {r.train_above_both} / {r.sets} | "
            f"{r.test_at_least} / {r.sets} | {r.test_best} / {r.sets} | "
            f"{r.mean_train_over_same:+.2f} | {r.mean_test_over_same:+.2f} | {r.mean_test_over_tree:+.2f} | "
            f"{r.mean_test_over_cart:+.2f} |"
        )
    lines += [
        "\n## Every set\n",
        "| set | depth | binary columns | TnT splits (depth) | TnT train | *same* train | *tree* train | CART train | "
        "TnT test | *same* test | *tree* test | CART test | proven optimal | STreeD time | TnT search time |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.set} | {r.depth} | {r.questions:.0f} | {r.tnt_splits:.1f} ({r.tnt_depth:.1f}) | {r.tnt_train:.4f} | "
            f"{r.same_train:.4f} | {r.tree_train:.4f} | {r.cart_train:.4f} | {r.tnt_test:.4f} | {r.same_test:.4f} | "
            f"{r.tree_test:.4f} | {r.cart_test:.4f} | {'yes' if r.optimal else 'no'} | {r.tree_s:.1f} s | {r.tnt_s:.1f} s |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="only these classification sets of the suite")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--thresholds", type=int, default=THRESHOLDS, help="candidate thresholds per feature")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT, help="seconds for each STreeD fit")
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument(
        "--report", action="store_true", help="only write the report again from the runs and run.json of an earlier run"
    )
    args = parser.parse_args(argv)
    runs_csv = args.out.with_name(args.out.stem + "_runs.csv")
    meta_json = args.out.with_name(args.out.stem + "_run.json")
    if args.report:
        if not (runs_csv.is_file() and meta_json.is_file()):
            print(f"No earlier run beside {args.out} ({runs_csv.name} and {meta_json.name}); run without --report.")
            return 2
        meta = json.loads(meta_json.read_text())
        runs = pd.read_csv(runs_csv)
        table = by_set(runs, meta["seeds"])
        args.out.write_text(report(table, depth_summary(table), **meta))
        return 0
    try:
        import pystreed  # noqa: F401
    except ImportError:
        print("pystreed is not installed; install the bench extra: pip install -e .[bench]")
        return 2
    entries = [e for e in suite(args.sets) if e[0] == "classification"]
    command = "python benchmarks/optimal_trees.py " + " ".join(argv if argv is not None else sys.argv[1:])
    start = time.perf_counter()
    runs = compare(entries, args.seeds, args.thresholds, args.time_limit, args.n_jobs)
    table = by_set(runs, args.seeds)
    meta = {
        "command": command.strip(),
        "seconds": time.perf_counter() - start,
        "seeds": args.seeds,
        "thresholds": args.thresholds,
        "time_limit": args.time_limit,
        "stamp": f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
    }
    text = report(table, depth_summary(table), **meta)
    print(text)
    args.out.write_text(text)
    runs.to_csv(runs_csv, index=False)
    meta_json.write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
