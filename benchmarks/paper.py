"""Reproduce the paper's Table 1, Fig. 4 and Table 2 and write them, beside the paper's numbers, to docs/paper/.

    .venv/bin/python benchmarks/paper.py [--data FOLDER] [--quick] [--out docs/paper]

``--quick`` uses 2 seeds, fewer values of C and at most 10,000 training samples per data set;
``--datasets`` and ``--max-train`` narrow it further; ``--scheduler`` runs on a Dask cluster.
``--resume`` keeps the data sets an earlier run with the same settings finished in ``--out`` and
runs only the others (a run stopped early, or one data set added), adding up the minutes.
The data sets are found as ``docs/data-sets.md`` says (``--data`` names another folder).
``--report`` only writes README.md again from the tables and ``run.json`` of an earlier run in
``--out`` (for example after editing ``benchmarks/paper_notes.md`` or the reading's code).
The experiments are functions of ``tnt.experiments`` (paper, sweep, ensembles); this script only
chooses the settings, runs them and writes the files.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt.data.external import stop_if_missing  # noqa: E402
from tnt.experiments.ensembles import CART_TREES, compare_ensembles  # noqa: E402
from tnt.experiments.paper import PAPER_DATASETS, calibrate_C, leaf_grid, load_paper_data, table1  # noqa: E402
from tnt.experiments.paper_numbers import C_RANGE, DATA_SHAPE, TABLE2  # noqa: E402
from tnt.experiments.paper_report import (  # noqa: E402
    NAMES,
    adaboost_sizes_markdown,
    cart_trees_markdown,
    figure4_summary,
    letter_splits_markdown,
    reading_markdown,
    single_leaf_note,
    table1_markdown,
    table2_markdown,
)
from tnt.experiments.sweep import EXTRA_MODELS, NDG_C, log_grid, summarize, sweep  # noqa: E402

ENSEMBLE_SETS = ("mnist", "connect_4")
NOTES = Path(__file__).resolve().parent / "paper_notes.md"


@dataclass(frozen=True)
class Settings:
    seeds: int  # trials of Table 1 and Table 2, seeds of Fig. 4
    fig4_Cs: int  # values of C per Fig. 4 curve (the paper: 30)
    cv_Cs: int  # values of C tried by cross-validation for TnT
    cv_leaves: int  # values of max_leaf_nodes tried by cross-validation for CART
    max_train: int | None  # training samples kept per data set
    calibration_steps: int  # TnT fits to find the C of Table 2's split counts
    sizes: tuple = (5, 10, 20)  # ensemble sizes of Table 2
    cart_trees: str = "binned"  # grower of Table 2's CART base trees (tnt.experiments.ensembles.CART_TREES)


QUICK = Settings(seeds=2, fig4_Cs=4, cv_Cs=4, cv_leaves=5, max_train=10_000, calibration_steps=3)
# 5 seeds and the paper's ensemble sizes, but 6 values of C per Fig. 4 curve (the paper: 30) to save
# time: 35.5 minutes in one sitting on 2 cores (2026-11-27 10:05 UTC), MNIST 29.4 of them (Table 1
# 2.6, Fig. 4 5.3, Table 2 21.5).
FULL = Settings(seeds=5, fig4_Cs=6, cv_Cs=6, cv_leaves=8, max_train=None, calibration_steps=3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="folder of the .npz data sets (default: see docs/data-sets.md)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "paper", help="output folder (default docs/paper)")
    parser.add_argument("--quick", action="store_true", help="2 seeds, fewer C values, at most 10,000 training samples")
    parser.add_argument("--datasets", nargs="+", choices=PAPER_DATASETS, default=list(PAPER_DATASETS))
    parser.add_argument("--max-train", type=int, help="at most this many training samples per data set")
    parser.add_argument("--n-jobs", type=int, default=-1, help="joblib workers (default -1: all cores)")
    parser.add_argument(
        "--cart-trees",
        choices=CART_TREES,
        default="binned",
        help="grower of Table 2's CART base trees: the project's binned best-first CART (default, the same "
        "trees as scikit-learn's up to ties) or scikit-learn's DecisionTreeClassifier",
    )
    parser.add_argument("--scheduler", help="address of a Dask scheduler to run the joblib tasks on")
    parser.add_argument(
        "--redraw", action="store_true", help="only redraw the figures from the fig4_*.csv files in --out"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the data sets an earlier run with the same settings finished in --out; run the others",
    )
    parser.add_argument(
        "--report", action="store_true", help="only write README.md again from the tables and run.json in --out"
    )
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    if args.max_train is not None:
        settings = Settings(**{**asdict(settings), "max_train": args.max_train})
    settings = Settings(**{**asdict(settings), "cart_trees": args.cart_trees})
    if args.redraw:
        redraw(args, settings)
        return 0
    if args.report:
        report_again(args.out)
        return 0
    stop_if_missing(args.datasets, args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    earlier = None
    if args.resume:
        earlier = _earlier_run(args.out, args.quick, settings)
        if isinstance(earlier, str):
            parser.error(earlier)
    with _backend(args.scheduler):
        run(args, settings, earlier)
    return 0


def _earlier_run(out: Path, quick: bool, settings: Settings) -> dict | str:
    """The ``run.json`` of the run in ``out`` that ``--resume`` continues, or why it cannot."""
    path = out / "run.json"
    if not path.is_file():
        return f"--resume: {out} holds no earlier run (no run.json); run without --resume."
    meta = json.loads(path.read_text())
    if meta["quick"] != quick or meta["settings"] != json.loads(json.dumps(asdict(settings))):
        return f"--resume: the run in {out} used other settings; resume with the same options, or run without --resume."
    return meta


def _finished_tables(out: Path, meta: dict) -> tuple[dict, dict, dict]:
    """Table 1, Fig. 4's table and Table 2 (where run) of each data set ``meta`` says a run in
    ``out`` finished, by data set name."""
    t1_all = pd.read_csv(out / "table1.csv")
    t2_all = pd.read_csv(out / "table2.csv") if (out / "table2.csv").is_file() else None
    t1, sweeps, t2 = {}, {}, {}
    for name in meta["finished"]:
        t1[name] = t1_all[t1_all["data"] == name].drop(columns="data")
        sweeps[name] = pd.read_csv(out / f"fig4_{name}.csv")
        if t2_all is not None and name in set(t2_all["data"]):
            t2[name] = t2_all[t2_all["data"] == name].drop(columns="data")
    return t1, sweeps, t2


@contextlib.contextmanager
def _backend(scheduler):
    if scheduler is None:
        yield
        return
    import joblib
    from dask.distributed import Client

    with Client(scheduler), joblib.parallel_backend("dask"):
        yield


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(args, settings: Settings, earlier: dict | None = None) -> None:
    """Run the data sets smallest first; the files are rewritten after each, so a run stopped early
    leaves the data sets it finished (the report says which). ``earlier`` (``--resume``): the
    ``run.json`` of a run in ``args.out`` whose finished data sets are kept as they are."""
    start = time.perf_counter()
    seeds = list(range(settings.seeds))
    t1, sweeps, t2 = _finished_tables(args.out, earlier) if earlier else ({}, {}, {})
    for name in list(t1):
        if name in args.datasets:
            log(f"{name}: kept from the earlier run")
        else:
            t1.pop(name), sweeps.pop(name), t2.pop(name, None)
    parts = {n: m for n, m in (earlier or {}).get("parts", {}).items() if n in t1}
    for name in sorted((n for n in args.datasets if n not in t1), key=_cost):
        minutes, clock = parts.setdefault(name, {}), time.perf_counter()
        X_train, y_train, X_test, y_test = load_paper_data(name, args.data, max_train=settings.max_train)
        low, high = C_RANGE[name]
        log(f"{name}: {len(y_train)} training, {len(y_test)} test samples")
        t1[name] = table1(
            X_train,
            y_train,
            X_test,
            y_test,
            Cs=log_grid(low, high, settings.cv_Cs),
            leaf_counts=leaf_grid(8, min(4096, len(y_train) // 4), settings.cv_leaves),
            trials=settings.seeds,
            n_jobs=args.n_jobs,
        )
        minutes["Table 1"], clock = _minutes_since(clock)
        log(f"{name}: Table 1 done")
        table = sweep(
            X_train,
            y_train,
            X_test,
            y_test,
            log_grid(low, high, settings.fig4_Cs),
            seeds,
            models=EXTRA_MODELS,
            reduce=False,
            n_jobs=args.n_jobs,
        )
        table.insert(0, "data", name)
        sweeps[name] = table
        table.to_csv(args.out / f"fig4_{name}.csv", index=False)
        figure = _figure(
            name, summarize(table.drop(columns="data")), len(y_train), len(y_test), X_train.shape[1], len(set(y_train))
        )
        _write_images({name: figure}, args.out)
        minutes["Fig. 4"], clock = _minutes_since(clock)
        log(f"{name}: Figure 4 done")
        if name in ENSEMBLE_SETS:
            t2[name] = _ensembles(name, X_train, y_train, X_test, y_test, settings, seeds, args.n_jobs, table)
            minutes["Table 2"], clock = _minutes_since(clock)
            log(f"{name}: Table 2 done")
        _write_tables(args, settings, t1, sweeps, t2, start, earlier, parts)
    log(f"wrote {args.out} in {(time.perf_counter() - start) / 60:.1f} min")


def redraw(args, settings: Settings) -> None:
    """Draw Fig. 4 again from the tables a run wrote (the data set's size is Fig. 4's title)."""
    for name in args.datasets:
        path = args.out / f"fig4_{name}.csv"
        if path.is_file():
            X_train, y_train, X_test, y_test = load_paper_data(name, args.data, max_train=settings.max_train)
            summary = summarize(pd.read_csv(path).drop(columns="data"))
            figure = _figure(name, summary, len(y_train), len(y_test), X_train.shape[1], len(set(y_train)))
            _write_images({name: figure}, args.out)
            log(f"redrew {path.with_suffix('.png')}")


def _minutes_since(clock: float) -> tuple[float, float]:
    """Minutes since ``clock`` (a ``time.perf_counter()``), to a tenth, and the new clock."""
    now = time.perf_counter()
    return round((now - clock) / 60, 1), now


def _cost(name: str) -> int:
    """Training samples times features of a data set as the paper describes it: the order of the run."""
    n_train, _, n_features, _ = DATA_SHAPE[name]
    return n_train * n_features


def _write_tables(args, settings, t1, sweeps, t2, start, earlier=None, parts=None) -> None:
    order = [n for n in PAPER_DATASETS if n in t1]
    t1 = {n: t1[n] for n in order}
    sweeps = {n: sweeps[n] for n in order}
    t2 = {n: t2[n] for n in order if n in t2}
    pd.concat([t.assign(data=n) for n, t in t1.items()]).to_csv(args.out / "table1.csv", index=False)
    if t2:
        pd.concat([t.assign(data=n) for n, t in t2.items()]).to_csv(args.out / "table2.csv", index=False)
    meta = _meta(args, settings, (time.perf_counter() - start) / 60, order)
    meta["parts"] = {n: parts[n] for n in order if n in (parts or {})}  # minutes of each part of each data set
    if earlier is not None:  # --resume: the time of every sitting
        meta["minutes"] = round(meta["minutes"] + earlier["minutes"], 1)
        meta["sittings"] = earlier.get("sittings", 1) + 1
    (args.out / "run.json").write_text(json.dumps(meta, indent=1) + "\n")
    (args.out / "README.md").write_text(_report(meta, t1, sweeps, t2, _side_tables(args.out), _has_quick(args.out)))


def _side_tables(out: Path) -> dict:
    """The tables of ``benchmarks/paper_letter.py``, ``benchmarks/paper_adaboost.py`` and
    ``benchmarks/paper_cart_trees.py`` in ``out`` (None for a script not run there)."""
    paths = {
        "letter_splits": out / "letter_splits.csv",
        "adaboost_sizes": out / "adaboost_sizes.csv",
        "cart_trees": out / "cart_trees.csv",
    }
    return {key: pd.read_csv(path) if path.is_file() else None for key, path in paths.items()}


def _has_quick(out: Path) -> bool:
    """Whether ``out/quick`` holds the report of a quick run (kept beside a full run's)."""
    return (out / "quick" / "README.md").is_file()


def _meta(args, settings, minutes, finished) -> dict:
    """What the report says of the run: its command, settings, time and the data sets it finished."""
    cmd = "python benchmarks/paper.py --data ../shared/data" + (" --quick" if args.quick else "")
    if args.datasets != list(PAPER_DATASETS):
        cmd += " --datasets " + " ".join(args.datasets)
    if args.max_train is not None:
        cmd += f" --max-train {args.max_train}"
    if args.cart_trees != "binned":
        cmd += f" --cart-trees {args.cart_trees}"
    return {
        "quick": bool(args.quick),
        "command": cmd,
        "stamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "minutes": round(minutes, 1),
        "cores": os.cpu_count(),
        "load": round(os.getloadavg()[1], 1),  # the 5-minute load average when written
        "machine": platform.machine(),
        "python": platform.python_version(),
        "settings": asdict(settings),
        "datasets": list(args.datasets),
        "finished": list(finished),
    }


def _cart_trees_sentence(cart_trees: str) -> str:
    """Which grower made Table 2's CART base trees."""
    if cart_trees == "binned":
        return (
            "The CART base trees are the project's binned best-first CART (`NDGClassifier(C=0, merge=False)`), "
            "which grows the tree of scikit-learn's `DecisionTreeClassifier(max_leaf_nodes=...)` up to ties "
            "between equally good splits (`--cart-trees scikit-learn` uses scikit-learn's; "
            "`benchmarks/paper_cart_trees.py` compares the two below, where it was run)."
        )
    return "The CART base trees are scikit-learn's `DecisionTreeClassifier(max_leaf_nodes=...)`."


def _minutes_line(meta) -> list[str]:
    """Where the run's minutes went, data set by data set (none for a run written before this was kept)."""
    parts = meta.get("parts") or {}
    if not parts:
        return []
    each = [
        f"{NAMES[n]} {sum(m.values()):.3g} ({', '.join(f'{part} {v:g}' for part, v in m.items())})"
        for n, m in parts.items()
    ]
    return [f"Minutes per data set (wall time, all cores): {'; '.join(each)}.", ""]


def report_again(out: Path) -> None:
    """README.md from the tables and run.json an earlier run left in ``out``."""
    meta = json.loads((out / "run.json").read_text())
    t1, sweeps, t2 = _finished_tables(out, meta)
    (out / "README.md").write_text(_report(meta, t1, sweeps, t2, _side_tables(out), _has_quick(out)))
    log(f"wrote {out / 'README.md'} again")


def _ensembles(name, X_train, y_train, X_test, y_test, settings, seeds, n_jobs, sweep_table):
    """Table 2 on one data set: TnT's C found for the paper's split count per base estimator.

    The bisection starts from the two values of C of Fig. 4's sweep (seed 0, the same training
    part) whose split counts bracket the target, so that a few fits find it."""
    per_base = {kind: round(TABLE2[name][(kind, 20)][0] / 20) for kind in ("TnT-bagging", "TnT-AdaBoost")}
    # The two bisections at once: each fits one TnT at a time.
    found = Parallel(n_jobs=n_jobs)(
        delayed(_calibrate)(X_train, y_train, target, settings, sweep_table) for target in per_base.values()
    )
    C = dict(zip(per_base, found))
    log(f"{name}: Table 2 at C={C['TnT-bagging']:.3g} (bagging) and C={C['TnT-AdaBoost']:.3g} (AdaBoost)")
    rows = compare_ensembles(
        X_train,
        y_train,
        X_test,
        y_test,
        sizes=settings.sizes,
        seeds=seeds,
        C_bagging=C["TnT-bagging"],
        C_boosting=C["TnT-AdaBoost"],
        n_jobs=n_jobs,
        cart_trees=settings.cart_trees,
    )
    return rows.assign(C=rows["ensemble"].map({"TnT-bagging": C["TnT-bagging"], "TnT-AdaBoost": C["TnT-AdaBoost"]}))


def _calibrate(X_train, y_train, target, settings, sweep_table) -> float:
    seen = sweep_table[sweep_table["seed"] == 0][["C", "tnt_splits"]].to_numpy()
    above = [C for C, splits in seen if splits >= target]  # splits fall as C rises
    below = [C for C, splits in seen if splits <= target]
    low = max(above) if above else 1e-5
    high = min(below) if below else 1e-1
    found = [(float(C), int(splits)) for C, splits in seen]
    if low < high:
        found.append(calibrate_C(X_train, y_train, target, low, high, steps=settings.calibration_steps))
    return min(found, key=lambda pair: (abs(pair[1] - target), pair[0]))[0]


def _figure(name, summary, n_train, n_test, n_features, n_classes):
    from tnt.viz.figures import train_and_test_vs_splits

    title = f"{NAMES[name]} ({n_train / 1000:.1f}k/{n_test / 1000:.1f}k*{n_features}, {n_classes})"
    return train_and_test_vs_splits(summary, title)


def _write_images(figures: dict, out: Path) -> None:
    """PNG and SVG of every figure through kaleido, with Debian's chromium when no Chrome is set."""
    import plotly.io as pio

    from tnt.viz.figure_image import use_local_chromium

    use_local_chromium()
    figs, paths = [], []
    for name, fig in figures.items():
        for ext in ("png", "svg"):
            figs.append(fig)
            paths.append(out / f"fig4_{name}.{ext}")
    sizes = {"width": [f.layout.width for f in figs], "height": [f.layout.height for f in figs]}
    if hasattr(pio, "write_images"):  # one browser for all of them
        pio.write_images(figs, paths, **sizes)
    else:
        for fig, path, width, height in zip(figs, paths, sizes["width"], sizes["height"]):
            fig.write_image(path, width=width, height=height)


def _report(meta, t1, sweeps, t2, side=None, quick_beside=False) -> str:
    # A run.json written before Table 2's grower could be chosen used scikit-learn's trees.
    settings = Settings(**{"cart_trees": "scikit-learn", **meta["settings"], "sizes": tuple(meta["settings"]["sizes"])})
    mode = "quick run (`--quick`)" if meta["quick"] else "full run"
    load = f"; load average {meta['load']:g} when written, on a shared machine" if meta.get("load") else ""
    cmd, stamp, minutes = meta["command"], meta["stamp"], meta["minutes"]
    sittings = meta.get("sittings", 1)
    over = f" in {sittings} sittings (continued with `--resume`)" if sittings > 1 else ""
    train_note = (
        (f"at most {settings.max_train:,} training samples per data set (a stratified subset; test sets whole)")
        if settings.max_train
        else "the whole training sets"
    )
    missing = [NAMES[n] for n in meta["datasets"] if n not in t1]
    status = (
        f" Not finished when this file was written (it is written again after each data set, so a run "
        f"stopped early leaves those it finished): {', '.join(missing)}."
        if missing
        else ""
    )
    if quick_beside and not meta["quick"]:
        status += (
            " A quick run (less data, fewer seeds; its header says which data sets it finished) is in "
            "[quick/README.md](quick/README.md)."
        )
    parts = [
        "# The paper's results, reproduced",
        "",
        f"**This is the {mode}**: `{cmd}`, {stamp}, {minutes:.0f} minutes{over} on {meta['cores']} cores "
        f"({meta['machine']}, Python {meta['python']}{load}). Settings: {settings.seeds} seeds/trials; "
        f"{train_note}; Fig. 4 with {settings.fig4_Cs} values of C per curve over the paper's range (Table B.1; "
        f"the paper: 30); cross-validation (3 folds) over {settings.cv_Cs} values of C and {settings.cv_leaves} "
        f"of `max_leaf_nodes`; ensembles of {', '.join(map(str, settings.sizes))} base estimators. "
        f"Accuracies in percent, mean ± standard deviation over the seeds.{status}",
        "",
        *_minutes_line(meta),
        "Data: `../shared/data` (see its README). Letter and Connect-4 (one-hot, 126 features) have no "
        "official split: one stratified 33% test split (seed 0) is used by every model and trial, the "
        "trials differing by the models' `random_state`. **Our USPS has 10 classes; the paper's has 2**, "
        "with a binarisation it does not state, so our USPS numbers are not comparable with its.",
        "",
        "## Table 1: TnT and CART at the split count chosen by cross-validation",
        "",
        "C for TnT (N1=2, N2=5) and `max_leaf_nodes` for CART (best-first) are chosen by 3-fold "
        "cross-validation on the training part; #S is the mean number of splits of the trained models.",
        "",
        table1_markdown(t1),
        "",
        "## Figure 4: accuracy against splits, five models",
        "",
        f"TnT and TnT fine-tuned (5 rounds) at each C; TAO (CART fine-tuned, 5 rounds), CART best-first "
        f"and NDG (`tnt.NDGClassifier`, C={NDG_C:g} as in the paper) with TnT's number of splits (NDG "
        "at most that many). Bands: ±1 std over seeds. CSV tables beside the figures.",
        "",
    ]
    for name, table in sweeps.items():
        s = summarize(table.drop(columns="data"))
        wins = figure4_summary(s)
        said = "; ".join(f"{m}: higher at {k} of {n} C values (mean {d:+.2f} points)" for m, (k, n, d) in wins.items())
        parts += [f"![Fig. 4, {NAMES[name]}](fig4_{name}.png)", "", f"TnT's test accuracy against {said}.", ""]
        if note := single_leaf_note(s):
            parts += [note, ""]
    if t2:
        parts += [
            "## Table 2: ensembles",
            "",
            "TnT's C is found (bisection) so that one TnT on the training part has the paper's splits per base "
            "estimator (its #S for 20 estimators / 20); the CART base trees then get the TnT base "
            "estimators' mean splits (`max_leaf_nodes` = mean + 1). Ensembles of 5 and 10 are the first "
            "base estimators of the ensemble of 20 (scikit-learn draws them identically). Bagging: "
            "`max_samples=1.0`, `bootstrap_features=False`; AdaBoost: SAMME, learning rate 1.0. "
            + _cart_trees_sentence(settings.cart_trees),
            "",
            table2_markdown(t2),
            "",
        ]
    parts += [reading_markdown(t1, sweeps, t2, max_train=settings.max_train), ""]
    side = side or {}
    letter_splits, adaboost_sizes = side.get("letter_splits"), side.get("adaboost_sizes")
    if letter_splits is not None:
        parts += [
            "### Letter over five random test splits (`benchmarks/paper_letter.py`)",
            "",
            "Test accuracy in percent on the whole training part of each split (seed 0 of the models); "
            "split 0 is the one of Table 1 and Fig. 4.",
            "",
            letter_splits_markdown(letter_splits),
            "",
        ]
    if adaboost_sizes is not None:
        parts += [
            "### AdaBoost of CART at our base size and at the paper's (`benchmarks/paper_adaboost.py`)",
            "",
            "scikit-learn's AdaBoost (SAMME) of best-first CART on the same split, 5 seeds; base trees with "
            "the splits Table 2 gave them above (ours) and with the paper's splits per base estimator.",
            "",
            adaboost_sizes_markdown(adaboost_sizes),
            "",
        ]
    if side.get("cart_trees") is not None:
        parts += [
            "### Table 2's CART ensembles grown by both growers (`benchmarks/paper_cart_trees.py`)",
            "",
            "The same Random Forest and AdaBoost as Table 2 (same split, base sizes and seeds), their base "
            "trees grown by the binned best-first CART (Table 2's) and by scikit-learn's "
            "`DecisionTreeClassifier(max_leaf_nodes=...)`, test accuracy in percent; the two growers differ "
            "only where two splits are equally good. The minutes are each grower's fits and scoring, on the "
            "same workers at the same time.",
            "",
            cart_trees_markdown(side["cart_trees"]),
            "",
        ]
    if NOTES.is_file():
        parts += [NOTES.read_text().strip(), ""]
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
