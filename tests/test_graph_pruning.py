"""Weakest-link pruning of a finished graph (``ccp_alpha``, :mod:`tnt.learn.graph_pruning`): on a
tree it is scikit-learn's minimal cost-complexity pruning; on a graph it frees only the splits a
collapsed node dominates, and never raises ``R + alpha * splits``."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import InvalidParameterError

from tnt import TnTClassifier, TnTRegressor
from tnt._base import flat_from_graph
from tnt.learn.graph_pruning import collapse_costs, freed_splits, prune_graph, pruning_statistics
from tnt.learn.held_out_pruning import LEVELS, held_out_pruning_level, pruning_levels
from tnt.learn.working_graph import FlatGraph


def _flat_tree(tree) -> FlatGraph:
    t = tree.tree_
    leaf = t.children_left < 0
    return FlatGraph(
        t.children_left.astype(np.intp),
        t.children_right.astype(np.intp),
        np.where(leaf, -2, t.feature).astype(np.intp),
        t.threshold.astype(np.float64),
        np.where(leaf, np.argmax(t.value[:, 0, :], axis=1), -1).astype(np.intp),
    )


def _splits(children_left, feature, threshold) -> list:
    """The (feature, threshold) of every split, sorted: the same for two numberings of one tree."""
    internal = np.asarray(children_left) >= 0
    return sorted(zip(np.asarray(feature)[internal].tolist(), np.asarray(threshold)[internal].tolist(), strict=True))


def _same_tree(flat: FlatGraph, tree) -> bool:
    return _splits(flat.children_left, flat.feature, flat.threshold) == _splits(
        tree.children_left, tree.feature, tree.threshold
    )


@pytest.fixture(scope="module")
def noisy():
    X, y = make_classification(n_samples=400, n_features=6, n_informative=4, n_classes=3, flip_y=0.2, random_state=0)
    return X.astype(np.float32), y


# ---------------------------------------------------------------- on a tree: scikit-learn's pruning


@pytest.mark.parametrize("alpha", [0.002, 0.005, 0.02])
def test_a_tree_is_pruned_as_scikit_learn_prunes_it(noisy, alpha):
    X, y = noisy
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    pruned, path = prune_graph(_flat_tree(full), X, pruning_statistics(y, np.ones(len(y)), 3), False, alpha)
    expected = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y).tree_
    assert 0 < pruned.n_splits < full.tree_.node_count // 2
    assert _same_tree(pruned, expected)  # numbered breadth-first as TnT numbers, not in preorder
    assert np.all(path.alphas <= alpha)


def test_a_tree_pruned_at_every_level_of_scikit_learns_path_is_scikit_learns(noisy):
    X, y = noisy
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    alphas = full.cost_complexity_pruning_path(X, y).ccp_alphas
    stats = pruning_statistics(y, np.ones(len(y)), 3)
    for alpha in np.sqrt(alphas[1:-1] * alphas[2:])[::4]:  # between two levels of the path
        pruned, path = prune_graph(_flat_tree(full), X, stats, False, alpha)
        expected = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y).tree_
        assert _same_tree(pruned, expected)
        assert np.all(path.alphas <= alpha) and np.all(np.diff(path.n_splits) < 0)
    everything, _ = prune_graph(_flat_tree(full), X, stats, False, np.inf)
    assert everything.n_splits == 0


def test_a_regression_tree_is_pruned_as_scikit_learn_prunes_it():
    X, y = make_regression(n_samples=300, n_features=5, noise=10.0, random_state=0)
    X, y = X.astype(np.float32), (y - y.mean()) / y.std()
    full = DecisionTreeRegressor(random_state=0).fit(X, y)
    for alpha in (0.0005, 0.002, 0.01):
        pruned, _ = prune_graph(_flat_tree(full), X, pruning_statistics(y, np.ones(len(y)), None), True, alpha)
        expected = DecisionTreeRegressor(random_state=0, ccp_alpha=alpha).fit(X, y).tree_
        assert pruned.n_splits > 0 and _same_tree(pruned, expected)


# ---------------------------------------------------------------- on a graph


def _diamond() -> FlatGraph:
    """Node 0 splits x0 at 0.5 into the splits 1 and 2, which both lead to split 3 (x1 at 0.5);
    1's other child is leaf 4 (x1 above 0.25), 2's leaf 5 (x1 above 0.75); 3's leaves are 6 and 7."""
    return FlatGraph(
        np.array([1, 3, 3, 6, -1, -1, -1, -1]),
        np.array([2, 4, 5, 7, -1, -1, -1, -1]),
        np.array([0, 1, 1, 1, -2, -2, -2, -2]),
        np.array([0.5, 0.25, 0.75, 0.5, -2, -2, -2, -2]),
        np.array([-1, -1, -1, -1, 0, 1, 0, 1]),
    )


def test_a_shared_split_is_freed_only_with_the_node_above_both_parents():
    g = _diamond()
    assert freed_splits(g.children_left, g.children_right).tolist() == [4, 1, 1, 1, 0, 0, 0, 0]


def test_collapsing_a_parent_of_a_shared_leaf_can_lower_the_impurity():
    # Split 1 sends two samples of class 0 through the shared split 3 to leaf 6, split 2 one of
    # class 1: leaf 6 mixes them; a leaf of 1's own (or of 2's) does not.
    g = _diamond()
    X = np.array([[0.0, 0.1], [0.0, 0.2], [0.0, 0.7], [1.0, 0.1], [1.0, 0.6], [1.0, 0.9]], dtype=np.float32)
    y = np.array([0, 0, 0, 1, 1, 1])
    stats = pruning_statistics(y, np.ones(6), 2)
    delta, flow = collapse_costs(X, stats, False, g.children_left, g.children_right, g.feature, g.threshold)
    assert flow[6, 1:].tolist() == [2.0, 1.0]  # Gini weight 3 - 5/3 = 4/3, every other leaf pure
    assert delta[1] == pytest.approx(-4 / 3)  # leaf 1 holds three of class 0, leaf 6 keeps one sample
    assert delta[2] == pytest.approx(-4 / 3)
    assert delta[3] == pytest.approx((4 - 8 / 4) - 4 / 3)  # leaf 3 holds two of each class
    assert delta[0] == pytest.approx((6 - 18 / 6) - 4 / 3)
    pruned, path = prune_graph(g, X, stats, False, 0.01)
    # 1 goes first (the first of two equal costs, -4/3 / 6 per split), then 2 costs nothing and
    # frees 3 with it; the root's split stays.
    assert path.alphas == pytest.approx([-4 / 18, 0.0])
    assert path.n_splits.tolist() == [4, 3, 1]
    assert path.nodes.tolist() == [1, 2]
    assert path.impurities == pytest.approx([4 / 18, 0.0, 0.0])
    assert pruned.n_splits == 1 and pruned.label[1:].tolist() == [0, 1]


# ---------------------------------------------------------------- the estimators' ccp_alpha


def test_larger_alphas_give_nested_smaller_graphs_of_lower_cost(noisy):
    X, y = noisy
    unpruned = TnTClassifier(C=3e-3, ccp_alpha=0.0, random_state=0).fit(X, y)
    assert unpruned.n_shared_nodes_ > 0  # a graph, not a tree
    previous = unpruned.n_splits_
    for alpha in (1e-3, 3e-3, 1e-2, 3e-2):
        pruned = TnTClassifier(C=3e-3, ccp_alpha=alpha, random_state=0).fit(X, y)
        assert pruned.n_splits_ <= previous
        previous = pruned.n_splits_
        # the cost R + alpha * splits the pruning lowers, R the leaves' weighted Gini as a share
        assert _cost(pruned, alpha) <= _cost(unpruned, alpha) + 1e-12
    assert previous < unpruned.n_splits_ // 4


def _cost(model, alpha):
    g = model.graph_
    leaves = g.value[g.children_left < 0]
    weight = leaves.sum(axis=1)
    gini = (weight - (leaves**2).sum(axis=1) / np.maximum(weight, 1e-300)).sum()
    return gini / weight.sum() + alpha * g.n_splits


def test_pruned_graph_agrees_with_pruning_its_unpruned_graph(noisy):
    X, y = noisy
    unpruned = TnTClassifier(C=3e-3, ccp_alpha=0.0, random_state=0).fit(X, y)
    pruned = TnTClassifier(C=3e-3, ccp_alpha=3e-3, random_state=0).fit(X, y)
    again, _ = prune_graph(flat_from_graph(unpruned.graph_), X, pruning_statistics(y, np.ones(len(y)), 3), False, 3e-3)
    assert again.n_splits == pruned.n_splits_
    assert np.array_equal(again.children_left, pruned.graph_.children_left)


def test_min_splits_stops_the_pruning_at_that_size(noisy):
    X, y = noisy
    graph = flat_from_graph(TnTClassifier(C=3e-3, ccp_alpha=0.0, random_state=0).fit(X, y).graph_)
    stats = pruning_statistics(y, np.ones(len(y)), 3)
    pruned, path = prune_graph(graph, X, stats, False, np.inf, min_splits=20)
    assert pruned.n_splits <= 20 < path.n_splits[-2]
    assert np.all(np.diff(path.n_splits) < 0)


def test_regressor_prunes_its_graph(noisy):
    X, y = make_regression(n_samples=300, n_features=5, noise=20.0, random_state=0)
    unpruned = TnTRegressor(C=1e-4, random_state=0).fit(X, y)
    pruned = TnTRegressor(C=1e-4, ccp_alpha=1e-3, random_state=0).fit(X, y)
    assert 0 < pruned.n_splits_ < unpruned.n_splits_
    assert pruned.score(X, y) <= unpruned.score(X, y)


# ---------------------------------------------------------------- the level a held-out part chooses


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_held_out_level_is_the_level_the_graph_is_pruned_at(Model, noisy):
    X, y = noisy
    chosen = Model(C=3e-3, ccp_alpha="held_out", random_state=0).fit(X, y)
    assert chosen.pruning_level_ > 0
    again = Model(C=3e-3, ccp_alpha=chosen.pruning_level_, random_state=0).fit(X, y)
    assert np.array_equal(chosen.graph_.children_left, again.graph_.children_left)
    assert np.array_equal(chosen.graph_.threshold, again.graph_.threshold)
    assert Model(C=3e-3, ccp_alpha=0.01, random_state=0).fit(X, y).pruning_level_ == 0.01


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_regrown_graph_is_grown_at_the_chosen_level_then_pruned_there(Model, noisy):
    X, y = noisy
    regrown = Model(C=1e-4, ccp_alpha="held_out_regrown", random_state=0).fit(X, y)
    pruned = Model(C=1e-4, ccp_alpha="held_out", random_state=0).fit(X, y)
    # the same level, chosen once by the same held-out part
    assert regrown.pruning_level_ == pruned.pruning_level_ > 1e-4
    level = regrown.pruning_level_
    again = Model(C=level, ccp_alpha=level, random_state=0).fit(X, y)
    assert np.array_equal(regrown.graph_.children_left, again.graph_.children_left)
    assert np.array_equal(regrown.graph_.threshold, again.graph_.threshold)
    # not the graph grown at C cut down to that level
    assert not (
        regrown.graph_.children_left.shape == pruned.graph_.children_left.shape
        and np.array_equal(regrown.graph_.threshold, pruned.graph_.threshold)
    )


def test_a_level_below_C_leaves_C_as_it_is(noisy):
    X, y = noisy
    # at C=0.04 the graph has four splits, and the held-out part chooses a level below C
    regrown = TnTClassifier(C=0.04, ccp_alpha="held_out_regrown", random_state=0).fit(X, y)
    assert 0 < regrown.pruning_level_ < 0.04
    pruned = TnTClassifier(C=0.04, ccp_alpha="held_out", random_state=0).fit(X, y)
    assert np.array_equal(regrown.graph_.children_left, pruned.graph_.children_left)
    assert np.array_equal(regrown.graph_.threshold, pruned.graph_.threshold)


def test_labels_without_signal_are_pruned_to_a_few_splits():
    rng = np.random.RandomState(0)
    X, y = rng.rand(600, 5), rng.randint(0, 2, 600)
    unpruned = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    pruned = TnTClassifier(C=1e-3, ccp_alpha="held_out", random_state=0).fit(X, y)
    assert unpruned.n_splits_ > 50
    assert pruned.n_splits_ <= 5


def test_held_out_scores_cover_the_path_from_the_graph_to_its_root(noisy):
    X, y = noisy
    problem = TnTClassifier()._training_problem(X, y, None, 65535)
    schedule = {"C": 3e-3, "N1": 2, "N2": 5}
    level, scores = held_out_pruning_level(problem, 0.2, True, schedule)
    # the first score is the unpruned graph's, the last the root's as a leaf (the majority class)
    assert 2 < scores.size <= LEVELS + 1
    assert level in pruning_levels(320)
    held = held_out_pruning_level(problem, 0.2, True, schedule)
    assert held[0] == level and np.array_equal(held[1], scores)
    assert scores.max() > scores[-1]


def test_a_pruned_model_is_not_fine_tuned_afterwards(noisy):
    X, y = noisy
    pruned = TnTClassifier(C=3e-3, ccp_alpha=1e-2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"not pruned; this one has ccp_alpha=0.01 .*\(fine_tune=\.\.\."):
        pruned.fine_tuned(X, y, rounds=2)
    chosen = TnTClassifier(C=1e-4, random_state=0).fit(X, y)  # the default, "auto"
    assert chosen.pruning_level_ > 0  # the noisy labels: a larger level than C was chosen
    with pytest.raises(ValueError, match=r"ccp_alpha='auto' \(pruned at"):
        chosen.fine_tuned(X, y, rounds=2)


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_negative_ccp_alpha_is_refused(Model, noisy):
    X, y = noisy
    for bad in (-1e-3, "cross_validated"):
        with pytest.raises(InvalidParameterError, match="'ccp_alpha' parameter"):
            Model(ccp_alpha=bad).fit(X, y)
