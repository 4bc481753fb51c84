"""``max_bins``: features with more distinct values than it are cut into quantile bins; the others keep
CART's exact thresholds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import load_digits, make_classification

from tnt import TnTClassifier, TnTRegressor
from tnt.learn.binning import MAX_EXACT_BINS


def graph_arrays(model):
    g = model.graph_
    return g.children_left, g.children_right, g.feature, g.threshold


def assert_same_graph(a, b):
    for x, y in zip(graph_arrays(a), graph_arrays(b)):
        np.testing.assert_array_equal(x, y)


def clustered(n_features, seed=0):
    """Each feature: 8 equal clusters of 375 distinct values (centres 0..7, spread 0.6), so that 8
    quantile bins are the clusters; the target depends on the values within clusters too."""
    rng = np.random.default_rng(seed)
    centres = np.repeat(np.arange(8.0), 375)
    X = np.column_stack([rng.permutation(centres) for _ in range(n_features)]) + rng.uniform(
        -0.3, 0.3, (3000, n_features)
    )
    return X, X[:, 0] + X[:, 1] + rng.normal(0.0, 1.0, 3000)


def splits_inside_a_cluster(model, X) -> int:
    """Splits that send two training samples of one cluster (one quantile bin) to different sides."""
    g = model.graph_
    paths = model.decision_path(X).tocsc()
    cluster = np.rint(X).astype(int)
    count = 0
    for node in np.flatnonzero(g.children_left >= 0):
        rows = paths[:, node].indices
        f = g.feature[node]
        left = X[rows, f].astype(np.float32) <= g.threshold[node]
        count += bool(np.intersect1d(cluster[rows[left], f], cluster[rows[~left], f]).size)
    return count


@pytest.fixture(scope="module")
def continuous():
    X, y = make_classification(n_samples=3000, n_features=6, n_informative=4, random_state=0)
    return X, y


def test_the_default_keeps_every_distinct_value_of_a_continuous_feature(continuous):
    X, y = continuous
    assert TnTClassifier().max_bins == MAX_EXACT_BINS
    problem = TnTClassifier()._validate_training_data(X, y, None)
    assert (problem.binned.n_bins == [np.unique(X[:, f].astype(np.float32)).size for f in range(X.shape[1])]).all()


def test_a_binned_feature_is_split_only_between_its_bins():
    X, y = clustered(3)
    labels = y > 7
    # N1=1: a tree, each split fitted on every sample reaching it (in a graph, an internal node's
    # split is fitted on its sensitive samples only, and may cut a bin the others fall in).
    exact = TnTClassifier(C=0.0, N1=1, random_state=0).fit(X, labels)
    binned = TnTClassifier(C=0.0, N1=1, random_state=0, max_bins=8).fit(X, labels)
    # Grown without pruning, exact splits cut clusters; splits between 8 quantile bins never do.
    assert splits_inside_a_cluster(exact, X) > 0
    assert splits_inside_a_cluster(binned, X) == 0 and binned.n_splits_ > 7


def test_255_bins_give_one_byte_codes_to_continuous_features(continuous):
    X, y = continuous
    wide = TnTClassifier()._validate_training_data(X, y, None).binned
    narrow = TnTClassifier()._validate_training_data(X, y, None, max_bins=255).binned
    assert wide.codes.dtype == np.uint16 and narrow.codes.dtype == np.uint8
    assert (narrow.n_bins <= 255).all() and (narrow.n_bins >= 250).all()


def test_features_with_few_values_are_split_exactly_whatever_max_bins():
    X, y = load_digits(return_X_y=True)  # at most 17 values per pixel
    exact = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    assert_same_graph(TnTClassifier(C=1e-3, random_state=0, max_bins=17).fit(X, y), exact)
    assert_same_graph(TnTClassifier(C=1e-3, random_state=0, max_bins=255).fit(X, y), exact)
    # One bin fewer than a pixel's values, and that pixel is binned: the graph changes.
    coarser = TnTClassifier(C=1e-3, random_state=0, max_bins=4).fit(X, y)
    assert any(not np.array_equal(a, b) for a, b in zip(graph_arrays(coarser), graph_arrays(exact)))


def test_fine_tuned_keeps_the_binning_it_was_trained_with(continuous):
    X, y = continuous
    grown = TnTClassifier(C=1e-3, random_state=0, max_bins=8).fit(X, y)
    direct = TnTClassifier(C=1e-3, random_state=0, max_bins=8, fine_tune=3).fit(X, y)
    tuned = grown.fine_tuned(X, y, rounds=3)
    assert tuned.max_bins == 8
    assert_same_graph(tuned, direct)


def test_the_regressor_bins_as_the_classifier_does():
    X, y = clustered(3, seed=1)
    exact = TnTRegressor(C=1e-4, N1=1, random_state=0).fit(X, y)
    binned = TnTRegressor(C=1e-4, N1=1, random_state=0, max_bins=8).fit(X, y)
    assert splits_inside_a_cluster(exact, X) > 0
    assert splits_inside_a_cluster(binned, X) == 0 and binned.n_splits_ > 7
    assert binned.score(X, y) > 0.5


@pytest.mark.parametrize("estimator", [TnTClassifier, TnTRegressor])
@pytest.mark.parametrize("max_bins", [1, 0, MAX_EXACT_BINS + 1, 2.5])
def test_max_bins_out_of_range_is_refused(estimator, max_bins, continuous):
    X, y = continuous
    with pytest.raises(ValueError, match="'max_bins' parameter .* must be an int in the range \\[2, 65535\\]"):
        estimator(max_bins=max_bins).fit(X, y)


def test_the_compare_table_trains_both_tnt_models_with_the_bins_asked_for():
    from tnt.data.datasets import load_bundled
    from tnt.services.compare import compare_models

    data = load_bundled("wine")  # up to 133 distinct values per feature
    results = compare_models(data, C=1e-3, seed=1, max_bins=8)
    direct = TnTClassifier(C=1e-3, random_state=1, max_bins=8, fine_tune=5).fit(data.X_train, data.y_train)
    assert results["TnT"][0].max_bins == 8 and results["TnT fine-tuned"][0].max_bins == 8
    assert_same_graph(results["TnT fine-tuned"][0], direct)
    # The baselines split exactly whatever TnT does.
    assert results["CART (best-first)"][0].get_params().get("max_bins") is None


def test_a_sweep_trains_tnt_and_its_fine_tuned_copy_with_the_bins_asked_for():
    from tnt.experiments.sweep import sweep

    X, y = clustered(3)
    labels = y > 7
    table = sweep(X, labels, X, labels, [1e-3], [0], models=("tnt_ft",), max_bins=8)
    binned = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0, max_bins=8).fit(X, labels)
    exact = TnTClassifier(C=1e-3, ccp_alpha=0.0, random_state=0).fit(X, labels)
    assert binned.n_splits_ != exact.n_splits_  # so that the row tells which one was trained
    (row,) = table.to_dict("records")
    assert row["tnt_splits"] == binned.n_splits_
    assert row["tnt_train_acc"] == binned.score(X, labels)
    assert row["tnt_ft_train_acc"] == binned.fine_tuned(X, labels, rounds=5).score(X, labels)
    # CART splits exactly, with TnT's number of splits, whatever TnT's bins.
    assert row["cart_splits"] == binned.n_splits_
    (exact_row,) = sweep(X, labels, X, labels, [1e-3], [0]).to_dict("records")
    assert exact_row["tnt_splits"] == exact.n_splits_


def _in_uneven_parts(task, n):
    """Rows in three parts of different sizes, as threads would take them (one after the other here)."""
    bounds = [0, 1, n // 3, n]
    return [task(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


@pytest.mark.parametrize("in_parts", [None, _in_uneven_parts], ids=["one part", "rows in parts"])
@pytest.mark.parametrize("max_bins", [MAX_EXACT_BINS, 255, 2])
def test_exact_codes_are_each_values_rank_among_the_distinct_values(max_bins, in_parts):
    """Whatever way the codes are computed, and whether the rows are read in one part or several: a
    column with at most ``max_bins`` distinct values gets each value's rank among them, and each bin
    holds exactly its one value (signed zeros, repeats, huge, fractional and whole values included);
    the other columns get quantile bins, each bounded by the smallest and largest value in it."""
    from tnt.learn.binning import bin_features

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6)).astype(np.float32)
    X[::7, 0], X[::11, 0] = 0.0, -0.0
    X[:, 1] = np.round(X[:, 1], 1)  # repeats
    X[:, 2] = rng.integers(-3, 3, 3000) * np.float32(1e30)
    X[:, 3] = rng.integers(0, 5000, 3000) + 0.5  # not whole numbers
    X[:, 5] = rng.integers(-20, 236, 3000)  # whole numbers of a small span, as pixels
    X[-1, 5] = 300  # the largest only in the last part
    binned = bin_features(X, max_bins) if in_parts is None else bin_features(X, max_bins, in_parts)
    for f in range(X.shape[1]):
        distinct = np.unique(X[:, f])
        if distinct.size > max_bins:  # quantile bins: edges at evenly spaced positions of the sorted column
            positions = np.linspace(0, len(X) - 1, max_bins + 1)[1:].astype(np.intp)
            edges = np.unique(np.sort(X[:, f])[positions])
            codes = np.searchsorted(edges, X[:, f], side="left")
            assert binned.n_bins[f] == edges.size <= max_bins
            np.testing.assert_array_equal(binned.codes[:, f], codes)
            np.testing.assert_array_equal(binned.bin_max[f, : edges.size], edges)
            lows = [X[codes == b, f].min() for b in range(edges.size)]
            np.testing.assert_array_equal(binned.bin_min[f, : edges.size], lows)
            continue
        assert binned.n_bins[f] == distinct.size
        np.testing.assert_array_equal(binned.codes[:, f], np.searchsorted(distinct, X[:, f]))
        np.testing.assert_array_equal(binned.bin_min[f, : distinct.size], distinct)
        np.testing.assert_array_equal(binned.bin_max[f, : distinct.size], distinct)


def _with_missing(X, rng, share):
    """``X`` with a share of each column's values set to NaN at random."""
    X = X.copy()
    X[rng.random(X.shape) < share] = np.nan
    return X


@pytest.mark.parametrize("in_parts", [None, _in_uneven_parts], ids=["one part", "rows in parts"])
@pytest.mark.parametrize("max_bins", [MAX_EXACT_BINS, 255, 2])
def test_a_missing_value_gets_its_features_largest_code_and_real_values_keep_theirs(max_bins, in_parts):
    """NaN is coded ``n_bins - 1`` (``missing_code``), one past the real values' codes, which are those
    the column's real values alone get (exact ranks or quantile bins alike); its bin bounds are NaN.
    A column without NaN keeps ``missing_code`` -1 and the codes it has in a matrix without NaN."""
    from tnt.learn.binning import bin_features

    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 5)).astype(np.float32)
    X[:, 1] = np.round(X[:, 1], 1)
    X[:, 2] = rng.integers(-20, 236, 3000)  # whole numbers of a small span
    X[:, 3] = rng.integers(0, 3, 3000) + 0.5
    missing = _with_missing(X, rng, 0.2)
    missing[:, 4] = X[:, 4]  # no NaN in this column
    binned = bin_features(missing, max_bins) if in_parts is None else bin_features(missing, max_bins, in_parts)
    for f in range(X.shape[1]):
        is_nan = np.isnan(missing[:, f])
        alone = bin_features(missing[~is_nan][:, [f]], max_bins)  # the real values without the NaN
        n_real = alone.n_bins[0]
        if not is_nan.any():
            assert binned.missing_code[f] == -1 and binned.n_bins[f] == n_real
        else:
            assert binned.missing_code[f] == binned.n_bins[f] - 1 == n_real
            np.testing.assert_array_equal(binned.codes[is_nan, f], n_real)
            assert np.isnan(binned.bin_min[f, n_real]) and np.isnan(binned.bin_max[f, n_real])
        np.testing.assert_array_equal(binned.codes[~is_nan, f], alone.codes[:, 0])
        np.testing.assert_array_equal(binned.bin_min[f, :n_real], alone.bin_min[0, :n_real])
        np.testing.assert_array_equal(binned.bin_max[f, :n_real], alone.bin_max[0, :n_real])
    assert binned.missing_code.dtype == np.int64


@pytest.mark.parametrize("whole", [True, False], ids=["whole numbers", "sorted"])
def test_a_feature_entirely_missing_has_one_code_the_missing_one(whole):
    from tnt.learn.binning import bin_features

    X = np.array([[1, np.nan], [2, np.nan], [3, np.nan]], dtype=np.float32)
    if not whole:
        X[:, 0] += 0.5
    binned = bin_features(X)
    assert binned.n_bins.tolist() == [3, 1]
    assert binned.missing_code.tolist() == [-1, 0]
    np.testing.assert_array_equal(binned.codes[:, :2], [[0, 0], [1, 0], [2, 0]])
    assert np.isnan(binned.bin_min[1, 0]) and np.isnan(binned.bin_max[1, 0])


def test_a_matrix_without_missing_values_has_no_missing_code():
    from tnt.learn.binning import bin_features

    X = load_digits().data.astype(np.float32)
    binned = bin_features(X)
    assert (binned.missing_code == -1).all()
    np.testing.assert_array_equal(binned.n_bins, [np.unique(X[:, f]).size for f in range(X.shape[1])])


@pytest.mark.parametrize(("n_values", "dtype"), [(255, np.uint8), (256, np.uint16)])
def test_codes_are_one_byte_while_the_widest_feature_and_its_missing_code_fit(n_values, dtype):
    from tnt.learn.binning import bin_features

    X = np.append(np.arange(n_values) + 0.5, np.nan).astype(np.float32)[:, None]
    binned = bin_features(X)
    assert binned.codes.dtype == dtype
    assert binned.missing_code.tolist() == [n_values]
    assert binned.codes[-1, 0] == n_values


@settings(max_examples=300, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        st.integers(1, 400),
        elements=st.one_of(
            st.floats(width=32, allow_nan=True, allow_infinity=True),
            st.sampled_from([0.0, -0.0, 1.5, -1.5, float("nan"), float("-nan")]),
        ),
    )
)
def test_sorting_a_column_gives_numpys_distinct_values_ranks_and_counts(column):
    """The binning's sort of a column (64-bit keys sorted as integers) numbers its values as
    ``np.unique`` does: NaNs of any sign and payload one value, the last; -0.0 and 0.0 one value;
    infinities, subnormals and repeats in order; ``order`` a stable sort of the samples."""
    from tnt.learn.binning import sort_column

    order, rank, values, counts = sort_column(column)
    expected_values, expected_inverse, expected_counts = np.unique(column, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(counts, expected_counts)
    inverse = np.empty(column.size, dtype=np.intp)
    inverse[order] = rank
    np.testing.assert_array_equal(inverse, expected_inverse)
    np.testing.assert_array_equal(order, np.argsort(expected_inverse, kind="stable"))
