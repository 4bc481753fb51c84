"""The reproduction's report: our numbers beside the paper's, as Markdown tables with a plain reading.

The reading of one number follows one rule (:func:`reading`): ours matches the paper's when it
lies within the paper's standard deviation, or within one point where the paper gives none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tnt.experiments.paper_numbers import C_RANGE, DATA_SHAPE, TABLE1, TABLE2

__all__ = [
    "NAMES",
    "adaboost_sizes_markdown",
    "cart_trees_markdown",
    "figure4_summary",
    "single_leaf_note",
    "letter_splits_markdown",
    "reading",
    "reading_markdown",
    "table1_markdown",
    "table2_markdown",
]

#: Names of the data sets as the paper prints them.
NAMES = {
    "mnist": "MNIST",
    "connect_4": "Connect-4",
    "letter": "Letter",
    "optdigits": "Optical recognition",
    "pendigits": "Pendigits",
    "usps": "USPS",
}


def reading(ours: float, paper: float, paper_std: float | None) -> str:
    """How our mean accuracy (percent) compares with the paper's.

    Examples
    --------
    >>> from tnt.experiments.paper_report import reading
    >>> reading(90.5, 90.87, 0.31), reading(88.0, 88.61, None), reading(86.0, 88.59, 0.14)
    ('match (within 1 point)', 'match (within 1 point)', 'below by 2.59')
    >>> print(reading(90.7, 90.87, 0.31), "/", reading(93.0, 91.74, 0.13))
    match (within the paper's ±0.31) / above by 1.26
    """
    diff = ours - paper
    if paper_std is not None and abs(diff) <= paper_std:
        return f"match (within the paper's ±{paper_std:.2f})"
    if abs(diff) <= 1.0:
        return "match (within 1 point)"
    return f"{'above' if diff > 0 else 'below'} by {abs(diff):.2f}"


#: Data sets whose numbers cannot be set beside the paper's, and why.
NOT_COMPARABLE = {"usps": "not comparable (10 classes here, 2 in the paper)"}


def _pm(mean: float, std: float | None) -> str:
    return f"{mean:.2f}" if std is None else f"{mean:.2f} ± {std:.2f}"


def _count(value: float) -> str:
    return f"{value / 1000:.1f}k" if value >= 1000 else f"{value:.0f}"


def table1_markdown(rows: dict) -> str:
    """Table 1, ours beside the paper's.

    Parameters
    ----------
    rows : dict
        ``{data set: DataFrame}`` from :func:`tnt.experiments.paper.table1`.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import table1_markdown
    >>> t = pd.DataFrame({"model": ["TnT", "TnT", "CART", "CART"], "trial": [0, 1, 0, 1],
    ...                   "chosen": [1e-3, 1e-3, 200, 200], "cv_accuracy": [0.9] * 4,
    ...                   "splits": [120, 130, 199, 199], "test_accuracy": [0.92, 0.93, 0.91, 0.91]})
    >>> print(table1_markdown({"pendigits": t}).splitlines()[2])
    | Pendigits | TnT | 92.50 ± 0.50 | 125 | C=0.001 | 92.61 ± 0.53 | 125 | match (within the paper's ±0.53) |
    """
    lines = [
        "| data | model | ours: test accuracy | ours: #S | chosen by CV | paper: test accuracy | paper: #S | reading |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, table in rows.items():
        for model in ("TnT", "CART"):
            part = table[table["model"] == model]
            acc = 100 * part["test_accuracy"]
            mean, std = acc.mean(), acc.std(ddof=0)
            chosen = part["chosen"].iloc[0]
            chosen = f"C={chosen:.3g}" if model == "TnT" else f"max_leaf_nodes={int(chosen)}"
            p_acc, p_std, p_splits = TABLE1[name][model]
            lines.append(
                f"| {NAMES[name]} | {model} | {_pm(mean, std)} | {part['splits'].mean():.0f} | {chosen} | "
                f"{_pm(p_acc, p_std)} | {_count(p_splits)} | "
                f"{NOT_COMPARABLE.get(name) or reading(mean, p_acc, p_std)} |"
            )
    return "\n".join(lines)


def table2_markdown(rows: dict) -> str:
    """Table 2, ours beside the paper's.

    Parameters
    ----------
    rows : dict
        ``{data set: DataFrame}`` from :func:`tnt.experiments.ensembles.compare_ensembles` with
        ``sizes``.
    """
    lines = [
        "| data | ensemble | #E | ours: #S | ours: train | ours: test | paper: #S | paper: train | paper: test | reading (test) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, table in rows.items():
        for (kind, size), group in table.groupby(["ensemble", "size"], sort=False):
            train, test = 100 * group["train_accuracy"], 100 * group["test_accuracy"]
            p_splits, p_train, p_train_std, p_test, p_test_std = TABLE2[name][(kind, int(size))]
            lines.append(
                f"| {NAMES[name]} | {kind} | {size} | {_count(group['total_splits'].mean())} | "
                f"{_pm(train.mean(), train.std(ddof=0))} | {_pm(test.mean(), test.std(ddof=0))} | {_count(p_splits)} | "
                f"{_pm(p_train, p_train_std)} | {_pm(p_test, p_test_std)} | {reading(test.mean(), p_test, p_test_std)} |"
            )
    return "\n".join(lines)


def adaboost_sizes_markdown(table: pd.DataFrame) -> str:
    """AdaBoost of CART at two sizes of base tree (``benchmarks/paper_adaboost.py``): the size our
    Table 2 matched to TnT-AdaBoost and the paper's splits per base estimator, each beside the
    paper's AdaBoost row, then a generated sentence per data set.

    ``table`` has one row per data set, ``base`` ("ours" or "paper's"), seed and ensemble size,
    with ``mean_splits``, ``train_accuracy`` and ``test_accuracy``.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import adaboost_sizes_markdown
    >>> t = pd.DataFrame({"data": "connect_4", "base": ["ours", "paper's"], "seed": 0, "size": 5,
    ...                   "mean_splits": [58.0, 90.0], "train_accuracy": [0.750, 0.768],
    ...                   "test_accuracy": [0.742, 0.759]})
    >>> print(adaboost_sizes_markdown(t).splitlines()[-1])
    Connect-4: at our base size, 0 of 1 rows match the paper's test accuracy; at the paper's, 1 of 1.
    """
    lines = [
        "| data | base trees | #E | splits per base | train | test | paper: train | paper: test | reading (test) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    sentences = []
    for name, part in table.groupby("data", sort=False):
        matches = {}
        for (base, size), group in part.groupby(["base", "size"], sort=False):
            train, test = 100 * group["train_accuracy"], 100 * group["test_accuracy"]
            _, p_train, p_train_std, p_test, p_test_std = TABLE2[name][("AdaBoost", int(size))]
            said = reading(test.mean(), p_test, p_test_std)
            matches.setdefault(base, []).append(said.startswith("match"))
            lines.append(
                f"| {NAMES[name]} | {base} | {size} | {group['mean_splits'].mean():.0f} | "
                f"{_pm(train.mean(), train.std(ddof=0))} | {_pm(test.mean(), test.std(ddof=0))} | "
                f"{_pm(p_train, p_train_std)} | {_pm(p_test, p_test_std)} | {said} |"
            )
        ours, papers = (f"{sum(matches.get(b, []))} of {len(matches.get(b, []))}" for b in ("ours", "paper's"))
        sentences.append(
            f"{NAMES[name]}: at our base size, {ours} rows match the paper's test accuracy; at the paper's, {papers}."
        )
    return "\n".join(lines + [""] + sentences)


def cart_trees_markdown(table: pd.DataFrame) -> str:
    """Table 2's CART ensembles grown by both growers (``benchmarks/paper_cart_trees.py``): test
    accuracy of each, their difference against the spread over seeds, then a generated sentence per
    data set with the minutes each grower took.

    ``table`` has one row per data set, ensemble, grower (``cart_trees``: "binned" or
    "scikit-learn"), seed and size, with ``mean_splits``, ``test_accuracy`` and ``seconds`` (the
    fit and scoring of the whole ensemble, repeated on each of its sizes).

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import cart_trees_markdown
    >>> t = pd.DataFrame({"data": "mnist", "ensemble": "AdaBoost", "size": 5, "seed": [0, 1, 0, 1],
    ...                   "cart_trees": ["binned"] * 2 + ["scikit-learn"] * 2, "mean_splits": 293.0,
    ...                   "test_accuracy": [0.90, 0.92, 0.91, 0.91], "seconds": [60.0, 60.0, 150.0, 150.0]})
    >>> print(cart_trees_markdown(t).splitlines()[-1])
    MNIST: the binned trees' test accuracy within the spread over seeds of scikit-learn's in 1 of 1 rows (largest difference 0.00 points); 2.0 minutes against 5.0 (0.40 of the time).
    """
    lines = [
        "| data | ensemble | #E | splits per base | test, binned | test, scikit-learn | difference | within the spread |",
        "|---|---|---|---|---|---|---|---|",
    ]
    sentences = []
    for name, part in table.groupby("data", sort=False):
        within, largest = [], 0.0
        for (kind, size), group in part.groupby(["ensemble", "size"], sort=False):
            test = {g: 100 * group[group["cart_trees"] == g]["test_accuracy"] for g in ("binned", "scikit-learn")}
            diff = test["binned"].mean() - test["scikit-learn"].mean()
            spread = max(test["binned"].std(ddof=0), test["scikit-learn"].std(ddof=0))
            within.append(abs(diff) <= spread + 1e-9)
            largest = max(largest, abs(diff))
            lines.append(
                f"| {NAMES[name]} | {kind} | {size} | {group['mean_splits'].mean():.0f} | "
                f"{_pm(test['binned'].mean(), test['binned'].std(ddof=0))} | "
                f"{_pm(test['scikit-learn'].mean(), test['scikit-learn'].std(ddof=0))} | {round(diff, 2) + 0.0:+.2f} | "
                f"{'yes' if within[-1] else 'no'} |"
            )
        fits = part.drop_duplicates(["ensemble", "seed", "cart_trees"])
        minutes = {g: fits[fits["cart_trees"] == g]["seconds"].sum() / 60 for g in ("binned", "scikit-learn")}
        sentences.append(
            f"{NAMES[name]}: the binned trees' test accuracy within the spread over seeds of scikit-learn's in "
            f"{sum(within)} of {len(within)} rows (largest difference {largest:.2f} points); "
            f"{minutes['binned']:.1f} minutes against {minutes['scikit-learn']:.1f} "
            f"({minutes['binned'] / minutes['scikit-learn']:.2f} of the time)."
        )
    return "\n".join(lines + [""] + sentences)


def figure4_summary(summary: pd.DataFrame) -> dict:
    """For each other model of a Fig. 4 sweep, at how many values of C TnT's mean test accuracy is
    higher, and the mean difference in points.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import figure4_summary
    >>> s = pd.DataFrame({"tnt_test_acc_mean": [0.9, 0.8], "cart_test_acc_mean": [0.85, 0.82]})
    >>> figure4_summary(s)
    {'CART': (1, 2, 1.5)}
    """
    from tnt.experiments.sweep import MODEL_NAMES

    out = {}
    for prefix, name in MODEL_NAMES.items():
        column = f"{prefix}_test_acc_mean"
        if prefix == "tnt" or column not in summary:
            continue
        diff = summary["tnt_test_acc_mean"] - summary[column]
        out[name] = (int((diff > 0).sum()), int(diff.size), round(float(100 * diff.mean()), 2))
    return out


def single_leaf_note(summary: pd.DataFrame) -> str:
    """A sentence naming the models that are a single leaf (fewer than one split on average) at
    some value of C of a Fig. 4 sweep (:func:`tnt.experiments.sweep.summarize`): the log axis has no place for them, so the figure leaves
    them out; empty when there are none.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import single_leaf_note
    >>> s = pd.DataFrame({"tnt_splits_mean": [40.0, 0.0], "cart_splits_mean": [40.0, 1.0]},
    ...                  index=pd.Index([0.001, 0.05], name="C"))
    >>> single_leaf_note(s)
    'Not drawn (a single leaf, 0 splits, has no place on the log axis): TnT at C=0.05.'
    """
    from tnt.experiments.sweep import MODEL_NAMES

    missing = []
    for prefix, name in MODEL_NAMES.items():
        column = f"{prefix}_splits_mean"
        if column in summary:
            Cs = summary.index[summary[column] < 1]  # summarize's index: C
            if len(Cs):
                missing.append(f"{name} at C={', '.join(f'{C:g}' for C in Cs)}")
    if not missing:
        return ""
    return f"Not drawn (a single leaf, 0 splits, has no place on the log axis): {'; '.join(missing)}."


def _t1_mean(table: pd.DataFrame, model: str) -> float:
    return float(100 * table.loc[table["model"] == model, "test_accuracy"].mean())


def _diagnose(name: str, table: pd.DataFrame, sweep: pd.DataFrame | None, max_train: int | None) -> str:
    """What the tables say about a shortfall of TnT in Table 1: where C fell in the grid, how TnT
    fitted the training data there, whether our CART falls short too, how much data was used."""
    chosen = float(table.loc[table["model"] == "TnT", "chosen"].iloc[0])
    low, high = C_RANGE[name]
    said = []
    if np.isclose(chosen, low, rtol=1e-3):
        said.append("cross-validation chose the smallest C of the grid (more splits might have scored higher)")
    elif np.isclose(chosen, high, rtol=1e-3):
        said.append("cross-validation chose the largest C of the grid")
    if sweep is not None and len(sweep):
        Cs = sweep["C"].to_numpy(dtype=float)
        near = Cs[np.argmin(np.abs(np.log(Cs) - np.log(chosen)))]
        rows = sweep[sweep["C"] == near]
        shared = rows["tnt_shared_nodes"].mean() if "tnt_shared_nodes" in rows else float("nan")
        said.append(
            f"at C={near:.3g} Fig. 4's TnT has {100 * rows['tnt_train_acc'].mean():.2f}% training accuracy "
            f"with {rows['tnt_splits'].mean():.0f} splits and {shared:.0f} shared nodes"
            + (" (a TnT that shares no node is a tree)" if shared == 0 else "")
        )
    p_cart, p_cart_std, _ = TABLE1[name]["CART"]
    cart = _t1_mean(table, "CART")
    if reading(cart, p_cart, p_cart_std).startswith("below"):
        said.append(
            f"our CART is below the paper's as well ({reading(cart, p_cart, p_cart_std)}), so part of the gap is the data or protocol, not TnT alone"
        )
    tnt = _t1_mean(table, "TnT")
    said.append(f"ours TnT {'above' if tnt > cart else 'not above'} our CART ({tnt - cart:+.2f} points)")
    n_paper = DATA_SHAPE[name][0]
    if max_train is not None and max_train < n_paper:
        said.append(f"trained on at most {max_train:,} of about {n_paper:,} training samples")
    return "; ".join(said)


def reading_markdown(t1: dict, sweeps: dict, t2: dict, *, max_train: int | None = None) -> str:
    """The plain reading of the report, generated from the tables (so it cannot drift from them).

    Parameters
    ----------
    t1 : dict
        ``{data set: DataFrame}`` of :func:`tnt.experiments.paper.table1`.
    sweeps : dict
        ``{data set: DataFrame}`` of Fig. 4's sweeps (rows per C and seed).
    t2 : dict
        ``{data set: DataFrame}`` of Table 2 (:func:`tnt.experiments.ensembles.compare_ensembles`).
    max_train : int, default=None
        Training samples kept per data set in the run.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import reading_markdown
    >>> t = pd.DataFrame({"model": ["TnT", "CART"], "trial": [0, 0], "chosen": [5e-4, 200],
    ...                   "cv_accuracy": [0.9, 0.9], "splits": [120, 199], "test_accuracy": [0.90, 0.91]})
    >>> text = reading_markdown({"pendigits": t}, {}, {})
    >>> "CART on Pendigits" in text.split("Not within")[0], "TnT on Pendigits (below by 2.61" in text
    (True, True)
    """
    lines = ["## Reading (generated from the tables)", ""]
    matched = {"TnT": [], "CART": []}
    missed = {"TnT": [], "CART": []}
    for name, table in t1.items():
        if name in NOT_COMPARABLE:
            continue
        for model in ("TnT", "CART"):
            acc, std, _ = TABLE1[name][model]
            said = reading(_t1_mean(table, model), acc, std)
            if said.startswith("match"):
                matched[model].append(NAMES[name])
            else:
                missed[model].append(f"{NAMES[name]} ({said})")
    comparable = [NAMES[n] for n in t1 if n not in NOT_COMPARABLE]
    if comparable:
        lines.append(
            "- **Table 1, within the paper's spread** (its ± std, or 1 point): "
            + "; ".join(f"{m} on {', '.join(v)}" if v else f"{m} on none" for m, v in matched.items())
            + f" (of {', '.join(comparable)})."
        )
        if missed["TnT"] or missed["CART"]:
            lines.append(
                "- **Table 1, not within it**: "
                + "; ".join(f"{m} on {', '.join(v)}" for m, v in missed.items() if v)
                + "."
            )
        wins = [NAMES[n] for n, t in t1.items() if _t1_mean(t, "TnT") > _t1_mean(t, "CART")]
        lines.append(
            f"- **TnT above CART** (the paper's claim, on every set): ours on {len(wins)} of {len(t1)} "
            f"({', '.join(wins) if wins else 'none'})."
        )
    for name, table in t1.items():
        if name in NOT_COMPARABLE:
            continue
        acc, std, _ = TABLE1[name]["TnT"]
        said = reading(_t1_mean(table, "TnT"), acc, std)
        if said.startswith("below"):
            lines.append(f"- **{NAMES[name]}, TnT {said}**: {_diagnose(name, table, sweeps.get(name), max_train)}.")
    for name, table in t2.items():
        counts = {"match": 0, "other": []}
        beats = {}
        for (kind, size), group in table.groupby(["ensemble", "size"], sort=False):
            _, _, _, p_test, p_std = TABLE2[name][(kind, int(size))]
            ours = 100 * group["test_accuracy"].mean()
            said = reading(ours, p_test, p_std)
            if said.startswith("match"):
                counts["match"] += 1
            else:
                counts["other"].append(f"{kind} of {size} {said}")
            beats[(kind, int(size))] = ours
        pairs = [("TnT-bagging", "Random Forest"), ("TnT-AdaBoost", "AdaBoost")]
        won = [
            f"{tnt} above {base} at {sum(beats[(tnt, k)] > beats[(base, k)] for k in (5, 10, 20) if (tnt, k) in beats)}"
            f" of {sum((tnt, k) in beats for k in (5, 10, 20))} sizes"
            for tnt, base in pairs
        ]
        lines.append(
            f"- **Table 2, {NAMES[name]}**: test accuracy within the paper's spread (or 1 point) for "
            f"{counts['match']} of {len(beats)} rows"
            + (f"; not for {', '.join(counts['other'])}" if counts["other"] else "")
            + f". Ours: {'; '.join(won)}."
        )
    return "\n".join(lines)


def letter_splits_markdown(table: pd.DataFrame) -> str:
    """Letter over several random test splits (``benchmarks/paper_letter.py``): a table per split
    and a generated sentence on where the paper's Table 1 values fall among them.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.experiments.paper_report import letter_splits_markdown
    >>> t = pd.DataFrame({"split": [0, 0, 1, 1], "model": ["TnT", "CART"] * 2, "C": [1e-4] * 4,
    ...                   "splits": [1200, 1200, 1210, 1210], "shared_nodes": [100, 0, 90, 0],
    ...                   "train_accuracy": [0.99] * 4, "test_accuracy": [0.855, 0.857, 0.868, 0.867]})
    >>> print(letter_splits_markdown(t).splitlines()[-1])
    TnT's test accuracy ranges over the splits from 85.50 to 86.80 at C=0.0001 (split 0, Table 1's, gives 85.50); CART's with as many splits from 85.70 to 86.70. Their means over the splits against the paper's Table 1: TnT match (within 1 point), CART match (within the paper's ±0.15). The paper: TnT 86.62 ± 0.02, CART 86.26 ± 0.15; TnT's and CART's lie within our range over the splits.
    """
    models = [m for m in ("CART unpruned", "TnT", "CART") if m in set(table["model"])]
    Cs = sorted(table["C"].dropna().unique())
    header = ["split"]
    if "CART unpruned" in models:
        header.append("CART unpruned")
    for C in Cs:
        header += [f"TnT, C={C:g} (#S, shared)", f"CART, TnT's #S (C={C:g})"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for split, part in table.groupby("split"):
        cells = [str(split)]
        if "CART unpruned" in models:
            row = part[part["model"] == "CART unpruned"].iloc[0]
            cells.append(f"{100 * row['test_accuracy']:.2f} ({row['splits']:.0f})")
        for C in Cs:
            tnt = part[(part["model"] == "TnT") & (part["C"] == C)].iloc[0]
            cart = part[(part["model"] == "CART") & (part["C"] == C)].iloc[0]
            cells += [
                f"{100 * tnt['test_accuracy']:.2f} ({tnt['splits']:.0f}, {tnt['shared_nodes']:.0f})",
                f"{100 * cart['test_accuracy']:.2f}",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    mean = ["mean"]
    if "CART unpruned" in models:
        mean.append(f"{100 * table.loc[table['model'] == 'CART unpruned', 'test_accuracy'].mean():.2f}")
    for C in Cs:
        for model in ("TnT", "CART"):
            mean.append(f"{100 * table.loc[(table['model'] == model) & (table['C'] == C), 'test_accuracy'].mean():.2f}")
    lines.append("| " + " | ".join(mean) + " |")
    said = []
    for C in Cs[-1:]:  # the C nearest the paper's split count
        tnt = table[(table["model"] == "TnT") & (table["C"] == C)].set_index("split")["test_accuracy"] * 100
        cart = table[(table["model"] == "CART") & (table["C"] == C)]["test_accuracy"] * 100
        said.append(
            f"TnT's test accuracy ranges over the splits from {tnt.min():.2f} to {tnt.max():.2f} at C={C:g} "
            f"(split 0, Table 1's, gives {tnt.get(0, float('nan')):.2f}); CART's with as many splits from "
            f"{cart.min():.2f} to {cart.max():.2f}. Their means over the splits against the paper's Table 1: "
            f"TnT {reading(tnt.mean(), *TABLE1['letter']['TnT'][:2])}, CART {reading(cart.mean(), *TABLE1['letter']['CART'][:2])}."
        )
    p_tnt, p_cart = TABLE1["letter"]["TnT"], TABLE1["letter"]["CART"]
    said.append(f"The paper: TnT {_pm(p_tnt[0], p_tnt[1])}, CART {_pm(p_cart[0], p_cart[1])}")
    inside = [
        name
        for name, values, paper in (("TnT's", tnt, p_tnt[0]), ("CART's", cart, p_cart[0]))
        if values.min() <= paper <= values.max()
    ]
    said[-1] += (
        f"; {' and '.join(inside)} lie{'s' if len(inside) == 1 else ''} within our range over the splits."
        if inside
        else "; neither lies within our range over the splits."
    )
    return "\n".join(lines) + "\n\n" + " ".join(said)
