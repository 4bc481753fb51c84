"""Graph reduction: lossless on the training data, and the corners problem's six splits become four."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tnt import CARTClassifier, DecisionGraph, TnTClassifier
from tnt.experiments.toy import corners, four_split_graph
from tnt.reduction import reduce_graph, reduce_model


def predictions(graph, X):
    return graph.leaf_class()[graph.apply(X)]


@pytest.mark.parametrize("learner", ["cart", "tnt"])
def test_corners_six_splits_become_four_for_at_least_four_seeds(learner):
    reduced = []
    for seed in range(5):
        X, y = corners(seed=seed)
        if learner == "cart":
            model = CARTClassifier(max_leaf_nodes=7, random_state=seed).fit(X, y)
        else:
            model = TnTClassifier(C=1e-2, random_state=seed).fit(X, y)
        assert model.n_splits_ == 6
        small = reduce_model(model, X, y)
        np.testing.assert_array_equal(small.predict(X), model.predict(X))
        reduced.append(small.n_splits_)
    assert reduced.count(4) >= 4, reduced
    assert max(reduced) <= 5


def test_reduced_corners_graph_shares_a_subgraph_like_the_papers():
    X, y = corners(seed=0)
    small = reduce_model(CARTClassifier(max_leaf_nodes=7, random_state=0).fit(X, y), X, y)
    g = small.graph_
    assert g.n_leaves == 2  # one leaf per class
    assert g.shared_nodes.size >= 2  # the shared x-test and the leaves
    assert small.score(X, y) == 1.0
    assert np.isclose(g.value[0].sum(), len(y))


def test_hand_built_four_split_graph_is_already_reduced():
    X, y = corners(seed=1)
    g = four_split_graph(X, y)
    assert reduce_graph(g, X, y).n_splits == 4


def test_a_split_whose_sides_predict_the_same_class_disappears():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 0, 1])
    g = DecisionGraph(
        [1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 0, -2, -2], [0.5, -2, 2.5, -2, -2], np.zeros((5, 2))
    ).with_training_stats(X, y)
    r = reduce_graph(g, X, y)
    assert (g.n_splits, r.n_splits) == (2, 1)
    assert r.threshold[0] == 2.5
    np.testing.assert_array_equal(predictions(r, X), y)


def test_reduction_keeps_training_predictions_on_pendigits(pendigits):
    X, y, X_test, y_test = pendigits
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    small = reduce_model(model, X, y)
    np.testing.assert_array_equal(small.predict(X), model.predict(X))
    assert small.n_splits_ <= model.n_splits_
    assert small.n_leaves_ == len(np.unique(model.predict(X)))
    assert abs(small.score(X_test, y_test) - model.score(X_test, y_test)) < 0.01
    assert model.n_splits_ == model.graph_.n_splits  # the original is untouched


def test_reduce_model_rejects_unknown_labels():
    X, y = corners(n=200, seed=0)
    model = CARTClassifier(max_leaf_nodes=4).fit(X, y)
    with pytest.raises(ValueError, match="labels the model was not trained on"):
        reduce_model(model, X, y + 5)


@st.composite
def small_problems(draw):
    n = draw(st.integers(4, 40))
    n_features = draw(st.integers(1, 3))
    n_classes = draw(st.integers(2, 3))
    X = np.array(
        draw(st.lists(st.lists(st.integers(0, 4), min_size=n_features, max_size=n_features), min_size=n, max_size=n)),
        dtype=float,
    )
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    return X, y, w


@st.composite
def random_dags(draw, n_features):
    """A random DAG: each split's children have larger ids; thresholds on the data's grid."""
    n_splits = draw(st.integers(1, 8))
    n_leaves = draw(st.integers(1, 4))
    n = n_splits + n_leaves
    left = [draw(st.integers(i + 1, n - 1)) for i in range(n_splits)]
    right = [draw(st.integers(i + 1, n - 1)) for i in range(n_splits)]
    feature = [draw(st.integers(0, n_features - 1)) for _ in range(n_splits)]
    threshold = [draw(st.sampled_from([0.5, 1.5, 2.5, 3.5])) for _ in range(n_splits)]
    return DecisionGraph(
        left + [-1] * n_leaves,
        right + [-1] * n_leaves,
        feature + [-2] * n_leaves,
        threshold + [-2.0] * n_leaves,
        np.zeros((n, 3)),
    )


@settings(max_examples=150, deadline=None)
@given(problem=small_problems(), data=st.data())
def test_reduction_never_changes_a_training_prediction(problem, data):
    X, y, w = problem
    kind = data.draw(st.sampled_from(["cart", "tnt", "dag"]))
    if kind == "dag":
        g = data.draw(random_dags(X.shape[1]))
        g = DecisionGraph(
            g.children_left, g.children_right, g.feature, g.threshold, np.zeros((g.node_count, int(y.max()) + 1))
        ).with_training_stats(X, y, w)
    else:
        model = (
            CARTClassifier(max_leaf_nodes=data.draw(st.integers(2, 12)))
            if kind == "cart"
            else TnTClassifier(C=data.draw(st.sampled_from([1e-3, 1e-2, 1e-1])))
        )
        model.fit(X, y, sample_weight=w)
        y = np.searchsorted(model.classes_, y)
        g = model.graph_
    r = reduce_graph(g, X, y, w)
    np.testing.assert_array_equal(predictions(r, X), predictions(g.with_training_stats(X, y, w), X))
    assert r.n_splits <= g.n_splits
    assert np.all(r.children_left[r.children_left >= 0] > np.flatnonzero(r.children_left >= 0))
