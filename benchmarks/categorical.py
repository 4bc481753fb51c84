"""Categories as categories (issue 52, point 5): TnT splitting categorical columns by subsets against
the same columns as ordinal codes and as one-hot columns, and against CART at the same splits,
written to benchmarks/categorical.md.

Run from the repository root:

    .venv/bin/python benchmarks/categorical.py [--seeds 3] [--sets credit_g churn ...]

The tables are the benchmark suite's sets whose columns are categorical attributes by their sources'
descriptions, and the Palmer penguins' CSV file that the package ``palmerpenguins`` ships, its text
columns ``island`` and ``sex`` categorical (:data:`SETS`, named with their columns in
``docs/data-sets.md``), all found through the project's data loader
(:func:`tnt.data.external.find_data`, which checks each file's SHA-256). The penguins and (d) need the
``bench`` extra (``pip install -e '.[bench]'``); without it the run leaves them out and its report
says what is missing and how to get it. Each
seed splits a set 67/33 (stratified, as ``benchmarks/accuracy.py``); at each C of 1e-2, 1e-3, 1e-4
(TnT's other settings at their defaults, ``random_state`` = seed; since version 0.2 the default size
is chosen on held-out data, ``ccp_alpha="auto"``, C its lower bound):

- **subsets**: TnT with ``categorical_features`` (the columns split by subsets of their categories);
- **(a) ordinal**: TnT on the same columns as their codes (the set's codes; for ``car_evaluation``,
  whose source holds one-hot columns, the categories' alphabetical order, as the app coded text
  before), split by thresholds;
- **(b) one-hot**: TnT on one column of 0/1 per category (the training rows' categories);
- **(c) CART one-hot**: scikit-learn's tree grown best-first on the one-hot columns to the subset
  TnT's number of splits (``CARTClassifier.with_splits``); scikit-learn 1.9.1's trees have no
  ``categorical_features``, so **CART subsets** is the project's own CART learner on the categories
  (``CARTClassifier.with_splits(n, categorical_features=...)``) at the same splits;
- **(d) LightGBM** with one boosting round on its own categorical handling (pandas ``category``
  columns, ``categorical_feature``), each tree of at most TnT's splits + 1 leaves
  (``LGBMClassifier(n_estimators=1, num_leaves=..., learning_rate=1.0, min_child_samples=1,
  n_jobs=1)``), with its defaults and with its categorical regularisation off
  (:data:`LIGHTGBM_VARIANTS`); with more than two classes one round is one tree per class, and its
  splits are counted over all of them;
- **(e) target order**: TnT on the codes of each categorical column re-numbered once, on the whole
  training part, by the category's share of the positive class (two classes; with more, of the
  training part's most frequent class), split by thresholds: Breiman's ordering taken at the root
  only, as a data transform (tried against the over-fitting of subsets chosen at small nodes);
- **(f) guarded subsets**: TnT with subsets whose internal nodes take a refit only when it
  misroutes less (``internal_refit="improving"``), tried against the same over-fitting;
- **(g) subsets, held-out size**: TnT with subsets at the size a held-out graph chooses
  (``ccp_alpha="held_out_regrown"``, the app's "chosen on a held-out graph"), beside **(h)** the ordinal
  codes at that option: each against one-hot CART at its own splits;
- **(i) pooled subsets**: TnT with subsets whose categories of fewer than :data:`POOLED` samples at a
  node (of five categories or more) are ranked as one (``min_category_samples``), tried against the
  over-fitting of subsets chosen on the few samples of many categories.

The report gives per (set, C) pair the means over the seeds, and the summary the share of pairs where
TnT with subsets is at least one-hot CART at equal splits with the mean gain (the issue's target:
80 % of the pairs, +0.5 points), the same figures of the ordinal and one-hot TnT each against one-hot
CART at their own splits, where subsets over-fit (train minus test accuracy against CART's), and the
fit time of TnT with subsets over TnT on the ordinal codes measured in the same run (target: within
1.2x). Every fit runs on one thread; the three timed ones (subsets, ordinal, one-hot) in turns,
five times, each timed by its median (``benchmarks/run.py``'s ``timed_in_turns``), so that all see
the same load; the load average is written beside them.
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
import pandas as pd
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from accuracy import MIN_SPLITS  # noqa: E402
from run import timed_in_turns  # noqa: E402

from tnt import CARTClassifier, TnTClassifier  # noqa: E402
from tnt.data.external import find_data, missing_data, stop_if_missing  # noqa: E402

REPORT = ROOT / "benchmarks" / "categorical.md"
C_GRID = (1e-2, 1e-3, 1e-4)
#: Turns of the timed fits (:func:`timed_in_turns`: the median of each).
TIMING_TURNS = 5
#: The TnT models of a run, each compared with one-hot CART at its own splits.
LABELS = ("subsets", "ordinal", "one_hot", "target_order", "guarded", "held_out", "held_out_ordinal", "pooled")
#: (i): TnT with subsets whose categories of fewer samples at a node are pooled before the ordering.
POOLED = 10
SEEDS = 3
TEST_SHARE = 0.33

#: Per set of the suite, its categorical columns by name (the nominal attributes of the source's
#: description); ``car_evaluation``'s one-hot columns are read back as its six attributes.
SETS = {
    "credit_g": [
        "checking_status", "credit_history", "purpose", "savings_status", "employment", "personal_status",
        "other_parties", "property_magnitude", "other_payment_plans", "housing", "job", "own_telephone",
        "foreign_worker",
    ],
    "churn": ["state", "area code", "international plan", "voice mail plan"],
    "coil2000": ["MOSTYPE", "MOSHOOFD"],
    "nursery": ["parents", "has_nurs", "form", "children", "housing", "finance", "social", "health"],
    "mushroom": [
        "cap-shape", "cap-surface", "cap-color", "bruises?", "odor", "gill-attachment", "gill-spacing",
        "gill-size", "gill-color", "stalk-shape", "stalk-root", "stalk-surface-above-ring",
        "stalk-surface-below-ring", "stalk-color-above-ring", "stalk-color-below-ring", "veil-type",
        "veil-color", "ring-number", "ring-type", "spore-print-color", "population", "habitat",
    ],
    "car_evaluation": ["buying_price", "maintenance_price", "doors", "persons", "luggage_boot_size", "safety"],
    "penguins": ["island", "sex"],
}  # fmt: skip
#: The sets that are tables a package ships (the loader's name; the class column): read from their CSV
#: file, their text columns coded by the alphabetical rank of their category, a missing value as NaN.
#: They are optional (the ``bench`` extra installs their package): a run without one leaves it out
#: and says so in its report.
TABLES = {"penguins": ("tables/penguins", "species")}


def data_name(name: str) -> str:
    """The loader's name of the benchmark's set ``name``."""
    return TABLES[name][0] if name in TABLES else f"benchmark/classification/{name}"


def load(name: str) -> tuple[np.ndarray, np.ndarray, list[str], list[int]]:
    """``(X, y, feature names, indices of the categorical columns)`` of a set, its categorical
    columns as whole-number codes (``car_evaluation``'s one-hot groups as the alphabetical rank of
    their category; a table's text columns as the alphabetical rank of their category, NaN where it
    is missing, and its class column as the labels)."""
    if name in TABLES:
        loader_name, target = TABLES[name]
        table = pd.read_csv(find_data(loader_name))
        y = table.pop(target).to_numpy()
        for column in SETS[name]:
            categories = sorted(table[column].dropna().unique())
            table[column] = table[column].map({c: float(i) for i, c in enumerate(categories)})
        names = list(table.columns)
        return table.to_numpy(dtype=np.float64), y, names, [names.index(c) for c in SETS[name]]
    with np.load(find_data(data_name(name)), allow_pickle=False) as d:
        X, y, names = d["X"].astype(np.float64), d["y"], [str(n) for n in d["feature_names"]]
    if name == "car_evaluation":
        columns, kept = [], []
        for attribute in SETS[name]:
            group = [i for i, n in enumerate(names) if n.startswith(attribute + "_")]
            categories = sorted(names[i][len(attribute) + 1 :] for i in group)
            ranks = [categories.index(names[i][len(attribute) + 1 :]) for i in group]
            hot = X[:, group]
            assert np.all(hot.sum(axis=1) == 1), f"{attribute}: not one category a row"
            columns.append(np.asarray(ranks, dtype=np.float64)[np.argmax(hot, axis=1)])
            kept.append(attribute)
        return np.column_stack(columns), y, kept, list(range(len(kept)))
    missing = [c for c in SETS[name] if c not in names]
    if missing:
        raise SystemExit(f"{name} has no column {missing[0]!r}; the benchmark's list of its columns is out of date.")
    return X, y, names, [names.index(c) for c in SETS[name]]


def seen(column: np.ndarray) -> np.ndarray:
    """The categories (codes) of a column in the training part, sorted, a missing value not one."""
    return np.unique(column[~np.isnan(column)])


def one_hot(X_train: np.ndarray, X_test: np.ndarray, categorical: list[int]):
    """Both parts with each categorical column replaced by a 0/1 column per category of the training
    part (a test category never seen in training, or a missing value, is all zeros), the numeric
    columns kept."""
    numeric = [f for f in range(X_train.shape[1]) if f not in categorical]
    parts_train, parts_test = [X_train[:, numeric]], [X_test[:, numeric]]
    for f in categorical:
        categories = seen(X_train[:, f])
        parts_train.append((X_train[:, [f]] == categories).astype(np.float64))
        parts_test.append((X_test[:, [f]] == categories).astype(np.float64))
    return np.hstack(parts_train), np.hstack(parts_test)


def target_order(X_train: np.ndarray, X_test: np.ndarray, y_train: np.ndarray, categorical: list[int]):
    """Both parts with each categorical column's codes replaced by the rank of the category's share
    of one class in the training part (variant (e) of the module's description); a test
    category never seen in training becomes missing."""
    classes, counts = np.unique(y_train, return_counts=True)
    target = classes[-1] if classes.size == 2 else classes[np.argmax(counts)]
    out_train, out_test = X_train.copy(), X_test.copy()
    for f in categorical:
        categories = seen(X_train[:, f])
        shares = np.array([np.mean(y_train[X_train[:, f] == c] == target) for c in categories])
        rank = np.empty(categories.size)
        rank[np.argsort(shares, kind="stable")] = np.arange(categories.size)
        for out, X in ((out_train, X_train), (out_test, X_test)):
            at = np.minimum(np.searchsorted(categories, X[:, f]), categories.size - 1)
            out[:, f] = np.where(categories[at] == X[:, f], rank[at], np.nan)
    return out_train, out_test


#: (d) LightGBM's variants: its defaults, and its categorical regularisation turned off (a category
#: group of one sample may be split off, no smoothing of the categories' statistics nor penalty).
LIGHTGBM_VARIANTS = {
    "lightgbm": {},
    "lightgbm_raw": {"min_data_per_group": 1, "cat_smooth": 0.0, "cat_l2": 0.0},
}


def lightgbm_one_tree(X_train, y_train, X_test, categorical: list[int], splits: int, seed: int, **settings):
    """LightGBM's one boosting round on its own categorical handling (the categorical columns as pandas
    ``category`` columns of the training part's categories, passed as ``categorical_feature``), each
    tree of at most ``splits`` + 1 leaves: ``(the fitted model, its splits over all its trees, its
    test predictions)``. With more than two classes one round is one tree per class, each of up to
    ``splits`` splits, so the model may hold up to that many times more; its splits are counted in
    every tree (leaves minus one). LightGBM needs two leaves, so a TnT of 0 splits is met by 1.
    ``settings`` go to ``LGBMClassifier`` (:data:`LIGHTGBM_VARIANTS`)."""
    from lightgbm import LGBMClassifier

    def frame(X):
        table = pd.DataFrame(X, columns=[f"x{f}" for f in range(X.shape[1])])
        for f in categorical:
            table[f"x{f}"] = pd.Categorical(X[:, f], categories=seen(X_train[:, f]))  # unseen: NaN
        return table

    model = LGBMClassifier(
        n_estimators=1, num_leaves=max(splits, 1) + 1, learning_rate=1.0, min_child_samples=1,
        n_jobs=1, random_state=seed, verbose=-1, **settings,
    )  # fmt: skip
    model.fit(frame(X_train), y_train, categorical_feature=[f"x{f}" for f in categorical])
    trees = model.booster_.dump_model()["tree_info"]
    return model, sum(tree["num_leaves"] - 1 for tree in trees), model.predict(frame(X_test))


def one_seed(name: str, seed: int, Cs=C_GRID) -> list[dict]:
    """Every model of the module's description on one seed's split of one set: a row per C."""
    X, y, _, categorical = load(name)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=TEST_SHARE, stratify=y, random_state=seed)
    H_train, H_test = one_hot(X_train, X_test, categorical)
    T_train, T_test = target_order(X_train, X_test, y_train, categorical)
    # One fit of each kind before the timed ones: each process loads (or compiles) its kernels once.
    for features, train in ((categorical, X_train), (None, X_train), (None, H_train)):
        TnTClassifier(C=Cs[0], random_state=seed, n_jobs=1, categorical_features=features).fit(train, y_train)
    rows = []
    for C in Cs:
        settings = {"C": C, "random_state": seed, "n_jobs": 1}
        # The three fits timed in turns, the median of TIMING_TURNS each: fits of a few hundredths of a
        # second on a shared machine vary by more than their difference from one run to the next.
        (t_subsets, t_ordinal, t_hot), (subsets, ordinal, hot) = timed_in_turns(
            [
                lambda s=settings: TnTClassifier(categorical_features=categorical, **s).fit(X_train, y_train),
                lambda s=settings: TnTClassifier(categorical_features=None, **s).fit(X_train, y_train),
                lambda s=settings: TnTClassifier(categorical_features=None, **s).fit(H_train, y_train),
            ],
            repeat=TIMING_TURNS,
        )
        ordered = TnTClassifier(categorical_features=None, **settings).fit(T_train, y_train)
        guarded = TnTClassifier(categorical_features=categorical, internal_refit="improving", **settings)
        guarded.fit(X_train, y_train)
        held_out = {"ccp_alpha": "held_out_regrown", **settings}
        sized = TnTClassifier(categorical_features=categorical, **held_out).fit(X_train, y_train)
        sized_ordinal = TnTClassifier(categorical_features=None, **held_out).fit(X_train, y_train)
        pooled = TnTClassifier(categorical_features=categorical, min_category_samples=POOLED, **settings)
        pooled.fit(X_train, y_train)
        row = {"set": name, "C": C, "seed": seed, "classes": len(np.unique(y_train)), "fit_subsets": t_subsets, "fit_ordinal": t_ordinal,
               "fit_one_hot": t_hot}  # fmt: skip
        for label, model, test in (
            ("subsets", subsets, X_test),
            ("ordinal", ordinal, X_test),
            ("one_hot", hot, H_test),
            ("target_order", ordered, T_test),
            ("guarded", guarded, X_test),
            ("held_out", sized, X_test),
            ("held_out_ordinal", sized_ordinal, X_test),
            ("pooled", pooled, X_test),
        ):
            row[f"splits_{label}"] = model.n_splits_
            row[f"test_{label}"] = model.score(test, y_test)
        row["train_subsets"] = subsets.score(X_train, y_train)
        # CART on one-hot at the splits of each TnT (subsets, ordinal, one-hot), and CART on subsets.
        for label in LABELS:
            cart = CARTClassifier.with_splits(row[f"splits_{label}"], random_state=seed).fit(H_train, y_train)
            row[f"cart_one_hot_at_{label}"] = cart.score(H_test, y_test)
            if label == "subsets":
                row["train_cart_one_hot"] = cart.score(H_train, y_train)
        cart_subsets = CARTClassifier.with_splits(
            row["splits_subsets"], random_state=seed, categorical_features=categorical
        ).fit(X_train, y_train)
        row["cart_subsets"] = cart_subsets.score(X_test, y_test)
        for variant, lightgbm_settings in LIGHTGBM_VARIANTS.items() if lightgbm_available() else ():
            _, row[f"splits_{variant}"], predicted = lightgbm_one_tree(
                X_train, y_train, X_test, categorical, row["splits_subsets"], seed, **lightgbm_settings
            )
            row[f"test_{variant}"] = float(np.mean(predicted == y_test))
        rows.append(row)
    return rows


def lightgbm_available() -> bool:
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True


def pair_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over the seeds per (set, C), and the gains in points (accuracy x 100)."""
    pairs = runs.groupby(["set", "C"], sort=False).mean(numeric_only=True).drop(columns="seed").reset_index()
    for label in LABELS:
        pairs[f"gain_{label}"] = 100 * (pairs[f"test_{label}"] - pairs[f"cart_one_hot_at_{label}"])
    pairs["gap_subsets"] = 100 * (pairs["train_subsets"] - pairs["test_subsets"])
    pairs["gap_cart"] = 100 * (pairs["train_cart_one_hot"] - pairs["cart_one_hot_at_subsets"])
    pairs["time_ratio"] = pairs["fit_subsets"] / pairs["fit_ordinal"]
    return pairs


def _sign(x: float) -> str:
    return f"{x:+.2f}"


def gain_table(pairs: pd.DataFrame) -> list[str]:
    """Each TnT against one-hot CART at its own splits: pairs at or above, mean gain."""
    n = len(pairs)
    lines = ["| TnT | against | pairs at or above | mean gain (points) |", "|---|---|---|---|"]
    for label, said in (
        ("subsets", "subsets"),
        ("ordinal", "(a) ordinal codes"),
        ("one_hot", "(b) one-hot"),
        ("target_order", "(e) target order"),
        ("guarded", "(f) guarded subsets"),
        ("held_out", "(g) subsets, held-out size"),
        ("held_out_ordinal", "(h) ordinal codes, held-out size"),
        ("pooled", f"(i) subsets, categories of fewer than {POOLED} samples pooled"),
    ):
        gains = pairs[f"gain_{label}"]
        lines.append(
            f"| {said} | (c) one-hot CART at its splits | {int((gains >= -1e-9).sum())} of {n} "
            f"({100 * float((gains >= -1e-9).mean()):.0f} %) | {_sign(float(gains.mean()))} |"
        )
    return lines


def summary_lines(pairs: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    n = len(pairs)
    vs_ordinal = 100 * (pairs["test_subsets"] - pairs["test_ordinal"])
    vs_cart_subsets = 100 * (pairs["test_subsets"] - pairs["cart_subsets"])
    worst = pairs.loc[pairs["time_ratio"].idxmax()]
    return [
        "All pairs:\n",
        *gain_table(pairs),
        "",
        f"Pairs where TnT with subsets has at least {MIN_SPLITS} splits on average (the counting rule of "
        "`docs/accuracy.md`; in the others every coding has a few splits and they tie or nearly):\n",
        *gain_table(pairs[pairs["splits_subsets"] >= MIN_SPLITS]),
        "",
        f"- TnT with subsets against TnT on the ordinal codes at the same C: at or above on "
        f"{int((vs_ordinal >= -1e-9).sum())} of {n} pairs, mean {_sign(float(vs_ordinal.mean()))} points "
        "(the splits differ: see the table).",
        f"- TnT with subsets against CART with subsets (the project's learner) at its splits: at or above on "
        f"{int((vs_cart_subsets >= -1e-9).sum())} of {n} pairs, mean {_sign(float(vs_cart_subsets.mean()))} points.",
        f"- Fit time of TnT with subsets over TnT on the ordinal codes, all runs: "
        f"{runs['fit_subsets'].sum() / runs['fit_ordinal'].sum():.2f}x in total, median per pair "
        f"{float(pairs['time_ratio'].median()):.2f}x, largest {float(worst['time_ratio']):.2f}x "
        f"({worst['set']} at C={worst['C']:g}).",
        *lightgbm_lines(pairs),
        pooled_line(pairs),
    ]


def pooled_line(pairs: pd.DataFrame) -> str:
    """(i) against TnT with subsets (Breiman's ordering) in test accuracy, the pairs it changes named."""
    vs = 100 * (pairs["test_pooled"] - pairs["test_subsets"])
    changed = ", ".join(f"{r.set} C={r.C:g} ({_sign(v)})" for r, v in zip(pairs.itertuples(), vs) if abs(v) > 1e-9)
    return (
        f"- (i) TnT with categories of fewer than {POOLED} samples pooled against TnT with subsets, in test "
        f"accuracy: mean {_sign(float(vs.mean()))} points, at or above on {int((vs >= -1e-9).sum())} of {len(pairs)} "
        f"pairs; it changes {changed or 'none'}."
    )


def lightgbm_lines(pairs: pd.DataFrame) -> list[str]:
    """TnT with subsets against (d) LightGBM's one round at its splits, where it was run."""
    if "test_lightgbm" not in pairs:
        return []
    n, lines = len(pairs), []
    for variant, said in (("lightgbm", "its defaults"), ("lightgbm_raw", "its categorical regularisation off")):
        vs = 100 * (pairs["test_subsets"] - pairs[f"test_{variant}"])
        vs_binary = vs[pairs["classes"] == 2]
        lines.append(
            f"- TnT with subsets against (d) LightGBM's one round ({said}; each tree of at most TnT's splits + 1 "
            f"leaves): at or above on {int((vs >= -1e-9).sum())} of {n} pairs, mean {_sign(float(vs.mean()))} "
            f"points; where the round is one tree (two classes: at most TnT's splits) on "
            f"{int((vs_binary >= -1e-9).sum())} of {len(vs_binary)}, mean "
            f"{_sign(float(vs_binary.mean())) if len(vs_binary) else 'n/a'}."
        )
    lines.append(
        "- With more than two classes LightGBM's one round is a tree per class, each of up to TnT's splits, so "
        "it holds up to that many times TnT's splits: the table gives its splits counted over all its trees "
        "(leaves minus one each)."
    )
    return lines


def pairs_markdown(pairs: pd.DataFrame) -> str:
    lines = [
        "| set | C | splits subsets / ordinal / one-hot | test subsets | (a) ordinal | (b) one-hot | (e) target order | "
        "(c) CART one-hot at subsets' splits | CART subsets | gain over (c) | train-test gap: subsets / CART | "
        "fit s: subsets / ordinal / one-hot | (g) held-out size: splits, test, gain over CART | "
        "(i) pooled: splits, test, gain over CART |"
        + (
            " (d) LightGBM one round, defaults: splits (all trees), test | regularisation off: splits, test |"
            if "test_lightgbm" in pairs
            else ""
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if "test_lightgbm" in pairs else ""),
    ]
    for r in pairs.itertuples():
        lightgbm = (
            f" {r.splits_lightgbm:.1f}, {r.test_lightgbm:.4f} | {r.splits_lightgbm_raw:.1f}, {r.test_lightgbm_raw:.4f} |"
            if "test_lightgbm" in pairs
            else ""
        )
        lines.append(
            f"| {r.set} | {r.C:g} | {r.splits_subsets:.1f} / {r.splits_ordinal:.1f} / {r.splits_one_hot:.1f} | "
            f"{r.test_subsets:.4f} | {r.test_ordinal:.4f} | {r.test_one_hot:.4f} | {r.test_target_order:.4f} | "
            f"{r.cart_one_hot_at_subsets:.4f} | "
            f"{r.cart_subsets:.4f} | {_sign(r.gain_subsets)} | {r.gap_subsets:.1f} / {r.gap_cart:.1f} | "
            f"{r.fit_subsets:.2f} / {r.fit_ordinal:.2f} / {r.fit_one_hot:.2f} | "
            f"{r.splits_held_out:.1f}, {r.test_held_out:.4f}, {_sign(r.gain_held_out)} | "
            f"{r.splits_pooled:.1f}, {r.test_pooled:.4f}, {_sign(r.gain_pooled)} |{lightgbm}"
        )
    return "\n".join(lines)


def over_fitting_lines(pairs: pd.DataFrame) -> list[str]:
    """Where subsets win and where they over-fit, in words from the table."""
    wins = pairs[pairs["gain_subsets"] >= -1e-9]
    losses = pairs[pairs["gain_subsets"] < -1e-9]
    over = losses[losses["gap_subsets"] > losses["gap_cart"]]
    said = [
        "- Subsets win (at or above one-hot CART at equal splits) on: "
        + (", ".join(f"{r.set} C={r.C:g} ({_sign(r.gain_subsets)})" for r in wins.itertuples()) or "none")
        + ".",
        "- They lose on: "
        + (", ".join(f"{r.set} C={r.C:g} ({_sign(r.gain_subsets)})" for r in losses.itertuples()) or "none")
        + ".",
        "- Of those losses, TnT with subsets fits its training rows more closely than CART does at the same "
        "splits (a larger train-test gap: over-fitting) on: "
        + (", ".join(f"{r.set} C={r.C:g}" for r in over.itertuples()) or "none")
        + ".",
        f"- On {int((losses['cart_subsets'] < losses['cart_one_hot_at_subsets'] - 1e-9).sum())} of those "
        f"{len(losses)} losses one CART tree with subsets (the project's learner) is below one-hot CART at the same "
        "splits too: the subset split itself over-fits there (Breiman's ordering chosen on the few samples of a "
        "node, over many categories: `churn`'s 51 states, `coil2000`'s 40 customer subtypes), not the graph.",
        "- With the size chosen on held-out data, (g), TnT with subsets is below one-hot CART at its splits on: "
        + (
            ", ".join(
                f"{r.set} C={r.C:g} ({_sign(r.gain_held_out)})" for r in pairs.itertuples() if r.gain_held_out < -1e-9
            )
            or "none"
        )
        + ".",
    ]
    return said


def report(runs: pd.DataFrame, *, command: str, took: float, load: float, stamp: str, seeds: int, left_out=()) -> str:
    """The report's text; ``left_out`` holds the sentences of the optional sets that were not found."""
    pairs = pair_table(runs)
    if "test_lightgbm" in runs:
        import lightgbm

        lightgbm = (
            f"(d) LightGBM {lightgbm.__version__}: one boosting round (`LGBMClassifier(n_estimators=1, "
            "num_leaves=<TnT's splits> + 1, learning_rate=1.0, min_child_samples=1, n_jobs=1)`, its other "
            "settings at their defaults, among them `max_cat_to_onehot=4`, `cat_smooth=10`, "
            "`min_data_per_group=100`) on its own categorical handling (the categorical columns as pandas "
            "`category` columns passed as `categorical_feature`); its splits are counted over all the trees of "
            "the round, one per class with more than two classes. It is run twice: with those defaults, and "
            "with its categorical regularisation off (`min_data_per_group=1, cat_smooth=0, cat_l2=0`)."
        )
    else:
        lightgbm = (
            "(d) LightGBM is not installed, so it has no column: `pip install -e '.[bench]'` installs it "
            "(with `palmerpenguins`)."
        )
    missing = "".join(f" Left out: {sentence}" for sentence in left_out)
    sets = ", ".join(f"`{name}` ({len(SETS[name])} categorical columns)" for name in pairs["set"].unique())
    parts = [
        "# Categories as categories: subsets against ordinal codes, one-hot columns and CART\n",
        "Written by `benchmarks/categorical.py`; nothing here is edited by hand. Sets: "
        f"{sets} (their columns and hashes: `docs/data-sets.md`, *Categorical columns of the benchmark "
        f"suite*). Each split 67/33 with seeds {', '.join(map(str, range(seeds)))} (stratified), TnT at "
        f"C = {', '.join(f'{C:g}' for C in C_GRID)} with its other defaults (N1=2, N2=5, the size chosen on held-out data, "
        "`ccp_alpha='auto'`: C is its lower bound) and `random_state` = seed. "
        "Accuracies are means over the seeds; gains in points (accuracy x 100). One-hot CART is scikit-learn's "
        "tree grown best-first to the subset TnT's splits; the installed scikit-learn (1.9.1) has no "
        f"`categorical_features` on its trees, so *CART subsets* is the project's own CART learner. {lightgbm}"
        f"{missing}\n",
        f"Run: {stamp}, `{command}`, {os.cpu_count()} cores (every fit on one thread; the timed ones in turns, "
        f"{TIMING_TURNS} times, their medians), "
        f"Python {platform.python_version()}. Took {took / 60:.1f} minutes; load average at the start "
        f"{load:.1f} (the machine is shared: times are comparable within the run, not with other runs).\n",
        "## Summary\n",
        "Target (issue 52): TnT with subsets at or above one-hot CART at equal splits on at least 80 % of "
        "the pairs, mean gain at least +0.5 points; fit time within 1.2x of TnT on the ordinal codes.\n",
        *summary_lines(pairs, runs),
        "",
        "## Where subsets win and where they over-fit\n",
        *over_fitting_lines(pairs),
        "",
        "## Every pair\n",
        pairs_markdown(pairs) + "\n",
    ]
    return "\n".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    parser.add_argument("--out", type=Path, default=REPORT)
    args = parser.parse_args(argv)
    stop_if_missing([data_name(name) for name in args.sets if name not in TABLES])
    # The tables that packages ship are optional: one not found is left out, with its sentence.
    left_out = [sentence for name in args.sets if name in TABLES and (sentence := missing_data([data_name(name)]))]
    sets = [name for name in args.sets if not (name in TABLES and missing_data([data_name(name)]))]
    for sentence in left_out:
        print(f"left out: {sentence}", file=sys.stderr)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rows = []
    for name in sets:
        for seed in range(args.seeds):
            rows += one_seed(name, seed)
            print(f"{name} seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    runs = pd.DataFrame(rows)
    took = time.perf_counter() - start
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = "benchmarks/categorical.py " + " ".join(argv if argv is not None else sys.argv[1:])
    args.out.write_text(
        report(runs, command=command.strip(), took=took, load=load, stamp=stamp, seeds=args.seeds, left_out=left_out)
    )
    runs.to_csv(args.out.with_suffix(".csv"), index=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
