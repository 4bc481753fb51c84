"""The inspection benchmark of TnT Explorer: each interaction with a graph of about 1,000 splits
(MNIST at C=1e-4) must take under 1 s, and counterfactuals should be exact within their budget.

Run from the repository root:

    .venv/bin/python benchmarks/inspection.py [--data FOLDER] [--samples 100]

It prints one row per measurement and rewrites ``benchmarks/inspection.md`` whole: nothing in
that file is written by hand.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt import TnTClassifier  # noqa: E402
from tnt.data.external import find_data, stop_if_missing  # noqa: E402
from tnt.inspect.counterfactual import DEFAULT_BUDGET, CounterfactualSpace, counterfactual  # noqa: E402
from tnt.inspect.distributions import node_distribution  # noqa: E402
from tnt.inspect.errors import confusion, error_leaves, node_scores  # noqa: E402
from tnt.inspect.reach import class_indices, routes  # noqa: E402
from tnt.inspect.rules import leaf_rules  # noqa: E402
from tnt.viz.inspection import graph_by_test_score, node_figure  # noqa: E402

OUT = Path(__file__).resolve().parent / "inspection.md"
C = 1e-4
REPEAT = 5


def load(data_dir: Path | None, name: str):
    with np.load(find_data(name, data_dir), allow_pickle=False) as d:
        return d["X_train"], d["y_train"], d["X_test"], d["y_test"]


def median_time(call, repeat: int = REPEAT) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def seconds(t: float) -> str:
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.0f} ms"


def bench(name: str, data, n_samples: int) -> tuple[list, dict]:
    X_train, y_train, X_test, y_test = data
    start = time.perf_counter()
    model = TnTClassifier(ccp_alpha=0.0, C=C, random_state=0).fit(X_train, y_train)
    fit = time.perf_counter() - start
    g = model.graph_
    y_tr, y_te = class_indices(model.classes_, y_train), class_indices(model.classes_, y_test)
    rows = []

    def add(what, t, limit=1.0, note=""):
        rows.append((f"{name}: {what}", t, limit, note))
        print(f"{name}: {what}: {seconds(t)}{' (' + note + ')' if note else ''}", flush=True)

    once = median_time(lambda: (routes(g, X_train), routes(g, X_test)), 3)
    add("paths of every training and test sample (once per model, kept)", once, None)
    train, test = routes(g, X_train), routes(g, X_test)
    shared = int(g.shared_nodes[np.argmax(g.n_node_samples[g.shared_nodes])]) if g.shared_nodes.size else 0
    for node, label in ((0, "root"), (shared, f"shared node #{shared}, {len(g.parents(shared))} parents")):
        for part, r, X, y in (("training", train, X_train, y_tr), ("test", test, X_test, y_te)):
            t = median_time(
                lambda r=r, X=X, y=y, node=node, part=part: node_figure(node_distribution(g, r, X, y, node), part=part)
            )
            add(f"distribution figure of the {label}, {part} samples", t)

    def test_view():
        scores = node_scores(g, test, y_te)
        return graph_by_test_score(g, scores), error_leaves(g, test, y_te, top=None), confusion(g, test, y_te)

    t = median_time(test_view)
    add(
        "test-data view (scores of every node, the graph coloured by them, leaves by errors with paths, confusion matrix)",
        t,
    )
    t = median_time(lambda: leaf_rules(g, train, y_tr, test, y_te), 3)
    add("rules of every leaf with training and test coverage (the first opening of the Rules view; then kept)", t)
    start = time.perf_counter()
    space = CounterfactualSpace(g, X_train)
    add("counterfactual set-up (the first counterfactual of a model; then kept)", time.perf_counter() - start)
    rng = np.random.default_rng(0)
    chosen = rng.choice(len(y_test), size=min(n_samples, len(y_test)), replace=False)
    predicted = g.predicted_class()[test.leaves]
    times, exact, found, changed = [], 0, 0, []
    for i in chosen:
        wanted = (int(predicted[i]) + 1) % g.n_classes
        start = time.perf_counter()
        cf = counterfactual(space, X_test[i], wanted, budget=DEFAULT_BUDGET)
        times.append(time.perf_counter() - start)
        exact += cf.exact
        found += cf.found
        if cf.found:
            changed.append(cf.n_changed)
    add("one counterfactual, median", float(np.median(times)), note=f"{len(chosen)} test samples")
    add("one counterfactual, slowest", float(np.max(times)), note=f"budget {DEFAULT_BUDGET:g} s")
    summary = {
        "name": name,
        "splits": g.n_splits,
        "shared": int(g.shared_nodes.size),
        "fit": fit,
        "samples": len(chosen),
        "exact": exact,
        "found": found,
        "changed": float(np.median(changed)) if changed else float("nan"),
    }
    print(summary, flush=True)
    return rows, summary


def write(rows, summaries) -> None:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = [
        "# Inspection benchmark",
        "",
        "This file is written by `benchmarks/inspection.py`, whole; edit the script, not this file. One",
        "command, from the repository root (MNIST and pendigits are found by `tnt.data.external`, or in",
        "the folder `--data` names; see docs/data-sets.md):",
        "",
        "```bash",
        ".venv/bin/python benchmarks/inspection.py",
        "```",
        "",
        f"TnT at C={C:g} (seed 0) on each data set's own training part; timings are medians of {REPEAT} runs "
        "(three for the paths and the rules) of the library calls behind each view of the Graph page. "
        "The paths of every sample are computed once per model and kept by the app, so the views "
        "start from them. A counterfactual asks, for test samples drawn at random (seed 0), for the "
        "class after the predicted one (class k + 1, 0 after the last), with the default budget "
        f"({DEFAULT_BUDGET:g} s); it is exact when the search finished within the budget.",
        "",
        f"Run {stamp}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared), "
        f"load average {load:.1f} at the end.",
        "",
        "| data set | splits | nodes with several parents | counterfactuals exact within the budget | found | median features changed |",
        "|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s['name']} | {s['splits']:,} | {s['shared']:,} | {s['exact']} of {s['samples']} "
            f"({s['exact'] / s['samples']:.0%}) | {s['found']} of {s['samples']} | {s['changed']:g} |"
        )
    lines += ["", "| measurement | time | target | met |", "|---|---|---|---|"]
    for what, t, limit, note in rows:
        said = f"{what} ({note})" if note else what
        target = "-" if limit is None else f"< {limit:g} s"
        met = "-" if limit is None else ("yes" if t < limit else "no")
        lines.append(f"| {said} | {seconds(t)} | {target} | {met} |")
    OUT.write_text("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="folder with mnist.npz and pendigits.npz (default: the loader's)")
    parser.add_argument("--samples", type=int, default=100, help="test samples to ask a counterfactual for")
    args = parser.parse_args(argv)
    stop_if_missing(("mnist", "pendigits"), args.data)
    rows, summaries = [], []
    for name in ("mnist", "pendigits"):
        r, s = bench(name, load(args.data, name), args.samples)
        rows += r
        summaries.append(s)
    write(rows, summaries)


if __name__ == "__main__":
    main()
