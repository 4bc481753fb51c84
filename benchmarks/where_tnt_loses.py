"""Why TnT loses to CART at equal splits on some tables: experiments that each isolate one candidate cause,
written to docs/where_tnt_loses.md.

Run from the repository root, after ``benchmarks/accuracy.py`` (its per-seed results are read):

    .venv/bin/python benchmarks/where_tnt_loses.py [--seeds 3] [--pairs yeast:1e-4 ...]

On the losing (set, C) pairs of ``docs/accuracy.md`` and two winning ones for contrast, with the same
67/33 splits and seeds:

1. **Over-fitting at equal splits**: train and test score of TnT and CART, from ``docs/accuracy_runs_c_alone.csv``.
2. **Along the grow passes**: the graph after every grow pass and merge (the progress callback's
   snapshots), its training and test accuracy, and CART's test accuracy at the same splits.
3. **What TnT does with its splits**: where the splits of the last phase's micro trees were grown
   (at leaves, on all their samples, or at internal nodes, on their sensitive samples), how many
   samples those were fitted on, shared nodes, decision depth, and leaves with few training samples,
   against CART's at the same splits.
4. **N1 and N2**: phases and grow passes per phase, each against CART at its own splits.
5. **The sensitive-sample objective at internal nodes**: TnT whose internal nodes keep the split they
   have (no refit on their sensitive samples), may only move their one split (a stump on the
   sensitive samples), or grow micro trees pruned ten times harder, against the default; leaves
   unchanged. (An experiment's patch of the learner, not an option of it.)
6. **The first phase against the rest, over the whole suite**: for every counted pair, TnT with one
   phase (N1=1: one micro tree at the root, the CART that cost-complexity pruning at C keeps) against
   best-first CART at its splits, beside the default's gain: what the first phase loses or wins
   before any graph is formed, and what the second phase adds.
7. **A guard on the refits, over the whole suite**: TnT whose internal nodes take the micro tree fitted
   on their sensitive samples only when it misroutes fewer of them than the split they have (else they
   keep it), against the default, on every counted classification pair.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from accuracy import MIN_SPLITS, split, suite  # noqa: E402
from accuracy import RUNS_C_ALONE as RUNS  # noqa: E402  (the graphs of C alone, ccp_alpha=0.0)

import tnt.learn.growth as growth  # noqa: E402
from tnt import TnTClassifier, TnTRegressor  # noqa: E402
from tnt._base import graph_from_flat  # noqa: E402
from tnt.baselines import CARTClassifier, CARTRegressor  # noqa: E402

REPORT = HERE.parent / "docs" / "where_tnt_loses.md"
LOSING = (("yeast", 1e-4), ("yeast", 1e-3), ("credit_g", 1e-4), ("coil2000", 1e-4), ("magic", 1e-4))
WINNING = (("nursery", 1e-3), ("twonorm", 1e-3))
REGRESSION = (("529_pollen", 1e-3),)
SETTINGS = ((1, 5), (2, 1), (2, 2), (2, 5), (3, 5), (4, 5))  # (N1, N2); (2, 5) is the default
INTERNAL = ("default", "frozen", "stump", "prune x10")
SMALL_LEAF = 5  # training samples: a leaf with fewer is "small"


def gap_table(runs: pd.DataFrame, pairs) -> pd.DataFrame:
    """Experiment 1: mean train and test scores of TnT and CART per pair, and the differences in points."""
    keep = runs.set_index(["set", "C"]).index.isin(list(pairs))
    table = (
        runs[keep]
        .groupby(["set", "C"], sort=False)[["tnt_splits", "tnt_train", "cart_train", "tnt_test", "cart_test"]]
        .mean()
    )
    table["train_gain"] = 100 * (table["tnt_train"] - table["cart_train"])
    table["test_gain"] = 100 * (table["tnt_test"] - table["cart_test"])
    table["tnt_gap"] = 100 * (table["tnt_train"] - table["tnt_test"])
    table["cart_gap"] = 100 * (table["cart_train"] - table["cart_test"])
    return table.reset_index()


def counted_gap_summary(runs: pd.DataFrame) -> dict:
    """Over every counted classification pair of the suite: how the train advantage of TnT at equal
    splits relates to its test advantage."""
    c = (
        runs[runs["task"] == "classification"]
        .groupby(["set", "C"])[["tnt_splits", "tnt_train", "cart_train", "tnt_test", "cart_test"]]
        .mean()
    )
    c = c[c["tnt_splits"] >= 10]
    train = 100 * (c["tnt_train"] - c["cart_train"])
    test = 100 * (c["tnt_test"] - c["cart_test"])
    saturated = (c["tnt_train"] >= 0.995) & (c["cart_train"] >= 0.995)
    return {
        "pairs": len(c),
        "train_above": int((train > 0).sum()),
        "corr": float(np.corrcoef(train, test)[0, 1]),
        "losses": int((test < 0).sum()),
        "losses_train_ge": int(((test < 0) & (train >= 0)).sum()),
        "saturated": int(saturated.sum()),
        "saturated_losses": int((saturated & (test < 0)).sum()),
        "unsaturated_losses": int((~saturated & (test < 0)).sum()),
        "unsaturated": int((~saturated).sum()),
    }


def _data(name: str, seed: int):
    entries = {n: (task, path) for task, n, path in suite([name])}
    task, path = entries[name]
    return task, split(task, path, seed)


def passes(name: str, C: float, seed: int) -> list[dict]:
    """Experiment 2 on one seed: the graph after every step of training."""
    _, (X_train, X_test, y_train, y_test) = _data(name, seed)
    model = TnTClassifier(ccp_alpha=0.0, C=C, random_state=seed)
    events = []
    model.fit(X_train, y_train, progress_callback=lambda e: events.append((e.kind, e.phase, e.step, e.snapshot())))
    Xtr = model._validate_X_predict(X_train).astype(np.float32)
    Xte = model._validate_X_predict(X_test).astype(np.float32)
    ytr, yte = np.searchsorted(model.classes_, y_train), np.searchsorted(model.classes_, y_test)
    rows, cart_at = [], {}
    for kind, phase, step, flat in events:
        graph = graph_from_flat(flat, Xtr, ytr, None, model.n_classes_)
        splits = graph.n_splits
        if splits not in cart_at:
            cart = CARTClassifier.with_splits(splits, random_state=seed).fit(X_train, y_train)
            cart_at[splits] = cart.score(X_test, y_test)
        rows.append(
            {
                "set": name,
                "C": C,
                "seed": seed,
                "step": step,
                "what": f"phase {phase} {'merge' if kind == 'merge' else 'grow'}",
                "splits": splits,
                "tnt_train": float(np.mean(graph.predict_proba(Xtr).argmax(1) == ytr)),
                "tnt_test": float(np.mean(graph.predict_proba(Xte).argmax(1) == yte)),
                "cart_test": float(cart_at[splits]),
            }
        )
    return rows


def structure(name: str, C: float, seed: int) -> dict:
    """Experiment 3 on one seed: where the last phase grew its splits, and the shape of the graph."""
    _, (X_train, X_test, y_train, y_test) = _data(name, seed)
    model = TnTClassifier(ccp_alpha=0.0, C=C, random_state=seed)
    last = {}
    model.fit(X_train, y_train, progress_callback=lambda e: last.update(e.details or {}) if e.kind == "grow" else None)
    records = last.get("micro_trees", [])
    leaf_splits = sum(r[4] for r in records if r[1])
    internal_added = sum(max(r[4] - 1, 0) for r in records if not r[1])
    internal_grown = [r for r in records if not r[1] and r[4] > 1]
    cart = CARTClassifier.with_splits(model.n_splits_, random_state=seed).fit(X_train, y_train)

    def leaves(m):
        counts = np.bincount(m.graph_.apply(X_train), minlength=m.graph_.node_count)[m.graph_.is_leaf]
        return counts

    tnt_leaves, cart_leaves = leaves(model), leaves(cart)
    return {
        "set": name,
        "C": C,
        "seed": seed,
        "splits": model.n_splits_,
        "leaf_splits": leaf_splits,
        "internal_added": internal_added,
        "internal_grown": len(internal_grown),
        "internal_median_sensitive": float(np.median([r[3] for r in internal_grown])) if internal_grown else np.nan,
        "shared": int(model.graph_.shared_nodes.size),
        "tnt_depth": float(model.decision_depth(X_test).mean()),
        "cart_depth": float(cart.decision_depth(X_test).mean()),
        "tnt_leaves": int(tnt_leaves.size),
        "cart_leaves": int(cart_leaves.size),
        "tnt_small": float(np.mean(tnt_leaves < SMALL_LEAF)),
        "cart_small": float(np.mean(cart_leaves < SMALL_LEAF)),
    }


def settings(name: str, C: float, seed: int, N1: int, N2: int, internal: str = "default") -> dict:
    """Experiments 4 and 5 on one seed: TnT at (N1, N2) and an internal-node variant, against CART at its splits."""
    task, (X_train, X_test, y_train, y_test) = _data(name, seed)
    tnt_class, cart_class = (
        (TnTClassifier, CARTClassifier) if task == "classification" else (TnTRegressor, CARTRegressor)
    )
    # "guard" is the learner's own option; the other variants patch the learner for the fit
    params = {"internal_refit": "improving"} if internal == "guard" else {}
    with _internal_nodes("default" if internal == "guard" else internal):
        model = tnt_class(C=C, N1=N1, N2=N2, random_state=seed, **params).fit(X_train, y_train)
    cart = cart_class.with_splits(model.n_splits_, random_state=seed).fit(X_train, y_train)
    return {
        "set": name,
        "C": C,
        "seed": seed,
        "N1": N1,
        "N2": N2,
        "internal": internal,
        "splits": model.n_splits_,
        "tnt_train": model.score(X_train, y_train),
        "tnt_test": model.score(X_test, y_test),
        "cart_test": cart.score(X_test, y_test),
    }


@contextlib.contextmanager
def _internal_nodes(variant: str):
    """Patch the classification learner at internal nodes for the length of a fit: "frozen" finds no
    sensitive samples there (so a node keeps its split, as the learner does when none are left);
    "stump" and "prune x10" change the micro-tree fits made on the sensitive samples (the caller's
    frame holds ``sens_rows``)."""
    if variant == "default":
        yield
        return
    if variant == "frozen":
        original_rows = growth._Wave.sensitive_rows
        growth._Wave.sensitive_rows = lambda wave, i: (np.empty(0, np.intp), np.empty(0, np.intp))
        try:
            yield
        finally:
            growth._Wave.sensitive_rows = original_rows
        return
    original = growth.fit_micro_tree

    def fit(data, order, rows, y, w, alpha, n_targets, workspace=None):
        if "sens_rows" in sys._getframe(4).f_locals:  # install() -> cache.get -> lambda -> fit -> here
            if variant == "stump":
                return growth.fit_stump(data, order, rows, y, w, workspace, n_targets)
            alpha = 10 * alpha
        return original(data, order, rows, y, w, alpha, n_targets, workspace)

    growth.fit_micro_tree = fit
    try:
        with growth.one_call_per_micro_tree():  # a wave's batch of fits would bypass the patch
            yield
    finally:
        growth.fit_micro_tree = original


def phase_split(runs: pd.DataFrame, first: pd.DataFrame) -> pd.DataFrame:
    """Experiment 6: per counted pair, the gain of the first phase alone (``first``: rows of
    :func:`settings` at N1=1) and of the default (``runs``), and what the later phase adds."""
    default = pair_means(runs)
    default = default[default["tnt_splits"] >= MIN_SPLITS]
    one = first.groupby(["set", "C"])[["splits", "tnt_test", "cart_test"]].mean()
    table = default.join(one.add_suffix("_first"), how="inner")
    table["final_gain"] = 100 * (table["tnt_test"] - table["cart_test"])
    table["first_gain"] = 100 * (table["tnt_test_first"] - table["cart_test_first"])
    table["later"] = table["final_gain"] - table["first_gain"]
    return table.reset_index()


def guard_table(runs: pd.DataFrame, guarded: pd.DataFrame) -> pd.DataFrame:
    """Experiment 7: per counted pair, the default's gain (``runs``) and the guarded learner's
    (``guarded``: rows of :func:`settings`), each against CART at its own splits."""
    default = pair_means(runs)
    default = default[default["tnt_splits"] >= MIN_SPLITS]
    guard = guarded.groupby(["set", "C"])[["splits", "tnt_test", "cart_test"]].mean().add_suffix("_guard")
    table = default.join(guard, how="inner")
    table["default_gain"] = 100 * (table["tnt_test"] - table["cart_test"])
    table["guard_gain"] = 100 * (table["tnt_test_guard"] - table["cart_test_guard"])
    return table.reset_index()


def guard_summary(table: pd.DataFrame) -> str:
    """Wins, mean and worst gain of the default and the guard over the pairs of :func:`guard_table`."""
    lines = ["| | wins (gain >= 0) | mean gain | worst | best |", "|---|---|---|---|---|"]
    for name in ("default", "guard"):
        g = table[f"{name}_gain"]
        lines.append(
            f"| {name} | {int((g >= 0).sum())} / {len(g)} | {g.mean():+.2f} | {g.min():+.2f} | {g.max():+.2f} |"
        )
    return "\n".join(lines)


def pair_means(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean splits and test scores of each (set, C) over the seeds, with its task."""
    return runs.groupby(["set", "C"]).agg(
        task=("task", "first"),
        tnt_splits=("tnt_splits", "mean"),
        tnt_test=("tnt_test", "mean"),
        cart_test=("cart_test", "mean"),
    )


def _fmt(x, digits=2, sign=True):
    return "-" if pd.isna(x) else (f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}")


def markdown(frame: pd.DataFrame, columns: dict) -> str:
    """A table of ``frame`` with ``{column: (heading, format)}``."""
    lines = ["| " + " | ".join(h for h, _ in columns.values()) + " |", "|" + "---|" * len(columns)]
    for _, r in frame.iterrows():
        lines.append("| " + " | ".join(f(r[c]) for c, (_, f) in columns.items()) + " |")
    return "\n".join(lines)


def pct(x):
    return f"{x:.4f}"


def pp(x):
    return _fmt(x)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["passes", "structure", "settings", "internal", "phases"]
    )
    args = parser.parse_args(argv)
    if not RUNS.is_file():
        print(f"{RUNS} not found; run benchmarks/accuracy.py first.")
        return 2
    start = time.perf_counter()
    runs = pd.read_csv(RUNS)
    classification = LOSING + WINNING
    seeds = range(args.seeds)
    par = Parallel(n_jobs=args.n_jobs)
    parts = [
        "# Where TnT loses to CART: the experiments\n",
        f"Written by `benchmarks/where_tnt_loses.py` ({datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{os.cpu_count()} cores); nothing here is edited by hand. Losing pairs of `docs/accuracy.md`: "
        + ", ".join(f"{s} C={C:g}" for s, C in LOSING + REGRESSION)
        + "; winning pairs for contrast: "
        + ", ".join(f"{s} C={C:g}" for s, C in WINNING)
        + f". Experiments 2 to 5 use seeds 0 to {args.seeds - 1} of the suite's splits; differences in points "
        "(x 100; R² x 100 for regression).\n",
        "## 1. Over-fitting at equal splits (5 seeds, from `docs/accuracy_runs_c_alone.csv`)\n",
    ]
    gaps = gap_table(runs, classification + REGRESSION)
    parts.append(
        markdown(
            gaps,
            {
                "set": ("set", str),
                "C": ("C", "{:g}".format),
                "tnt_splits": ("splits", "{:.0f}".format),
                "tnt_train": ("TnT train", pct),
                "cart_train": ("CART train", pct),
                "tnt_test": ("TnT test", pct),
                "cart_test": ("CART test", pct),
                "train_gain": ("train: TnT - CART", pp),
                "test_gain": ("test: TnT - CART", pp),
                "tnt_gap": ("TnT train - test", lambda x: _fmt(x, 1, False)),
                "cart_gap": ("CART train - test", lambda x: _fmt(x, 1, False)),
            },
        )
    )
    s = counted_gap_summary(runs)
    parts.append(
        f"\nOver all {s['pairs']} counted classification pairs: TnT's training accuracy is above CART's at "
        f"equal splits in {s['train_above']}; the correlation of the train and test differences is "
        f"{s['corr']:.2f}. Of the {s['losses']} losses, {s['losses_train_ge']} have TnT at least as accurate "
        f"on the training part. Where both models fit the training part to 99.5 % or more ({s['saturated']} "
        f"pairs), TnT loses {s['saturated_losses']}; elsewhere ({s['unsaturated']} pairs) {s['unsaturated_losses']}.\n"
    )

    if "passes" not in args.skip:
        rows = par(delayed(passes)(n, C, seed) for n, C in classification for seed in seeds)
        steps = pd.DataFrame([r for rs in rows for r in rs])
        table = steps.groupby(["set", "C", "step", "what"], sort=False)[
            ["splits", "tnt_train", "tnt_test", "cart_test"]
        ].mean()
        table["gain"] = 100 * (table["tnt_test"] - table["cart_test"])
        table = table.reset_index()
        parts += [
            "## 2. Along the grow passes (means over the seeds)\n",
            "Every grow pass and merge of the default schedule (N1=2 phases of N2=5 passes); CART grown best-first "
            "to each step's splits.\n",
            markdown(
                table,
                {
                    "set": ("set", str),
                    "C": ("C", "{:g}".format),
                    "step": ("step", str),
                    "what": ("which", str),
                    "splits": ("splits", "{:.1f}".format),
                    "tnt_train": ("TnT train", pct),
                    "tnt_test": ("TnT test", pct),
                    "cart_test": ("CART test", pct),
                    "gain": ("test: TnT - CART", pp),
                },
            )
            + "\n",
        ]

    if "structure" not in args.skip:
        rows = par(delayed(structure)(n, C, seed) for n, C in classification for seed in seeds)
        table = pd.DataFrame(rows).groupby(["set", "C"], sort=False).mean(numeric_only=True).reset_index()
        parts += [
            "## 3. What TnT does with its splits (means over the seeds)\n",
            "From the last grow pass: splits of the micro trees grown at leaves (fitted on all their samples) and "
            "splits added at internal nodes (a micro tree of k splits adds k - 1; fitted on the node's sensitive "
            "samples), with the median number of sensitive samples such a micro tree was fitted on. Shared nodes: "
            "nodes with more than one parent. Depth: mean splits on a test sample's path. Small leaves: share of "
            f"leaves holding fewer than {SMALL_LEAF} training samples; CART at the same splits.\n",
            markdown(
                table,
                {
                    "set": ("set", str),
                    "C": ("C", "{:g}".format),
                    "splits": ("splits", "{:.0f}".format),
                    "leaf_splits": ("grown at leaves", "{:.0f}".format),
                    "internal_added": ("added at internal nodes", "{:.0f}".format),
                    "internal_median_sensitive": ("median sensitive samples", lambda x: _fmt(x, 0, False)),
                    "shared": ("shared nodes", "{:.0f}".format),
                    "tnt_leaves": ("TnT leaves", "{:.0f}".format),
                    "cart_leaves": ("CART leaves", "{:.0f}".format),
                    "tnt_small": ("TnT small leaves", "{:.0%}".format),
                    "cart_small": ("CART small leaves", "{:.0%}".format),
                    "tnt_depth": ("TnT depth", "{:.1f}".format),
                    "cart_depth": ("CART depth", "{:.1f}".format),
                },
            )
            + "\n",
        ]

    variants = []
    if "settings" not in args.skip:
        variants += [(N1, N2, "default") for N1, N2 in SETTINGS]
    if "internal" not in args.skip:
        variants += [(2, 5, v) for v in INTERNAL if v != "default"]
    if variants:
        pairs = classification + REGRESSION
        jobs = [
            (n, C, seed, N1, N2, v)
            for n, C in pairs
            for seed in seeds
            for N1, N2, v in variants
            if v == "default" or (n, C) not in REGRESSION
        ]
        frame = pd.DataFrame(par(delayed(settings)(*job) for job in jobs))
        table = frame.groupby(["set", "C", "N1", "N2", "internal"], sort=False)[
            ["splits", "tnt_train", "tnt_test", "cart_test"]
        ].mean()
        table["gain"] = 100 * (table["tnt_test"] - table["cart_test"])
        table = table.reset_index()
        wide = table.assign(
            variant=[
                f"N1={a} N2={b}" if v == "default" else f"internal: {v}"
                for a, b, v in zip(table["N1"], table["N2"], table["internal"])
            ]
        )
        gain = wide.pivot_table(index=["set", "C"], columns="variant", values="gain", sort=False)
        splits = wide.pivot_table(index=["set", "C"], columns="variant", values="splits", sort=False)
        order = list(dict.fromkeys(wide["variant"]))
        lines = [
            "| set | C | " + " | ".join(order) + " |",
            "|---|---|" + "---|" * len(order),
        ]
        for (n, C), g in gain.iterrows():
            cells = [f"{_fmt(g[v])} ({splits.loc[(n, C), v]:.0f})" if not pd.isna(g[v]) else "-" for v in order]
            lines.append(f"| {n} | {C:g} | " + " | ".join(cells) + " |")
        means = [f"{gain[v].mean():+.2f}" for v in order]
        lines.append("| mean | | " + " | ".join(means) + " |")
        parts += [
            "## 4 and 5. Phases, passes and internal nodes (test: TnT - CART at TnT's splits, and TnT's splits)\n",
            "Each variant against CART grown best-first to that variant's own splits (in brackets). N1=1 grows one "
            "micro tree at the root: CART pruned at C. *internal: frozen*: internal nodes keep their split (only leaves grow micro trees, and merges run); *internal: stump*: internal nodes refit only their one "
            "split on their sensitive samples (no micro tree below it); *internal: prune x10*: internal nodes' micro "
            "trees pruned with ten times the cost per split; leaves unchanged in both (classification only).\n",
            "\n".join(lines) + "\n",
        ]
        table.to_csv(args.out.with_name(args.out.stem + "_settings.csv"), index=False)
    if "phases" not in args.skip:
        means = pair_means(runs)
        counted = means[means["tnt_splits"] >= MIN_SPLITS].index
        seeds_all = sorted(set(runs["seed"]))
        first = pd.DataFrame(par(delayed(settings)(n, C, seed, 1, 5) for n, C in counted for seed in seeds_all))
        table = phase_split(runs, first)
        lines = []
        for task in ("classification", "regression"):
            t = table[table["task"] == task]
            losses, wins = t[t["final_gain"] < 0], t[t["final_gain"] >= 0]
            lines.append(
                f"| {task} | {len(t)} | {len(losses)} | {int((losses['first_gain'] < 0).sum())} | "
                f"{losses['first_gain'].mean():+.2f} | {losses['later'].mean():+.2f} | {int((losses['later'] < 0).sum())} | "
                f"{len(wins)} | {wins['first_gain'].mean():+.2f} | {wins['later'].mean():+.2f} | "
                f"{t['first_gain'].mean():+.2f} | {t['later'].mean():+.2f} |"
            )
        parts += [
            f"## 6. The first phase against the rest, every counted pair ({len(seeds_all)} seeds)\n",
            "*first*: TnT with N1=1 (one micro tree at the root, the CART that cost-complexity pruning at C keeps) "
            "against best-first CART at its own splits; *final*: the default (N1=2) against CART at its splits, from "
            "`docs/accuracy_runs_c_alone.csv`; *later*: final - first, what the second phase (grow passes at internal nodes "
            "and leaves, merges) adds. Points (x 100).\n",
            "| task | pairs | losses (final < 0) | of them losing already after the first phase | losses: mean first | "
            "losses: mean later | losses the later phase made worse | wins | wins: mean first | wins: mean later | "
            "all: mean first | all: mean later |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *lines,
            "",
            markdown(
                table.sort_values(["task", "final_gain"]),
                {
                    "set": ("set", str),
                    "C": ("C", "{:g}".format),
                    "splits_first": ("splits, first", "{:.0f}".format),
                    "tnt_splits": ("splits, final", "{:.0f}".format),
                    "first_gain": ("first", pp),
                    "later": ("later", pp),
                    "final_gain": ("final", pp),
                },
            )
            + "\n",
        ]
        table.to_csv(args.out.with_name(args.out.stem + "_phases.csv"), index=False)
    if "guard" not in args.skip:
        means = pair_means(runs)
        counted = means[(means["tnt_splits"] >= MIN_SPLITS) & (means["task"] == "classification")].index
        seeds_all = sorted(set(runs["seed"]))
        guarded = pd.DataFrame(
            par(delayed(settings)(n, C, seed, 2, 5, "guard") for n, C in counted for seed in seeds_all)
        )
        table = guard_table(runs, guarded)
        parts += [
            f"## 7. A guard on the refits at internal nodes, every counted classification pair ({len(seeds_all)} seeds)\n",
            "*guard*: an internal node takes the micro tree fitted on its sensitive samples only when it misroutes "
            "fewer of them than the split it has, else it keeps that split; leaves, merges and everything else as the "
            "default. Each against best-first CART at its own splits; the default's figures from "
            "`docs/accuracy_runs_c_alone.csv`. Points (x 100).\n",
            guard_summary(table) + "\n",
            markdown(
                table.sort_values("default_gain"),
                {
                    "set": ("set", str),
                    "C": ("C", "{:g}".format),
                    "tnt_splits": ("splits, default", "{:.0f}".format),
                    "splits_guard": ("splits, guard", "{:.0f}".format),
                    "default_gain": ("default", pp),
                    "guard_gain": ("guard", pp),
                },
            )
            + "\n",
        ]
        table.to_csv(args.out.with_name(args.out.stem + "_guard.csv"), index=False)
    parts.append(f"Took {(time.perf_counter() - start) / 60:.1f} minutes of wall time.\n")
    text = "\n".join(parts)
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
