"""Prediction routes float64, float32 and uint8 input without converting it, exactly where
scikit-learn's float32 cast sends it, values at and around every threshold included."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from tnt import DecisionGraph, TnTClassifier
from tnt.learn.routing import float32_routing_thresholds

F32_MAX = float(np.finfo(np.float32).max)


def float64_probes(t: np.ndarray) -> np.ndarray:
    """float64 values at and around each threshold and around the float32 rounding boundaries next to it."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(over="ignore"):
        t32 = t.astype(np.float32)
        below = np.nextafter(t32, np.float32(-np.inf)).astype(np.float64)
        above = np.nextafter(t32, np.float32(np.inf)).astype(np.float64)
    t32 = t32.astype(np.float64)
    points = [t, t32, below, above, (below + t32) / 2, (t32 + above) / 2]  # the last two: float32 rounding ties
    probes = []
    for p in points:
        p = p[np.isfinite(p)]
        probes += [p, np.nextafter(p, -np.inf), np.nextafter(p, np.inf)]
    return np.concatenate(probes)


@pytest.mark.parametrize("seed", range(3))
def test_routing_thresholds_send_every_float64_value_where_its_float32_cast_goes(seed):
    rng = np.random.default_rng(seed)
    t = np.concatenate(
        [
            rng.normal(size=200) * 10.0 ** rng.integers(-40, 38, 200),  # every scale, subnormal float32 included
            (rng.integers(0, 255, 50) + 0.5),  # midpoints between pixel values, as trees learn them
            [0.0, -0.0, 1.0, -1.0, F32_MAX, -F32_MAX, 1e-45, -1e-45, 3.5e38, -3.5e38, 1e300, -1e300],
        ]
    )
    t2 = float32_routing_thresholds(t)
    x = float64_probes(t)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32).astype(np.float64)
    for threshold, routed in zip(t, t2):
        assert np.array_equal(x <= routed, x32 <= threshold), threshold


def sklearn_tree_and_probes(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 4)) * [1.0, 1e-3, 100.0, 1e5]
    y = (X[:, 0] + X[:, 1] * 1e3 + X[:, 2] / 100 > 0).astype(int) + (X[:, 3] > 0)
    tree = DecisionTreeClassifier(random_state=seed).fit(X.astype(np.float32), y)
    inner = tree.tree_.children_left >= 0
    probes = []
    for f, t in zip(tree.tree_.feature[inner], tree.tree_.threshold[inner]):
        values = float64_probes(np.array([t]))
        rows = X[rng.integers(0, X.shape[0], values.size)].copy()
        rows[:, f] = values
        probes.append(rows)
    return tree, np.vstack([X, *probes])


@pytest.mark.parametrize("seed", range(3))
def test_float64_and_float32_input_go_where_scikit_learn_sends_them(seed):
    tree, X = sklearn_tree_and_probes(seed)
    graph = DecisionGraph.from_sklearn(tree)
    expected = tree.apply(X)  # scikit-learn casts to float32 itself
    assert np.array_equal(graph.apply(X), expected)
    assert np.array_equal(graph.apply(X.astype(np.float32)), tree.apply(X.astype(np.float32)))
    assert np.array_equal(graph.decision_depth(X), tree.decision_path(X).sum(axis=1).A1 - 1)


def test_uint8_input_goes_where_scikit_learn_sends_it():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(2000, 6)).astype(np.uint8)
    y = (X[:, 0].astype(int) + X[:, 1] > 255).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    # every pixel value on each feature, so every threshold has values on both sides and next to it
    grid = np.tile(np.arange(256, dtype=np.uint8)[:, None], (1, 6))
    probes = np.vstack([X, grid])
    assert np.array_equal(DecisionGraph.from_sklearn(tree).apply(probes), tree.apply(probes))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
def test_predict_reads_the_input_as_it_is(dtype, monkeypatch):
    # The routing kernel receives the caller's own array: no converted copy is made on the way
    # (the kernel casts rows a block at a time into a small buffer, checking them as it goes).
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(300, 5)).astype(dtype)
    y = (X[:, 0] > 128).astype(int)
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    import tnt.graph

    seen = []
    route = tnt.graph.route_float32_cast

    def spy(X_routed, *args):
        seen.append(X_routed)
        return route(X_routed, *args)

    monkeypatch.setattr(tnt.graph, "route_float32_cast", spy)
    assert np.array_equal(model.predict(X), y)
    assert len(seen) == 1 and np.shares_memory(seen[0], X)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e39])  # NaN: tests/test_missing_routing.py
def test_values_the_routing_pass_rejects_get_scikit_learns_or_the_float32_message(bad):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 3))
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    X[4321, 1] = bad  # in the second block of rows, after the first block has been routed
    message = "beyond the float32 range" if np.isfinite(bad) else "Input X contains infinity"
    for method in (model.predict, model.predict_proba, model.apply, model.decision_path):
        with pytest.raises(ValueError, match=message):
            method(X)


def plain_array_cases():
    """(name, X, whether prediction may skip validating it for a model fitted without feature names)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 16, size=(40, 4)).astype(np.float64)
    for dtype in (np.float64, np.float32, np.uint8, np.int8, np.uint16, np.int16):
        yield np.dtype(dtype).name, X.astype(dtype), True
    for dtype in (np.int64, np.bool_, np.complex128):  # converted (or refused) by validation
        yield np.dtype(dtype).name, X.astype(dtype), False
    yield "Fortran order", np.asfortranarray(X), True
    yield "every other row", X[::2], True
    yield "read-only", np.lib.stride_tricks.as_strided(X, writeable=False), True
    yield "no rows", X[:0], False
    yield "one feature too many", np.hstack([X, X[:, :1]]), False
    yield "1-d", X[:, 0], False
    yield "a list", X.tolist(), False
    yield "a matrix", np.asmatrix(X), False
    yield "a memory map", X.view(np.memmap), False


@pytest.mark.parametrize("case", list(plain_array_cases()), ids=lambda case: case[0])
@pytest.mark.parametrize("with_names", [False, True])
def test_prediction_skips_validation_only_where_scikit_learn_would_return_the_array_unchanged(case, with_names):
    import warnings

    import pandas as pd
    from sklearn.utils.validation import validate_data

    from tnt._base import _ROUTED_DTYPES, _plain_array

    _, X, plain = case
    rng = np.random.default_rng(1)
    X_train = rng.integers(0, 16, size=(60, 4)).astype(np.float64)
    if with_names:  # an array without names then gets scikit-learn's warning: never skipped
        X_train = pd.DataFrame(X_train, columns=list("abcd"))
    model = TnTClassifier(C=1e-2, random_state=0).fit(X_train, np.arange(60) % 3)
    assert _plain_array(X, model) == (plain and not with_names)
    if _plain_array(X, model):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            validated = validate_data(model, X, dtype=_ROUTED_DTYPES, reset=False, ensure_all_finite=False)
        assert validated is X
        np.testing.assert_array_equal(model.predict(X), model.predict(np.asarray(X, dtype=np.float64).tolist()))


def test_an_unfitted_model_never_skips_validation():
    from tnt._base import _plain_array

    assert not _plain_array(np.zeros((5, 4)), TnTClassifier())  # validation then says it is not fitted
