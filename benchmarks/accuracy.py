"""TnT against best-first CART at the same number of splits on the benchmark suite, written to docs/accuracy.md.

Run from the repository root:

    .venv/bin/python benchmarks/accuracy.py [--quick] [--sets yeast credit_g ...] [--paper-sets mnist ...]

The rules are those of ``shared/data/benchmark/BASELINE.md``: every set of the suite (16 classification,
8 regression, PMLB), C in 1e-2, 1e-3, 1e-4, seeds 0 to 4, a seeded 67/33 split per seed (stratified for
classification), TnT at its defaults otherwise, and CART (scikit-learn's tree grown best-first,
:meth:`tnt.CARTClassifier.with_splits`) at TnT's number of splits. A (set, C) pair counts where TnT's
mean number of splits is at least 10, and TnT wins it where its mean test score (accuracy, or R²) is
at least CART's. The side table runs the paper's six data sets at the C their Table 1 run chose
(``docs/paper/table1.csv``), 5 trials, beside that run's TnT accuracy, so that no change to the
learner is bought with a loss there.

The script writes ``docs/accuracy.md`` whole (nothing in it is written by hand) and the per-seed
results beside it (``docs/accuracy_runs.csv``) when it ran the whole suite; ``--quick``, ``--sets``
or ``--paper-sets`` runs write to ``--out`` only when it is given. The (set, seed) jobs run on all
cores through joblib, each TnT fit on one thread.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt import TnTClassifier, TnTRegressor  # noqa: E402
from tnt.baselines import CARTClassifier, CARTRegressor  # noqa: E402
from tnt.data.external import external_sets, find_data, stop_if_missing  # noqa: E402
from tnt.experiments.paper import PAPER_DATASETS, load_paper_data  # noqa: E402

REPORT = ROOT / "docs" / "accuracy.md"
RUNS = ROOT / "docs" / "accuracy_runs.csv"
#: The same suite with ``ccp_alpha=0.0``, the graph ``C`` alone grows (the default of version 0.1):
#: the pairs it counts are the suite's pairs (``shared/data/benchmark/BASELINE.md``), whatever the
#: default's size, and its test scores are what the default is measured against.
RUNS_C_ALONE = ROOT / "docs" / "accuracy_runs_c_alone.csv"
C_ALONE = {"ccp_alpha": 0.0}
PAPER_TABLE1 = ROOT / "docs" / "paper" / "table1.csv"
C_GRID = (1e-2, 1e-3, 1e-4)
SEEDS = 5
MIN_SPLITS = 10  # a pair counts where TnT's mean number of splits reaches this
TEST_SHARE = 0.33
TASKS = ("classification", "regression")
QUICK_SETS = ("credit_g", "yeast", "car_evaluation", "1029_LEV", "529_pollen")
UNIT = {"classification": "pp", "regression": "R^2 x100"}


def suite(names=None) -> list[tuple[str, str, Path]]:
    """``(task, name, path)`` of the suite's sets (only ``names`` if given), found by
    :func:`tnt.data.external.find_data`, largest file first so that the longest jobs start first.
    A set that is not found stops the script with the loader's one sentence."""
    catalog = {s.name.split("/")[-1]: s.name for s in external_sets() if s.name.startswith("benchmark/")}
    if names is not None:
        unknown = sorted(set(names) - set(catalog))
        if unknown:
            raise SystemExit(f"No set of the suite is called {', '.join(unknown)}; leave it out of --sets.")
    wanted = [catalog[name] for name in (names if names is not None else catalog)]
    stop_if_missing(wanted)
    found = [(full.split("/")[1], full.split("/")[-1], find_data(full)) for full in wanted]
    return sorted(found, key=lambda entry: -entry[2].stat().st_size)


def remove_values(X: np.ndarray, share: float, seed: int) -> np.ndarray:
    """``X`` as float64 with ``share`` of its values, chosen at random (seeded), replaced by NaN."""
    X = np.array(X, dtype=np.float64)
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


def split(task: str, path: Path, seed: int, missing_share: float = 0.0):
    """The seed's 67/33 split of one set (stratified for classification), with ``missing_share`` of
    the feature values removed at random (:func:`remove_values`, seeded by ``seed``) when it is not 0."""
    with np.load(path, allow_pickle=False) as d:
        X, y = d["X"], d["y"]
    if missing_share:
        X = remove_values(X, missing_share, seed)
    stratify = y if task == "classification" else None
    return train_test_split(X, y, test_size=TEST_SHARE, stratify=stratify, random_state=seed)


def tnt_params(C: float, seed: int, params=None) -> dict:
    """The TnT parameters of a run at ``C``: ``C``, ``random_state`` and ``params``, a dict or a
    function of ``C`` giving one (which may set ``C`` itself, e.g. to grow at ``C / 10`` and prune at ``C``).

    >>> tnt_params(1e-3, 0, lambda C: {"C": C / 10, "ccp_alpha": C})
    {'C': 0.0001, 'random_state': 0, 'ccp_alpha': 0.001}
    """
    return {"C": C, "random_state": seed} | ((params(C) if callable(params) else params) or {})


def one_seed(task: str, name: str, path: Path, seed: int, Cs=C_GRID, params=None, missing_share=0.0) -> list[dict]:
    """TnT at each C (and the estimator parameters ``params``, defaults where not given; see
    :func:`tnt_params`) and CART at its number of splits on one seed's split of one set
    (``missing_share`` as in :func:`split`): one row per C."""
    X_train, X_test, y_train, y_test = split(task, path, seed, missing_share)
    tnt_class, cart_class = (
        (TnTClassifier, CARTClassifier) if task == "classification" else (TnTRegressor, CARTRegressor)
    )
    rows = []
    for C in Cs:
        start = time.perf_counter()
        tnt = tnt_class(**tnt_params(C, seed, params)).fit(X_train, y_train)
        fit_time = time.perf_counter() - start
        cart = cart_class.with_splits(tnt.n_splits_, random_state=seed).fit(X_train, y_train)
        rows.append(
            {
                "task": task,
                "set": name,
                "C": C,
                "seed": seed,
                "tnt_splits": int(tnt.n_splits_),
                "tnt_shared": int(tnt.graph_.shared_nodes.size),
                "cart_splits": int(cart.n_splits_),
                "tnt_test": float(tnt.score(X_test, y_test)),
                "cart_test": float(cart.score(X_test, y_test)),
                "tnt_train": float(tnt.score(X_train, y_train)),
                "cart_train": float(cart.score(X_train, y_train)),
                "tnt_fit_s": fit_time,
            }
        )
    return rows


def run_suite(entries, seeds=SEEDS, Cs=C_GRID, n_jobs=-1, params=None, missing_share=0.0, first_seed=0) -> pd.DataFrame:
    """:func:`one_seed` over every (set, seed) job, seeds ``first_seed`` to ``first_seed + seeds - 1``, on
    ``n_jobs`` joblib workers: one row per (set, C, seed)."""
    jobs = [(task, name, path, seed) for task, name, path in entries for seed in range(first_seed, first_seed + seeds)]
    results = Parallel(n_jobs=n_jobs)(delayed(one_seed)(*job, Cs, params, missing_share) for job in jobs)
    return pd.DataFrame([row for rows in results for row in rows])


def pair_table(
    runs: pd.DataFrame, min_splits: int = MIN_SPLITS, counted_by: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per (task, set, C): mean splits and scores over the seeds, the gain of TnT in points
    (score x 100), how many seeds TnT was at least as good, whether the pair counts (TnT's mean
    splits at least ``min_splits``; those of ``counted_by``'s runs when given, so that a graph the
    default shrinks below ``min_splits`` keeps its pair) and whether TnT won it (mean at least CART's)."""
    runs = runs.assign(seed_win=runs["tnt_test"] >= runs["cart_test"])
    shared = {"tnt_shared": ("tnt_shared", "mean")} if "tnt_shared" in runs else {}
    pairs = (
        runs.groupby(["task", "set", "C"], sort=False)
        .agg(
            **shared,
            tnt_splits=("tnt_splits", "mean"),
            cart_splits=("cart_splits", "mean"),
            tnt_test=("tnt_test", "mean"),
            cart_test=("cart_test", "mean"),
            tnt_train=("tnt_train", "mean"),
            cart_train=("cart_train", "mean"),
            seeds_won=("seed_win", "sum"),
            seeds=("seed", "count"),
        )
        .reset_index()
    )
    pairs["gain"] = 100 * (pairs["tnt_test"] - pairs["cart_test"])
    pairs["counted"] = pairs["tnt_splits"] >= min_splits
    if counted_by is not None:
        basis = pair_table(counted_by, min_splits).set_index(["task", "set", "C"])["counted"]
        pairs["counted"] = basis.reindex(pd.MultiIndex.from_frame(pairs[["task", "set", "C"]])).fillna(False).to_numpy()
    pairs["win"] = pairs["tnt_test"] >= pairs["cart_test"]
    return pairs.sort_values(["task", "set", "C"], ascending=[True, True, False], ignore_index=True)


def summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Win rate and gains of the counted pairs of each task, over all C (``C`` = "all") and per C."""
    rows = []
    for task, of_task in pairs[pairs["counted"]].groupby("task", sort=False):
        groups = [("all", of_task)] + [(C, g) for C, g in of_task.groupby("C", sort=False)]
        for C, g in sorted(groups, key=lambda item: (item[0] != "all", -float(item[0]) if item[0] != "all" else 0)):
            rows.append(
                {
                    "task": task,
                    "C": C,
                    "wins": int(g["win"].sum()),
                    "pairs": len(g),
                    "mean_gain": float(g["gain"].mean()),
                    "median_gain": float(g["gain"].median()),
                    "worst_gain": float(g["gain"].min()),
                    "best_gain": float(g["gain"].max()),
                }
            )
    return pd.DataFrame(rows)


def paper_settings(table1: Path = PAPER_TABLE1) -> pd.DataFrame:
    """The C each paper data set's Table 1 run chose, and that run's TnT test accuracy (mean, std over trials)."""
    if not table1.is_file():
        raise SystemExit(f"{table1} not found; run benchmarks/paper.py first, or pass --paper-sets with no names.")
    t = pd.read_csv(table1)
    t = t[t["model"] == "TnT"]
    return t.groupby("data", sort=False).agg(
        C=("chosen", "first"), table1_mean=("test_accuracy", "mean"), table1_std=("test_accuracy", "std")
    )


def paper_trial(name: str, folder, C: float, trial: int, params=None) -> dict:
    """One trial of Table 1's TnT (the paper's split, ``random_state`` = trial, the estimator
    parameters ``params``) and CART at its splits."""
    X_train, y_train, X_test, y_test = load_paper_data(name, folder)
    start = time.perf_counter()
    tnt = TnTClassifier(**tnt_params(C, trial, params)).fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    cart = CARTClassifier.with_splits(tnt.n_splits_, random_state=trial).fit(X_train, y_train)
    return {
        "data": name,
        "trial": trial,
        "C": C,
        "splits": int(tnt.n_splits_),
        "tnt_test": float(tnt.score(X_test, y_test)),
        "cart_test": float(cart.score(X_test, y_test)),
        "tnt_fit_s": fit_time,
    }


def run_paper(names, folder, settings: pd.DataFrame, trials=SEEDS, n_jobs=-1, params=None) -> pd.DataFrame:
    """:func:`paper_trial` over every (data set, trial), largest data set first."""
    jobs = [(name, float(settings.loc[name, "C"]), t) for name in names for t in range(trials)]
    results = Parallel(n_jobs=n_jobs)(delayed(paper_trial)(name, folder, C, t, params) for name, C, t in jobs)
    return pd.DataFrame(results)


def paper_table(trials: pd.DataFrame, settings: pd.DataFrame) -> pd.DataFrame:
    """One row per paper data set: TnT's mean and spread now against the Table 1 run's, and CART at the same splits."""
    t = trials.groupby("data", sort=False).agg(
        C=("C", "first"),
        splits=("splits", "mean"),
        tnt_mean=("tnt_test", "mean"),
        tnt_std=("tnt_test", "std"),
        cart_mean=("cart_test", "mean"),
    )
    t = t.join(settings[["table1_mean", "table1_std"]])
    t["change"] = 100 * (t["tnt_mean"] - t["table1_mean"])
    # within the spread over seeds: the change is at most the larger of the two standard deviations
    t["within_spread"] = t["change"].abs() <= 100 * np.maximum(t["tnt_std"].fillna(0), t["table1_std"].fillna(0))
    t["gain_over_cart"] = 100 * (t["tnt_mean"] - t["cart_mean"])
    return t.reset_index()


def _sign(x: float) -> str:
    return f"{x:+.2f}"


def pairs_markdown(pairs: pd.DataFrame, task: str) -> str:
    score = "accuracy" if task == "classification" else "R^2"
    lines = [
        f"| set | C | TnT splits | CART splits | TnT {score} | CART {score} | gain ({UNIT[task]}) | "
        "TnT train | CART train | seeds TnT>=CART | counted | win |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in pairs[pairs["task"] == task].itertuples():
        lines.append(
            f"| {r.set} | {r.C:g} | {r.tnt_splits:.1f} | {r.cart_splits:.1f} | {r.tnt_test:.4f} | {r.cart_test:.4f} | "
            f"{_sign(r.gain)} | {r.tnt_train:.4f} | {r.cart_train:.4f} | {r.seeds_won}/{r.seeds} | "
            f"{'yes' if r.counted else 'no'} | {('WIN' if r.win else 'loss') if r.counted else '-'} |"
        )
    return "\n".join(lines)


def summary_markdown(summ: pd.DataFrame, pairs: pd.DataFrame, task: str) -> str:
    lines = [
        f"| C | pairs where TnT >= CART | mean gain ({UNIT[task]}) | median | worst | best |",
        "|---|---|---|---|---|---|",
    ]
    for r in summ[summ["task"] == task].itertuples():
        C = "all" if r.C == "all" else f"{r.C:g}"
        lines.append(
            f"| {C} | {r.wins} / {r.pairs} ({100 * r.wins / r.pairs:.0f} %) | {_sign(r.mean_gain)} | "
            f"{_sign(r.median_gain)} | {_sign(r.worst_gain)} | {_sign(r.best_gain)} |"
        )
    counted = pairs[(pairs["task"] == task) & pairs["counted"]].sort_values("gain")
    worst = "; ".join(
        f"{r.set} C={r.C:g} {_sign(r.gain)} ({r.tnt_splits:.0f} splits)" for r in counted.head(3).itertuples()
    )
    left_out = pairs[(pairs["task"] == task) & ~pairs["counted"]]
    return (
        "\n".join(lines)
        + f"\n\nWorst pairs: {worst}.\n\nNot counted (TnT below {MIN_SPLITS} splits): "
        + (", ".join(f"{r.set} C={r.C:g}" for r in left_out.itertuples()) or "none")
        + ".\n"
    )


def paper_markdown(table: pd.DataFrame) -> str:
    lines = [
        "| data | C (Table 1 run) | TnT splits | TnT accuracy (std) | Table 1 run's TnT (std) | change (pp) | "
        "within the spread | CART at TnT's splits | TnT - CART (pp) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.data} | {r.C:.3g} | {r.splits:.0f} | {r.tnt_mean:.4f} ({r.tnt_std:.4f}) | "
            f"{r.table1_mean:.4f} ({r.table1_std:.4f}) | {_sign(r.change)} | {'yes' if r.within_spread else 'no'} | "
            f"{r.cart_mean:.4f} | {_sign(r.gain_over_cart)} |"
        )
    return "\n".join(lines)


def timing(parts: dict, load: float) -> str:
    """The run's times: ``parts`` is ``{name: (wall seconds, seconds in TnT fits, TnT fits)}``."""
    total = sum(wall for wall, _, _ in parts.values())
    each = "; ".join(
        f"{name} {wall / 60:.1f} minutes ({fit:.0f} s in {n} TnT fits)" for name, (wall, fit, n) in parts.items()
    )
    return f"Took {total / 60:.1f} minutes of wall time: {each}. Load average at the start {load:.1f}."


def against_c_alone(pairs: pd.DataFrame, alone_pairs: pd.DataFrame, fit_ratio: float) -> str:
    """Markdown: the default against the graph ``C`` alone grows (``ccp_alpha=0.0``) on the counted
    pairs: each one's wins against CART, and the default's own test score against C alone's at the
    same C (what a user gets instead), with the suite's summed fit time of the two in this run."""
    keys = ["task", "set", "C"]
    both = pairs[pairs["counted"]].merge(alone_pairs, on=keys, suffixes=("", "_alone"))
    both["change"] = 100 * (both["tnt_test"] - both["tnt_test_alone"])
    lines = [
        "| task | size | pairs where TnT >= CART | mean gain | worst | own test score against C alone: mean | worst | "
        "pairs more than 1 point below |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task, of_task in both.groupby("task", sort=False):
        change = of_task["change"]
        own = f"{_sign(change.mean())} | {_sign(change.min())} | {int((change < -1.0).sum())}"
        for label, win, gain in (("default", "win", "gain"), ("C alone", "win_alone", "gain_alone")):
            lines.append(
                f"| {task} | {label} | {int(of_task[win].sum())} / {len(of_task)} | {_sign(of_task[gain].mean())} | "
                f"{_sign(of_task[gain].min())} | {own if label == 'default' else '- | - | -'} |"
            )
    sharing = " ".join(shared_nodes_sentence(of_task, task) for task, of_task in both.groupby("task", sort=False))
    worst = both.sort_values("change").head(3)
    drops = "; ".join(
        f"{r.set} C={r.C:g} {_sign(r.change)} ({r.tnt_splits_alone:.0f} -> {r.tnt_splits:.0f} splits)"
        for r in worst.itertuples()
    )
    return (
        "\n".join(lines)
        + f"\n\nLargest drops of the default's test score below C alone's: {drops}.\n\n"
        + f"The default's TnT fits took {fit_ratio:.2f} times as long as C alone's over the whole suite "
        "(summed fit seconds, this run).\n" + (f"\n{sharing}\n" if sharing else "")
    )


def shared_nodes_sentence(pairs: pd.DataFrame, task: str) -> str:
    """How often the counted pairs' graphs share a node, default and C alone: the pairs where some
    seed's graph has a node of several parents, and their mean number of such nodes per graph (""
    for runs made before the column existed).

    >>> rows = pd.DataFrame({"tnt_shared": [0.0, 2.5], "tnt_shared_alone": [1.0, 4.0]})
    >>> shared_nodes_sentence(rows, "regression")
    'Regression graphs with a shared node: the default on 1 of 2 pairs (2.5 shared nodes per pair where any), C alone on 2 of 2 (2.5).'
    """
    if "tnt_shared" not in pairs or "tnt_shared_alone" not in pairs:
        return ""
    parts = []
    for column in ("tnt_shared", "tnt_shared_alone"):
        sharing = pairs[column][pairs[column] > 0]
        parts.append((len(sharing), f"{sharing.mean():.1f}" if len(sharing) else "-"))
    (default, mean), (alone, mean_alone) = parts
    return (
        f"{task.capitalize()} graphs with a shared node: the default on {default} of {len(pairs)} pairs "
        f"({mean} shared nodes per pair where any), C alone on {alone} of {len(pairs)} ({mean_alone})."
    )


def report(pairs, summ, paper, *, command, took, seeds, stamp, params=None, alone=None) -> str:
    """The whole of ``docs/accuracy.md``; ``took`` is :func:`timing`'s sentence, ``params`` the TnT
    parameters set other than ``C`` and ``random_state``, ``alone`` the pair table of the suite with
    ``ccp_alpha=0.0`` and the fit-time ratio of the two runs (:func:`against_c_alone`)."""
    others = "".join(f", {name}={value!r}" for name, value in (params or {}).items())
    parts = [
        "# Accuracy: TnT against CART at the same number of splits\n",
        "Written by `benchmarks/accuracy.py`; nothing here is edited by hand. The rules are those of "
        "`shared/data/benchmark/BASELINE.md`: each set of the suite split 67/33 with seeds "
        f"{', '.join(map(str, range(seeds)))} (stratified for classification), TnT at C = "
        f"{', '.join(f'{C:g}' for C in C_GRID)} {others} with its other defaults (N1=2, N2=5, no fine-tuning) and "
        "`random_state` = seed, CART = scikit-learn's tree grown best-first to TnT's number of splits "
        "(`CARTClassifier.with_splits`). A (set, C) pair counts where the graph `C` alone grows "
        f"(`ccp_alpha=0.0`, the default of version 0.1 and of BASELINE.md) has at least {MIN_SPLITS} mean splits, "
        "whatever the default's size (`ccp_alpha='auto'`: C is the lower bound of the cost per split, and a "
        "held-out part of the training data may choose a larger one); "
        "TnT wins it where its mean test score is at least CART's. Gains are in points: accuracy x 100, R² x 100.\n",
        f"Run: {stamp}, `{command}`, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}. {took}\n",
    ]
    if alone is not None:
        parts += ["## The default against C alone (`ccp_alpha=0.0`)\n", against_c_alone(pairs, *alone)]
    for task in TASKS:
        if (pairs["task"] == task).any():
            title = "Classification (test accuracy)" if task == "classification" else "Regression (test R²)"
            parts += [
                f"## {title}: summary\n",
                summary_markdown(summ, pairs, task),
                f"## {title}: every pair\n",
                "Means over the seeds; train scores show the over-fitting at large graphs.\n",
                pairs_markdown(pairs, task) + "\n",
            ]
    if paper is not None and len(paper):
        parts += [
            "## The paper's data sets at their Table 1 settings\n",
            "Each data set at the C its Table 1 run chose by cross-validation (`docs/paper/table1.csv`), "
            "the paper's split, 5 trials (`random_state` = trial), against that run's TnT accuracy: a change "
            "to the learner must keep the change within the spread over trials (the larger standard "
            "deviation of the two). CART is grown best-first to TnT's splits in each trial.\n",
            paper_markdown(paper) + "\n",
        ]
    return "\n".join(parts)


def parse_params(texts) -> dict:
    """``{name: value}`` from ``NAME=VALUE`` texts, each value a Python literal (``0.2``, ``None``, ``'x'``).

    Examples
    --------
    >>> parse_params(["validation_fraction=0.2", "fine_tune=None"])
    {'validation_fraction': 0.2, 'fine_tune': None}
    """
    params = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.isidentifier():
            raise SystemExit(f"--param takes NAME=VALUE, got {text!r}; write for example validation_fraction=0.2.")
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise SystemExit(f"--param {name}: {value!r} is not a number or a quoted text; quote texts.") from None
    return params


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"2 seeds on {', '.join(QUICK_SETS)}; no paper sets")
    parser.add_argument("--sets", nargs="+", help="only these sets of the suite")
    parser.add_argument(
        "--paper-sets", nargs="*", choices=PAPER_DATASETS, help="paper data sets of the side table (default: all six)"
    )
    parser.add_argument("--seeds", type=int, help=f"seeds per set (default {SEEDS}; 2 with --quick)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="joblib workers (default -1: all cores)")
    parser.add_argument("--out", type=Path, help=f"the report (default {REPORT.relative_to(ROOT)} for a full run)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a TnT parameter other than its default (repeatable), e.g. validation_fraction=0.2; "
        "the report is then written only to --out",
    )
    args = parser.parse_args(argv)
    params = parse_params(args.param)
    names = args.sets or (list(QUICK_SETS) if args.quick else None)
    paper_names = (
        args.paper_sets if args.paper_sets is not None else ([] if args.quick or args.sets else PAPER_DATASETS)
    )
    seeds = args.seeds or (2 if args.quick else SEEDS)
    full = names is None and args.seeds in (None, SEEDS) and list(paper_names) == list(PAPER_DATASETS) and not params
    out = args.out or (REPORT if full else None)
    command = "python benchmarks/accuracy.py " + " ".join(argv if argv is not None else sys.argv[1:])

    load = os.getloadavg()[0]
    entries = suite(names)
    start = time.perf_counter()
    runs = run_suite(entries, seeds=seeds, n_jobs=args.n_jobs, params=params)
    parts = {"the suite": (time.perf_counter() - start, float(runs["tnt_fit_s"].sum()), len(runs))}
    start = time.perf_counter()
    alone = run_suite(entries, seeds=seeds, n_jobs=args.n_jobs, params=params | C_ALONE)
    parts["the suite with C alone"] = (time.perf_counter() - start, float(alone["tnt_fit_s"].sum()), len(alone))
    pairs = pair_table(runs, counted_by=alone)
    alone_pairs = pair_table(alone)
    summ = summary(pairs)
    paper = None
    if paper_names:
        start = time.perf_counter()
        settings = paper_settings()
        stop_if_missing(paper_names)
        trials = run_paper(paper_names, None, settings, n_jobs=args.n_jobs, params=params)
        paper = paper_table(trials, settings)
        parts["the paper's sets"] = (time.perf_counter() - start, float(trials["tnt_fit_s"].sum()), len(trials))
    stamp = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    text = report(
        pairs,
        summ,
        paper,
        command=command.strip(),
        took=timing(parts, load),
        seeds=seeds,
        stamp=stamp,
        params=params,
        alone=(alone_pairs, parts["the suite"][1] / max(parts["the suite with C alone"][1], 1e-9)),
    )
    print(text)
    if out is not None:
        out.write_text(text)
        runs.to_csv(out.with_name(out.stem + "_runs.csv"), index=False)
        alone.to_csv(out.with_name(out.stem + "_runs_c_alone.csv"), index=False)
        print(f"Written to {out}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
