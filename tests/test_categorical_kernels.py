"""The tree builder's kernels of categorical splits, one by one, against plain numpy: the histogram of
a node's own category codes (:func:`tnt.learn.tree_builder._category_histogram`), the ordered scan
from it (:func:`tnt.learn.tree_builder._ordered_scan`: Breiman's ordering, both passes of the missing
values, rare categories pooled) whether the histogram is the node's own or stored at an offset, and
the ranks a categorical split's partition reads (:func:`tnt.learn.tree_builder._to_ranks`)."""

import numpy as np
import pytest
from categorical_reference import _proxy, node_statistics, ordered_split

from tnt.learn.tree_builder import (
    POOL_MIN_CATEGORIES,
    _category_histogram,
    _category_scratch,
    _ordered_scan,
    _own_codes,
    _to_ranks,
)

N_NODES = 300


def random_node(rng, n_classes, n_categories=None):
    """A node's samples on one categorical feature as the builder holds them: codes 0..k-1 and the
    missing code k (a tenth of the samples), targets, weights (ones or spread), some categories absent."""
    k = int(n_categories or rng.integers(1, 9))
    n = int(rng.integers(2, 60))
    codes = rng.integers(0, k, n)
    codes[rng.random(n) < 0.1] = k
    if n_classes is None:
        y = rng.normal(size=n) * 10
    else:
        y = rng.integers(0, n_classes, n).astype(np.int32)
    w = np.ones(n) if rng.random() < 0.5 else rng.uniform(0.1, 10, n)
    return codes, y, w, k


def histogram(codes, y, w, k, n_classes):
    """The histogram and counts of the builder's layout, by ``np.add.at``: ``K`` entries per code
    (class weights, or the weight and the weighted target), the missing code ``k`` last."""
    K = 2 if n_classes is None else n_classes
    h = np.zeros(((k + 1), K))
    if n_classes is None:
        np.add.at(h[:, 0], codes, w)
        np.add.at(h[:, 1], codes, w * y)
    else:
        np.add.at(h, (codes, y), w)
    return h.ravel(), np.bincount(codes, minlength=k + 1).astype(np.int32)


def node_total(y, w, n_classes):
    if n_classes is None:
        return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])
    return np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)


def scan(codes, y, w, k, n_classes, fewest=1, offset=0):
    """The builder's ordered scan of one node: (result, rank of each code, the histogram's codes'
    range). With ``offset``, the histogram is read at that many codes into a larger stored one."""
    nb = k + 1
    K = 2 if n_classes is None else n_classes
    squared = True if n_classes is None else None
    local = codes.astype(np.uint8)[None, :]
    scratch = _category_scratch(np.array([nb]), K, np.ones(1, dtype=np.uint8))
    h, c = scratch[0], scratch[1]
    lo, hi, key_row = _category_histogram(local, 0, y, w, 0, codes.size, nb, K, h, c, squared, True)
    rank = np.zeros((1, nb + 1), dtype=np.int64)
    hist, counts, key = h[0].copy(), c[0].copy(), h[key_row].copy()
    if offset:
        hist = np.concatenate([np.full(offset * K, 7.0), hist, np.full(3 * K, 5.0)])
        key = np.concatenate([np.full(offset * K, 7.0), key, np.full(3 * K, 5.0)])
        counts = np.concatenate([np.full(offset, 3, dtype=np.int32), counts, np.full(3, 2, dtype=np.int32)])
    result = _ordered_scan(
        hist, counts, np.int64(offset), lo, hi, np.int64(k), nb, K, node_total(y, w, n_classes), float(w.sum()),
        np.int64(fewest), rank, np.int64(0), scratch[2], scratch[3], scratch[4], squared, key, scratch[5],
    )  # fmt: skip
    return result, rank[0], (lo, hi)


@pytest.mark.parametrize("n_classes", [2, 3, None])
def test_the_histogram_of_own_codes_is_that_of_numpy(n_classes):
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(N_NODES):
        codes, y, w, k = random_node(rng, n_classes, n_categories=int(rng.integers(1, 30)))
        nb, K = k + 1, 2 if n_classes is None else n_classes
        scratch = _category_scratch(np.array([nb]), K, np.ones(1, dtype=np.uint8))
        h, c = scratch[0], scratch[1]
        lo, hi, key_row = _category_histogram(codes.astype(np.uint8)[None, :], 0, y, w, 0, codes.size, nb, K, h, c,
                                              True if n_classes is None else None, True)  # fmt: skip
        expected_h, expected_c = histogram(codes, y, w, k, n_classes)
        assert (lo, hi) == (codes.min(), codes.max())
        np.testing.assert_allclose(h[0], expected_h, rtol=1e-12, atol=1e-9)
        np.testing.assert_array_equal(c[0], expected_c)
        assert not h[1].any() and not c[1].any()  # the odd samples' copy is left zero
        # The sums in order: each code's entries added sample by sample, as a loop in Python adds them.
        in_order = np.zeros_like(expected_h)
        for b, t, v in zip(codes.tolist(), y.tolist(), w.tolist()):
            if n_classes is None:
                in_order[2 * b] += v
                in_order[2 * b + 1] += v * t
            else:
                in_order[b * K + t] += v
        np.testing.assert_array_equal(h[key_row], in_order)
        many = codes.size >= 2 * nb  # the path of many samples per code (even and odd apart)
        assert key_row == (2 if many else 0)
        checked += many
    assert checked >= 30


def _left_categories(rank, last, k):
    return frozenset(b for b in range(k) if rank[b] <= last)


@pytest.mark.parametrize("n_classes", [2, 4, None])
def test_the_ordered_scan_finds_the_best_prefix_of_breimans_order(n_classes):
    """The scan's best split scores as the best prefix of the reference's ordering (missing values on
    either side), and the subset it sends left, scored by the reference, is that good."""
    rng = np.random.default_rng(2)
    squared = n_classes is None
    n_split = 0
    for _ in range(N_NODES):
        codes, y, w, k = random_node(rng, n_classes)
        (proxy, last, _, missing_left), rank, _ = scan(codes, y, w, k, n_classes)
        stats, missing = node_statistics(np.where(codes == k, np.nan, codes), y, w, k, n_classes)
        best = ordered_split(stats, missing, squared=squared)
        if best[0] == -np.inf:
            assert proxy == -np.inf
            continue
        n_split += 1
        assert proxy == pytest.approx(best[0], rel=1e-9)
        sent = _left_categories(rank, last, k)
        left = stats[sorted(sent)].sum(0) + (missing if missing_left == 1 else 0)
        total = stats.sum(0) + missing
        assert _proxy(left, total - left, squared) == pytest.approx(best[0], rel=1e-9)
        assert all(rank[b] == k + 1 for b in range(k) if not np.any(codes == b))  # absent: no rank
    assert n_split >= N_NODES // 2


@pytest.mark.parametrize("n_classes", [2, None])
def test_a_stored_histogram_at_an_offset_scans_alike(n_classes):
    rng = np.random.default_rng(3)
    for _ in range(100):
        codes, y, w, k = random_node(rng, n_classes)
        own, stored = scan(codes, y, w, k, n_classes), scan(codes, y, w, k, n_classes, offset=5)
        assert own[0] == stored[0]
        np.testing.assert_array_equal(own[1], stored[1])


@pytest.mark.parametrize("n_classes", [2, None])
def test_rare_categories_are_pooled_into_one(n_classes):
    """With ``fewest``, the categories of fewer samples (at a node of at least POOL_MIN_CATEGORIES
    categories) share one rank, and the split is the best prefix of the reference's ordering of the
    categories with the rare ones merged into one."""
    rng = np.random.default_rng(4)
    squared = n_classes is None
    pooled = 0
    for _ in range(N_NODES):
        codes, y, w, k = random_node(rng, n_classes, n_categories=int(rng.integers(5, 12)))
        fewest = int(rng.integers(2, 6))
        (proxy, last, _, missing_left), rank, _ = scan(codes, y, w, k, n_classes, fewest=fewest)
        count = np.bincount(codes, minlength=k + 1)[:k]
        seen = np.flatnonzero(count)
        rare = [b for b in seen if count[b] < fewest] if seen.size >= POOL_MIN_CATEGORIES else []
        stats, missing = node_statistics(np.where(codes == k, np.nan, codes), y, w, k, n_classes)
        if rare:
            assert len({int(rank[b]) for b in rare}) == 1  # one rank for all of them
            kept = [b for b in range(k) if b not in rare]
            merged = np.vstack([stats[kept], stats[rare].sum(0)])
            pooled += len(rare) > 1
        else:
            merged = stats
        best = ordered_split(merged, missing, squared=squared)
        if best[0] == -np.inf:
            assert proxy == -np.inf
            continue
        assert proxy == pytest.approx(best[0], rel=1e-9)
        sent = _left_categories(rank, last, k)
        assert not rare or set(rare) <= sent or not (set(rare) & sent)
    assert pooled >= 50


def test_a_split_reads_the_ranks_and_gets_its_own_codes_back():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 6, (2, 50)).astype(np.uint8)
    codes[0, ::7] = 6  # the missing code
    original = codes.copy()
    rank = np.zeros((2, 8), dtype=np.int64)
    rank[0, :6] = rng.permutation(6)
    saved = np.empty(50, dtype=np.uint8)
    _to_ranks(codes, 0, rank, np.int64(6), 10, 40, saved)
    expected = original[0].copy()
    expected[10:40] = np.where(original[0, 10:40] == 6, 6, rank[0, original[0, 10:40]])
    np.testing.assert_array_equal(codes[0], expected)
    np.testing.assert_array_equal(codes[1], original[1])
    _own_codes(codes, 0, 10, 40, saved)
    np.testing.assert_array_equal(codes, original)


def test_histograms_are_kept_only_where_their_sums_are_exact():
    """Whole weights, and weights scaled by a power of two, sum exactly in any order; weights of many
    fraction bits do not (their sums depend on the order), nor do fractional targets' products."""
    from tnt.learn.tree_builder import _exact_histograms

    rng = np.random.default_rng(6)
    ones, y = np.ones(1000), rng.integers(0, 3, 1000).astype(np.int32)
    assert _exact_histograms(y, ones, None)
    assert _exact_histograms(y, np.ldexp(rng.integers(1, 9, 1000).astype(float), -3), None)
    assert not _exact_histograms(y, rng.random(1000) * 3, None)
    prices = rng.integers(0, 500_000, 1000).astype(float)
    assert _exact_histograms(prices, ones, True)
    assert not _exact_histograms(prices + rng.random(1000), ones, True)
    # the check is the one that matters: the order of the additions changes such a sum
    fractional = rng.random(1000) * 3
    assert sum(fractional.tolist()) != sum(sorted(fractional.tolist()))
