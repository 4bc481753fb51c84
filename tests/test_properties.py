"""Property-based tests (hypothesis) over random small data sets: what must hold for any valid input."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier
from tnt._base import DTYPE
from tnt.learn.growth import _grow_pass, _MicroTreeCache, _Problem, _Workers
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact
from tnt.model_io import model_from_json, model_to_json

PROPERTY_SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@st.composite
def datasets(draw, weighted=True):
    """(X, y, sample_weight): 1-60 rows, 1-4 features, 1-4 classes; integer-ish values (many ties and
    duplicates) or floats spread over many magnitudes; weights None or 0 or in [1e-3, 5], one of them positive."""
    n = draw(st.integers(1, 60))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(1, 4))
    if draw(st.booleans()):
        values = st.integers(-3, 3).map(float)
    else:
        values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32)
    X = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = None
    if weighted and draw(st.booleans()):
        # Weights of any scale are covered by test_weights_of_any_scale_give_the_same_graph.
        weight = st.one_of(st.just(0.0), st.floats(1e-3, 5))
        w = np.array(draw(st.lists(weight, min_size=n, max_size=n)))
        w[draw(st.integers(0, n - 1))] = draw(st.floats(0.5, 5))
    return X, y, w


ESTIMATORS = {
    "tnt": lambda seed: TnTClassifier(C=1e-3, N1=2, N2=2, random_state=seed),
    "tnt-fine-tuned": lambda seed: TnTClassifier(C=1e-3, N1=2, N2=2, fine_tune=2, random_state=seed),
    "cart": lambda seed: CARTClassifier(random_state=seed),
    "tao": lambda seed: TAOClassifier(max_leaf_nodes=6, fine_tune=2, random_state=seed),
    "ndg": lambda seed: NDGClassifier(C=1e-3, random_state=seed),
}


def _probes(X, seed):
    """The training rows plus random rows on the same scale."""
    rng = np.random.default_rng(seed)
    scale = max(1.0, float(np.abs(X).max()))
    return np.vstack([X, rng.uniform(-scale, scale, size=(20, X.shape[1]))])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@PROPERTY_SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**31 - 1))
def test_fit_never_raises_and_probabilities_sum_to_one(name, data, seed):
    X, y, w = data
    model = ESTIMATORS[name](seed).fit(X, y, sample_weight=w)
    probes = _probes(X, seed)
    proba = model.predict_proba(probes)
    assert proba.shape == (probes.shape[0], np.unique(y).size)
    assert np.all(proba >= 0)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(probes).tolist()) <= set(y.tolist())
    root = model.graph_.value[0]
    assert root.sum() == pytest.approx(len(y) if w is None else w.sum())


@pytest.mark.parametrize("name", ["tnt", "tao", "ndg"])
@PROPERTY_SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**31 - 1))
def test_every_sample_follows_one_path_to_its_leaf(name, data, seed):
    X, y, w = data
    model = ESTIMATORS[name](seed).fit(X, y, sample_weight=w)
    g = model.graph_
    probes = _probes(X, seed)
    leaves = model.apply(probes)
    path = model.decision_path(probes)
    assert np.all(g.is_leaf[leaves])
    assert np.array_equal(np.asarray(path.sum(axis=1)).ravel() - 1, model.decision_depth(probes))
    for i in range(probes.shape[0]):
        nodes = path.indices[path.indptr[i] : path.indptr[i + 1]]  # sorted ids: topological order
        assert nodes[0] == 0 and nodes[-1] == leaves[i]
        assert np.count_nonzero(g.is_leaf[nodes]) == 1  # exactly one leaf on the path
        for parent, child in zip(nodes[:-1], nodes[1:]):
            goes_left = np.float64(np.float32(probes[i, g.feature[parent]])) <= g.threshold[parent]
            assert child == (g.children_left[parent] if goes_left else g.children_right[parent])


@pytest.mark.parametrize("name", ["tnt-fine-tuned", "cart", "ndg"])
@PROPERTY_SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**31 - 1))
def test_json_round_trip_predicts_identically(name, data, seed):
    X, y, w = data
    labels = np.array(["=cmd", "b", "ç", "d d"])[y]  # any printable string survives the file
    model = ESTIMATORS[name](seed).fit(X, labels, sample_weight=w)
    loaded = model_from_json(model_to_json(model))
    probes = _probes(X, seed)
    assert np.array_equal(loaded.predict(probes), model.predict(probes))
    assert np.array_equal(loaded.predict_proba(probes), model.predict_proba(probes))
    assert np.array_equal(loaded.apply(probes), model.apply(probes))
    assert model_to_json(loaded) == model_to_json(model)  # a second round trip changes nothing


def _problem(X, y, w):
    classes, y_enc = np.unique(y, return_inverse=True)
    w = np.ones(len(y)) if w is None else w
    keep = w > 0
    return _Problem(
        X=np.ascontiguousarray(X[keep], dtype=DTYPE),
        y=y_enc[keep].astype(np.intp),
        w=w[keep],
        n_classes=classes.size,
        seed=0,
    )


@PROPERTY_SETTINGS
@given(data=datasets(), C=st.sampled_from([0.0, 1e-3, 1e-2, 1e-1]))
def test_merging_and_dead_node_pruning_never_change_training_predictions(data, C):
    problem = _problem(*data)
    rows = np.arange(problem.X.shape[0])
    counts = np.bincount(problem.y, weights=problem.w, minlength=problem.n_classes)
    graph = FlatGraph.single_leaf(int(np.argmax(counts)))
    workers = _Workers(problem, 1)
    try:
        for _ in range(3):
            working = WorkingGraph(graph)
            cache = _MicroTreeCache()
            for _ in range(2):
                _grow_pass(working, problem, C, cache, workers)
            before = working.predict_from(0, problem.X, rows)
            graph = compact(working, problem.X)
            after = WorkingGraph(graph).predict_from(0, problem.X, rows)
            assert np.array_equal(before, after)
            # No dead node is left: every split sends some training sample each way.
            went_left, went_right = WorkingGraph(graph).routing_counts(problem.X)
            internal = graph.children_left >= 0
            assert np.all(went_left[: graph.node_count][internal] > 0)
            assert np.all(went_right[: graph.node_count][internal] > 0)
    finally:
        workers.close()


def _weighted_accuracy(model, X, y, w):
    return np.average(model.predict(X) == y, weights=w)


@PROPERTY_SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**31 - 1), rounds=st.integers(1, 3))
def test_fine_tuning_never_lowers_training_accuracy(data, seed, rounds):
    X, y, w = data
    # The graph C alone grows: a size chosen from held-out rows prunes the graph after fine-tuning
    # (TnTClassifier._pruned_after_growth), which may cut what fine-tuning gained, and more.
    options = dict(C=1e-2, N1=2, N2=2, random_state=seed, ccp_alpha=0.0)
    plain = TnTClassifier(**options).fit(X, y, sample_weight=w)
    tuned = TnTClassifier(**options, fine_tune=rounds).fit(X, y, sample_weight=w)
    assert _weighted_accuracy(tuned, X, y, w) >= _weighted_accuracy(plain, X, y, w) - 1e-12
    assert tuned.n_splits_ <= plain.n_splits_  # fine-tuning keeps the structure, and may make nodes dead
    cart = CARTClassifier(max_leaf_nodes=5, random_state=seed).fit(X, y, sample_weight=w)
    tao = TAOClassifier(max_leaf_nodes=5, fine_tune=rounds, random_state=seed).fit(X, y, sample_weight=w)
    assert _weighted_accuracy(tao, X, y, w) >= _weighted_accuracy(cart, X, y, w) - 1e-12
