"""Kernel-level tests of the split search and the sorted runs, one kernel per test, in the style of
scikit-learn's ``_hist_gradient_boosting/tests/test_histogram.py``: each fast path against a
plain computation or against another path that must agree with it exactly."""

import numpy as np
import pytest

from tnt.learn.binning import bin_features
from tnt.learn.micro_tree import fit_micro_tree
from tnt.learn.sorted_runs import (
    _argsort_codes,
    make_runs,
    mark_left,
    other_buffer,
    partition_runs,
)
from tnt.learn.split_search import (
    CACHE_LINE,
    HISTOGRAM_MAX_BINS,
    NO_MISSING,
    RUN_CHUNK,
    Results,
    _best_of,
    _candidate,
    _fill_and_scan,
    _scan_feature,
    _scan_sorted,
    _scan_stored,
    _subtract_samples,
    _threshold,
    buffer_classes,
    make_buffers,
    split_threshold,
)

# The criterion of the kernels under test: K classes (Gini, SQUARED None) or the squared error
# (SQUARED True, K = 2 histogram entries per code: weight and weighted target).
K = 3
SQUARED = None


@pytest.fixture(params=[(2, None), (3, None), (2, True)], ids=["two classes", "three classes", "squared error"])
def criterion(request, monkeypatch):
    """Runs a test with each criterion: two classes have a path of their own in the proxy and the
    stored-histogram scan, the squared error its own histogram entries and node statistics."""
    monkeypatch.setitem(globals(), "K", request.param[0])
    monkeypatch.setitem(globals(), "SQUARED", request.param[1])
    return request.param


def _targets(values):
    """Class indices, or for the squared error the same integers as float targets (sums of integer
    weights times integer targets are exact, so that scans in any order agree bit for bit)."""
    return np.asarray(values).astype(np.float64 if SQUARED else np.int64)


def _node(seed, n, n_bins, weights="integer"):
    """Codes, targets and weights of ``n`` samples, and the bins of one feature with ``n_bins`` codes."""
    rng = np.random.default_rng(seed)
    cf = rng.integers(0, n_bins, n).astype(np.uint16)
    ys = _targets(rng.integers(-4, 5, n) if SQUARED else rng.integers(0, K, n))
    ws = rng.integers(1, 4, n).astype(np.float64) if weights == "integer" else rng.uniform(0.5, 2.0, n)
    values = np.cumsum(rng.uniform(0.5, 1.5, n_bins)).astype(np.float32)
    bin_min = values[None, :].copy()
    return cf, ys, ws, bin_min, bin_min.copy()


def _total(ys, ws, start, end):
    """A node's statistics: class weights, or weight, weighted target sum, weighted sum of squares."""
    y, w = ys[start:end], ws[start:end]
    if SQUARED:
        return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])
    return np.bincount(y, weights=w, minlength=K).astype(np.float64)


def _weight(total):
    return float(total[0] if SQUARED else total.sum())


def _proxy(left_y, left_w, total):
    """scikit-learn's proxy of the improvement of a split whose left side has these samples."""
    if SQUARED:
        w_left, s_left = left_w.sum(), (left_w * left_y).sum()
        return s_left**2 / w_left + (total[1] - s_left) ** 2 / (total[0] - w_left)
    left = np.bincount(left_y, weights=left_w, minlength=K)
    w_left = left.sum()
    return (left**2).sum() / w_left + ((total - left) ** 2).sum() / (total.sum() - w_left)


def _brute_force(cf, ys, ws, start, end, bin_min, bin_max, mc=-1):
    """scikit-learn's two passes over the boundaries, each scored with its proxy, first best wins:
    every boundary between two real codes present (code ``mc`` is a missing value) with the missing
    values on the right, then "all real values left, missing right" (threshold ``+inf``), then, when
    the node has missing values, every boundary between real codes with them on the left. Returns
    (proxy, last real code going left, threshold, where missing values go)."""
    total = _total(ys, ws, start, end)
    node = cf[start:end].astype(np.int64)
    positions = np.arange(start, end)
    has_missing = bool((node == mc).any())
    best = (-np.inf, -1, 0.0, 0 if has_missing else NO_MISSING)
    present = np.unique(node[node != mc])
    candidates = [(low, high, 0) for low, high in zip(present[:-1], present[1:])]
    if has_missing and present.size:
        candidates.append((present[-1], mc, 0))
        candidates += [(low, high, 1) for low, high in zip(present[:-1], present[1:])]
    for low, high, missing_left in candidates:
        goes_left = positions[(node <= low) | ((node == mc) & bool(missing_left))]
        proxy = _proxy(ys[goes_left], ws[goes_left], total)
        if proxy > best[0]:
            threshold = np.inf if high == mc else _threshold(bin_max[0, low], bin_min[0, high])
            best = (proxy, int(low), threshold, missing_left if has_missing else NO_MISSING)
    return best


def _scratch(n_bins):
    buffers = make_buffers(np.array([n_bins]), K, 1)
    return buffers.hist[0, 0], buffers.hist[0, 1], buffers.counts[0, 0], buffers.counts[0, 1], buffers


def _with_threshold(result, bin_min, bin_max, mc):
    """A scan's result of feature 0 with its threshold (:func:`split_threshold`) in place of the
    first code going right: what :func:`_brute_force` finds."""
    proxy, code, next_code, direction = result
    return proxy, code, split_threshold(0, code, next_code, bin_min, bin_max, mc), direction


def _scan(cf, n_bins, ys, ws, start, end, bin_min, bin_max, total, w_node, scratch, mc=-1):
    """:func:`_scan_feature` of the one feature ``cf`` with the scratch memory of :func:`_scratch`."""
    h0, h1, c0, c1, buffers = scratch
    result = _scan_feature(
        cf[None], n_bins, 0, mc, ys, ws, start, end, K,
        total, w_node, h0, h1, c0, c1, buffers.bits[0], buffers.left[0], SQUARED,
    )  # fmt: skip
    return _with_threshold(result, bin_min, bin_max, mc)


def _fill(cf, ys, ws, start, end, bin_min, bin_max, total, w_node, scratch, stored, mc=-1):
    """:func:`_fill_and_scan` of the one feature ``cf`` into ``stored`` (hist, counts, bounds)."""
    h0, h1, c0, c1, buffers = scratch
    hist, counts, bounds = stored
    result = _fill_and_scan(
        cf[None], 0, mc, ys, ws, start, end, K, total, w_node,
        h0, h1, c0, c1, buffers.left[0], hist, counts, 0, bounds, SQUARED,
    )  # fmt: skip
    return _with_threshold(result, bin_min, bin_max, mc)


def _stored(n_bins):
    return np.zeros(n_bins * K), np.zeros(n_bins, dtype=np.int32), np.zeros((1, 2), dtype=np.int64)


def _scan_of_stored(stored, bin_min, bin_max, total, w_node, left, mc=-1):
    hist, counts, bounds = stored
    result = _scan_stored(hist, counts, 0, bounds, 0, mc, K, total, w_node, left, SQUARED)
    return _with_threshold(result, bin_min, bin_max, mc)


def _scan_of_run(cf, ys, ws, start, end, bin_min, bin_max, total, w_node, left, mc=-1):
    """:func:`_scan_sorted` of positions start:end, sorted by code first (stably)."""
    order = start + np.argsort(cf[start:end], kind="stable")
    run = (cf[order][None], ys[order][None], ws[order][None])
    result = _scan_sorted(*run, 0, 0, end - start, mc, K, total, w_node, left, SQUARED)
    return _with_threshold(result, bin_min, bin_max, mc)


@pytest.mark.parametrize("n", [30, 2000])  # the bitmap of codes present, and dense histograms
def test_scan_equals_brute_force_and_leaves_scratch_zeroed(n, criterion):
    n_bins = 200
    cf, ys, ws, bin_min, bin_max = _node(n, n, n_bins)
    start, end = 3, n - 2
    h0, h1, c0, c1, buffers = _scratch(n_bins)
    total = _total(ys, ws, start, end)
    result = _scan(cf, n_bins, ys, ws, start, end, bin_min, bin_max, total, _weight(total), (h0, h1, c0, c1, buffers))
    assert result == _brute_force(cf, ys, ws, start, end, bin_min, bin_max)
    assert not h0.any() and not h1.any() and not c0.any() and not c1.any() and not buffers.bits.any()


def test_constant_feature_scores_minus_infinity(criterion):
    cf = np.full(50, 7, dtype=np.uint16)
    ys = _targets(np.arange(50) % K)
    ws = np.ones(50)
    _, _, _, bin_min, bin_max = _node(0, 10, 20)
    h0, h1, c0, c1, buffers = _scratch(20)
    total = _total(ys, ws, 0, 50)
    result = _scan(cf, 20, ys, ws, 0, 50, bin_min, bin_max, total, 50.0, (h0, h1, c0, c1, buffers))
    assert result[0] == -np.inf
    assert _scan_of_run(cf, ys, ws, 0, 50, bin_min, bin_max, total, 50.0, buffers.left[0])[0] == -np.inf


@pytest.mark.parametrize("weights", ["integer", "real"])
def test_scan_of_stored_histograms_equals_a_direct_scan(weights, criterion):
    n_bins = 150
    cf, ys, ws, bin_min, bin_max = _node(1, 3000, n_bins, weights)
    h0, h1, c0, c1, buffers = _scratch(n_bins)
    total = _total(ys, ws, 0, 3000)
    direct = _scan(cf, n_bins, ys, ws, 0, 3000, bin_min, bin_max, total, _weight(total), (h0, h1, c0, c1, buffers))
    hist, counts, bounds = store = _stored(n_bins)
    filled = _fill(cf, ys, ws, 0, 3000, bin_min, bin_max, total, _weight(total), (h0, h1, c0, c1, buffers), store)
    stored = _scan_of_stored(store, bin_min, bin_max, total, _weight(total), buffers.left[0])
    assert direct == filled == stored
    np.testing.assert_array_equal(counts, np.bincount(cf, minlength=n_bins))
    assert not h0.any() and not c0.any()


@pytest.mark.parametrize(
    "present",
    [[0, 63, 64, 65, 127, 128, 191, 199], [5, 6], [70, 130], list(range(64, 128))],
    ids=["word edges", "one word", "two words apart", "one whole word"],
)
def test_sparse_codes_across_words_scan_as_a_brute_force_does(present, criterion):
    # Many samples per code but few codes present, at and across the edges of 64-code words: the
    # scans visit the codes present from bit masks of each word.
    n_bins, n = 200, 1000
    rng = np.random.default_rng(7)
    cf = rng.choice(np.array(present), n).astype(np.uint16)
    ys = _targets(rng.integers(0, K, n))
    ws = rng.uniform(0.5, 2.0, n)
    bin_min = np.cumsum(rng.uniform(0.5, 1.5, n_bins)).astype(np.float32)[None, :]
    bin_max = bin_min.copy()
    start, end = 2, n - 3
    h0, h1, c0, c1, buffers = _scratch(n_bins)
    total = _total(ys, ws, start, end)
    expected = _brute_force(cf, ys, ws, start, end, bin_min, bin_max)
    w_node = _weight(total)
    direct = _scan(cf, n_bins, ys, ws, start, end, bin_min, bin_max, total, w_node, (h0, h1, c0, c1, buffers))
    hist, counts, bounds = store = _stored(n_bins)
    filled = _fill(cf, ys, ws, start, end, bin_min, bin_max, total, w_node, (h0, h1, c0, c1, buffers), store)
    stored = _scan_of_stored(store, bin_min, bin_max, total, w_node, buffers.left[0])
    assert direct[1:] == filled[1:] == stored[1:] == expected[1:]  # last code going left, threshold
    np.testing.assert_allclose([direct[0], filled[0], stored[0]], expected[0], rtol=1e-12)
    np.testing.assert_array_equal(counts, np.bincount(cf[start:end], minlength=n_bins))
    assert list(bounds[0]) == [min(cf[start:end]), max(cf[start:end])]
    assert not h0.any() and not h1.any() and not c0.any() and not c1.any()


@pytest.mark.parametrize("weights", ["integer", "real", "tiny and large"])
def test_a_candidate_replaces_the_best_exactly_when_its_exact_proxy_is_larger(weights, criterion):
    # The division-free test may skip the exact proxy only where that proxy could not win: at the
    # nearest floats either side of a tie it must decide as the exact comparison does.
    rng = np.random.default_rng(3)
    for _ in range(200):
        if weights == "integer":
            total = rng.integers(1, 50, K).astype(np.float64)
        elif weights == "real":
            total = rng.uniform(0.1, 40.0, K)
        else:
            total = rng.uniform(0.1, 40.0, K) * 10.0 ** rng.integers(-150, 150, K)
        left = total * rng.uniform(0.0, 1.0, K)
        w_node, w_left = float(total.sum()), float(left.sum())
        sq_left, sq_right = float((left**2).sum()), float(((total - left) ** 2).sum())
        if SQUARED:  # left: (weight, weighted target sum); total: (weight, target sum, sum of squares)
            if weights == "tiny and large":  # a target sum's square over a tiny weight stays finite
                total = rng.uniform(0.1, 40.0, 2) * 10.0 ** rng.integers(-60, 60, 2)
            total = np.array([total[0], total[1] * rng.choice([-1.0, 1.0]), 0.0])
            left = np.array([total[0] * rng.uniform(0.0, 1.0), total[1] * rng.uniform(-1.0, 2.0)])
            w_node, w_left = total[0], left[0]
            sq_left, sq_right = left[1] * left[1], (total[1] - left[1]) ** 2
        elif K == 2:  # the two-class path adds its two squares directly
            sq_left = left[0] * left[0] + left[1] * left[1]
            r = total - left
            sq_right = r[0] * r[0] + r[1] * r[1]
        proxy = sq_left / w_left + sq_right / (w_node - w_left)
        for best in (np.nextafter(proxy, -np.inf), proxy, np.nextafter(proxy, np.inf), proxy * 0.5, proxy * 2.0):
            got = _candidate((best, 1, 2), 4, 5, left, total, K, w_left, w_node, SQUARED)
            assert got == ((proxy, 4, 5) if proxy > best else (best, 1, 2))


def test_histogram_subtraction_equals_a_rebuild(criterion):
    # Integer weights: the subtraction is exact, so the parent's histogram less one child's
    # samples is bit for bit the other child's.
    n_bins = 100
    cf, ys, ws, bin_min, bin_max = _node(2, 4000, n_bins)
    h0, h1, c0, c1, buffers = _scratch(n_bins)
    mid = 1500

    def fill(start, end):
        store = _stored(n_bins)
        total = _total(ys, ws, start, end)
        _fill(cf, ys, ws, start, end, bin_min, bin_max, total, _weight(total), (h0, h1, c0, c1, buffers), store)
        return store

    hist, counts, bounds = fill(0, 4000)
    _subtract_samples(cf[None], 0, ys, ws, 0, mid, K, hist, counts, 0, SQUARED)
    rebuilt, rebuilt_counts, _ = fill(mid, 4000)
    np.testing.assert_array_equal(hist, rebuilt)
    np.testing.assert_array_equal(counts, rebuilt_counts)
    total = _total(ys, ws, mid, 4000)
    after = _scan_of_stored((hist, counts, bounds), bin_min, bin_max, total, _weight(total), buffers.left[0])
    assert after == _brute_force(cf, ys, ws, mid, 4000, bin_min, bin_max)


@pytest.mark.parametrize("n", [40, 3000])
def test_scan_of_a_sorted_run_equals_brute_force(n, criterion):
    n_bins = 5000
    cf, ys, ws, bin_min, bin_max = _node(3, n, n_bins)
    total = _total(ys, ws, 0, n)
    result = _scan_of_run(cf, ys, ws, 0, n, bin_min, bin_max, total, _weight(total), _scratch(n_bins)[4].left[0])
    assert result == _brute_force(cf, ys, ws, 0, n, bin_min, bin_max)


@pytest.mark.parametrize("n_bins", [3, 256, 65535])
def test_radix_argsort_is_a_stable_sort_by_code(n_bins):
    rng = np.random.default_rng(n_bins)
    cf = rng.integers(0, n_bins, 5000).astype(np.uint16)
    order = np.empty(5000, dtype=np.int64)
    _argsort_codes(cf, order, np.empty(5000, dtype=np.int64))
    np.testing.assert_array_equal(order, np.argsort(cf, kind="stable"))


@pytest.fixture
def runs_setting():
    rng = np.random.default_rng(4)
    m = 600
    n_bins = np.array([HISTOGRAM_MAX_BINS + 500, 40, 1, HISTOGRAM_MAX_BINS + 1])
    codes = np.stack([rng.integers(0, nb, m) for nb in n_bins]).astype(np.uint16)
    ys = rng.integers(0, K, m).astype(np.int64)
    ws = rng.uniform(0.5, 2.0, m)
    return codes, n_bins, ys, ws


@pytest.mark.parametrize("parallel", [False, True])
def test_runs_sort_each_wide_feature_and_carry_targets_and_weights(runs_setting, parallel):
    codes, n_bins, ys, ws = runs_setting
    runs = make_runs(codes, n_bins, ys, ws, 2, parallel)
    np.testing.assert_array_equal(runs.row, [0, -1, -1, 1])  # only features with many codes
    np.testing.assert_array_equal(other_buffer(runs).row, [2, -1, -1, 3])  # and a row each in the second buffer
    assert runs.sid.shape == (4, codes.shape[1]) and runs.sid.dtype == np.int32
    for f, j in ((0, 0), (3, 1)):
        order = np.argsort(codes[f], kind="stable")
        np.testing.assert_array_equal(runs.sid[j], order)
        np.testing.assert_array_equal(runs.code[j], codes[f][order])
        np.testing.assert_array_equal(runs.y[j], ys[order])
        np.testing.assert_array_equal(runs.w[j], ws[order])


@pytest.mark.parametrize("split_feature", [0, 1])  # a feature in sorted runs, a feature in histograms
@pytest.mark.parametrize("parallel", [False, True])
def test_partition_of_runs_is_stable_and_keeps_both_sides_sorted(runs_setting, split_feature, parallel):
    """Two splits, the root's and its left child's: each partition writes the node's positions of the
    other buffer, each side in its order, and nothing outside them."""
    codes, n_bins, ys, ws = runs_setting
    m = codes.shape[1]
    runs = make_runs(codes, n_bins, ys, ws, 2, False)
    other = other_buffer(runs)
    features = np.array([0, 3])
    goes_left = np.zeros(m, dtype=bool)
    # The root is split first (into the second buffer); then its left child, positions 0:end, is
    # split again (back into the first).
    mark_left(runs, codes, np.arange(m), 0, m, 3, HISTOGRAM_MAX_BINS // 2, -1, goes_left)
    node = np.flatnonzero(codes[3] <= HISTOGRAM_MAX_BINS // 2)
    partition_runs(runs, other, features, 2, 0, node.size, m, goes_left, 2, parallel)
    start, end = 0, node.size
    # Histogram features are read by position, in any order of the node's samples.
    position_sid = np.arange(m)
    position_sid[start:end] = np.random.default_rng(5).permutation(node)
    code = int(np.median(codes[split_feature, node]))
    mark_left(other, codes[:, position_sid], position_sid, start, end, split_feature, code, -1, goes_left)
    expected_left = node[codes[split_feature, node] <= code]
    np.testing.assert_array_equal(np.sort(other.sid[3, start:end][goes_left[other.sid[3, start:end]]]), expected_left)
    n_left = expected_left.size
    assert 0 < n_left < end - start
    before = {name: getattr(runs, name).copy() for name in ("sid", "code", "y", "w")}
    partition_runs(other, runs, features, 2, start, start + n_left, end, goes_left, 2, parallel)
    for j in range(2):
        side = goes_left[other.sid[2 + j, start:end]]
        for name in ("sid", "code", "y", "w"):
            old = getattr(other, name)[2 + j, start:end]
            new = getattr(runs, name)[j]
            np.testing.assert_array_equal(new[start : start + n_left], old[side])  # stable: order kept
            np.testing.assert_array_equal(new[start + n_left : end], old[~side])
            np.testing.assert_array_equal(new[end:], before[name][j, end:])  # outside untouched
        assert np.all(np.diff(runs.code[j, start : start + n_left].astype(int)) >= 0)
        assert np.all(np.diff(runs.code[j, start + n_left : end].astype(int)) >= 0)


def test_best_of_takes_the_first_of_equal_splits_and_drops_constant_features():
    features = np.array([4, 2, 7, 1])
    results = Results(
        np.array([1.0, 2.0, -np.inf, 2.0]),
        np.array([5, 6, 7, 8]),
        np.array([6, 8, 9, 9]),
        np.array([0, 1, 0, 0]),
    )
    kept = np.zeros(4, dtype=np.int64)
    # Bins of feature 2: code c holds the values c and c + 0.5; the threshold is the midpoint
    # between the last value of code 6 and the first of code 8.
    bin_min = np.tile(np.arange(10, dtype=np.float32), (8, 1))
    bin_max = bin_min + np.float32(0.5)
    missing_code = np.full(8, 9)
    assert _best_of(features, 4, results, kept, bin_min, bin_max, missing_code) == (2, 6, 7.25, 1, 3)
    np.testing.assert_array_equal(kept[:3], [4, 2, 1])


def test_sorted_runs_and_histograms_grow_the_same_tree():
    # The same 2,000 samples fitted twice: binned with the whole data (over 1,024 values per
    # feature, so the features are in sorted runs) and binned alone (1,000 values at most:
    # histograms). Integer data and weights and a duplicated column make many equally good
    # splits, so the order in which ties are broken is checked too.
    rng = np.random.default_rng(6)
    X = np.vstack([3 * rng.integers(0, 1000, size=(2000, 3)), rng.integers(0, 3000, size=(2000, 3))])
    X = np.column_stack([X, X[:, 0]]).astype(np.float32)
    y = (((X[:, 0] + X[:, 1]) // 600).astype(np.int64) + rng.integers(0, 2, 4000)) % 3
    w = rng.integers(1, 4, 4000).astype(float)
    wide = bin_features(X)
    narrow = bin_features(X[:2000])
    assert (wide.n_bins > HISTOGRAM_MAX_BINS).all() and (narrow.n_bins <= HISTOGRAM_MAX_BINS).all()
    rows = np.arange(2000)
    order = np.array([3, 1, 0, 2])
    for alpha in (0.0, 1e-3):
        a = fit_micro_tree(wide, order, rows, y[rows], w[rows], alpha, 3)
        b = fit_micro_tree(narrow, order, rows, y[rows], w[rows], alpha, 3)
        assert a.node_count > 20
        for name in ("children_left", "children_right", "feature", "threshold", "label"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_sorted_runs_and_histograms_grow_the_same_regression_tree():
    # As above for the squared error: integer targets and weights keep every sum exact, so the
    # histograms (with their subtraction) and the sorted runs score every split alike.
    from tnt.learn.micro_tree import fit_regression_tree

    rng = np.random.default_rng(8)
    X = np.vstack([3 * rng.integers(0, 1000, size=(2000, 3)), rng.integers(0, 3000, size=(2000, 3))])
    X = np.column_stack([X, X[:, 0]]).astype(np.float32)
    y = ((X[:, 0] + X[:, 1]) // 600 + rng.integers(0, 3, 4000)).astype(np.float64)
    w = rng.integers(1, 4, 4000).astype(float)
    wide = bin_features(X)
    narrow = bin_features(X[:2000])
    rows = np.arange(2000)
    order = np.array([3, 1, 0, 2])
    for alpha in (0.0, 1e-3):
        a = fit_regression_tree(wide, order, rows, y[rows], w[rows], alpha)
        b = fit_regression_tree(narrow, order, rows, y[rows], w[rows], alpha)
        assert a.node_count > 20
        for name in ("children_left", "children_right", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("n_classes_made", [1, 2, 3, 10])
@pytest.mark.parametrize("n_lanes", [1, 2, 3])
def test_each_thread_writes_cache_lines_of_its_own(n_classes_made, n_lanes):
    # Threads scanning one node write their own scratch; when two threads' parts share a cache line
    # the line travels between the cores at every write (false sharing).
    buffers = make_buffers(np.array([3, 200, 17]), n_classes_made, n_lanes)
    assert buffer_classes(buffers) == n_classes_made
    for array in buffers:
        assert array.flags.c_contiguous and not array.any()
        lines = []
        for lane in range(n_lanes):
            first = array[lane].ctypes.data
            assert first % CACHE_LINE == 0
            lines.append(set(range(first // CACHE_LINE, (first + array[lane].nbytes - 1) // CACHE_LINE + 1)))
        for a in range(n_lanes):
            for b in range(a + 1, n_lanes):
                assert not lines[a] & lines[b]
        # No other object of the process can sit in the lines just before and after.
        base = array.base
        assert array.ctypes.data - base.ctypes.data >= CACHE_LINE
        assert base.ctypes.data + base.nbytes - (array.ctypes.data + array.nbytes) >= CACHE_LINE


def test_threads_taking_blocks_from_one_counter_take_each_index_once():
    from numba import njit, prange

    from tnt.learn.compiled import fetch_add

    @njit(parallel=True)
    def take_all(n, block, n_lanes):
        counter = np.zeros(1, dtype=np.int64)
        taken = np.zeros(n, dtype=np.int64)
        for _lane in prange(n_lanes):
            while True:
                first = fetch_add(counter, block)
                if first >= n:
                    break
                for i in range(first, min(first + block, n)):
                    taken[i] += 1
        return taken

    for n, block, n_lanes in ((1000, 1, 4), (1001, 8, 2), (5, 8, 3), (0, 8, 2)):
        assert (take_all(n, block, n_lanes) == 1).all()
    counter = np.array([5], dtype=np.int64)  # plain Python (NUMBA_DISABLE_JIT=1) does the same
    assert fetch_add(counter, 3) == 5 and counter[0] == 8


# Missing values: code ``n_bins - 1`` of a feature with NaN (tnt.learn.binning), whose bin bounds are NaN.
MISSING_CASES = ["some missing", "none in the node", "one value and missing", "only missing"]


def _missing_node(seed, n, n_bins, case):
    """:func:`_node` of a feature whose last code ``mc`` is the missing code, and ``mc``."""
    cf, ys, ws, bin_min, bin_max = _node(seed, n, n_bins)
    mc = n_bins - 1
    bin_min[0, mc] = bin_max[0, mc] = np.nan
    rng = np.random.default_rng(seed + 100)
    cf[cf == mc] = 0
    if case == "one value and missing":
        cf[:] = rng.integers(0, n_bins - 1)
    if case != "none in the node":
        cf[rng.random(n) < 0.25] = mc
    if case == "only missing":
        cf[:] = mc
    return cf, ys, ws, bin_min, bin_max, mc


@pytest.mark.parametrize("case", MISSING_CASES)
@pytest.mark.parametrize("n_bins", [200, 129, 128])  # the missing code inside, first or last in its 64-code word
@pytest.mark.parametrize("n", [30, 2000])  # the bitmap of codes present, and dense histograms
def test_scan_with_a_missing_code_equals_scikit_learns_two_passes(n, n_bins, case, criterion):
    cf, ys, ws, bin_min, bin_max, mc = _missing_node(n + n_bins, n, n_bins, case)
    start, end = 3, n - 2
    h0, h1, c0, c1, buffers = _scratch(n_bins)
    total = _total(ys, ws, start, end)
    expected = _brute_force(cf, ys, ws, start, end, bin_min, bin_max, mc)
    result = _scan(
        cf, n_bins, ys, ws, start, end, bin_min, bin_max, total, _weight(total), (h0, h1, c0, c1, buffers), mc
    )
    assert result == expected
    assert not h0.any() and not h1.any() and not c0.any() and not c1.any() and not buffers.bits.any()
    if case == "one value and missing":  # one candidate: the test of missingness
        assert result[2] == np.inf and result[3] == 0
    if case == "only missing":  # a constant feature
        assert result[0] == -np.inf


@pytest.mark.parametrize("case", MISSING_CASES)
@pytest.mark.parametrize("n_bins", [200, 129, 128])
def test_filled_and_stored_scans_with_a_missing_code_equal_scikit_learns_two_passes(n_bins, case, criterion):
    n = 1500
    cf, ys, ws, bin_min, bin_max, mc = _missing_node(n_bins, n, n_bins, case)
    start, end = 2, n - 3
    scratch = _scratch(n_bins)
    total = _total(ys, ws, start, end)
    expected = _brute_force(cf, ys, ws, start, end, bin_min, bin_max, mc)
    store = _stored(n_bins)
    filled = _fill(cf, ys, ws, start, end, bin_min, bin_max, total, _weight(total), scratch, store, mc)
    stored = _scan_of_stored(store, bin_min, bin_max, total, _weight(total), scratch[4].left[0], mc)
    assert filled == stored == expected
    assert not scratch[0].any() and not scratch[1].any() and not scratch[2].any() and not scratch[3].any()


def test_a_stored_histogram_whose_missing_samples_were_subtracted_scans_without_them(criterion):
    # The larger child keeps its parent's range of codes, the missing code included, at count 0.
    n_bins, n = 90, 3000
    cf, ys, ws, bin_min, bin_max, mc = _missing_node(5, n, n_bins, "some missing")
    order = np.argsort(cf != mc, kind="stable")  # the missing samples first: the part subtracted
    cf, ys, ws = cf[order], ys[order], ws[order]
    mid = int((cf == mc).sum()) + 10
    scratch = _scratch(n_bins)
    store = _stored(n_bins)
    total = _total(ys, ws, 0, n)
    _fill(cf, ys, ws, 0, n, bin_min, bin_max, total, _weight(total), scratch, store, mc)
    hist, counts, bounds = store
    _subtract_samples(cf[None], 0, ys, ws, 0, mid, K, hist, counts, 0, SQUARED)
    assert bounds[0, 1] == mc and counts[mc] == 0
    total = _total(ys, ws, mid, n)
    after = _scan_of_stored(store, bin_min, bin_max, total, _weight(total), scratch[4].left[0], mc)
    assert after == _brute_force(cf, ys, ws, mid, n, bin_min, bin_max, mc)
    assert after[3] == NO_MISSING


@pytest.mark.parametrize("case", MISSING_CASES)
@pytest.mark.parametrize("n", [40, 3000])
def test_scan_of_a_sorted_run_with_a_missing_code_equals_scikit_learns_two_passes(n, case, criterion):
    n_bins = 5000
    cf, ys, ws, bin_min, bin_max, mc = _missing_node(n, n, n_bins, case)
    total = _total(ys, ws, 0, n)
    left = _scratch(n_bins)[4].left[0]
    result = _scan_of_run(cf, ys, ws, 0, n, bin_min, bin_max, total, _weight(total), left, mc)
    assert result == _brute_force(cf, ys, ws, 0, n, bin_min, bin_max, mc)


def _two_passes_in_order(cf, ys, ws, total, w_node, bin_min, bin_max, mc):
    """scikit-learn's two passes over a run sorted by code, one after the other, each side's sums
    added sample by sample in the order of its own pass (the second's from the missing values, last
    in the run), each candidate scored with the proxy's arithmetic (:func:`_candidate`'s): the
    results of two separate scans, bit for bit, whatever the weights."""

    def proxy(left, w_left):
        if w_left <= 0.0 or w_node - w_left <= 0.0:  # a side that weighs nothing is no split
            return -np.inf
        if SQUARED:
            s_left, s_right = left[1], total[1] - left[1]
            return (s_left * s_left) / w_left + (s_right * s_right) / (w_node - w_left)
        sq_left = sq_right = 0.0
        for k in range(K):
            sq_left += left[k] * left[k]
            right = total[k] - left[k]
            sq_right += right * right
        return sq_left / w_left + sq_right / (w_node - w_left)

    def one_pass(positions, left, w_left):
        best = (-np.inf, -1, -1)
        for i, j in zip(positions[:-1], positions[1:]):
            left[0 if SQUARED else ys[i]] += ws[i]
            if SQUARED:
                left[1] += ws[i] * ys[i]
            w_left += ws[i]
            if cf[i] != cf[j]:
                candidate = proxy(left, w_left)
                if candidate > best[0]:
                    best = (candidate, int(cf[i]), int(cf[j]))
        return best

    real = np.flatnonzero(cf != mc)
    missing = np.flatnonzero(cf == mc)
    first = one_pass(np.concatenate([real, missing[:1]]), [0.0] * K, 0.0)
    if missing.size == 0:  # no second pass, no direction
        proxy_value, low, high = first
        threshold = _threshold(bin_max[0, low], bin_min[0, high]) if low >= 0 else 0.0
        return proxy_value, low, threshold, NO_MISSING
    left, w_left = [0.0] * K, 0.0
    for i in missing:
        left[0 if SQUARED else ys[i]] += ws[i]
        if SQUARED:
            left[1] += ws[i] * ys[i]
        w_left += ws[i]
    second = one_pass(real, left, w_left)
    direction = 0
    if second[0] > first[0]:
        first, direction = second, 1
    proxy_value, low, high = first
    if low < 0:  # no candidate: a constant feature
        return proxy_value, low, 0.0, direction
    threshold = np.inf if high == mc else _threshold(bin_max[0, low], bin_min[0, high])
    return proxy_value, low, threshold, direction


# Runs of a length around the chunks of the two-class scan (RUN_CHUNK boundaries at a time), and longer.
def _assert_scans_as_two_passes(cf, ys, ws, n_bins, bin_min, bin_max, mc):
    """``_scan_sorted`` over a sorted run of all ``cf``'s samples (K classes, the SQUARED criterion of
    this module's globals) gives what :func:`_two_passes_in_order` gives; returns that result."""
    n = len(cf)
    total = _total(ys, ws, 0, n)
    w_node = _weight(total)
    left = _scratch(n_bins)[4].left[0]
    result = _with_threshold(
        _scan_sorted(cf[None], ys[None], ws[None], 0, 0, n, mc, K, total, w_node, left, SQUARED), bin_min, bin_max, mc
    )
    assert result == _two_passes_in_order(cf, ys, ws, total, w_node, bin_min, bin_max, mc)
    return result


RUN_LENGTHS = [40, RUN_CHUNK - 1, RUN_CHUNK, RUN_CHUNK + 1, 2 * RUN_CHUNK + 1, 3000]


@pytest.mark.parametrize("case", MISSING_CASES)
@pytest.mark.parametrize("n_bins", [5000, 40])  # mostly distinct codes; long ties across chunks
@pytest.mark.parametrize("n", RUN_LENGTHS)
def test_one_sweep_over_a_sorted_run_scores_both_passes_as_two_scans_would(n, n_bins, case, criterion):
    # Weights that are not integers: sums added in another order would differ in their last bits.
    cf, ys, _, bin_min, bin_max, mc = _missing_node(n + 1, n, n_bins, case)
    ws = np.random.default_rng(n).uniform(0.5, 2.0, n)
    order = np.argsort(cf, kind="stable")
    result = _assert_scans_as_two_passes(cf[order], ys[order], ws[order], n_bins, bin_min, bin_max, mc)
    if case == "only missing":
        assert result[0] == -np.inf


@pytest.mark.parametrize("pattern", ["best at the end", "zero weights", "tiny and large"])
def test_a_two_class_run_scores_its_candidates_chunk_by_chunk_as_one_by_one(pattern, monkeypatch):
    # Two classes (Gini) score a sorted run's boundaries a chunk at a time: a best found late in a
    # chunk, candidates whose side weighs nothing and weights of very different sizes must leave
    # every result as a scan of one boundary after another gives it.
    monkeypatch.setitem(globals(), "K", 2)
    monkeypatch.setitem(globals(), "SQUARED", None)
    rng = np.random.default_rng(7)
    n, n_bins = 5 * RUN_CHUNK + 3, 3000
    for trial in range(20):
        cf, ys, ws, bin_min, bin_max, mc = _missing_node(trial, n, n_bins, MISSING_CASES[trial % 2])
        ws = rng.uniform(0.5, 2.0, n)
        order = np.argsort(cf, kind="stable")
        cf, ys, ws = cf[order], ys[order], ws[order]
        if pattern == "best at the end":  # classes apart only in the last real chunk
            ys = np.where(np.arange(n) >= n - RUN_CHUNK - 40, 1, rng.integers(0, 2, n) * (rng.random(n) < 0.1))
        elif pattern == "zero weights":  # sides that weigh nothing at the start and the end
            ws[: RUN_CHUNK + 5] = 0.0
            ws[-RUN_CHUNK - 5 :] = 0.0
        else:
            ws *= 10.0 ** rng.integers(-60, 60, n)
        _assert_scans_as_two_passes(cf, ys.astype(np.int64), ws, n_bins, bin_min, bin_max, mc)


def test_the_second_pass_wins_only_when_strictly_better(criterion):
    # Missing values that look like the largest real values: sending them left or right of the
    # best boundary scores alike when the real values' classes mirror each other.
    cf = np.array([0, 0, 1, 1, 2, 2], dtype=np.uint16)  # code 2: missing
    ys = _targets([0, 0, 1, 1, 0, 1])
    ws = np.ones(6)
    bin_min = np.array([[1.0, 2.0, np.nan]], dtype=np.float32)
    total = _total(ys, ws, 0, 6)
    scratch = _scratch(3)
    result = _scan(cf, 3, ys, ws, 0, 6, bin_min, bin_min.copy(), total, 6.0, scratch, 2)
    assert result == _brute_force(cf, ys, ws, 0, 6, bin_min, bin_min.copy(), 2)
    assert result[3] == 0  # pass 1's split, missing right, is as good as pass 2's and came first


def test_a_missing_code_goes_left_only_when_asked():
    from tnt.learn.split_search import sends_left

    codes = np.arange(6)
    assert [bool(sends_left(c, 2, -1)) for c in codes] == [True, True, True, False, False, False]
    assert [bool(sends_left(c, 2, 5)) for c in codes] == [True, True, True, False, False, True]


def test_a_reused_stored_histogram_ignores_counts_outside_the_nodes_codes(criterion):
    # A slot of stored histograms is reused from node to node: past the codes a node fills, its counts
    # and entries are another node's, the missing code's among them.
    n_bins, n = 90, 1500
    cf, ys, ws, bin_min, bin_max, mc = _missing_node(6, n, n_bins, "none in the node")
    cf = np.minimum(cf, 40).astype(np.uint16)  # codes 0..40: the missing code is outside the range
    hist, counts, bounds = store = _stored(n_bins)
    hist[:] = 7.0
    counts[:] = 3
    scratch = _scratch(n_bins)
    total = _total(ys, ws, 0, n)
    filled = _fill(cf, ys, ws, 0, n, bin_min, bin_max, total, _weight(total), scratch, store, mc)
    stored = _scan_of_stored(store, bin_min, bin_max, total, _weight(total), scratch[4].left[0], mc)
    assert filled == stored == _brute_force(cf, ys, ws, 0, n, bin_min, bin_max, mc)
    assert stored[3] == NO_MISSING
