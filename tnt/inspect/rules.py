"""Every leaf of a decision graph as readable rules.

A leaf of a graph is reached by several paths, so it has several rules. Each path's tests merge into
one interval per feature (``30 < age <= 52``); paths whose merged conditions read the same are one
rule. The paths into each node are counted by dynamic programming (never listed: a graph can have
millions); the rules shown for a leaf are those its training and test samples take (a sample in a
rule's box takes that rule's path, so a rule's coverage is the samples on its paths), best covered
first, and the rest of the leaf's paths are summed up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from tnt.graph import DecisionGraph
from tnt.inspect.reach import Routes
from tnt.wording import categories_text, format_number, format_value, shows_missing

__all__ = [
    "MISSING_ONLY",
    "MISSING_TOO",
    "PRESENT_ONLY",
    "Categories",
    "LeafRules",
    "leaf_rules",
    "merged_conditions",
    "rule_text",
]


class Categories(NamedTuple):
    """What a path says of a categorical feature: the categories (``names``, in the feature's
    order) whose codes are in ``allowed`` take it."""

    names: tuple
    allowed: frozenset


#: What a path says of a feature's missing values, in a graph whose texts say where they go: they
#: take the path too, they do not (only present values in the interval do), or only they do.
MISSING_TOO, PRESENT_ONLY, MISSING_ONLY = "or missing", "present", "missing"


def merged_conditions(graph: DecisionGraph, path: list[int], show_missing: bool | None = None) -> dict[int, tuple]:
    """The tests along ``path`` (node ids, root first) merged per feature into ``(low, high)``: the
    path holds the samples with ``low < x[feature] <= high`` for every feature listed. In a graph
    whose texts say where missing values go (:func:`tnt.wording.shows_missing`, ``show_missing``
    as there), each is ``(low, high, missing)``, ``missing`` saying whether a sample missing that
    feature takes the path too (:data:`MISSING_TOO`), does not (:data:`PRESENT_ONLY`), or is the only
    one that does (:data:`MISSING_ONLY`, past a test of missingness, which every graph says).

    Examples
    --------
    >>> g = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [52, 30, -2, -2, -2],
    ...                   np.ones((5, 2)))
    >>> merged_conditions(g, [0, 2]), merged_conditions(g, [0, 1, 4])
    ({0: (52.0, inf)}, {0: (30.0, 52.0)})
    >>> m = DecisionGraph([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [52, 30, -2, -2, -2],
    ...                   np.ones((5, 2)), missing_go_to_left=[1, 0, 0, 0, 0], missing_in_training=True)
    >>> merged_conditions(m, [0, 1, 3]), merged_conditions(m, [0, 1, 4])
    ({0: (-inf, 30.0, 'present')}, {0: (30.0, 52.0, 'or missing')})
    >>> merged_conditions(m, [0, 1, 4], show_missing=False)
    {0: (30.0, 52.0)}

    A categorical feature's tests merge into the set of its categories that take the path,
    ``(Categories(names, allowed), ...)``.
    """
    missing = _directions_said(graph, show_missing)
    feature, threshold, left = graph.feature.tolist(), graph.threshold.tolist(), graph.children_left.tolist()
    return _merge(path, feature, threshold, left, missing, _subsets(graph))


def _subsets(graph: DecisionGraph) -> list | None:
    """Per node, ``(category names, codes sent left)`` at a categorical split, None elsewhere; None
    for a graph without categorical splits."""
    categorical = graph.is_categorical
    if not categorical.any():
        return None
    subsets = [None] * graph.node_count
    for node in np.flatnonzero(categorical):
        names = tuple(str(n) for n in graph.categories[int(graph.feature[node])])
        subsets[node] = (names, frozenset(graph.left_categories(node).tolist()))
    return subsets


def _directions_said(graph: DecisionGraph, show_missing: bool | None) -> list | None:
    """The directions the rules say (``missing_go_to_left`` as a list), or None where they say none."""
    return graph.missing_go_to_left.tolist() if shows_missing(graph, show_missing) else None


def _merge(
    path, feature: list, threshold: list, left: list, missing_left: list | None = None, subsets: list | None = None
) -> dict[int, tuple]:
    """:func:`merged_conditions` on the graph's arrays as lists (fast for many paths); a path may
    end in ``-1`` padding. ``subsets`` is :func:`_subsets`."""
    box: dict[int, tuple] = {}
    for node, child in zip(path[:-1], path[1:]):
        if child < 0:
            break
        went_left = child == left[node]
        if subsets is not None and subsets[node] is not None:
            names, sent_left = subsets[node]
            held, *said = box.get(
                feature[node],
                (Categories(names, frozenset(range(len(names)))), *([] if missing_left is None else [MISSING_TOO])),
            )
            allowed = held.allowed & sent_left if went_left else held.allowed - sent_left
            if missing_left is not None and bool(missing_left[node]) != went_left:
                said = [PRESENT_ONLY]
            box[feature[node]] = (Categories(names, allowed), *said)
            continue
        low, high, *said = box.get(feature[node], (-np.inf, np.inf, *([] if missing_left is None else [MISSING_TOO])))
        t = threshold[node]
        if t == np.inf:  # a test of missingness: present values go left
            box[feature[node]] = (low, high, PRESENT_ONLY if went_left else MISSING_ONLY)
            continue
        low, high = (low, min(high, t)) if went_left else (max(low, t), high)
        if missing_left is None:  # only what a test of missingness said, if one did
            box[feature[node]] = (low, high, *said)
        else:
            takes = bool(missing_left[node]) == went_left
            box[feature[node]] = (low, high, said[0] if takes or said[0] == MISSING_ONLY else PRESENT_ONLY)
    return box


def rule_text(conditions: dict[int, tuple], feature_names=None, precision: int = 3) -> str:
    """Merged conditions as text, features in order: ``"30 < age <= 52 and hours > 40"``; with what
    they say of missing values (:func:`merged_conditions`), ``"(age <= 52 or missing)"`` or
    ``"hours is missing"``.

    Examples
    --------
    >>> rule_text({1: (40.0, np.inf), 0: (30.0, 52.0)}, ["age", "hours"])
    '30 < age <= 52 and hours > 40'
    >>> rule_text({0: (-np.inf, 52.0, "or missing"), 1: (-np.inf, np.inf, "missing")}, ["age", "hours"])
    '(age <= 52 or missing) and hours is missing'
    >>> rule_text({})
    'every sample'
    """
    parts = []
    for f in sorted(conditions):
        name = str(feature_names[f]) if feature_names is not None else f"x[{f}]"
        if isinstance(conditions[f][0], Categories):
            held, *said = conditions[f]
            names_in = [n for code, n in enumerate(held.names) if code in held.allowed]
            names_out = [n for code, n in enumerate(held.names) if code not in held.allowed]
            if not names_in and said == [MISSING_TOO]:  # no category takes the path: only a missing value
                parts.append(f"{name} is missing")
                continue
            parts.append(categories_text(name, names_in, names_out, missing=said == [MISSING_TOO]))
            continue
        low, high, *said = conditions[f]
        lo, hi = format_number(low, precision), format_number(high, precision)
        if said == [MISSING_ONLY]:
            parts.append(f"{name} is missing")
            continue
        if np.isfinite(low) and np.isfinite(high):
            text = f"{lo} < {name} <= {hi}"
        elif np.isfinite(high):
            text = f"{name} <= {hi}"
        elif np.isfinite(low):
            text = f"{name} > {lo}"
        else:  # only a test of missingness, passed
            text = f"{name} is not missing"
        parts.append(f"({text} or missing)" if said == [MISSING_TOO] else text)
    return " and ".join(parts) if parts else "every sample"


def _rules_taken(graph: DecisionGraph, routes: Routes, rules: dict, show_missing: bool | None) -> pd.DataFrame:
    """Per sample: its leaf, its rule's id and its path's id (the same id for the same path). A
    rule is a path's merged conditions as a sorted tuple of ``(feature, (low, high[, missing]))``; ``rules``
    maps each to its id and grows with the rules first seen here."""
    lengths = np.diff(routes.indptr)
    padded = np.full((routes.n_samples, int(lengths.max(initial=0))), -1, dtype=np.intp)
    rows = np.repeat(np.arange(routes.n_samples), lengths)
    padded[rows, np.arange(routes.nodes.size) - routes.indptr[rows]] = routes.nodes
    distinct, which = _distinct_rows(padded)
    feature, threshold = graph.feature.tolist(), graph.threshold.tolist()
    left = graph.children_left.tolist()
    missing = _directions_said(graph, show_missing)
    subsets = _subsets(graph)
    ids = np.empty(len(distinct), dtype=np.intp)
    for i, path in enumerate(distinct.tolist()):
        box = _merge(path, feature, threshold, left, missing, subsets)
        ids[i] = rules.setdefault(tuple(sorted(box.items())), len(rules))
    which = which.reshape(-1)
    return pd.DataFrame({"leaf": routes.leaves, "rule": ids[which], "path": which})


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)``, in another order and faster: rows are grouped
    by a 64-bit hash, and the groups checked to hold equal rows (sorted whole rows when one does not)."""
    weights = np.random.default_rng(0).integers(1, 2**62, size=rows.shape[1], dtype=np.int64) * 2 + 1
    with np.errstate(over="ignore"):
        hashes = (rows.astype(np.int64) * weights).sum(axis=1)  # wraps around: a hash modulo 2**64
    _, first, which = np.unique(hashes, return_index=True, return_inverse=True)
    which = which.reshape(-1)
    distinct = rows[first]
    if not np.array_equal(distinct[which], rows):
        distinct, which = np.unique(rows, axis=0, return_inverse=True)
    return distinct, which.reshape(-1)


def _coverage(graph: DecisionGraph, taken: pd.DataFrame, y, prefix: str) -> pd.DataFrame:
    """Per (leaf, rule): samples, distinct paths, and precision (regression: mean and RMSE)."""
    frame = taken.assign(y=np.asarray(y))
    if graph.regression:
        frame["hit"] = frame["y"].astype(np.float64)
        frame["sq"] = (frame["y"].astype(np.float64) - graph.value[frame["leaf"].to_numpy(), 0]) ** 2
        grouped = frame.groupby(["leaf", "rule"], sort=False).agg(
            samples=("hit", "size"), paths=("path", "nunique"), mean=("hit", "mean"), mse=("sq", "mean")
        )
        grouped["rmse"] = np.sqrt(grouped.pop("mse"))
    else:
        frame["hit"] = (frame["y"].to_numpy() == graph.predicted_class()[frame["leaf"].to_numpy()]).astype(float)
        grouped = frame.groupby(["leaf", "rule"], sort=False).agg(
            samples=("hit", "size"), paths=("path", "nunique"), precision=("hit", "mean")
        )
    grouped = grouped.rename(columns={c: f"{prefix}_{c}" for c in grouped.columns})
    return grouped


@dataclass(frozen=True, eq=False)
class LeafRules:
    """The rules of every leaf.

    Attributes
    ----------
    rules : pandas.DataFrame
        One row per rule shown, grouped by predicted class, best covered first: ``leaf``,
        ``prediction``, ``rule``, ``paths`` (the leaf's paths it merges that samples take),
        ``train_samples``, ``train_coverage`` (share of all training samples), ``train_precision``
        (share predicted right; a regression has ``train_mean`` and ``train_rmse``), and the same for
        ``test``.
    leaves : pandas.DataFrame
        One row per leaf: ``leaf``, ``prediction``, ``paths`` (all its paths, counted by dynamic
        programming), ``rules_shown``, ``other_paths`` (the paths of its rules not shown) and
        ``other_train_samples`` (the training samples those cover).
    """

    rules: pd.DataFrame
    leaves: pd.DataFrame

    def to_csv(self) -> str:
        """The rules table as CSV text."""
        return self.rules.to_csv(index=False)

    def to_text(self, target_name: str = "class") -> str:
        """The rules as ``IF ... THEN ...`` lines, leaf by leaf."""
        lines = []
        regression = "train_mean" in self.rules.columns
        for leaf in self.leaves.itertuples():
            lines.append(f"Leaf {leaf.leaf} (predicts {leaf.prediction}), {leaf.paths:,} paths:")
            for r in self.rules[self.rules["leaf"] == leaf.leaf].itertuples():
                if regression:
                    said = f"train {r.train_samples:,} (mean {format_value(r.train_mean)}, RMSE {format_value(r.train_rmse)})"
                else:
                    said = (f"train {r.train_samples:,} ({r.train_precision:.0%} right), "
                            f"test {r.test_samples:,}" + ("" if r.test_samples == 0 else f" ({r.test_precision:.0%} right)"))  # fmt: skip
                lines.append(f"  IF {r.rule} THEN {target_name} = {r.prediction}   [{said}]")
            if leaf.other_paths:
                lines.append(
                    f"  ... and {leaf.other_paths:,} other paths covering {leaf.other_train_samples:,} training samples"
                )
        return "\n".join(lines) + "\n"


def leaf_rules(graph: DecisionGraph, train: Routes, y_train, test: Routes | None = None, y_test=None,
               feature_names=None, class_names=None, top: int = 3, show_missing=None) -> LeafRules:  # fmt: skip
    """The top ``top`` rules of every leaf by training coverage, with training and test coverage and
    precision (a regression: mean and RMSE of the covered targets).

    Parameters
    ----------
    graph : DecisionGraph
    train, test : Routes
        The training and test samples' paths (:func:`tnt.inspect.reach.routes`); ``test`` optional.
    y_train, y_test : array-like
        Class indices (:func:`tnt.inspect.reach.class_indices`), or targets of a regression.
    feature_names, class_names : list of str, optional
    top : int, default=3
    show_missing : bool, default=None
        Whether the rules say where missing values go, as in the drawings
        (:func:`tnt.wording.shows_missing`): by default only for a graph that learned them from
        training data with missing values.

    Returns
    -------
    LeafRules

    Examples
    --------
    >>> from tnt.inspect.reach import routes
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2], [0.5, 0.5, 1.5, -2, -2],
    ...                   [[2, 2], [1, 1], [1, 1], [1, 0], [1, 2]])
    >>> X, y = [[0.0, 0.0], [1.0, 1.0], [1.0, 2.0], [0.0, 1.0]], [0, 0, 1, 1]
    >>> r = leaf_rules(g, routes(g, X), y, feature_names=["a", "b"], class_names=["n", "p"])
    >>> r.rules[["leaf", "rule", "train_samples", "train_precision"]].values.tolist()
    [[3, 'a <= 0.5 and b <= 0.5', 1, 1.0], [3, 'a > 0.5 and b <= 1.5', 1, 1.0], [4, 'a <= 0.5 and b > 0.5', 1, 1.0], [4, 'a > 0.5 and b > 1.5', 1, 1.0]]
    >>> r.leaves[["leaf", "paths", "other_paths"]].values.tolist()
    [[3, 2, 0], [4, 2, 0]]
    """
    rules: dict = {}
    trained = _coverage(graph, _rules_taken(graph, train, rules, show_missing), y_train, "train")
    table = trained
    if test is not None and test.n_samples:
        table = trained.join(
            _coverage(graph, _rules_taken(graph, test, rules, show_missing), y_test, "test"), how="outer"
        )
    table = table.reset_index()
    for column in [c for c in table.columns if c.endswith("_samples") or c.endswith("_paths")]:
        table[column] = table[column].fillna(0).astype(np.int64)
    if "test_samples" not in table:
        table["test_samples"] = 0
    table["paths"] = table[["train_paths"] + (["test_paths"] if "test_paths" in table else [])].max(axis=1)
    table = table.drop(columns=[c for c in ("train_paths", "test_paths") if c in table])
    n_train = max(train.n_samples, 1)
    table["train_coverage"] = table["train_samples"] / n_train
    if graph.regression:
        table["prediction"] = [format_value(graph.value[leaf, 0]) for leaf in table["leaf"]]
        order = ["leaf"]
    else:
        predicted = graph.predicted_class()[table["leaf"].to_numpy()]
        table["prediction"] = [str(class_names[k]) if class_names is not None else str(k) for k in predicted]
        table["_class"] = predicted
        order = ["_class"]
    table = table.sort_values(order + ["train_samples", "test_samples", "rule"],
                              ascending=[True, False, False, True], kind="stable")  # fmt: skip
    table["_rank"] = table.groupby("leaf").cumcount()
    shown = table[table["_rank"] < top].copy()
    conditions = list(rules)  # a rule's merged conditions, by id; written out only for the rules shown
    shown["rule"] = [rule_text(dict(conditions[i]), feature_names) for i in shown["rule"]]
    hidden = table[table["_rank"] >= top]
    all_paths = graph.path_counts()
    leaves = sorted(set(table["leaf"].tolist()))
    summary = pd.DataFrame({
        "leaf": leaves,
        "prediction": [shown.loc[shown["leaf"] == leaf, "prediction"].iloc[0] for leaf in leaves],
        "paths": [all_paths[leaf] for leaf in leaves],
        "rules_shown": [int((shown["leaf"] == leaf).sum()) for leaf in leaves],
    })  # fmt: skip
    shown_paths = shown.groupby("leaf")["paths"].sum()
    summary["other_paths"] = [all_paths[leaf] - int(shown_paths.get(leaf, 0)) for leaf in leaves]
    hidden_train = hidden.groupby("leaf")["train_samples"].sum()
    summary["other_train_samples"] = [int(hidden_train.get(leaf, 0)) for leaf in leaves]
    measures = ["mean", "rmse"] if graph.regression else ["precision"]
    columns = ["leaf", "prediction", "rule", "paths", "train_samples", "train_coverage"]
    columns += [f"train_{m}" for m in measures] + ["test_samples"]
    columns += [f"test_{m}" for m in measures if f"test_{m}" in table]
    return LeafRules(rules=shown[columns].reset_index(drop=True), leaves=summary)
