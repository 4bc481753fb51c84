"""The learner's options against the graph C alone grows on the accuracy suite, the paper's sets and MNIST's fit time.

Run from the repository root:

    .venv/bin/python benchmarks/learner_options.py [--variants guard held_out ...] [--seeds 5]

Each variant is TnT with some estimator parameters set (``VARIANTS``), measured exactly as
``benchmarks/accuracy.py`` measures the default: the suite's sets, C in 1e-2, 1e-3, 1e-4, seeded
67/33 splits, CART grown best-first to the variant's own number of splits. The pairs are the ones the
graph of C alone counts (``ccp_alpha=0.0``, the default of version 0.1: ``docs/accuracy_runs_c_alone.csv``,
the rows of ``shared/data/benchmark/BASELINE.md``), and each variant is that setting with its own
parameters (:func:`on_c_alone`; the variant "auto" is the default since 0.2): a variant
that shrinks a graph below 10 splits keeps its pair. The paper's six sets run at their Table 1
settings against the Table 1 run's TnT (the side table of ``docs/accuracy.md``) for the variants
``--paper`` names, and MNIST's fit (C=1e-4, one thread, as ``benchmarks/run.py`` times it) is timed in
turns with the defaults' for every variant.

Writes ``docs/learner_options.md`` whole and the rows it is made of beside it
(``docs/learner_options_runs.csv``, ``docs/learner_options_paper.csv``,
``docs/learner_options_mnist.csv``); with ``--keep`` the rows of a variant already in those files
are used again instead of measured again (a long run can be finished in parts).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from accuracy import (  # noqa: E402
    C_ALONE,
    RUNS_C_ALONE,
    SEEDS,
    UNIT,
    pair_table,
    paper_settings,
    paper_table,
    run_paper,
    run_suite,
    suite,
    tnt_params,
)
from run import load, timed_in_turns  # noqa: E402

from tnt import TnTClassifier  # noqa: E402
from tnt.data.external import stop_if_missing  # noqa: E402
from tnt.experiments.paper import PAPER_DATASETS  # noqa: E402

REPORT = ROOT / "docs" / "learner_options.md"
MNIST_C = 1e-4


def grown_at_a_tenth_pruned_at_C(C: float) -> dict:
    """Grow at ``C / 10``, then prune the graph by weakest links at ``C`` (``ccp_alpha``)."""
    return {"C": C / 10, "ccp_alpha": C}


def on_c_alone(params):
    """``params`` (a dict, or a function of C giving one) over ``ccp_alpha=0.0``: each variant changes
    the graph C alone grows (the default of version 0.1) in what it sets, and in nothing else.

    >>> on_c_alone({"internal_refit": "improving"})(1e-3)
    {'ccp_alpha': 0.0, 'internal_refit': 'improving'}
    >>> on_c_alone({"ccp_alpha": "auto"})(1e-3)
    {'ccp_alpha': 'auto'}
    """
    return lambda C: C_ALONE | (params(C) if callable(params) else params)


#: name: (estimator parameters, or a function of C giving them, and what it does)
VARIANTS = {
    "auto": (
        {"ccp_alpha": "auto"},
        "the default since version 0.2 (`ccp_alpha='auto'`): C is the lower bound of the cost per split; a CART "
        "pruned at C is fitted on 80 % of the training data and scored on the other 20 % at every level of its "
        "pruning path from C up, a larger level is taken only where it scores better than C by more than one "
        "standard error of the per-sample differences, and the graph is grown and pruned at that level; a "
        "regressor's graph grows with the refit rule the same held-out part prefers, every refit or only those that "
        "lower the training loss by more than C per split they add (a graph grown with each on the 80 %)",
    ),
    "auto_every_refit": (
        {"ccp_alpha": "auto", "internal_refit": "always"},
        "the default size with every refit taken (`internal_refit='always'`): the classifier's default on data "
        "without missing values, and the regressor's before it chose its refit rule on held-out data",
    ),
    "auto_cost_complexity": (
        {"ccp_alpha": "auto", "internal_refit": "cost_complexity"},
        "the default size with refits that lower the training loss by more than C per split they add "
        "(`internal_refit='cost_complexity'`), one of the two rules the regressor's default chooses from",
    ),
    "guard": (
        {"internal_refit": "improving"},
        "an internal node takes the micro tree refitted on its sensitive samples only when it misroutes "
        "less of their weight than the node's split (`internal_refit='improving'`)",
    ),
    "held_out": (
        {"validation_fraction": 0.2},
        "20 % of the training data held out scores the graph after every step; the whole training data "
        "is then trained up to the best step (`validation_fraction=0.2`)",
    ),
    "guard_held_out": (
        {"internal_refit": "improving", "validation_fraction": 0.2},
        "both of the above (`internal_refit='improving', validation_fraction=0.2`)",
    ),
    "pruned": (
        grown_at_a_tenth_pruned_at_C,
        "the graph grown at C / 10, then pruned by weakest links at C (`C=C/10, ccp_alpha=C`): while "
        "collapsing an internal node into a leaf costs at most C of Gini impurity (squared error for "
        "regression) per split it frees, the cheapest is collapsed",
    ),
    "held_out_pruned": (
        {"ccp_alpha": "held_out"},
        "the graph pruned by weakest links at the level a held-out 20 % of the training data chooses: a graph "
        "grown on the rest is pruned level by level, the level scoring best there (the most pruned of the best) "
        "prunes the graph grown on all the data (`ccp_alpha='held_out'`)",
    ),
    "held_out_regrown": (
        {"ccp_alpha": "held_out_regrown"},
        "the level held_out_pruned chooses, but the graph on all the data is grown at the larger of C and that "
        "level, then pruned at it (`ccp_alpha='held_out_regrown'`): TnT's own graph at that cost per split "
        "instead of a larger graph cut down to it",
    ),
}


def counted_pairs(default_runs: pd.DataFrame) -> pd.DataFrame:
    """The defaults' pair table (``pair_table``) restricted to the pairs it counts."""
    pairs = pair_table(default_runs)
    return pairs[pairs["counted"]].reset_index(drop=True)


def compare(default: pd.DataFrame, variant_runs: pd.DataFrame) -> pd.DataFrame:
    """The defaults' counted pairs with the variant's splits, scores and gain beside theirs."""
    variant = pair_table(variant_runs)[["task", "set", "C", "tnt_splits", "tnt_test", "cart_test", "gain", "win"]]
    return default.merge(variant, on=["task", "set", "C"], suffixes=("", "_variant"))


def summary_row(name: str, table: pd.DataFrame, task: str, gain: str, win: str) -> dict:
    of_task = table[table["task"] == task]
    return {
        "variant": name,
        "task": task,
        "wins": int(of_task[win].sum()),
        "pairs": len(of_task),
        "mean_gain": float(of_task[gain].mean()),
        "worst_gain": float(of_task[gain].min()),
        "below_half": int((of_task[gain] < -0.5).sum()),
    }


def mnist_fit_ratios(variants: dict, data_dir=None, repeat: int = 2) -> dict:
    """Each variant's MNIST fit time over the defaults' (C=1e-4, ``n_jobs=1``), timed in turns."""
    X, y, _, _ = load(data_dir, "mnist")
    TnTClassifier(C=MNIST_C, random_state=0, n_jobs=1).fit(X[:300], y[:300])  # compiled code loaded
    fits = [lambda: TnTClassifier(C=MNIST_C, random_state=0, n_jobs=1, **C_ALONE).fit(X, y)] + [
        lambda params=params: TnTClassifier(**tnt_params(MNIST_C, 0, on_c_alone(params)), n_jobs=1).fit(X, y)
        for params, _ in variants.values()
    ]
    times, _ = timed_in_turns(fits, repeat)
    ratios = {name: times[i + 1] / times[0] for i, name in enumerate(variants)}
    return ratios | {"C alone": 1.0, "_s": times[0], "_turns": repeat}


def mnist_timings(kept: pd.DataFrame, names: list, turns: int, measure=None) -> tuple[pd.DataFrame, list]:
    """``(timed, untimed)``: the rows of ``kept`` (columns ``variant``, ``value``) with the variants of
    ``names`` it has no row for (``untimed``) timed in ``turns`` turns by ``measure`` (default
    :func:`mnist_fit_ratios`) when ``turns`` is not 0; the defaults' time and the turns are then the
    new measurement's, and the kept ratios were timed against an earlier run of the defaults."""
    untimed = [name for name in names if name not in set(kept["variant"])]
    if not (untimed and turns):
        return kept, untimed
    ratios = (measure or mnist_fit_ratios)({n: VARIANTS[n] for n in untimed}, repeat=turns)
    older = kept[~kept["variant"].isin(list(ratios))]
    return pd.concat([older, pd.DataFrame({"variant": list(ratios), "value": list(ratios.values())})]), untimed


def against_defaults(tables: dict) -> list[str]:
    """Markdown lines: each variant's own test score against the defaults' TnT at the same C on the
    counted pairs (whatever either's size), the change's mean and the pairs where it is not lower."""
    lines = [
        "\n## Each variant's TnT against C alone's TnT\n",
        "Test score at the same C, whatever the sizes (points, R² x 100 for regression): what a user "
        "choosing the option gets instead of the graph C alone grows.\n",
        "| variant | classification: pairs not lower | mean change | regression: pairs not lower | mean change |",
        "|---|---|---|---|---|",
    ]
    for name, table in tables.items():
        cells = []
        for task in ("classification", "regression"):
            change = 100 * (table["tnt_test_variant"] - table["tnt_test"])[table["task"] == task]
            cells += [f"{int((change >= 0).sum())} / {len(change)}", _pp(float(change.mean()))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _pp(x: float) -> str:
    return f"{x:+.2f}"


def report(summary, tables, papers, ratios, *, stamp, took, seeds) -> str:
    lines = [
        "# The learner's options against the graph C alone grows\n",
        "Written by `benchmarks/learner_options.py`; nothing here is edited by hand. Each variant is measured as "
        "`benchmarks/accuracy.py` measures the default (`docs/accuracy.md`): seeds "
        f"{', '.join(map(str, range(seeds)))}, C = 1e-2, 1e-3, 1e-4, CART grown best-first to the variant's own "
        "splits, gains in points (accuracy x 100, R² x 100). The pairs are those the graph C alone grows counts (`ccp_alpha=0.0`, the default of version 0.1; "
        'each variant is that setting with its own parameters, "auto" the default since 0.2) '
        "(`docs/accuracy_runs_c_alone.csv`), whatever the variant's size. The paper's sets run at their Table 1 "
        "settings against the Table 1 run's TnT; MNIST's fit (C=1e-4, one thread) is timed in turns with "
        "C alone's.\n",
        f"Run: {stamp}, {os.cpu_count()} cores. {took}\n",
        "## The variants\n",
    ]
    lines += [f"- **{name}**: {what}." for name, (_, what) in VARIANTS.items() if name in tables]
    lines += [
        "",
        "## Summary\n",
        "Targets of issue 38: classification TnT >= CART on 80 % of the pairs, mean gain +1.0 or more, no pair below "
        "-0.5; regression 80 % and +0.5; the paper's sets within the spread over seeds; MNIST's fit at most 10 % "
        "slower.\n",
        "| variant | classification: wins | mean | worst | pairs below -0.5 | regression: wins | mean | worst | "
        "paper sets within the spread | MNIST fit time / C alone's |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in ["C alone", *tables]:
        c = summary[(summary["variant"] == name) & (summary["task"] == "classification")].iloc[0]
        r = summary[(summary["variant"] == name) & (summary["task"] == "regression")].iloc[0]
        paper = papers.get(name)
        within = "-" if paper is None else f"{int(paper['within_spread'].sum())} / {len(paper)}"
        ratio = ratios.get(name)
        lines.append(
            f"| {name} | {c.wins} / {c.pairs} ({100 * c.wins / c.pairs:.0f} %) | {_pp(c.mean_gain)} | {_pp(c.worst_gain)} | "
            f"{c.below_half} | {r.wins} / {r.pairs} ({100 * r.wins / r.pairs:.0f} %) | {_pp(r.mean_gain)} | {_pp(r.worst_gain)} | "
            f"{within} | {'-' if ratio is None else f'{ratio:.2f}'} |"
        )
    if "_s" in ratios:
        lines.append(
            f"\nC alone's MNIST fit took {ratios['_s']:.1f} s (median of {ratios['_turns']:.0f} turns). "
            "A variant without paper figures was not run on the paper's sets.\n"
        )
    lines += against_defaults(tables)
    for task in ("classification", "regression"):
        lines += [
            f"\n## Every counted {task} pair: gain ({UNIT[task]}), TnT's splits in brackets\n",
            "| set | C | C alone | " + " | ".join(tables) + " |",
            "|---|---|---|" + "---|" * len(tables),
        ]
        first = next(iter(tables.values()))
        for i, r in first[first["task"] == task].iterrows():
            cells = [f"{_pp(t.loc[i, 'gain_variant'])} ({t.loc[i, 'tnt_splits_variant']:.0f})" for t in tables.values()]
            lines.append(
                f"| {r['set']} | {r['C']:g} | {_pp(r['gain'])} ({r['tnt_splits']:.0f}) | " + " | ".join(cells) + " |"
            )
    if papers:
        lines += [
            "\n## The paper's sets at their Table 1 settings\n",
            "TnT's test accuracy, mean (standard deviation) over 5 trials; the change against the Table 1 run's TnT "
            "is within the spread when it is at most the larger of the two standard deviations.\n",
            "| data | C | Table 1 run's TnT | " + " | ".join(papers) + " |",
            "|---|---|---|" + "---|" * len(papers),
        ]
        first = next(iter(papers.values()))
        for i, r in first.iterrows():
            cells = [
                f"{p.loc[i, 'tnt_mean']:.4f} ({p.loc[i, 'tnt_std']:.4f}), {_pp(p.loc[i, 'change'])}"
                + ("" if p.loc[i, "within_spread"] else " (outside)")
                for p in papers.values()
            ]
            lines.append(
                f"| {r['data']} | {r['C']:.3g} | {r['table1_mean']:.4f} ({r['table1_std']:.4f}) | "
                + " | ".join(cells)
                + " |"
            )
    return "\n".join(lines) + "\n"


def rows_to_save(done: list[pd.DataFrame], kept: pd.DataFrame) -> pd.DataFrame:
    """The rows a CSV file gets after each variant: this run's, then the kept rows (``--keep``) of the
    variants it has not reached yet, so that a run stopped half-way loses none of them.

    Examples
    --------
    >>> kept = pd.DataFrame({"variant": ["guard", "held_out"], "gain": [1.0, 2.0]})
    >>> rows_to_save([pd.DataFrame({"variant": ["guard"], "gain": [3.0]})], kept).values.tolist()
    [['guard', 3.0], ['held_out', 2.0]]
    """
    names = {name for part in done for name in part["variant"]}
    return pd.concat([*done, kept[~kept["variant"].isin(names)]], ignore_index=True)


def run_sentence(reused: list[str], measured: bool, minutes: float) -> str:
    """What the report's run measured and what it kept from earlier runs (``--keep``).

    Examples
    --------
    >>> run_sentence(["guard's suite rows"], measured=True, minutes=3.04)[:60]
    "Kept from an earlier run (`--keep`): guard's suite rows. Too"
    >>> run_sentence(["guard's suite rows"], measured=False, minutes=0.0)
    "Nothing was measured in this run: every row was kept from earlier runs (`--keep`): guard's suite rows."
    """
    load = f"load average at the end {os.getloadavg()[0]:.1f}."
    if not measured:
        return (
            "Nothing was measured in this run: every row was kept from earlier runs (`--keep`): "
            + ", ".join(reused)
            + "."
        )
    kept = "Kept from an earlier run (`--keep`): " + ", ".join(reused) + ". " if reused else ""
    return kept + f"Took {minutes:.1f} minutes of wall time; {load}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument(
        "--paper",
        nargs="*",
        choices=list(VARIANTS),
        help="the variants measured on the paper's sets (default: all of --variants)",
    )
    parser.add_argument(
        "--mnist-turns", type=int, default=2, help="turns of MNIST's timed fits of every variant (default 2; 0: none)"
    )
    parser.add_argument("--n-jobs", type=int, default=-1, help="joblib workers (default -1: all cores)")
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument("--keep", action="store_true", help="use the rows of variants already in the CSV files")
    args = parser.parse_args(argv)
    files = {part: args.out.with_name(f"{args.out.stem}_{part}.csv") for part in ("runs", "paper", "mnist")}
    kept = {
        part: pd.read_csv(path) if args.keep and path.is_file() else pd.DataFrame({"variant": []})
        for part, path in files.items()
    }
    start_all = time.perf_counter()
    default = counted_pairs(pd.read_csv(RUNS_C_ALONE))
    summary = [summary_row("C alone", default, task, "gain", "win") for task in ("classification", "regression")]
    entries = suite()
    tables, papers, all_runs, all_trials, reused = {}, {}, [], [], []
    on_paper = args.variants if args.paper is None else args.paper
    settings, measured = None, False
    if on_paper:
        settings = paper_settings()
        stop_if_missing(PAPER_DATASETS)
    for name in args.variants:
        params = VARIANTS[name][0]
        runs = kept["runs"][kept["runs"]["variant"] == name].drop(columns="variant")
        if not runs.empty:
            reused.append(f"{name}'s suite rows")
        else:
            runs = run_suite(entries, seeds=args.seeds, n_jobs=args.n_jobs, params=on_c_alone(params))
            measured = True
        all_runs.append(runs.assign(variant=name))
        tables[name] = compare(default, runs)
        summary += [
            summary_row(name, tables[name], task, "gain_variant", "win_variant")
            for task in ("classification", "regression")
        ]
        rows_to_save(all_runs, kept["runs"]).to_csv(files["runs"], index=False)
        if name in on_paper:
            trials = kept["paper"][kept["paper"]["variant"] == name].drop(columns="variant")
            if not trials.empty:
                reused.append(f"{name}'s paper rows")
            else:
                trials = run_paper(PAPER_DATASETS, None, settings, n_jobs=args.n_jobs, params=on_c_alone(params))
                measured = True
            all_trials.append(trials.assign(variant=name))
            rows_to_save(all_trials, kept["paper"]).to_csv(files["paper"], index=False)
            papers[name] = paper_table(trials, settings)
        print(f"{name}: done after {(time.perf_counter() - start_all) / 60:.1f} minutes", flush=True)
    timed, untimed = mnist_timings(kept["mnist"], args.variants, args.mnist_turns)
    if len(untimed) < len(args.variants):
        reused.append(f"MNIST's timings of {', '.join(n for n in args.variants if n not in untimed)}")
    if untimed and args.mnist_turns:
        timed.to_csv(files["mnist"], index=False)
        measured = True
    ratios = dict(zip(timed["variant"], timed["value"], strict=True)) if "value" in timed else {}
    took = run_sentence(reused, measured=measured, minutes=(time.perf_counter() - start_all) / 60)
    stamp = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    text = report(pd.DataFrame(summary), tables, papers, ratios, stamp=stamp, took=took, seeds=args.seeds)
    print(text)
    args.out.write_text(text)
    print(f"Written to {args.out}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
