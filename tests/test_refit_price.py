"""Refits that pay for their splits (``internal_refit="cost_complexity"``, tnt/learn/refit_guard.py):
an internal node takes its refitted micro tree only when the tree misroutes less weight of its
reduced problem than the node's split by more than ``C`` times the total weight per split it adds;
a regressor at the default size (``ccp_alpha="auto"``) chooses on held-out data between that rule and
the paper's (tnt/learn/refit_choice.py)."""

import numpy as np
import pytest
from growth_helpers import same_fitted_graph
from sklearn.datasets import make_classification, make_friedman1

from tnt import TnTClassifier, TnTRegressor
from tnt.learn import working_graph
from tnt.learn.binning import bin_features
from tnt.learn.micro_tree import MicroTree, fit_micro_tree
from tnt.learn.refit_guard import improves_on_split, refit_rule


@pytest.mark.parametrize(
    "option, missing_values, rule",
    [
        ("auto", False, "always"),
        ("auto", True, "improving"),
        ("always", True, "always"),
        ("improving", False, "improving"),
        ("cost_complexity", False, "cost_complexity"),
    ],
)
def test_refit_rule(option, missing_values, rule):
    assert refit_rule(option, missing_values) == rule


def _leaf(left, right, feature, threshold, missing_left, x: np.ndarray) -> int:
    """The leaf one sample reaches, walked node by node (NaN by each split's direction)."""
    node = 0
    while left[node] >= 0:
        value = x[feature[node]]
        goes_left = missing_left[node] == 1 if np.isnan(value) else value <= threshold[node]
        node = left[node] if goes_left else right[node]
    return int(node)


def _walk(tree: MicroTree, x: np.ndarray) -> int:
    """The label one sample reaches in a micro tree."""
    arrays = (tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.missing_left)
    return int(tree.label[_leaf(*arrays, x)])


@pytest.mark.parametrize("weights", ["unit", "fractional"])
def test_a_refit_is_taken_only_when_it_saves_more_than_its_added_splits_cost(weights):
    """Against a one-sample walker: the refit's misrouted weight plus ``split_price`` per split beyond
    one is below the old split's, for trees of several sizes and prices either side of the saving
    (unit weights use the tree's own count of its error, fractional ones route the rows)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = ((np.nan_to_num(X[:, 0]) * np.nan_to_num(X[:, 1]) + rng.normal(scale=0.5, size=400)) > 0).astype(np.int64)
    w = np.ones(400) if weights == "unit" else rng.uniform(0.2, 3.0, size=400)
    rows = np.arange(400)
    binned = bin_features(X)
    old = (0, 0.1, 1)  # x0 <= 0.1, missing values left
    x = X[:, 0].astype(np.float64)
    old_side = np.where(np.isnan(x), old[2] == 0, x > old[1]).astype(np.int64)
    old_error = float(w[old_side != y].sum())
    checked = taken = 0
    for alpha in (1e-2, 5e-3, 3e-3, 1e-3):
        tree = fit_micro_tree(binned, np.arange(3), rows, y, w, alpha, 2)
        new_error = float(sum(w[i] for i in rows if _walk(tree, X[i]) != y[i]))
        k = int(np.count_nonzero(tree.children_left >= 0))
        assert k >= 2  # a price per added split matters
        saving = old_error - new_error
        for price in (0.0, saving / max(k - 1, 1) * 0.5, saving / max(k - 1, 1) * 2.0, 50.0):
            expected = new_error + price * (k - 1) < old_error
            assert improves_on_split(tree, *old, X, rows, y, w, split_price=price) == expected
            checked += 1
            taken += expected
    assert checked == 16 and 0 < taken < checked


def _friedman():
    return make_friedman1(n_samples=600, noise=1.0, random_state=0)


@pytest.mark.parametrize("n_samples, chosen", [(400, "always"), (600, "cost_complexity")])
def test_a_regressor_at_the_default_size_grows_with_the_refit_rule_held_out_data_chose(n_samples, chosen):
    """The default regressor grows the graph of the rule it reports (``refit_rule_``), the paper's or
    the priced one, each chosen on some data; its other option grows another graph."""
    X, y = make_friedman1(n_samples=n_samples, noise=1.0, random_state=0)
    default = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    assert default.internal_refit == "auto" and default.ccp_alpha == "auto"
    assert default.refit_rule_ == chosen
    assert same_fitted_graph(default, TnTRegressor(C=1e-3, internal_refit=chosen, random_state=0).fit(X, y))
    other = "always" if chosen == "cost_complexity" else "cost_complexity"
    assert not same_fitted_graph(default, TnTRegressor(C=1e-3, internal_refit=other, random_state=0).fit(X, y))


def test_the_refit_rule_with_the_lower_held_out_error_is_chosen():
    """Against an independent score: each candidate graph grown on the 80 % part and pruned at the
    level, its leaves' mean targets of that part, scored by a one-sample walk over the other 20 %."""
    from tnt.learn.graph_pruning import prune_fitted_graph
    from tnt.learn.growth import grow_graph
    from tnt.learn.held_out_pruning import HELD_OUT_SHARE
    from tnt.learn.refit_choice import chosen_refit_rule
    from tnt.learn.regression_growth import RegressionProblem
    from tnt.learn.selection import _subset, held_out_rows

    checked = {}
    for seed in range(4):
        X, y = make_friedman1(n_samples=500, noise=2.0, random_state=seed)
        problem = RegressionProblem.standardised(X.astype(np.float32), y, np.ones(y.size), seed)
        schedule = {"C": 2e-3, "N1": 2, "N2": 5, "fine_tune": 0, "callback": None, "n_threads": 1}
        rule, scores = chosen_refit_rule(problem, schedule, 2e-3, "always")
        fit_rows, held_rows = held_out_rows(problem, HELD_OUT_SHARE, False)
        errors = []
        for candidate in ("always", "cost_complexity"):
            fit = _subset(problem, fit_rows)
            fit.refit_rule = candidate
            g = prune_fitted_graph(grow_graph(fit, **schedule), fit, 2e-3, False)
            arrays = (g.children_left, g.children_right, g.feature, g.threshold, g.missing_go_to_left)
            leaf = lambda x, arrays=arrays: _leaf(*arrays, x)  # noqa: E731
            values = {}
            for i in fit_rows:
                values.setdefault(leaf(problem.X[i]), []).append(problem.y[i])
            mean = {node: np.mean(v) for node, v in values.items()}
            overall = float(np.mean(problem.y[fit_rows]))
            errors.append(np.mean([(mean.get(leaf(problem.X[i]), overall) - problem.y[i]) ** 2 for i in held_rows]))
        assert scores == pytest.approx(-np.array(errors), rel=1e-9)
        assert rule == ("cost_complexity" if errors[1] < errors[0] else "always")
        checked[rule] = checked.get(rule, 0) + 1
    assert sum(checked.values()) == 4


def test_c_alone_keeps_version_0_1s_refits():
    """``ccp_alpha=0.0`` restores the graphs of version 0.1 (every refit taken without missing
    values), for a regressor as for a classifier; a classifier's default size takes every refit too."""
    X, y = _friedman()
    alone = TnTRegressor(ccp_alpha=0.0, C=1e-3, random_state=0).fit(X, y)
    assert alone.refit_rule_ == "always"
    assert same_fitted_graph(
        alone, TnTRegressor(ccp_alpha=0.0, C=1e-3, internal_refit="always", random_state=0).fit(X, y)
    )
    X, y = make_classification(n_samples=400, n_features=8, n_informative=4, flip_y=0.15, random_state=0)
    default = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    assert default.refit_rule_ == "always"
    assert same_fitted_graph(default, TnTClassifier(C=1e-3, internal_refit="always", random_state=0).fit(X, y))


@pytest.mark.parametrize(
    "Model, data",
    [(TnTRegressor, _friedman), (TnTClassifier, lambda: make_classification(600, flip_y=0.1, random_state=1))],
)
@pytest.mark.parametrize("option, priced", [("cost_complexity", True), ("improving", False)])
def test_the_growth_prices_refits_at_its_own_c(monkeypatch, Model, data, option, priced):
    """Every guarded refit is judged at ``C`` times the total weight, ``C`` the level the graph grows
    at (the larger of ``C`` and the default size's choice), or at no price with "improving"."""
    prices = []
    original = working_graph.improves_on_split

    def recording(*args, **kwargs):
        prices.append(args[8] if len(args) > 8 else kwargs.get("split_price", 0.0))
        return original(*args, **kwargs)

    monkeypatch.setattr(working_graph, "improves_on_split", recording)
    X, y = data()
    model = Model(C=1e-3, internal_refit=option, random_state=0).fit(X, y)
    grown_at = max(1e-3, model.pruning_level_)
    assert len(prices) >= 5
    expected = grown_at * X.shape[0] if priced else 0.0
    assert np.allclose(prices, expected, rtol=1e-12, atol=0.0)
