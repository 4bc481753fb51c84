"""The compiled micro-tree learner chooses the same splits as scikit-learn's CART, up to ties."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from tnt.learn.binning import bin_features
from tnt.learn.compiled import kernel, store_eight_bytes
from tnt.learn.micro_tree import MicroTree, fit_micro_tree, fit_stump
from tnt.learn.tree_builder import fit_targets


def predict(tree: MicroTree, X):
    X = np.asarray(X, dtype=np.float32)
    node = np.zeros(X.shape[0], dtype=np.intp)
    active = np.flatnonzero(tree.children_left[node] >= 0)
    while active.size:
        at = node[active]
        go_left = X[active, tree.feature[at]] <= tree.threshold[at]
        node[active] = np.where(go_left, tree.children_left[at], tree.children_right[at])
        active = active[tree.children_left[node[active]] >= 0]
    return tree.label[node]


def n_splits(tree):
    return int(np.count_nonzero(tree.children_left >= 0))


def fit_both(X, y, w, alpha, rows=None):
    X32 = np.asarray(X, dtype=np.float32)
    rows = np.arange(len(y)) if rows is None else rows
    ours = fit_micro_tree(bin_features(X32), np.arange(X.shape[1]), rows, y[rows], w[rows], alpha, int(y.max()) + 1)
    theirs = DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X32[rows], y[rows], sample_weight=w[rows])
    return ours, theirs


@pytest.fixture(scope="module")
def continuous():
    X, y = make_classification(n_samples=3000, n_features=8, n_informative=5, n_classes=4, random_state=0)
    return X, y


@pytest.mark.parametrize("alpha", [1.3e-4, 1.3e-3, 1.3e-2])
@pytest.mark.parametrize("weighted", [False, True])
def test_same_tree_as_scikit_learn_on_continuous_data(continuous, alpha, weighted):
    X, y = continuous
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    # No tie at the pruning boundary either: alpha is not one of the tree's effective alphas.
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X.astype(np.float32), y, sample_weight=w)
    assert np.min(np.abs(path.ccp_alphas - alpha)) > 1e-9
    ours, theirs = fit_both(X, y, w, alpha)
    assert n_splits(ours) == theirs.tree_.node_count - theirs.get_n_leaves()
    assert np.array_equal(predict(ours, X), theirs.predict(X.astype(np.float32)))
    # The root split is unique on continuous data: same feature, bit-identical threshold.
    assert ours.feature[0] == theirs.tree_.feature[0]
    assert ours.threshold[0] == theirs.tree_.threshold[0]


def test_small_nodes_over_wide_code_ranges_are_sorted_not_histogrammed(continuous):
    # 40 samples drawn from 3,000 distinct values per feature: the sorting path does the work.
    X, y = continuous
    rows = np.sort(np.random.default_rng(1).choice(len(y), size=40, replace=False))
    ours, theirs = fit_both(X, y, np.ones(len(y)), 1e-3, rows=rows)
    assert n_splits(ours) == theirs.tree_.node_count - theirs.get_n_leaves()
    assert np.array_equal(predict(ours, X[rows]), theirs.predict(X[rows].astype(np.float32)))


@pytest.mark.parametrize("name", ["pendigits", "optdigits"])
@pytest.mark.parametrize("alpha", [1e-4, 1e-3])
def test_agrees_with_scikit_learn_on_digit_data(name, alpha, request):
    X, y, _, _ = request.getfixturevalue(name)
    ours, theirs = fit_both(X, y, np.ones(len(y)), alpha)
    agreement = np.mean(predict(ours, X) == theirs.predict(X.astype(np.float32)))
    assert agreement >= 0.995
    ours_splits, their_splits = n_splits(ours), theirs.tree_.node_count - theirs.get_n_leaves()
    assert abs(ours_splits - their_splits) <= 0.02 * their_splits


def test_thresholds_route_floats_like_the_codes_they_were_chosen_on():
    # More distinct values than exact bins: quantile bins, thresholds still consistent with routing.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(70_000, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.1).astype(np.int64)
    binned = bin_features(X.astype(np.float32))
    assert binned.n_bins[0] <= 65535 and binned.codes.dtype == np.uint16
    tree = fit_micro_tree(binned, np.arange(2), np.arange(len(y)), y, np.ones(len(y)), 1e-4, 2)
    assert np.mean(predict(tree, X) == y) > 0.97


def test_pure_nodes_are_leaves_and_stumps_have_one_split(continuous):
    X, y = continuous
    binned = bin_features(X.astype(np.float32))
    single = fit_micro_tree(binned, np.arange(8), np.arange(50), np.zeros(50, dtype=np.int64), np.ones(50), 0.0, 1)
    assert single.is_single_leaf and single.label[0] == 0
    stump = fit_stump(binned, np.arange(8), np.arange(len(y)), (y > 1).astype(np.int64), np.ones(len(y)))
    assert n_splits(stump) == 1
    sk = DecisionTreeClassifier(max_depth=1).fit(X.astype(np.float32), y > 1)
    assert stump.feature[0] == sk.tree_.feature[0] and stump.threshold[0] == sk.tree_.threshold[0]


def test_feature_order_breaks_ties():
    # Two identical features: whichever comes first in the order is chosen.
    X = np.repeat(np.arange(10, dtype=np.float32)[:, None], 2, axis=1)
    y = (X[:, 0] > 4).astype(np.int64)
    binned = bin_features(X)
    first = fit_micro_tree(binned, np.array([0, 1]), np.arange(10), y, np.ones(10), 0.0, 2)
    second = fit_micro_tree(binned, np.array([1, 0]), np.arange(10), y, np.ones(10), 0.0, 2)
    assert (first.feature[0], second.feature[0]) == (0, 1)


@pytest.mark.slow
def test_one_phase_agrees_with_scikit_learn_on_mnist(mnist_path):
    # The bar for replacing scikit-learn's CART: >= 99.5% of MNIST training predictions equal.
    with np.load(mnist_path, allow_pickle=False) as data:
        X, y = data["X_train"], data["y_train"].astype(np.int64)
    ours = fit_micro_tree(
        bin_features(X.astype(np.float32)), np.arange(X.shape[1]), np.arange(len(y)), y, np.ones(len(y)), 1e-3, 10
    )
    theirs = DecisionTreeClassifier(ccp_alpha=1e-3, random_state=0).fit(X, y)
    assert np.mean(predict(ours, X) == theirs.predict(X)) >= 0.995
    their_splits = theirs.tree_.node_count - theirs.get_n_leaves()
    assert abs(n_splits(ours) - their_splits) <= 0.02 * their_splits


def test_codes_number_each_columns_distinct_values_in_order():
    # Whole-number columns (numbered by marking the values present) and other columns (sorted)
    # must get the same exact codes: the rank of each value among the column's distinct values.
    rng = np.random.default_rng(3)
    n = 3000
    X = np.column_stack(
        [
            rng.integers(0, 256, n),  # pixels
            rng.integers(-40, 40, n),  # negative whole numbers
            rng.integers(0, 50_000, n),  # whole numbers spanning more than INTEGER_SPAN
            np.round(rng.normal(size=n), 1),  # decimals
            rng.choice([-0.0, 0.0, 2.0], n),  # signed zeros are one value
            np.full(n, 7.0),  # constant
            np.where(rng.random(n) < 0.5, 1e30, -1e30),  # huge whole numbers
        ]
    ).astype(np.float32)
    binned = bin_features(X)
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        np.testing.assert_array_equal(binned.codes[:, f], np.searchsorted(values, X[:, f]))
        assert binned.n_bins[f] == values.size
        np.testing.assert_array_equal(binned.bin_min[f, : values.size], values)
        np.testing.assert_array_equal(binned.bin_max[f, : values.size], values)


@pytest.mark.parametrize("n_features", [1, 7, 13, 16])
@pytest.mark.parametrize("n_values", [200, 1000])  # one-byte and two-byte codes
def test_each_fit_copies_exactly_its_samples_codes(n_features, n_values):
    from tnt.learn.tree_builder import _gather_codes

    rng = np.random.default_rng(n_features)
    X = rng.integers(0, n_values, size=(50, n_features)).astype(np.float32)
    X[:25, ::2] = 3  # every other feature is constant in the first half's samples, not in all
    binned = bin_features(X)
    for m, among in ((1, 50), (8, 25), (13, 25), (13, 50), (50, 50)):
        rows = np.sort(rng.choice(among, m, replace=False))
        local, varies = _gather_codes(binned.codes, rows, binned.n_bins)
        varying = binned.n_bins > 1
        mine = binned.codes[rows][:, :n_features]
        np.testing.assert_array_equal(local[varying], mine.T[varying])
        np.testing.assert_array_equal(varies[varying], (mine != mine[:1]).any(axis=0)[varying])


def _store_in(array, row, column, value):
    store_eight_bytes(array, row, column, value)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "Python"])
def test_eight_bytes_are_stored_lowest_first_wherever_the_row_starts(compiled):
    from numba import njit

    store = njit(_store_in) if compiled else _store_in
    array = np.zeros((3, 13), dtype=np.uint8)  # rows of 13 bytes: row 1 starts off any 8-byte boundary
    store(array, 1, 3, np.uint64(0x0807060504030201))
    expected = np.zeros((3, 13), dtype=np.uint8)
    expected[1, 3:11] = np.arange(1, 9)
    np.testing.assert_array_equal(array, expected)
    halves = np.zeros((3, 7), dtype=np.uint16)  # two-byte items: the eight bytes are four of them
    store(halves, 1, 2, np.uint64(0x0004000300020001))
    expected = np.zeros((3, 7), dtype=np.uint16)
    expected[1, 2:6] = np.arange(1, 5)
    np.testing.assert_array_equal(halves, expected)


def test_transposing_bytes_swaps_each_words_byte_k_with_word_ks_byte():
    from tnt.learn.tree_builder import _transpose_bytes

    matrix = np.random.default_rng(0).integers(0, 256, (8, 8), dtype=np.uint8)
    words = matrix.copy().view("<u8")[:, 0]  # word j: row j, its byte k column k
    transposed = np.array(_transpose_bytes(*(np.uint64(w) for w in words)), dtype="<u8")
    np.testing.assert_array_equal(transposed.view(np.uint8).reshape(8, 8), matrix.T)


def test_transposing_halfwords_swaps_each_words_lane_k_with_word_ks_lane():
    from tnt.learn.tree_builder import _transpose_halfwords

    matrix = np.random.default_rng(0).integers(0, 65536, (4, 4), dtype=np.uint16)
    words = matrix.astype("<u2").view("<u8")[:, 0]  # word j: row j, its 16-bit lane k column k
    transposed = np.array(_transpose_halfwords(*(np.uint64(w) for w in words)), dtype="<u8")
    np.testing.assert_array_equal(transposed.view("<u2").reshape(4, 4), matrix.T)


def _reference_tree(X, y, w, n_classes, alpha, order):
    """Plain CART as the learner defines it, for small data: every threshold of every feature
    tried in turn (the first of equally good splits wins), grown to purity, then pruned."""
    from tnt.learn.split_search import _threshold
    from tnt.learn.tree_builder import prune_tree

    children_left, children_right, features, thresholds, values = [], [], [], [], []

    def grow(idx):
        value = np.bincount(y[idx], weights=w[idx], minlength=n_classes)
        node = len(values)
        for column, item in (
            (children_left, -1),
            (children_right, -1),
            (features, -2),
            (thresholds, -2.0),
            (values, value),
        ):
            column.append(item)
        total = value.sum()
        if len(idx) < 2 or 1.0 - (value**2).sum() / total**2 <= np.finfo(np.float64).eps:
            return node
        best = (-np.inf, -1, 0.0)
        for f in order:
            distinct = np.unique(X[idx, f])
            for low, high in zip(distinct[:-1], distinct[1:]):
                goes_left = idx[X[idx, f] <= low]
                left = np.bincount(y[goes_left], weights=w[goes_left], minlength=n_classes)
                w_left = left.sum()
                proxy = (left**2).sum() / w_left + ((value - left) ** 2).sum() / (total - w_left)
                if proxy > best[0]:
                    best = (proxy, f, _threshold(low, high))
        if best[1] < 0:
            return node
        features[node], thresholds[node] = best[1], best[2]
        goes_left = X[idx, best[1]] <= best[2]
        children_left[node] = grow(idx[goes_left])
        children_right[node] = grow(idx[~goes_left])
        return node

    grow(np.arange(len(y)))
    left, right = np.array(children_left), np.array(children_right)
    value = np.array(values)
    split = prune_tree(left, right, value, value[0].sum(), alpha, None)
    kept, stack = [], [0]  # the pruned tree's splits, depth-first
    while stack:
        node = stack.pop()
        if split[node]:
            kept.append((features[node], thresholds[node]))
            stack += [right[node], left[node]]
        else:
            kept.append((-2, int(np.argmax(value[node]))))
    return kept


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.0, 1e-3, 1e-2])
def test_same_pruned_tree_as_plain_cart_on_tied_integer_data(seed, alpha):
    # Few distinct values, integer weights: many equally good splits, so the first-in-order rule
    # is checked too, on every path of the learner (stored histograms and their subtraction,
    # dense, bitmap, the swaps of the partition, growth stopped where pruning is sure to cut).
    rng = np.random.default_rng(seed)
    n_classes = 2 + seed % 2
    X = rng.integers(0, 8, size=(400, 5)).astype(np.float32)
    y = ((X[:, 0] + X[:, 1]).astype(np.int64) + rng.integers(0, 4, 400)) % n_classes
    w = np.ones(400) if seed < 3 else rng.integers(1, 4, 400).astype(float)
    order = rng.permutation(5)
    tree = fit_micro_tree(bin_features(X), order, np.arange(400), y, w, alpha, n_classes)
    ours = [
        (int(tree.feature[i]), float(tree.threshold[i])) if tree.children_left[i] >= 0 else (-2, int(tree.label[i]))
        for i in range(tree.node_count)
    ]
    assert ours == _reference_tree(X, y, w, n_classes, alpha, order)


@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["no NaN", "10% NaN"])
@pytest.mark.parametrize("n_lanes", [2, 3])
@pytest.mark.parametrize("continuous", [False, True], ids=["histograms", "sorted runs too"])
def test_a_micro_tree_fitted_on_several_threads_is_the_one_fitted_on_one(n_lanes, continuous, missing):
    # Threads take blocks of a node's features as they come free, so which thread scans which
    # feature changes from run to run; the tree must not (nor where its missing values go).
    from tnt.learn.micro_tree import make_workspace
    from tnt.learn.split_search import PARALLEL_WORK

    X, y = make_classification(n_samples=4000, n_features=40, n_informative=12, n_classes=4, random_state=5)
    X = X.astype(np.float32) if continuous else np.round(X * 4).astype(np.float32)
    X[np.random.default_rng(4).random(X.shape) < missing] = np.nan
    assert X.shape[0] * X.shape[1] >= 3 * PARALLEL_WORK, "the root and its children should use the threads"
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    binned = bin_features(X)
    assert binned.has_sorted_runs == continuous
    order = np.random.RandomState(0).permutation(X.shape[1])
    rows = np.arange(len(y))
    one = fit_micro_tree(binned, order, rows, y, w, 1e-4, 4, make_workspace(binned, 4, 1))
    for _ in range(3):
        several = fit_micro_tree(binned, order, rows, y, w, 1e-4, 4, make_workspace(binned, 4, n_lanes))
        assert n_splits(several) > 20
        for a, b in zip((*one.arrays, one.missing_left), (*several.arrays, several.missing_left)):
            assert np.array_equal(a, b)


@pytest.fixture(scope="module")
def friedman():
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=3000, n_features=8, noise=1.0, random_state=2)
    return X.astype(np.float32), y


@pytest.mark.parametrize("alpha", [3e-4, 3e-3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_bins", [65535, 200], ids=["exact", "binned"])
def test_the_squared_error_tree_is_scikit_learns_regression_tree(friedman, alpha, weighted, max_bins):
    # The same learner with the squared error grows scikit-learn's tree (on binned data, scikit-learn's
    # on the codes) up to ties: in nodes of a few samples several features divide them alike (or
    # with the sides swapped), and the two learners may take different ones; the trees' sizes, node
    # values and training predictions are the same.
    from sklearn.tree import DecisionTreeRegressor

    from tnt.learn.micro_tree import fit_regression_tree

    X, y = friedman
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    binned = bin_features(X, max_bins)
    rows = np.arange(len(y))
    ours = fit_regression_tree(binned, np.arange(X.shape[1]), rows, y, w, alpha * np.cov(y, aweights=w, bias=True))
    codes = binned.codes.astype(np.float32)
    theirs = DecisionTreeRegressor(ccp_alpha=alpha * np.cov(y, aweights=w, bias=True), random_state=0)
    theirs.fit(codes, y, sample_weight=w)
    t = theirs.tree_
    assert ours.node_count == t.node_count > 20
    assert ours.feature[0] == t.feature[0]
    np.testing.assert_allclose(np.sort(ours.value), np.sort(t.value[:, 0, 0]), rtol=1e-9)
    leaf = MicroTree(ours.children_left, ours.children_right, ours.feature, ours.threshold, np.arange(ours.node_count))
    np.testing.assert_allclose(ours.value[predict(leaf, X)], theirs.predict(codes), rtol=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["no NaN", "10% NaN"])
@pytest.mark.parametrize("n_lanes", [2, 3])
def test_a_regression_tree_fitted_on_several_threads_is_the_one_fitted_on_one(n_lanes, missing):
    from sklearn.datasets import make_friedman1

    from tnt.learn.micro_tree import fit_regression_tree, make_workspace
    from tnt.learn.split_search import PARALLEL_WORK

    X, y = make_friedman1(n_samples=12_000, n_features=8, noise=1.0, random_state=3)
    X = np.column_stack([X, np.round(X * 20)]).astype(np.float32)  # sorted runs and histograms
    X[np.random.default_rng(4).random(X.shape) < missing] = np.nan
    assert X.shape[0] * X.shape[1] >= 3 * PARALLEL_WORK, "the root and its children should use the threads"
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    binned = bin_features(X)
    order = np.random.RandomState(0).permutation(X.shape[1])
    rows = np.arange(len(y))
    one = fit_regression_tree(binned, order, rows, y, w, 1e-4, make_workspace(binned, 2, 1))
    for _ in range(3):
        several = fit_regression_tree(binned, order, rows, y, w, 1e-4, make_workspace(binned, 2, n_lanes))
        assert several.node_count > 40
        for name in ("children_left", "children_right", "feature", "threshold", "value", "missing_left"):
            assert np.array_equal(getattr(one, name), getattr(several, name))


@pytest.mark.parametrize("max_bins", [65535, 200], ids=["sorted runs", "histograms"])
@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["no NaN", "10% NaN"])
def test_trees_fitted_in_one_batch_are_those_fitted_one_at_a_time(friedman, max_bins, missing):
    # Several fits on disjoint, unordered ranges of rows, with weights of all scales (rescaled by
    # different powers of two), both criteria: each tree equals the one its own call fits.
    from tnt.learn.micro_tree import RegressionTree, fit_regression_tree, fit_trees, make_workspace

    X, y = friedman
    X = X.copy()
    X[np.random.default_rng(5).random(X.shape) < missing] = np.nan
    binned = bin_features(X, max_bins)
    rng = np.random.default_rng(6)
    rows = rng.permutation(len(y))
    w = rng.uniform(0.5, 2.0, len(y)) * np.repeat([1.0, 1e-30, 3e5, 1.0, 0.25], len(y) // 5)
    classes = (y > np.median(y)).astype(np.intp)
    order = np.random.RandomState(1).permutation(X.shape[1])
    starts, stops = [0, 2900, 600, 1500, 2950], [600, 2902, 1500, 2900, 2951]  # a fit of 1 sample too
    workspace = make_workspace(binned, 2)
    for targets in (y[rows], classes[rows]):
        alphas = [3e-4 * (j + 1) for j in range(len(starts))]
        totals = [float(w[a:b].sum()) for a, b in zip(starts, stops)]
        trees = fit_trees(binned, order, rows, targets, w, starts, stops, alphas, totals, workspace)
        assert len(trees) == len(starts)
        assert sum(tree.node_count > 10 for tree in trees) >= 3
        for tree, a, b, alpha in zip(trees, starts, stops, alphas):
            if isinstance(tree, RegressionTree):
                alone = fit_regression_tree(binned, order, rows[a:b], targets[a:b], w[a:b], alpha, workspace)
                names = ("children_left", "children_right", "feature", "threshold", "value", "missing_left")
            else:
                alone = fit_micro_tree(binned, order, rows[a:b], targets[a:b], w[a:b], alpha, 2, workspace)
                names = ("children_left", "children_right", "feature", "threshold", "label", "missing_left")
            for name in names:
                assert np.array_equal(getattr(tree, name), getattr(alone, name)), name


@kernel
def _compiled_fit_targets(y):
    return fit_targets(y)


@pytest.mark.parametrize("run", [fit_targets, _compiled_fit_targets], ids=["Python", "compiled"])
def test_a_fit_copies_class_indices_as_int32_and_float_targets_as_they_are(run):
    classes = np.array([0, 3, 70_000, 2**31 - 1])  # int64; any class index an int32 holds
    copied = run(classes)
    assert copied.dtype == np.int32 and copied.tolist() == classes.tolist()
    targets = np.array([0.5, -2.25, 1e300])
    copied = run(targets)
    assert copied.dtype == np.float64 and copied.tolist() == targets.tolist()
    copied[0] = 7.0  # a copy: the caller's targets are left as they are
    assert targets[0] == 0.5


def test_a_fit_on_more_samples_than_sorted_runs_number_is_refused_with_one_sentence(monkeypatch):
    """Both ways into the compiled learner: one fit, and a batch whose largest fit is too large."""
    import tnt.learn.micro_tree as micro_tree

    X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    binned = bin_features(X.astype(np.float32))
    one = (binned, np.arange(3), np.arange(40), y, np.ones(40), 0.0, 2)
    batch = (binned, np.arange(3), np.arange(40), y, np.ones(40), [0, 10], [10, 40], [0.0, 0.0], [10.0, 30.0], None)
    monkeypatch.setattr(micro_tree, "MAX_SAMPLES", 29)  # 2**31 - 1 in a real fit: too many to allocate here
    with pytest.raises(ValueError, match=r"at most 29 samples, and this one has 40: fit on a sample"):
        micro_tree.fit_micro_tree(*one)
    with pytest.raises(ValueError, match=r"at most 29 samples, and this one has 30: fit on a sample"):
        micro_tree.fit_trees(*batch)
    monkeypatch.setattr(micro_tree, "MAX_SAMPLES", 40)
    assert micro_tree.fit_micro_tree(*one).feature[0] >= 0
    assert len(micro_tree.fit_trees(*batch[:-1], micro_tree.make_workspace(binned, 2))) == 2


def test_the_types_a_pass_asks_about_are_those_of_the_batch_kernel_s_calls(monkeypatch):
    # batches_ready asks numba about _batch_types; a mismatch would fit every tree alone forever.
    import tnt.learn.micro_tree as micro_tree

    X, y = make_classification(n_samples=300, n_features=4, n_informative=3, n_redundant=0, random_state=0)
    X[::9, 1] = np.nan
    seen = []
    kernel = micro_tree._fit_trees

    def recording(*arguments):
        seen.append(tuple(kernel.typeof_pyval(a) for a in arguments))
        return kernel(*arguments)

    monkeypatch.setattr(micro_tree, "_fit_trees", recording)
    fits = []
    for max_bins in (65535, 255):
        binned = bin_features(X.astype(np.float32), max_bins)
        workspace = micro_tree.make_workspace(binned, 3)
        rows = np.arange(300)
        micro_tree.fit_trees(
            binned, np.arange(4), rows, y, np.ones(300), [0, 100], [100, 300], [1e-3] * 2, [100.0, 200.0], workspace, 3
        )
        fits.append((binned, workspace))
    monkeypatch.undo()
    assert len(seen) == 2
    for called, (binned, workspace) in zip(seen, fits):
        assert called == micro_tree._batch_types(binned, workspace)
        assert micro_tree.batches_ready(binned, workspace)  # just compiled or loaded
