"""The reproduction's report: our numbers beside the paper's, as Markdown tables with a plain reading.

The reading of one number follows one rule (:func:`reading`): ours matches the paper's when it
lies within the paper's standard deviation, or within one point where the paper gives none.
"""

from __future__ import annotations

import pandas as pd

from tnt.experiments.paper_numbers import TABLE1, TABLE2

__all__ = ["NAMES", "figure4_summary", "reading", "table1_markdown", "table2_markdown"]

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
                f"{_pm(p_acc, p_std)} | {_count(p_splits)} | {reading(mean, p_acc, p_std)} |"
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
