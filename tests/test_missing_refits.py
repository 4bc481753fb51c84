"""Internal nodes' refits with missing values: ``internal_refit="auto"``, the default, guards them
(tnt/learn/refit_guard.py) when some training value is missing, and takes every refit otherwise."""

import numpy as np
import pytest
from growth_helpers import same_fitted_graph
from sklearn.datasets import make_classification, make_friedman1

from tnt import TnTClassifier, TnTRegressor
from tnt.learn.refit_guard import guards_refits


@pytest.mark.parametrize(
    "option, missing_values, guarded",
    [
        ("auto", False, False),
        ("auto", True, True),
        ("always", True, False),
        ("always", False, False),
        ("improving", False, True),
        ("improving", True, True),
    ],
)
def test_guards_refits(option, missing_values, guarded):
    assert guards_refits(option, missing_values) is guarded


def _problems(Model, missing: bool):
    if Model is TnTClassifier:
        X, y = make_classification(n_samples=400, n_features=8, n_informative=4, flip_y=0.15, random_state=0)
    else:
        X, y = make_friedman1(n_samples=300, noise=1.0, random_state=0)
    if missing:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.15] = np.nan
    return X, y


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_the_default_guards_refits_when_training_values_are_missing(Model):
    X, y = _problems(Model, missing=True)
    default = Model(ccp_alpha=0.0, C=1e-3, random_state=0).fit(X, y)
    assert default.internal_refit == "auto"
    assert same_fitted_graph(
        default, Model(ccp_alpha=0.0, C=1e-3, internal_refit="improving", random_state=0).fit(X, y)
    )
    assert not same_fitted_graph(
        default, Model(ccp_alpha=0.0, C=1e-3, internal_refit="always", random_state=0).fit(X, y)
    )


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_the_default_takes_every_refit_without_missing_values(Model):
    X, y = _problems(Model, missing=False)
    default = Model(ccp_alpha=0.0, C=1e-3, random_state=0).fit(X, y)
    assert same_fitted_graph(default, Model(ccp_alpha=0.0, C=1e-3, internal_refit="always", random_state=0).fit(X, y))
    assert not same_fitted_graph(
        default, Model(ccp_alpha=0.0, C=1e-3, internal_refit="improving", random_state=0).fit(X, y)
    )


def test_with_missing_values_a_first_phase_that_fits_every_training_sample_stays_that_tree():
    """No refit can misroute fewer sensitive samples than splits that route them all right: with
    missing values the default keeps the first phase's tree, where taking every refit changes it."""
    X, y = _problems(TnTClassifier, missing=True)
    first = TnTClassifier(ccp_alpha=0.0, C=0.0, N1=1, random_state=0).fit(X, y)
    assert first.score(X, y) == 1.0
    assert same_fitted_graph(TnTClassifier(ccp_alpha=0.0, C=0.0, random_state=0).fit(X, y), first)
    assert not same_fitted_graph(
        TnTClassifier(ccp_alpha=0.0, C=0.0, internal_refit="always", random_state=0).fit(X, y), first
    )


def test_for_a_regressor_the_guard_compares_the_graphs_squared_training_errors():
    """A regressor's reduced problem weighs a sample by how much its squared error differs between the
    two children, so "misroutes less weight" is "has a lower weighted squared training error", with
    missing values (each split's direction) as without: the guard needs no criterion of its own."""
    from tnt.learn.micro_tree import MicroTree
    from tnt.learn.refit_guard import improves_on_split
    from tnt.learn.regression_growth import RegressionProblem, _LeafValues, _reduced_problem
    from tnt.learn.working_graph import FlatGraph, WorkingGraph

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)).astype(np.float32)
    X[rng.random(X.shape) < 0.25] = np.nan
    y, w = rng.normal(size=60), rng.uniform(0.5, 2.0, size=60)
    problem = RegressionProblem(X=X, y=y, w=w, n_classes=2, seed=0)
    values = _LeafValues(-0.4)
    values.add(np.array([0.7]))
    start = FlatGraph(
        np.array([1, -1, -1]), np.array([2, -1, -1]), np.array([0, -2, -2]), np.array([0.0, -2.0, -2.0]),
        np.array([-1, 0, 1]), missing_go_to_left=np.array([1, 0, 0], dtype=np.uint8),
    )  # fmt: skip
    rows, targets, weights = _reduced_problem(WorkingGraph(start, True), 0, problem, np.arange(60), values)
    assert rows.size > 50 and np.isnan(X[rows]).any()

    def squared_error(feature, threshold, missing_left):
        x = X[:, feature]
        right = np.where(np.isnan(x), not missing_left, x > threshold)
        return float(np.sum(w * (np.where(right, 0.7, -0.4) - y) ** 2))

    decided = 0
    for feature, threshold, missing_left in [(f, t, m) for f in (0, 1) for t in (-1.0, -0.2, 0.3, 1.1) for m in (0, 1)]:
        stump = MicroTree(
            np.array([1, -1, -1]), np.array([2, -1, -1]), np.array([feature, -2, -2]),
            np.array([threshold, -2.0, -2.0]), np.array([-1, 0, 1]),
            missing_left=np.array([missing_left, 0, 0], dtype=np.uint8),
        )  # fmt: skip
        lower = squared_error(feature, threshold, missing_left) < squared_error(0, 0.0, 1) - 1e-9
        assert improves_on_split(stump, 0, 0.0, 1, X, rows, targets, weights) == lower
        decided += lower
    assert 0 < decided < 16  # some stumps improve on the split, some do not


@pytest.mark.parametrize("weights", ["unit", "whole", "fractional", "tiny"])
@pytest.mark.parametrize("max_bins", [65535, 12])
def test_a_micro_tree_knows_the_weight_it_misclassifies_and_the_guard_agrees_with_routing(weights, max_bins):
    """``MicroTree.misclassified`` is the weight of its training rows that routing them through the
    tree puts at a leaf of another label (NaN by each split's direction, quantised bins too), in the
    units of the weights given; the guard, which uses it for whole-number weights, decides as routing."""
    from tnt.learn.binning import bin_features
    from tnt.learn.micro_tree import fit_micro_tree, fit_stump
    from tnt.learn.refit_guard import improves_on_split
    from tnt.learn.routing import route_to_leaves

    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 4)).astype(np.float32)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(scale=0.8, size=500)) > 0).astype(np.int64)
    w = {
        "unit": np.ones(500),
        "whole": rng.integers(1, 5, size=500).astype(float),
        "fractional": rng.uniform(0.1, 3.0, size=500),
        "tiny": rng.uniform(1e-190, 3e-190, size=500),
    }[weights]
    rows = np.sort(rng.choice(500, size=400, replace=False))
    binned = bin_features(X, max_bins=max_bins)
    tree = fit_micro_tree(binned, np.arange(4), rows, y[rows], w[rows], 2e-3, 2)
    arrays = (tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.missing_left)
    wrong = tree.label[route_to_leaves(X, rows, 0, *arrays)] != y[rows]
    assert 1 < tree.n_splits and wrong.any()
    assert tree.misclassified == pytest.approx(float(w[rows][wrong].sum()), rel=1e-12)
    stump = fit_stump(binned, np.arange(4), rows, y[rows], w[rows])  # ties with its own split: False
    decisions = set()
    for fitted in (tree, stump):
        routed = type(fitted)(*fitted.arrays, missing_left=fitted.missing_left)  # misclassified unknown
        assert routed.misclassified is None and fitted.misclassified is not None
        own = (int(stump.feature[0]), float(stump.threshold[0]), int(stump.missing_left[0]))
        for split in [own] + [(f, t, m) for f in range(4) for t in (-1.0, 0.0, 0.5) for m in (0, 1)]:
            arguments = (*split, X, rows, y[rows], w[rows])
            decisions.add(improves_on_split(fitted, *arguments))
            assert improves_on_split(fitted, *arguments) == improves_on_split(routed, *arguments)
    assert decisions == {True, False}
