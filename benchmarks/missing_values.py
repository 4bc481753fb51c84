"""TnT against CART at the same number of splits on the benchmark suite with feature values removed,
written to docs/accuracy_missing.md.

Run from the repository root:

    .venv/bin/python benchmarks/missing_values.py [--share 0.15] [--sets yeast credit_g ...] [--seeds 5]
        [--first-seed 0]

The suite and its rules are :mod:`benchmarks.accuracy`'s (16 classification and 8 regression sets, C in
1e-2, 1e-3, 1e-4, seeded 67/33 splits, CART grown best-first to TnT's splits). The suite runs twice in
the same run: as it is, and with ``--share`` (15 % by default) of every set's feature values replaced by
NaN at random (seeded by the split's seed, training and test rows alike). Both TnT and scikit-learn's
CART learn from the NaN themselves. The question the table answers: is TnT at least as accurate as CART
on as many (set, C) pairs with missing values as without? The pairs compared are the ones counted
without NaN (TnT's mean splits at least 10), in both runs.

With NaN the suite also runs five times more, to see what TnT's second phase (the micro trees grown in
the graph's nodes after the first phase) and the default's held-out choices do with missing values:
with ``N1=1`` (the first phase alone, which is CART pruned at C), with ``internal_refit="always"``
(every internal node's refit taken, the default before missing values turned the refit guard on), with
``ccp_alpha=0.0`` (the graph C alone grows, the default's size before it was chosen on held-out rows),
and with each refit rule a default regressor chooses between, given alone (``"improving"``,
``"cost_complexity"``). For each, the pairs where the graph's gain over CART (each at its own splits)
is below the first phase's, and the pairs it wins. The first phase alone runs without NaN too, so that
the report says, for the first phase and for the finished graph, on how many pairs TnT is at least as
accurate as CART without NaN and with. As a pair is won against CART at TnT's own size, the report
also gives the default's own test score against C alone's.

A run of the whole suite writes ``docs/accuracy_missing.md`` whole and the per-seed rows beside it
(``docs/accuracy_missing_runs.csv``); ``--sets``, ``--seeds`` or ``--first-seed`` runs (seeds
``--first-seed`` on, to see how far the counts move with the seeds) write only to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from functools import partial
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import (  # noqa: E402
    C_GRID,
    ROOT,
    SEEDS,
    TASKS,
    UNIT,
    _sign,
    pair_table,
    run_suite,
    suite,
)

REPORT = ROOT / "docs" / "accuracy_missing.md"
SHARE = 0.15
#: The first phase alone: TnT's parameters and its name in the tables.
FIRST_PHASE = ("first phase alone (N1=1)", {"N1": 1})
#: The graph ``C`` alone grows (the default of version 0.1), against which the default's own score is told.
C_ALONE = ("C alone (ccp_alpha=0.0)", {"ccp_alpha": 0.0})
#: The variants run on the data with NaN besides the defaults: (name, TnT parameters). Besides the first
#: phase and every refit taken, the default's two choices apart: its size (C alone instead) and a
#: regressor's refit rule (each rule it chooses between, given alone).
PHASES = (
    FIRST_PHASE,
    ('every refit taken (internal_refit="always")', {"internal_refit": "always"}),
    C_ALONE,
    ('refits that lower the loss (internal_refit="improving")', {"internal_refit": "improving"}),
    ('refits priced (internal_refit="cost_complexity")', {"internal_refit": "cost_complexity"}),
)


def compare(plain: pd.DataFrame, missing: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, set, C) counted without NaN: both runs' pair rows side by side (columns of
    the run with NaN suffixed ``_nan``)."""
    left = pair_table(plain)
    right = pair_table(missing)
    keys = ["task", "set", "C"]
    both = left.merge(right, on=keys, suffixes=("", "_nan"))
    return both[both["counted"]].reset_index(drop=True)


def summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per task: pairs, wins without and with NaN, mean and worst gains of each."""
    rows = []
    for task, g in pairs.groupby("task", sort=False):
        rows.append(
            {
                "task": task,
                "pairs": len(g),
                "wins": int(g["win"].sum()),
                "wins_nan": int(g["win_nan"].sum()),
                "mean_gain": float(g["gain"].mean()),
                "mean_gain_nan": float(g["gain_nan"].mean()),
                "worst_gain": float(g["gain"].min()),
                "worst_gain_nan": float(g["gain_nan"].min()),
            }
        )
    return pd.DataFrame(rows)


def _markdown(header: str, rows) -> str:
    """A markdown table: the ``header`` row, the separator of as many columns, then ``rows``."""
    return "\n".join([header, "|" + "---|" * (header.count("|") - 1), *rows])


def summary_markdown(summ: pd.DataFrame, share: float) -> str:
    return _markdown(
        f"| task | pairs | TnT >= CART without NaN | with {100 * share:.0f} % NaN | as many or more | "
        "mean gain without / with | worst gain without / with |",
        (
            f"| {r.task} ({UNIT[r.task]}) | {r.pairs} | {r.wins} | {r.wins_nan} | "
            f"{'yes' if r.wins_nan >= r.wins else 'no'} | {_sign(r.mean_gain)} / {_sign(r.mean_gain_nan)} | "
            f"{_sign(r.worst_gain)} / {_sign(r.worst_gain_nan)} |"
            for r in summ.itertuples()
        ),
    )


def pairs_markdown(pairs: pd.DataFrame, task: str) -> str:
    score = "accuracy" if task == "classification" else "R^2"
    return _markdown(
        f"| set | C | TnT splits | TnT {score} | CART {score} | gain | TnT splits, NaN | TnT {score}, NaN | "
        f"CART {score}, NaN | gain, NaN |",
        (
            f"| {r.set} | {r.C:g} | {r.tnt_splits:.1f} | {r.tnt_test:.4f} | {r.cart_test:.4f} | {_sign(r.gain)} | "
            f"{r.tnt_splits_nan:.1f} | {r.tnt_test_nan:.4f} | {r.cart_test_nan:.4f} | {_sign(r.gain_nan)} |"
            for r in pairs[pairs["task"] == task].itertuples()
        ),
    )


def phase_table(first: pd.DataFrame, graphs: dict, counted: pd.DataFrame) -> pd.DataFrame:
    """Per task and graph (``{name: suite runs}``, the defaults among them): over the pairs ``counted``
    (rows of task, set and C: those counted without NaN), how many have a gain over CART below the
    first phase's (``first``, the runs with ``N1=1``), and the mean change of the gain from it."""
    keys = ["task", "set", "C"]
    base = counted[keys].merge(pair_table(first)[[*keys, "gain"]], on=keys)
    rows = []
    for name, runs in graphs.items():
        both = pair_table(runs)[[*keys, "gain"]].merge(base, on=keys, suffixes=("", "_first"))
        for task, g in both.groupby("task", sort=False):
            change = g["gain"] - g["gain_first"]
            rows.append({"task": task, "graph": name, "pairs": len(g), "worse": int((change < 0).sum()),
                         "mean_change": float(change.mean())})  # fmt: skip
    return pd.DataFrame(rows)


def wins_table(graphs: dict, counted: pd.DataFrame) -> pd.DataFrame:
    """Per task and graph (``{(name, with NaN): suite runs}``): over the pairs ``counted`` (rows of
    task, set and C), how many TnT wins (its mean score at least CART's) and its mean gain."""
    keys = ["task", "set", "C"]
    rows = []
    for (name, with_nan), runs in graphs.items():
        both = counted[keys].merge(pair_table(runs)[[*keys, "gain", "win"]], on=keys)
        for task, g in both.groupby("task", sort=False):
            rows.append({"task": task, "graph": name, "nan": with_nan, "pairs": len(g), "wins": int(g["win"].sum()),
                         "mean_gain": float(g["gain"].mean())})  # fmt: skip
    return pd.DataFrame(rows).sort_values(["task", "nan"], kind="stable", ignore_index=True)


def own_score_table(defaults: pd.DataFrame, alone: pd.DataFrame, counted: pd.DataFrame) -> pd.DataFrame:
    """Per task: over the pairs ``counted``, the default's own mean test score (``defaults``' runs)
    against that of the graph ``C`` alone grows (``alone``'s), in points: the mean and the worst
    difference, and the pairs more than one point below."""
    keys = ["task", "set", "C"]
    mine = counted[keys].merge(pair_table(defaults)[[*keys, "tnt_test", "tnt_splits"]], on=keys)
    both = mine.merge(pair_table(alone)[[*keys, "tnt_test", "tnt_splits"]], on=keys, suffixes=("", "_alone"))
    rows = []
    for task, g in both.groupby("task", sort=False):
        change = 100 * (g["tnt_test"] - g["tnt_test_alone"])
        rows.append({"task": task, "pairs": len(g), "mean": float(change.mean()), "worst": float(change.min()),
                     "below": int((change < -1).sum()), "splits": float(g["tnt_splits"].mean()),
                     "splits_alone": float(g["tnt_splits_alone"].mean())})  # fmt: skip
    return pd.DataFrame(rows)


def own_score_markdown(own: pd.DataFrame, share: float) -> str:
    return _markdown(
        f"| task, {100 * share:.0f} % NaN | pairs | own test score against C alone's: mean | worst | "
        "pairs more than 1 point below | mean splits: the defaults / C alone |",
        (
            f"| {r.task} ({UNIT[r.task]}) | {r.pairs} | {_sign(r.mean)} | {_sign(r.worst)} | {r.below} | "
            f"{r.splits:.1f} / {r.splits_alone:.1f} |"
            for r in own.itertuples()
        ),
    )


def wins_markdown(wins: pd.DataFrame, share: float) -> str:
    nan = f"{100 * share:.0f} %"
    return _markdown(
        "| task | graph | NaN | pairs | TnT >= CART | mean gain |",
        (
            f"| {r.task} ({UNIT[r.task]}) | {r.graph} | {nan if r.nan else 'none'} | {r.pairs} | {r.wins} | "
            f"{_sign(r.mean_gain)} |"
            for r in wins.itertuples()
        ),
    )


def phase_markdown(phases: pd.DataFrame, share: float) -> str:
    return _markdown(
        f"| task | graph, {100 * share:.0f} % NaN | pairs | gain over CART below the first phase's | "
        "mean change of the gain |",
        (
            f"| {r.task} ({UNIT[r.task]}) | {r.graph} | {r.pairs} | {r.worse} | {_sign(r.mean_change)} |"
            for r in phases.itertuples()
        ),
    )


def report(
    pairs: pd.DataFrame,
    *,
    share: float,
    seeds: int,
    command: str,
    took: str,
    stamp: str,
    phases=None,
    wins=None,
    own=None,
    first_seed: int = 0,
) -> str:
    """The whole of ``docs/accuracy_missing.md``."""
    parts = [
        "# Accuracy with missing values: TnT against CART at the same number of splits\n",
        "Written by `benchmarks/missing_values.py`; nothing here is edited by hand. The suite of "
        "[Accuracy](accuracy.md) (same sets, C = "
        f"{', '.join(f'{C:g}' for C in C_GRID)}, seeds {', '.join(map(str, range(first_seed, first_seed + seeds)))}, CART grown best-first "
        f"to TnT's splits) runs twice in one run: as it is, and with {100 * share:.0f} % of the feature values of "
        "every set replaced by NaN at random (seeded, training and test rows alike). TnT and scikit-learn's CART "
        "both learn from the NaN themselves: at each split the missing values go to the side that lowers the "
        "impurity most. The pairs are those counted without NaN (TnT's mean splits at least 10); gains are in "
        "points (accuracy x 100, R² x 100).\n",
        f"Run: {stamp}, `{command}`, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}. {took}\n",
        "## Summary\n",
        summary_markdown(summary(pairs), share) + "\n",
    ]
    if phases is not None:
        parts += [
            "## The second phase with missing values\n",
            "TnT's first phase (`N1=1`) is CART pruned at C; its second phase grows micro trees in the graph's "
            "nodes. With NaN, the same suite with the first phase alone and with the variants below: every "
            'internal node\'s refit taken (`internal_refit="always"`, what the default `"auto"` does without NaN), '
            "the graph C alone grows (`ccp_alpha=0.0`, instead of the default's size chosen on held-out rows), and "
            "each refit rule a default regressor chooses between on held-out rows, given alone: the pairs (those "
            "counted without NaN) where the graph's gain over CART is below the first phase's.\n",
            phase_markdown(phases, share) + "\n",
        ]
    if wins is not None:
        parts += [
            "## Which phase wins the pairs\n",
            "The pairs (those counted without NaN) where TnT is at least as accurate as CART grown best-first to "
            "its splits, for TnT's first phase alone (`N1=1`, CART pruned at C: scikit-learn's "
            "`DecisionTree*(ccp_alpha=...)` up to ties) and for the finished graph, without NaN and with; with "
            "NaN for the variants above too.\n",
            wins_markdown(wins, share) + "\n",
        ]
    if own is not None:
        parts += [
            "## The default's own score with missing values\n",
            "A pair is won or lost against CART grown best-first to TnT's splits, which is strong at small "
            "sizes: the default's own test score with NaN against that of the graph C alone grows "
            "(`ccp_alpha=0.0`), pair by pair (those counted without NaN).\n",
            own_score_markdown(own, share) + "\n",
        ]
    for task in TASKS:
        if (pairs["task"] == task).any():
            parts += [f"## {task.capitalize()}: every pair\n", pairs_markdown(pairs, task) + "\n"]
    return "\n".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, default=SHARE, help=f"share of values removed (default {SHARE})")
    parser.add_argument("--sets", nargs="+", help="only these sets of the suite")
    parser.add_argument("--seeds", type=int, help=f"seeds per set (default {SEEDS})")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="joblib workers (default -1: all cores)")
    parser.add_argument("--out", type=Path, help=f"the report (default {REPORT.relative_to(ROOT)} for a full run)")
    args = parser.parse_args(argv)
    if not 0.0 < args.share < 1.0:
        raise SystemExit(f"--share takes a share between 0 and 1, got {args.share}; write for example 0.15.")
    seeds = args.seeds or SEEDS
    full = args.sets is None and seeds == SEEDS and args.share == SHARE and args.first_seed == 0
    out = args.out or (REPORT if full else None)
    command = "python benchmarks/missing_values.py " + " ".join(argv if argv is not None else sys.argv[1:])

    entries = suite(args.sets)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    runs = partial(run_suite, entries, seeds=seeds, n_jobs=args.n_jobs, first_seed=args.first_seed)
    plain = runs()
    middle = time.perf_counter()
    missing = runs(missing_share=args.share)
    end = time.perf_counter()
    variants = {name: runs(missing_share=args.share, params=params) for name, params in PHASES}
    after = time.perf_counter()
    plain_first = runs(params=FIRST_PHASE[1])
    took = (
        f"Took {(after - start) / 60:.1f} minutes of wall time: without NaN {(middle - start) / 60:.1f}, with NaN "
        f"{(end - middle) / 60:.1f}, the {len(PHASES)} variants with NaN {(after - end) / 60:.1f}, then the first phase alone "
        f"without NaN {(time.perf_counter() - after) / 60:.1f} (TnT fits {plain['tnt_fit_s'].sum():.0f} s and "
        f"{missing['tnt_fit_s'].sum():.0f} s). Load average at the start {load:.1f}."
    )
    pairs = compare(plain, missing)
    first, *others = variants
    phases = phase_table(variants[first], {**{name: variants[name] for name in others}, "the defaults": missing}, pairs)
    wins = wins_table(
        {
            (first, False): plain_first,
            ("the defaults", False): plain,
            **{(name, True): variants[name] for name in variants},
            ("the defaults", True): missing,
        },
        pairs,
    )
    own = own_score_table(missing, variants[C_ALONE[0]], pairs)
    stamp = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    text = report(
        pairs,
        share=args.share,
        seeds=seeds,
        command=command.strip(),
        took=took,
        stamp=stamp,
        phases=phases,
        wins=wins,
        own=own,
        first_seed=args.first_seed,
    )
    print(text)
    if out is not None:
        out.write_text(text)
        table = pd.concat(
            [
                plain.assign(missing_share=0.0, variant="defaults"),
                plain_first.assign(missing_share=0.0, variant=first),
                missing.assign(missing_share=args.share, variant="defaults"),
            ]
            + [graph.assign(missing_share=args.share, variant=name) for name, graph in variants.items()]
        )
        table.to_csv(out.with_name(out.stem + "_runs.csv"), index=False)
        print(f"Written to {out}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
