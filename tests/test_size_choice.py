"""The default size rule, ``ccp_alpha="auto"`` (tnt.learn.size_choice): the pruning path read off one
tree against scikit-learn's own pruning, the choice of a level against a brute-force reading of
its rule, and the estimator's graph against the graph grown and pruned at the level it reports."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tnt import TnTClassifier, TnTRegressor
from tnt.learn.size_choice import Z_NEEDED, chosen_row, tree_level_losses


def _float32_exact(X):
    # scikit-learn compares float32 values with its thresholds: float32-exact data routes alike.
    return X.astype(np.float32).astype(np.float64)


def _sklearn_arrays(tree):
    t = tree.tree_
    return (t.children_left, t.children_right, t.feature, t.threshold, np.zeros(t.node_count, np.uint8))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_tree_level_losses_equal_scikit_learns_pruned_trees(task, seed):
    rng = np.random.default_rng(seed)
    if task == "classification":
        X, y = make_classification(
            n_samples=500, n_features=6, n_informative=4, n_classes=3, flip_y=0.2, random_state=seed
        )
        model, n_classes = DecisionTreeClassifier, 3
    else:
        X, y = make_regression(n_samples=500, n_features=6, noise=30.0, random_state=seed)
        y = (y - y.mean()) / y.std()
        model, n_classes = DecisionTreeRegressor, None
    X = _float32_exact(X)
    w = rng.uniform(0.5, 2.0, size=y.shape[0])
    fit, held = np.arange(350), np.arange(350, 500)
    full = model(random_state=seed).fit(X[fit], y[fit], sample_weight=w[fit])
    path = full.cost_complexity_pruning_path(X[fit], y[fit], sample_weight=w[fit]).ccp_alphas
    # Levels between the path's breakpoints (a level on one would depend on rounding).
    levels = np.concatenate([[0.0], (path[:-1] + path[1:]) / 2, [path[-1] * 2]])
    levels = levels[np.unique(np.linspace(0, levels.size - 1, 30).astype(int))]
    losses = tree_level_losses(
        _sklearn_arrays(full), X[fit], y[fit], w[fit], X[held], y[held], w[held], levels, n_classes
    )
    checked = 0
    for level, row in zip(levels, losses):
        pruned = model(random_state=seed, ccp_alpha=level).fit(X[fit], y[fit], sample_weight=w[fit])
        predicted = pruned.predict(X[held])
        expected = w[held] * ((predicted != y[held]) if n_classes else (predicted - y[held]) ** 2)
        np.testing.assert_allclose(row, expected, rtol=1e-9, atol=1e-12)
        checked += 1
    assert checked == levels.size >= 5


def _brute_force_row(losses, z):
    """The rule in words: a row is taken when its total loss is lower than row 0's by more than z
    standard errors of the paired differences; of those (and row 0), the lowest total, the last."""
    best, best_total = 0, losses[0].sum()
    for r in range(1, losses.shape[0]):
        differences = [a - b for a, b in zip(losses[0], losses[r])]
        saving = sum(differences)
        if saving > z * sum(d * d for d in differences) ** 0.5 and losses[r].sum() <= best_total + 1e-12:
            best, best_total = r, losses[r].sum()
    return best


def test_chosen_row_follows_its_rule_on_random_losses():
    rng = np.random.default_rng(0)
    moved = 0
    for trial in range(300):
        n = int(rng.integers(3, 40))
        losses = (rng.random((6, n)) < rng.uniform(0.1, 0.6, size=(6, 1))).astype(float)
        losses *= rng.choice([1.0, 0.5, 2.0], size=n)
        z = float(rng.choice([0.0, 0.5, Z_NEEDED, 2.0]))
        assert chosen_row(losses, z) == _brute_force_row(losses, z), trial
        moved += chosen_row(losses, z) != 0
    assert 30 < moved < 270  # both outcomes were exercised


@pytest.mark.parametrize("flip", [0.0, 0.3])
def test_auto_is_the_graph_grown_and_pruned_at_the_level_it_reports(flip):
    X, y = make_classification(n_samples=1500, n_features=10, n_informative=5, flip_y=flip, random_state=1)
    auto = TnTClassifier(C=1e-4, random_state=0).fit(X, y)
    assert auto.get_params()["ccp_alpha"] == "auto"
    level = auto.pruning_level_
    explicit = TnTClassifier(C=max(1e-4, level), ccp_alpha=level, random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.graph_.children_left, explicit.graph_.children_left)
    np.testing.assert_array_equal(auto.graph_.threshold, explicit.graph_.threshold)
    np.testing.assert_array_equal(auto.predict(X), explicit.predict(X))
    if flip:  # label noise: the held-out part chooses a smaller graph than C alone gives
        assert level > 1e-4
        assert auto.n_splits_ < TnTClassifier(C=1e-4, ccp_alpha=0.0, random_state=0).fit(X, y).n_splits_


def _noiseless(n):
    """A noiseless problem: every split C allows is right, and none is clearly worse held out."""
    rng = np.random.default_rng(3)
    X = rng.random((n, 4))
    return X, ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.3)).astype(int)


def test_auto_keeps_c_where_no_smaller_size_is_clearly_better():
    X, y = _noiseless(2000)
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    assert model.pruning_level_ == 0.0
    baseline = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.graph_.children_left, baseline.graph_.children_left)


def test_auto_regression_prunes_noise_and_reports_its_level():
    X, y = make_regression(n_samples=1200, n_features=8, noise=200.0, random_state=0)
    auto = TnTRegressor(C=1e-4, random_state=0).fit(X, y)
    grown = TnTRegressor(C=1e-4, ccp_alpha=0.0, random_state=0).fit(X, y)
    assert auto.pruning_level_ > 1e-4
    assert auto.n_splits_ < grown.n_splits_


def test_the_chooser_routes_subset_splits_as_the_fitted_graph_does(monkeypatch):
    """Row 0 of the chooser's held-out losses (its CART at C) against the same CART fitted by the
    estimator (``N1=1``, ``ccp_alpha=0.0``) on the same rows and predicted by its own graph, which
    reads the categories by name: the chooser's routing of subset tests is the graph's."""
    import pandas as pd

    from tnt.learn import size_choice
    from tnt.learn.selection import held_out_rows

    rng = np.random.default_rng(5)
    n, C = 3000, 1e-3
    colour = rng.choice(["red", "green", "blue", "black", "white", "grey"], n)
    number = rng.integers(0, 10, n).astype(float)  # few values: the same thresholds on any part of the rows
    y = (np.isin(colour, ["red", "blue", "grey"]) ^ (number > 4)).astype(int)
    y[rng.random(n) < 0.15] ^= 1
    X = pd.DataFrame({"colour": pd.Categorical(colour), "number": number})
    seen = {}

    def keep_losses(losses, z_needed=size_choice.Z_NEEDED):
        seen["losses"] = losses
        return 0

    monkeypatch.setattr(size_choice, "chosen_row", keep_losses)
    TnTClassifier(C=C, random_state=0).fit(X, y)
    fit, held = held_out_rows(type("P", (), {"X": X.to_numpy(), "y": y, "seed": 0})(), 0.2, True)
    tree = TnTClassifier(C=C, N1=1, ccp_alpha=0.0, random_state=0).fit(X.iloc[fit], y[fit])
    assert any(tree.graph_.is_categorical)  # a subset split is routed
    expected = (tree.predict(X.iloc[held]) != y[held]).astype(float)
    np.testing.assert_array_equal(seen["losses"][0], expected)


def test_the_default_that_kept_c_fine_tunes_as_training_with_rounds_does():
    X, y = _noiseless(1500)
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    assert model.pruning_level_ == 0
    tuned = model.fine_tuned(X, y, rounds=2)
    direct = TnTClassifier(C=1e-3, fine_tune=2, random_state=0).fit(X, y)
    assert direct.pruning_level_ == 0
    np.testing.assert_array_equal(tuned.graph_.children_left, direct.graph_.children_left)
    np.testing.assert_array_equal(tuned.graph_.threshold, direct.graph_.threshold)
