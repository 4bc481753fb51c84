"""Degenerate and extreme training data: every estimator fits without crashing and gives a sensible
model, and routing compares numbers exactly as scikit-learn's trees do."""

import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.tree import DecisionTreeClassifier

from tnt import CARTClassifier, DecisionGraph, NDGClassifier, TAOClassifier, TnTClassifier
from tnt.model_io import LoadedGraphModel, model_from_json, model_to_json

ESTIMATORS = {
    "tnt": lambda: TnTClassifier(C=1e-3, random_state=0),
    "tnt-fine-tuned": lambda: TnTClassifier(C=1e-3, fine_tune=2, random_state=0),
    "cart": lambda: CARTClassifier(random_state=0),
    "tao": lambda: TAOClassifier(max_leaf_nodes=8, random_state=0),
    "ndg": lambda: NDGClassifier(random_state=0),
}


@pytest.fixture(params=sorted(ESTIMATORS))
def make(request):
    return ESTIMATORS[request.param]


def _majority(y):
    labels, counts = np.unique(y, return_counts=True)
    return labels[np.argmax(counts)]


def test_all_rows_identical_gives_a_single_leaf_predicting_the_majority(make):
    X = np.full((12, 3), 4.2)
    y = np.array([0] * 7 + [1] * 5)
    model = make().fit(X, y)
    assert model.n_splits_ == 0
    assert np.all(model.predict(X) == 0)
    assert np.allclose(model.predict_proba(X[:1]), [[7 / 12, 5 / 12]])


def test_one_sample_per_class_is_fitted_exactly(make):
    X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    y = np.array(["a", "b", "c", "d"])
    model = make().fit(X, y)
    assert model.predict(X).tolist() == ["a", "b", "c", "d"]
    assert model.n_leaves_ == 4
    assert np.allclose(model.predict_proba(X), np.eye(4))


def test_a_single_training_sample_gives_a_leaf(make):
    model = make().fit([[1.5, -2.0]], ["only"])
    assert model.n_splits_ == 0
    assert model.predict([[100.0, 100.0]]).tolist() == ["only"]


def test_duplicated_rows_with_conflicting_labels_follow_the_majority(make):
    # Two distinct points, each repeated with conflicting labels: no split can separate the
    # duplicates, so the best model predicts each point's majority label.
    X = np.array([[0.0, 1.0]] * 6 + [[1.0, 0.0]] * 5)
    y = np.array([0, 0, 0, 0, 1, 1] + [1, 1, 1, 0, 0])
    model = make().fit(X, y)
    assert model.predict([[0.0, 1.0], [1.0, 0.0]]).tolist() == [0, 1]
    assert model.score(X, y) == pytest.approx(7 / 11)
    assert np.allclose(model.predict_proba([[0.0, 1.0]]), [[4 / 6, 2 / 6]])


def test_constant_features_are_never_split_on(make):
    rng = np.random.default_rng(0)
    informative = rng.normal(size=60)
    X = np.c_[np.full(60, 3.0), informative, np.zeros(60)]
    y = (informative > 0.3).astype(int)
    model = make().fit(X, y)
    assert model.score(X, y) == 1.0
    tested = model.graph_.feature[~model.graph_.is_leaf]
    assert set(tested.tolist()) == {1}
    assert model.feature_importances_.tolist() == [0.0, 1.0, 0.0]


def test_a_single_feature(make):
    X = np.arange(30, dtype=float)[:, None]
    y = np.where((X[:, 0] < 10) | (X[:, 0] >= 20), "out", "in")
    model = make().fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.n_splits_ == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16])
def test_float32_float64_and_integer_input_give_the_same_model(make, dtype):
    rng = np.random.default_rng(1)
    X = rng.integers(-50, 50, size=(80, 3))  # exact in every dtype
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 20)
    reference = make().fit(X.astype(np.float32), y)
    model = make().fit(X.astype(dtype), y)
    assert model.graph_ == reference.graph_
    assert model.n_splits_ >= 2
    probes = rng.normal(size=(200, 3)) * 30
    assert np.array_equal(model.predict(probes.astype(dtype)), reference.predict(probes.astype(dtype)))


@pytest.mark.parametrize("value", [1e300, -1e300, 3.5e38, np.finfo(np.float64).max])
def test_values_beyond_float32_are_rejected_with_a_clear_message(make, value):
    X = np.array([[0.0, 1.0], [value, 2.0], [1.0, 3.0]])
    with pytest.raises(
        ValueError, match=r"beyond the float32 range .* in feature 0, the limit is 3\.4e\+38\): .*rescale"
    ):
        make().fit(X, [0, 1, 0])
    fitted = make().fit(X[[0, 2]], [0, 1])
    with pytest.raises(ValueError, match=r"beyond the float32 range"):
        fitted.predict(X)


def test_the_largest_float32_values_are_accepted(make):
    big = float(np.finfo(np.float32).max)
    X = np.array([[-big], [-1.0], [1.0], [big]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow warning about the user's values
        model = make().fit(X, [0, 0, 1, 1])
    assert model.predict(X).tolist() == [0, 0, 1, 1]


def test_infinity_is_still_rejected_as_scikit_learn_does(make):
    with pytest.raises(ValueError, match="Input X contains infinity"):
        make().fit([[0.0], [np.inf]], [0, 1])


def test_values_too_small_for_float32_act_as_zero(make):
    # Below float32's smallest subnormal (1.4e-45) a value rounds to 0, as in scikit-learn's trees:
    # such a feature is constant, and a sample with 1e-300 goes where one with 0 goes.
    X = np.array([[1e-300, 0.0], [-1e-300, 0.0], [0.0, 1.0], [1e-320, 1.0]])
    y = np.array([0, 0, 1, 1])
    model = make().fit(X, y)
    assert model.score(X, y) == 1.0
    assert set(model.graph_.feature[~model.graph_.is_leaf].tolist()) == {1}
    assert np.array_equal(model.apply([[1e-300, 0.5]]), model.apply([[0.0, 0.5]]))


def test_tiny_but_representable_values_are_separated_by_tnt():
    # Values around 1e-30 are ordinary float32 numbers; TnT's micro trees split them apart.
    X = np.array([[1e-30], [2e-30], [3e-30], [4e-30]])
    model = TnTClassifier(random_state=0).fit(X, [0, 0, 1, 1])
    assert model.predict(X).tolist() == [0, 0, 1, 1]


def test_cart_treats_features_closer_than_1e_7_as_constant_like_scikit_learn():
    # scikit-learn's splitter ignores differences below 1e-7 (FEATURE_THRESHOLD); CART inherits it.
    X = np.array([[1e-30], [2e-30], [3e-30], [4e-30]])
    model = CARTClassifier(random_state=0).fit(X, [0, 0, 1, 1])
    assert model.n_splits_ == DecisionTreeClassifier(random_state=0).fit(X, [0, 0, 1, 1]).tree_.node_count // 2 == 0


# ---------------------------------------------------------------------- routing near thresholds
def _probes_near_thresholds(tree, X, rng):
    """Rows of X whose tested feature sits at, or one float32/float64 step away from, each threshold."""
    t = tree.tree_
    rows = []
    for node in np.flatnonzero(t.children_left >= 0):
        thr = t.threshold[node]
        thr32 = np.float32(thr)
        values = [
            thr,
            np.nextafter(thr, -np.inf),
            np.nextafter(thr, np.inf),
            float(thr32),
            float(np.nextafter(thr32, np.float32(-np.inf))),
            float(np.nextafter(thr32, np.float32(np.inf))),
            # float64 numbers between two neighbouring float32 ones, where rounding decides
            (float(thr32) + float(np.nextafter(thr32, np.float32(np.inf)))) / 2,
            (float(thr32) + float(np.nextafter(thr32, np.float32(-np.inf)))) / 2,
        ]
        for v in values:
            row = X[rng.integers(X.shape[0])].copy()
            row[t.feature[node]] = v
            rows.append(row)
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_converted_cart_predicts_exactly_like_scikit_learn_next_to_every_threshold(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)) * 10.0 ** rng.integers(-3, 4, size=4)
    y = (X[:, 0] * X[:, 1] > 0).astype(int) + (X[:, 2] > np.median(X[:, 2]))
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    probes = _probes_near_thresholds(tree, X, rng)
    graph = DecisionGraph.from_sklearn(tree)
    assert np.array_equal(graph.apply(probes), tree.apply(probes))
    assert np.array_equal(graph.predict_proba(probes).argmax(axis=1), tree.predict(probes))
    # The same through a model file, and for the CARTClassifier baseline trained on the same data.
    loaded = model_from_json(model_to_json(tree))
    assert np.array_equal(loaded.predict(probes), tree.predict(probes))
    cart = CARTClassifier(random_state=0).fit(X, y)
    assert np.array_equal(cart.predict(probes), tree.predict(probes))
    # A probe set that never lands on the far side of a threshold would make this test empty.
    assert len(np.unique(tree.apply(probes))) > 2


def test_float32_input_routes_like_its_float64_value():
    X = np.random.default_rng(3).normal(size=(200, 3))
    y = (X[:, 0] > 0.1).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    probes = _probes_near_thresholds(tree, X, np.random.default_rng(4)).astype(np.float32)
    model = CARTClassifier(random_state=0).fit(X, y)
    assert np.array_equal(model.predict(probes), tree.predict(probes))
    assert np.array_equal(model.predict(probes), model.predict(probes.astype(np.float64)))


def test_a_loaded_float64_graph_compares_in_float64():
    # A model file may declare float64 input: its samples must not be rounded to float32 first.
    graph = DecisionGraph(
        [1, -1, -1], [2, -1, -1], [0, -2, -2], [0.1, -2, -2], [[1, 1], [1, 0], [0, 1]], input_dtype=np.float64
    )
    model = LoadedGraphModel._holding(graph, 1, None, "TnTClassifier", {}, np.array(["left", "right"]))
    doc = json.loads(model_to_json(model))
    assert doc["graph"]["input_dtype"] == "float64"
    loaded = model_from_json(json.dumps(doc))
    X = np.array([[0.1], [np.nextafter(0.1, 1.0)]])
    assert loaded.predict(X).tolist() == ["left", "right"]  # float32(0.1) > 0.1 would send both right


@pytest.mark.parametrize("scale", [1e-177, 1e-300, 1.0, 1e150])
def test_weights_of_any_scale_give_the_same_graph(scale):
    # Micro trees depend only on weight ratios; tiny weights once underflowed to a division by zero.
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 1, 0, 1])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    reference = TnTClassifier(C=1e-3, random_state=0).fit(X, y, sample_weight=w)
    scaled = TnTClassifier(C=1e-3, random_state=0).fit(X, y, sample_weight=w * scale)
    assert scaled.n_splits_ == reference.n_splits_ == 3
    assert np.array_equal(scaled.predict(X), y)


def test_negligible_weights_beside_large_ones_give_one_graph_whatever_their_scale():
    # Boosting leaves some samples with weights 1e-170 of others': a node of only such samples had
    # a Gini whose squared weight underflowed to zero, and a child histogram obtained by subtracting
    # its sibling's from its parent's weighed exactly nothing (both raised ZeroDivisionError).
    X, y = load_digits(return_X_y=True)
    heavy = X[:, 20] <= 8
    graphs = []
    for tiny in (1e-150, 1e-170, 1e-300):
        model = TnTClassifier(C=1e-3, random_state=0, n_jobs=1).fit(X, y, sample_weight=np.where(heavy, 1.0, tiny))
        graphs.append((model.n_splits_, model.predict(X).tobytes()))
    assert graphs[0][0] > 10
    assert graphs.count(graphs[0]) == 3
