"""The naive decision graph (the paper's Algorithm 1): what must hold of its splits and merges."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt import CARTClassifier, NDGClassifier
from tnt._base import DTYPE
from tnt.learn.growth import _Problem
from tnt.learn.naive_graph import grow_naive_graph
from tnt.learn.routing import route_to_leaves

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def continuous(n=2000, d=5, seed=0):
    """Continuous features (no two equally good splits) and three classes depending on several of them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + X[:, 1] ** 2 - 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    return X, np.digitize(score, np.quantile(score, [0.4, 0.75]))


def _problem(X, y, w=None, seed=0):
    classes, y_enc = np.unique(y, return_inverse=True)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    return _Problem(
        X=np.ascontiguousarray(X, dtype=DTYPE), y=y_enc.astype(np.intp), w=w, n_classes=classes.size, seed=seed
    )


def _splits(model):
    g = model.graph_
    internal = g.children_left >= 0
    return sorted(zip(g.feature[internal].tolist(), np.round(g.threshold[internal], 9).tolist()))


@pytest.mark.parametrize("n_splits", [1, 4, 12, 30])
def test_without_merges_it_grows_best_first_cart(n_splits):
    X, y = continuous()
    probes = np.random.default_rng(1).normal(size=(500, X.shape[1]))
    ndg = NDGClassifier(C=0.0, merge=False, max_splits=n_splits, random_state=0).fit(X, y)
    cart = CARTClassifier.with_splits(n_splits, random_state=0).fit(X, y)
    assert ndg.n_splits_ == cart.n_splits_ == n_splits
    assert ndg.n_shared_nodes_ == 0
    assert _splits(ndg) == _splits(cart)
    assert np.array_equal(ndg.predict(probes), cart.predict(probes))
    assert np.allclose(ndg.predict_proba(probes), cart.predict_proba(probes))


def test_without_merges_C_stops_growth_where_no_split_gains_more_than_C():
    X, y = continuous()
    free = NDGClassifier(C=0.0, merge=False, random_state=0).fit(X, y)
    stopped = NDGClassifier(C=2e-3, merge=False, random_state=0).fit(X, y)
    assert 0 < stopped.n_splits_ < free.n_splits_
    assert free.score(X, y) == 1.0  # grown until every leaf is pure
    # The stopped tree is the first splits of the same best-first order.
    cart = CARTClassifier.with_splits(stopped.n_splits_, random_state=0).fit(X, y)
    assert _splits(stopped) == _splits(cart)


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), C=st.sampled_from([1e-3, 5e-3, 2e-2]), n_classes=st.integers(2, 4))
def test_a_merge_only_joins_the_two_leaves(seed, C, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(120, 3)).astype(float)
    y = rng.integers(0, n_classes, size=120)
    problem = _problem(X, y, seed=seed)
    rows = np.arange(len(y))
    partitions, kinds = [], []

    def record(kind, snapshot):
        g = snapshot()
        kinds.append(kind)
        partitions.append(
            route_to_leaves(problem.X, rows, 0, g.children_left, g.children_right, g.feature, g.threshold)
        )

    grow_naive_graph(problem, C, callback=record)
    for before, after, kind in zip(partitions, partitions[1:], kinds[1:]):
        if kind != "merge":
            continue
        # Every leaf's samples stay together, and exactly two leaves' samples come together.
        pairs = set(zip(before.tolist(), after.tolist()))
        assert len({b for b, _ in pairs}) == len(pairs)
        assert len(pairs) - len({a for _, a in pairs}) == 1


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), C=st.sampled_from([0.0, 1e-3, 1e-2]))
def test_the_result_is_a_dag_whose_merges_only_lower_the_objective(seed, C):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(150, 4)).astype(float)
    y = rng.integers(0, 3, size=150)
    model = NDGClassifier(C=C, random_state=seed).fit(X, y)
    g = model.graph_
    internal = np.flatnonzero(g.children_left >= 0)
    # Nodes are numbered topologically: every edge goes to a later node, so there is no cycle.
    assert np.all(g.children_left[internal] > internal) and np.all(g.children_right[internal] > internal)
    assert np.all(g.children_left[internal] != g.children_right[internal])
    # Every node is reachable and every leaf is reached by some training sample.
    reached = np.unique(model.apply(X))
    assert np.array_equal(reached, np.flatnonzero(g.children_left < 0))


def test_merges_share_nodes_and_give_fewer_leaves_than_a_tree(pendigits):
    X, y, X_test, y_test = pendigits
    graph = NDGClassifier(C=3e-4, random_state=0).fit(X, y)
    tree = NDGClassifier(C=3e-4, merge=False, random_state=0).fit(X, y)
    assert graph.n_shared_nodes_ > 0
    assert graph.n_leaves_ < graph.n_splits_ + 1
    assert tree.n_leaves_ == tree.n_splits_ + 1
    assert graph.score(X_test, y_test) > 0.85


def test_max_splits_caps_the_graph(pendigits):
    X, y, _, _ = pendigits
    for cap in (0, 7, 40):
        assert NDGClassifier.with_splits(cap, random_state=0).fit(X, y).n_splits_ <= cap
    assert NDGClassifier(C=1.0, random_state=0).fit(X, y).n_splits_ == 0  # no split is worth C=1


def test_integer_weights_act_as_repeated_rows():
    X, y = continuous(n=300)
    w = np.random.default_rng(2).integers(1, 4, size=len(y))
    weighted = NDGClassifier(C=2e-3, random_state=0).fit(X, y, sample_weight=w)
    repeated = NDGClassifier(C=2e-3, random_state=0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert _splits(weighted) == _splits(repeated)
    assert np.array_equal(weighted.predict(X), repeated.predict(X))
