"""Graph reduction and fine-tuning keep each split's direction for missing values (``missing_go_to_left``),
and reduction never merges two splits that send missing values different ways."""

import numpy as np
import pytest
from test_missing_routing import nan_classification, reference_leaf

from tnt import CARTClassifier, DecisionGraph, TAOClassifier
from tnt.model_io import model_from_json, model_to_json
from tnt.reduction import reduce_graph, reduce_model


def nan_rows(X, seed=1):
    """``X`` with about a third of its values missing, and at least one in every row."""
    rng = np.random.default_rng(seed)
    X = np.array(X, dtype=np.float64)
    X[rng.random(X.shape) < 0.33] = np.nan
    X[np.arange(X.shape[0]), rng.integers(0, X.shape[1], X.shape[0])] = np.nan
    return X


def assert_follows_directions(model, X):
    """Every sample reaches the leaf a walk applying the stored directions reaches, and gets its class."""
    graph = model.graph_
    leaves = np.array([reference_leaf(graph, x) for x in X])
    assert (model.apply(X) == leaves).all()
    assert (model.predict(X) == model.classes_[graph.value[leaves].argmax(axis=1)]).all()


def assert_directions_by_training_counts(graph, X):
    """Each split sends missing values to the side more of the training samples ``X`` took (ties right)."""
    leaf_paths = graph.decision_path(X).toarray().astype(bool)
    splits = np.flatnonzero(graph.children_left >= 0)
    went_left = leaf_paths[:, graph.children_left[splits]].sum(axis=0)
    went_right = leaf_paths[:, graph.children_right[splits]].sum(axis=0)
    assert (graph.missing_go_to_left[splits] == (went_left > went_right)).all()


def two_copies(directions, learned=True):
    """Two tests of x1 under a root on x0, the reduction docstring's example, with the given directions
    (learned from missing values, or only the rule for complete data)."""
    X = np.array([[0.1, 0.2], [0.2, 0.8], [0.8, 0.3], [0.9, 0.7]])
    y = np.array([0, 1, 0, 1])
    g = DecisionGraph(
        [1, 3, 5, -1, -1, -1, -1],
        [2, 4, 6, -1, -1, -1, -1],
        [0, 1, 1, -2, -2, -2, -2],
        [0.5, 0.5, 0.52, -2, -2, -2, -2],
        np.zeros((7, 2)),
        missing_go_to_left=list(directions) + [0, 0, 0, 0],
        missing_in_training=learned,
    ).with_training_stats(X, y)
    return g, X, y


@pytest.fixture(scope="module")
def cart_learned_from_nan():
    """A CART trained with missing values, and its complete training rows."""
    X, y = nan_classification(n=800)
    cart = CARTClassifier(max_leaf_nodes=16, random_state=0).fit(X, y)
    complete = ~np.isnan(X).any(axis=1)
    return cart, X[complete], y[complete]


def test_two_copies_sending_missing_values_the_same_way_merge_and_keep_it():
    g, X, y = two_copies([0, 1, 1])
    r = reduce_graph(g, X, y)
    assert r.n_splits == 1
    assert r.missing_go_to_left.tolist() == [1, 0, 0]


def test_two_splits_differing_only_in_their_direction_for_missing_values_are_not_merged():
    g, X, y = two_copies([0, 1, 0])
    r = reduce_graph(g, X, y)
    assert r.n_splits == 3
    x_missing = np.array([[0.1, np.nan], [0.9, np.nan]])
    assert (r.predict_proba(x_missing).argmax(1) == g.predict_proba(x_missing).argmax(1)).all()
    assert r.predict_proba(x_missing).argmax(1).tolist() == [0, 1]  # left at node 1, right at node 2


def test_directions_not_learned_do_not_keep_splits_apart_and_follow_the_rule_for_complete_data():
    g, X, y = two_copies([0, 1, 0], learned=False)
    r = reduce_graph(g, X, y)
    assert r.n_splits == 1 and not r.missing_in_training
    assert_directions_by_training_counts(r, X)


def test_a_graph_without_directions_reduces_to_one_without_directions():
    g, X, y = two_copies([0, 0, 0])
    g.missing_go_to_left = None
    r = reduce_graph(g, X, y)
    assert r.n_splits == 1
    assert r.missing_go_to_left is None


def test_a_cart_learned_from_nan_reduced_on_its_complete_rows_keeps_its_directions(cart_learned_from_nan):
    cart, X, y = cart_learned_from_nan
    small = reduce_model(cart, X, y)
    assert small.n_splits_ < cart.n_splits_
    assert small.graph_.missing_go_to_left is not None
    assert small.graph_.missing_in_training
    assert (small.predict(X) == cart.predict(X)).all()
    X_test = nan_rows(nan_classification(n=300, seed=3)[0])
    assert_follows_directions(small, X_test)


def test_kept_splits_keep_the_direction_they_had_before_reduction(cart_learned_from_nan):
    cart, X, y = cart_learned_from_nan
    small = reduce_model(cart, X, y).graph_
    before = {
        (int(f), float(t)): int(d)
        for f, t, d in zip(cart.graph_.feature, cart.graph_.threshold, cart.graph_.missing_go_to_left, strict=True)
        if f >= 0
    }
    kept = [
        (int(f), float(t), int(d))
        for f, t, d in zip(small.feature, small.threshold, small.missing_go_to_left, strict=True)
        if f >= 0 and (int(f), float(t)) in before
    ]
    assert kept  # most splits keep their threshold; those that do must keep their direction
    assert all(before[(f, t)] == d for f, t, d in kept)


def test_a_reduced_graph_predicts_missing_values_the_same_after_a_model_file(cart_learned_from_nan):
    cart, X, y = cart_learned_from_nan
    small = reduce_model(cart, X, y)
    loaded = model_from_json(model_to_json(small))
    X_test = nan_rows(nan_classification(n=300, seed=4)[0])
    assert (loaded.graph_.missing_go_to_left == small.graph_.missing_go_to_left).all()
    assert (loaded.predict(X_test) == small.predict(X_test)).all()
    assert np.allclose(loaded.predict_proba(X_test), small.predict_proba(X_test))


@pytest.mark.parametrize(
    "model", [TAOClassifier(max_leaf_nodes=8, random_state=0), CARTClassifier(max_leaf_nodes=8, fine_tune=2)]
)
def test_fine_tuned_trees_send_missing_values_where_most_training_samples_went(model):
    X, y = nan_classification(n=600)
    X = np.nan_to_num(X)
    model.fit(X, y)
    assert model.graph_.missing_go_to_left is not None
    assert_directions_by_training_counts(model.graph_, X.astype(np.float32))
    assert_follows_directions(model, nan_rows(X[:200]))


def test_a_reduced_fine_tuned_tree_keeps_its_directions():
    X, y = nan_classification(n=600)
    X = np.nan_to_num(X)
    tao = TAOClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    small = reduce_model(tao, X, y)
    assert small.graph_.missing_go_to_left is not None
    X_nan = nan_rows(X[:200])
    assert (small.graph_.apply(X_nan) == np.array([reference_leaf(small.graph_, x) for x in X_nan])).all()
