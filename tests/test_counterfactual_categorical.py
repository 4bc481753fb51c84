"""Counterfactuals on graphs with categorical splits, against brute force: on small random graphs
that split two features by subsets of their categories and a third by thresholds, every sample whose
each value is the original's, a training value (every category training holds) or missing is tried,
and the search must find the same minimum (a change of category costs one feature at one unit)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from random_graphs import random_categorical_tests, random_dag

from tnt import DecisionGraph, TnTClassifier
from tnt.inspect.counterfactual import CATEGORY_DISTANCE, MISSING_DISTANCE, CounterfactualSpace, counterfactual

N_CATEGORIES = [4, 3]  # features 0 and 1 are categorical; feature 2 holds numbers 0..5
NAMES = {0: ["blue", "green", "red", "white"], 1: ["S", "M", "L"]}


def random_categorical_graph(rng, n_internal, missing_in_training):
    """A random reachable DAG whose splits on features 0 and 1 send random subsets of their categories
    left, on feature 2 the values up to a random threshold; random directions for missing values."""
    skeleton = random_dag(rng, n_internal)
    if skeleton is None:
        return None
    left, right = skeleton
    n = left.shape[0]
    internal = left >= 0
    feature, threshold, subsets = random_categorical_tests(rng, internal, N_CATEGORIES, 5)
    return DecisionGraph(
        left, right, feature, threshold, rng.integers(0, 5, (n, 3)).astype(float) + rng.random((n, 3)),
        missing_go_to_left=np.where(internal, rng.integers(0, 2, n), 0), missing_in_training=missing_in_training,
        categories=NAMES, category_left=subsets,
    )  # fmt: skip


def training_rows(rng, n=25):
    X = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(0, 6, n)]).astype(float)
    if rng.random() < 0.3:  # a category training never holds: no change may propose it
        X[X[:, 0] == 3, 0] = 0
    X[rng.random(X.shape) < 0.15] = np.nan
    X[0] = [0.0, 1.0, 2.0]  # every feature has present values
    return X


def brute_force(graph, X_train, x, good_leaf, allow_missing_changes):
    """The cheapest (features changed, scaled distance) over every sample whose each value is the
    sample's own, a training value or missing, enumerated: at a categorical feature every category
    code, a code no category has and a missing value, kept when the contract allows them (a
    category training holds; a missing value where changes to missing are allowed). Returns the cost
    (None when no sample reaches a wanted leaf) and the number of samples tried."""
    present = X_train[:, 2][~np.isnan(X_train[:, 2])]
    q1, q3 = np.percentile(present, [25, 75])
    scale = q3 - q1 if q3 > q1 else (present.max() - present.min()) or 1.0
    options = []
    for f in range(3):
        seen = np.unique(X_train[:, f][~np.isnan(X_train[:, f])])
        x_missing = np.isnan(x[f]) or (f < 2 and not 0 <= x[f] < N_CATEGORIES[f])  # routed as missing
        candidates = [*range(N_CATEGORIES[f] + 1), np.nan] if f < 2 else [*seen, np.nan]
        kept = [x[f]]
        for value in candidates:
            if np.isnan(value):
                allowed = allow_missing_changes and graph.missing_in_training and not x_missing
            else:
                allowed = value in seen and (allow_missing_changes or not x_missing)
            if allowed and not (value == x[f]):
                kept.append(value)
        options.append(kept)
    best, tried = None, 0
    for row in itertools.product(*options):
        row = np.array(row, dtype=float)
        tried += 1
        if not good_leaf[graph.apply(row.reshape(1, -1))[0]]:
            continue
        changed = ~((row == x) | (np.isnan(row) & np.isnan(x)))
        one_missing = np.isnan(row) != np.isnan(x)
        distance = [
            (MISSING_DISTANCE if one_missing[f] else CATEGORY_DISTANCE if f < 2 else abs(row[f] - x[f]) / scale)
            for f in np.flatnonzero(changed)
        ]
        cost = (int(changed.sum()), float(sum(distance)))
        best = cost if best is None or cost < best else best
    return best, tried


@pytest.mark.parametrize("missing_in_training", [True, False])
@pytest.mark.parametrize("allow", [True, False])
def test_random_categorical_graphs_match_brute_force(allow, missing_in_training):
    rng = np.random.default_rng(9000 + 2 * allow + missing_in_training)
    checked = found = changed_category = tried = 0
    while checked < 60:
        graph = random_categorical_graph(rng, int(rng.integers(2, 11)), missing_in_training)
        if graph is None or not graph.is_categorical.any():
            continue
        X_train = training_rows(rng)
        x = np.array([rng.integers(0, 6), rng.integers(0, 4), rng.integers(0, 6)], dtype=float)  # 4, 5, 3: unseen
        x[rng.random(3) < 0.25] = np.nan
        wanted = int(rng.integers(0, 3))
        good = graph.is_leaf & (graph.predicted_class() == wanted)
        cf = counterfactual(CounterfactualSpace(graph, X_train), x, wanted, budget=30.0, allow_missing_changes=allow)
        expected, n_rows = brute_force(graph, X_train, x, good, allow)
        checked, tried = checked + 1, tried + n_rows
        assert cf.exact
        if expected is None:
            assert not cf.found
            continue
        found += 1
        assert cf.found and (cf.n_changed, cf.distance) == (expected[0], pytest.approx(expected[1], abs=1e-9))
        assert good[graph.apply(cf.sample.reshape(1, -1))[0]]
        assert len(cf.changes) == cf.n_changed
        for change in cf.changes:
            if change.feature < 2 and not np.isnan(change.new):
                changed_category += 1
                assert change.new in X_train[:, change.feature]  # a category training holds
                assert int(change.new) in change.allowed
                assert change.categories == tuple(NAMES[change.feature])
    assert checked == 60
    assert found >= 25 and changed_category >= 5  # the comparison is not vacuous
    assert tried >= 60 * 20


def test_a_change_of_category_is_named():
    # colour in {blue, red} (missing left) -> class 0; else class 1
    g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [np.nan, -2, -2], [[3, 3], [3, 0], [0, 3]],
                      missing_go_to_left=[1, 0, 0], missing_in_training=True,
                      categories={0: ["blue", "green", "red"]}, category_left=[[0, 2], None, None])  # fmt: skip
    X_train = np.array([[0.0], [1.0], [2.0], [2.0], [np.nan]])
    space = CounterfactualSpace(g, X_train)
    cf = counterfactual(space, [1.0], 0)
    # red is the most common training category the path allows; a missing value costs as much but
    # a category comes first
    assert cf.describe(["colour"]) == "change `colour` from green to red"
    assert (cf.n_changed, cf.distance) == (1, CATEGORY_DISTANCE)
    assert cf.changes[0].allowed == (0, 2)
    assert counterfactual(space, [np.nan], 1).describe(["colour"]) == "change `colour` from missing to green"
    assert counterfactual(space, [7.0], 1).describe(["colour"]) == "change `colour` from an unseen category to green"
    assert counterfactual(space, [0.0], 1, allow_missing_changes=False).describe(["colour"]) == (
        "change `colour` from blue to green"
    )


def test_a_learned_categorical_model_answers_every_test_row():
    rng = np.random.default_rng(3)
    colour = rng.choice(["blue", "green", "red", "white", None], 400)
    size = rng.integers(0, 10, 400).astype(float)
    y = np.where(np.isin(colour, ["green", "white"]) ^ (size > 6), "yes", "no")
    table = pd.DataFrame({"colour": colour, "size": size})
    model = TnTClassifier(N1=1, C=1e-3, random_state=0, categorical_features=["colour"]).fit(table[:300], y[:300])
    assert model.graph_.is_categorical.any()
    X = model._validate_X_predict(table)  # the category codes
    space = CounterfactualSpace(model.graph_, X[:300])
    answered = 0
    for x in X[300:340]:
        wanted = 1 - int(model.graph_.predict_proba(x.reshape(1, -1))[0].argmax())
        cf = counterfactual(space, x, wanted, budget=2.0)
        assert cf.found
        assert model.graph_.predict_proba(cf.sample.reshape(1, -1))[0].argmax() == wanted
        answered += 1
    assert answered == 40
