"""Best-split search of the micro-tree learner (:mod:`tnt.learn.tree_builder`), for both criteria.

For each candidate feature of a node, the node's codes are visited in increasing order, every
boundary between two codes present being a candidate split scored with scikit-learn's proxy of the
criterion's improvement, ``sum_k L_k^2 / W_L + sum_k R_k^2 / W_R``: for the Gini impurity ``L_k``
and ``R_k`` are the class weights on either side, for the squared error the single weighted target
sum (the criterion travels in :class:`Data`; the Gini copy of each kernel compiles without the
squared error's branches). A histogram holds, per code, one weight per class (Gini) or the weight
and the weighted target sum (squared error).
A feature with few codes (at most ``HISTOGRAM_MAX_BINS``: pixels, counts, most tabular columns) is
scanned through the histogram of the node's codes: built from the node's samples (two
interleaved copies for many samples per code, a bitmap of the codes present for few), or kept for
a large node and reused, less the smaller child's samples, by its larger child. The codes present
are visited in order from bit masks of 64 codes (:func:`_present`), not by a branch per code. A
feature with more codes (continuous columns) would have large, mostly empty histograms: its samples
are kept sorted by code instead (:class:`SortedRuns`, sorted once per fit, partitioned stably at
every split), and a node scans its run of them in order, as scikit-learn's CART scans sorted values.

A missing value (NaN) has its feature's largest code (:attr:`tnt.learn.binning.BinnedData.missing_code`),
so the scan over codes in increasing order is scikit-learn's first pass (missing values on the
right), its last boundary, from the last real code to the missing code, the split "all real values
left, missing right" (threshold ``+inf``). A node with missing values of a feature also scores
scikit-learn's second pass, missing values on the left, at the boundaries between real codes only:
a histogram's codes are visited a second time (:func:`_second_pass`), a sorted run's boundaries
score both passes in one sweep over its samples (:func:`_scan_both_passes`; for two classes a
chunk of boundaries at a time, :func:`_scan_two_classes`). The second pass's
best replaces the first's only when strictly better, as in scikit-learn's ``_splitter.pyx``. A
feature without NaN pays one comparison per scan for this.

The loops index arrays with unsigned integers (``np.uint64``): numba wraps a negative signed index
around, which adds a test and an add to every access and keeps registers busy (the scans ran 15%
slower on MNIST, the same trees).

The kernels exchange named tuples: :class:`Data` (the fit's samples), :class:`NodeRange` (the node
being split), :class:`Results` (the best split per candidate feature), :class:`Buffers` (per-thread
scratch memory) and :class:`Stored` (a node's stored histograms).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from tnt.learn.compiled import fetch_add, kernel

Data = namedtuple("Data", ["codes", "ys", "ws", "n_bins", "bin_min", "bin_max", "missing_code", "runs", "squared"])
Data.__doc__ = """A fit's samples: feature-major ``codes`` (one row per feature, a node's samples one
contiguous run of positions), targets ``ys`` and weights ``ws`` by position, the bins
(``n_bins``, ``bin_min``, ``bin_max``, ``missing_code`` of :class:`tnt.learn.binning.BinnedData`), the
:class:`SortedRuns` of the features scanned in value order and the criterion: ``squared`` is None
for the Gini impurity (``ys`` class indices) and True for the squared error (``ys`` targets)."""

SortedRuns = namedtuple("SortedRuns", ["row", "sid", "code", "y", "w"])
SortedRuns.__doc__ = """Features scanned in value order: ``row[f]`` is feature ``f``'s row in the other
arrays (-1 for a feature scanned through histograms). Within a node's positions ``start:end``, row
``j`` holds the node's samples sorted by code (ties in sample order): their sample ids (positions
at the start of the fit) ``sid``, codes ``code``, targets ``y`` and weights ``w``."""

NodeRange = namedtuple("NodeRange", ["start", "end", "total", "w_node"])
NodeRange.__doc__ = """A node: positions ``start:end``, its statistics ``total`` (class weights for the
Gini impurity; weight, weighted target sum and weighted sum of squares for the squared error) and
its weight ``w_node``."""

Results = namedtuple("Results", ["proxies", "codes", "next_codes", "missing_left"])
Results.__doc__ = """Best split per candidate feature: the criterion's proxy (``-inf`` for a feature
constant in the node), last real code going left, first code going right (the missing code: all
real values left, missing right) and where the node's missing values of the feature go: 1 left, 0
right, ``NO_MISSING`` when the node has none (the builder then sends them to the larger child). The
threshold is looked up for the best feature only (:func:`split_threshold`): reading the bin tables
for every feature scanned would miss the caches once per feature and node."""

# Results.missing_left of a feature without missing values in the node.
NO_MISSING = -1

Buffers = namedtuple("Buffers", ["hist", "counts", "bits", "left"])
Buffers.__doc__ = """Per-thread scratch memory (first axis: thread): two histograms of ``n_bins * K``
entries, two code counts, a code bitmap and two sets of ``K`` sums of the left side of a split (the
second for the second pass of a sorted run, :func:`_scan_sorted`; each padded to whole cache lines: the scans take ``K`` from the node (:func:`_entries`), not from these shapes),
followed by the ``CHUNK_ROWS * RUN_CHUNK`` prefix sums of :func:`_scan_two_classes`.
The histograms, counts and bitmap are all zeros, and every scan leaves them so."""

Stored = namedtuple("Stored", ["hist", "counts", "bounds", "slot", "offsets"])
Stored.__doc__ = """Stored histograms: ``hist[slot]`` and ``counts[slot]`` hold a node's histogram
entries and counts per code, features side by side from ``offsets[f]``; ``bounds[slot, f]`` the range of
codes present. ``slot`` is -1 when the node has none."""

# de Bruijn sequence and table: index of the lowest set bit of a 64-bit word.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TABLE[(((1 << _i) * 0x03F79D71B4CB0A89) & (2**64 - 1)) >> 58] = _i


@kernel(inline="always")
def _lowest_bit(x):
    """Index of the lowest set bit of the nonzero uint64 ``x``."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_TABLE[(low * _DEBRUIJN) >> np.uint64(58)]


@kernel(inline="always")
def _pop_code(x, word):
    """(the lowest code of the bits ``x`` of 64-code word ``word``, ``x`` without it); ``x != 0``."""
    return word * 64 + _lowest_bit(x), x & (x - np.uint64(1))


@kernel(inline="always")
def _present(counts, off, lo, hi, word):
    """The codes ``b`` of the 64-code word ``word`` with ``lo <= b <= hi`` and ``counts[off + b] != 0``,
    as bits. Scans visit the codes present word by word from these bits: a test and branch per code
    of the range, present or not, was mispredicted at every other code in the sparse ranges of nodes
    with few samples per code."""
    uoff = np.uint64(off)
    first = max(np.uint64(lo), np.uint64(word) * np.uint64(64))
    last = min(np.uint64(hi), np.uint64(word) * np.uint64(64) + np.uint64(63))
    x = np.uint64(0)
    for b in range(first, last + np.uint64(1)):
        x |= np.uint64(counts[uoff + b] != 0) << (b & np.uint64(63))
    return x


@kernel(inline="always")
def _threshold(low_value, high_value):
    # scikit-learn's rule: the midpoint in float64, unless rounding makes it equal the upper value.
    t = np.float64(low_value) / 2.0 + np.float64(high_value) / 2.0
    if t == np.float64(high_value) or np.isinf(t):
        t = np.float64(low_value)
    return t


@kernel(inline="always")
def _entries(total, squared):
    """A histogram's entries per code for a node of statistics ``total``: one weight per class
    (Gini), or the weight and the weighted target sum (squared error)."""
    if squared is not None:
        return 2
    return total.shape[0]


@kernel(inline="always")
def _add_sample(h, b, K, y, w, squared):
    """Add a sample of code ``b`` (target ``y``, weight ``w``) to the histogram ``h`` of ``K`` entries
    per code: its weight to its class (Gini), or its weight and weighted target (squared error)."""
    if squared is not None:
        at = b * np.uint64(2)
        h[at] += w
        h[at + np.uint64(1)] += w * y
    else:
        h[b * K + np.uint64(y)] += w


@kernel(inline="always")
def _square_sums_of_two(l0, l1, total):
    """:func:`_square_sums` of two classes whose sums on the left are ``l0`` and ``l1``."""
    r0 = total[0] - l0
    r1 = total[1] - l1
    return l0 * l0 + l1 * l1, r0 * r0 + r1 * r1


@kernel(inline="always")
def _square_sums(left_counts, total, n_classes, squared):
    """The two squared sums of scikit-learn's proxy of a split's improvement, left and right: of the
    class weights (Gini), or of the weighted target (squared error), each to be divided by its
    side's weight."""
    if squared is not None:
        s_left = left_counts[1]
        s_right = total[1] - s_left
        return s_left * s_left, s_right * s_right
    if n_classes == 2:  # most micro trees (an internal node's); the loop's sums, in the same order
        return _square_sums_of_two(left_counts[0], left_counts[1], total)
    sq_left = 0.0
    sq_right = 0.0
    for k in range(np.uint64(n_classes)):
        sq_left += left_counts[k] * left_counts[k]
        r = total[k] - left_counts[k]
        sq_right += r * r
    return sq_left, sq_right


# The division-free test of _candidate rejects a split only when it falls short by this share: its
# rounding errors are a few units in the last place (1e-15), so it never rejects a split that the
# exact proxy would take.
MARGIN = 1e-12
# Below this bound the test's products could lose precision (underflow): the exact proxy decides.
SMALLEST_BOUND = 1e-200


@kernel(counts_references=False)
def _accumulate(codes, f, ys, ws, start, end, K, h0, h1, c0, c1, squared):
    """Add positions start:end to the histograms and counts of feature ``f``, even and odd
    samples apart so that consecutive samples with the same code (pixels are mostly 0) do not wait
    on each other's stores. Returns the smallest and largest code seen."""
    uk = np.uint64(K)
    uf = np.uint64(f)
    lo = np.uint64(codes[uf, start])
    hi = lo
    i = np.uint64(start)
    stop = np.uint64(end)
    one = np.uint64(1)
    while i + one < stop:
        j = i + one
        b0 = np.uint64(codes[uf, i])
        b1 = np.uint64(codes[uf, j])
        _add_sample(h0, b0, uk, ys[i], ws[i], squared)
        c0[b0] += 1
        _add_sample(h1, b1, uk, ys[j], ws[j], squared)
        c1[b1] += 1
        lo = min(lo, min(b0, b1))
        hi = max(hi, max(b0, b1))
        i += np.uint64(2)
    if i < stop:
        b0 = np.uint64(codes[uf, i])
        _add_sample(h0, b0, uk, ys[i], ws[i], squared)
        c0[b0] += 1
        lo = min(lo, b0)
        hi = max(hi, b0)
    return np.int64(lo), np.int64(hi)


@kernel(inline="always")
def _candidate(best, prev, b, left, total, K, w_left, w_node, squared):
    """``best`` (scikit-learn's proxy of the criterion's improvement, larger is better; last code going
    left; first code going right) updated with the split between the codes present ``prev`` (the
    last going left; -1 before the first code) and ``b``.
    The threshold is found once the node's best feature is known (:func:`split_threshold`): it
    reads the bin tables, which a continuous feature's many improving candidates would otherwise
    read at every step."""
    if prev < 0:
        return best
    if w_left <= 0.0 or w_node - w_left <= 0.0:
        # A side weighs nothing, up to rounding: tiny weights (boosting's) next to large ones, added
        # or subtracted (a child's histogram is its parent's minus its sibling's).
        return best
    sq_left, sq_right = _square_sums(left, total, K, squared)
    return _scored(best, prev, b, sq_left, sq_right, w_left, w_node)


@kernel(inline="always")
def _falls_short(best_proxy, sq_left, sq_right, w_left, w_right):
    """Whether a split of these squared sums and side weights is sure not to beat ``best_proxy``.

    scikit-learn's proxy, sq_left / w_left + sq_right / w_right, beats it only if
    sq_left * w_right + sq_right * w_left > best_proxy * w_left * w_right. Most splits fail this
    test, and the two divisions, the scans' slowest step, are made only for those that pass it.
    The test holds for a larger ``best_proxy`` whenever it holds for this one."""
    bound = best_proxy * (w_left * w_right)
    return (bound > SMALLEST_BOUND) & (sq_left * w_right + sq_right * w_left < bound * (1.0 - MARGIN))


@kernel(inline="always")
def _scored(best, prev, b, sq_left, sq_right, w_left, w_node):
    """The rest of :func:`_candidate`, from the split's squared sums (both sides weigh something)."""
    w_right = w_node - w_left
    if _falls_short(best[0], sq_left, sq_right, w_left, w_right):
        return best
    proxy = sq_left / w_left + sq_right / w_right
    if proxy > best[0]:
        return proxy, prev, b
    return best


@kernel(inline="always")
def split_threshold(f, prev, b, bin_min, bin_max, mc):
    """The threshold of the split of feature ``f`` (missing code ``mc``) between its codes ``prev``,
    the last going left, and ``b``, the first going right; ``+inf`` for the split "real values left,
    missing right" (``b == mc``), 0.0 for no split (``prev < 0``)."""
    if prev < 0:
        return 0.0
    if b == mc:
        return np.inf
    return _threshold(bin_max[f, prev], bin_min[f, b])


@kernel(inline="always")
def _result(first, second, has_missing):
    """A feature's :class:`Results` entry (proxy, last real code going left, first code going right,
    where missing values go) from the bests of :func:`_candidate` of the first pass and, when the
    node ``has_missing`` values of it, the second: the second wins only when strictly better
    (scikit-learn's order of the two passes). The proxy is ``-inf`` when there was no candidate."""
    direction = np.int64(NO_MISSING)
    if has_missing:
        direction = np.int64(0)
        if second[0] > first[0]:
            first = second
            direction = np.int64(1)
    return first[0], first[1], first[2], direction


@kernel(inline="always")
def _add_code(hist, at, K, left, w_left, squared):
    """Add the ``K`` histogram entries ``hist[at:at + K]`` of a code to the left side of a split;
    returns the new weight on the left (for the squared error, the first entry is the weight)."""
    for k in range(np.uint64(K)):
        v = hist[at + k]
        left[k] += v
        if squared is None or k == 0:
            w_left += v
    return w_left


# The second passes are kernels of their own, not inlined: numba inlines a callee by running its
# front end again at every call site, and the four second passes inlined into the scans more than
# doubled the split search's compile time (docs/speed_history.md, 2026-11-28); a call per feature
# and node with missing values costs little next to the pass itself.
@kernel(counts_references=False)
def _second_pass(hist, counts, off, lo, mc, K, total, w_node, left, squared):
    """scikit-learn's second pass: the best split with the missing values (code ``mc``, present)
    on the left, at the boundaries between the real codes present ``lo .. mc - 1`` (a histogram
    whose code ``b`` has entries ``hist[(off + b) * K:]`` and count ``counts[off + b]``). Returns
    the best as :func:`_candidate` does; ``left`` is overwritten."""
    uk = np.uint64(K)
    uoff = np.uint64(off)
    for k in range(uk):
        left[k] = 0.0
    w_left = _add_code(hist, (uoff + np.uint64(mc)) * uk, K, left, 0.0, squared)
    best = (-np.inf, -1, -1)
    prev = -1
    hi = mc - 1
    for word in range(lo >> 6, (hi >> 6) + 1):
        x = _present(counts, off, lo, hi, word)
        while x != 0:
            b, x = _pop_code(x, word)
            # No candidate before the first real code: missing values alone on the left would be
            # the split "missing right" again.
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            w_left = _add_code(hist, (uoff + np.uint64(b)) * uk, K, left, w_left, squared)
            prev = b
    return best


@kernel(counts_references=False)
def _second_pass_of_bits(h0, bits, lo_word, mc, K, total, w_node, left, squared):
    """:func:`_second_pass` of codes marked in the bitmap ``bits`` (words ``lo_word ..``, left
    unchanged), histogram ``h0``."""
    uk = np.uint64(K)
    for k in range(uk):
        left[k] = 0.0
    w_left = _add_code(h0, np.uint64(mc) * uk, K, left, 0.0, squared)
    best = (-np.inf, -1, -1)
    prev = -1
    umc = np.uint64(mc)
    for word in range(lo_word, (mc >> 6) + 1):
        x = bits[word]
        if np.uint64(word) == umc >> np.uint64(6):
            x &= (np.uint64(1) << (umc & np.uint64(63))) - np.uint64(1)  # the real codes only
        while x != 0:
            b, x = _pop_code(x, word)
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            w_left = _add_code(h0, np.uint64(b) * uk, K, left, w_left, squared)
            prev = b
    return best


@kernel(inline="always")
def _move_code(b, K, h0, h1, left, w_left, hist, base, squared):
    """Move code ``b``'s entries from the scratch histograms (cleared) to the left side of a split,
    storing them at ``hist[base:base + K]`` too when ``base >= 0``. Returns the new weight on the
    left (for the squared error, the first entry is the weight)."""
    at = np.uint64(b) * np.uint64(K)
    for k in range(np.uint64(K)):
        v = h0[at + k] + h1[at + k]
        if base >= 0:
            hist[np.uint64(base) + k] = v
        left[k] += v
        if squared is None or k == 0:
            w_left += v
        h0[at + k] = 0.0
        h1[at + k] = 0.0
    return w_left


@kernel(inline="always")
def _scan_feature(codes, nb, f, mc, ys, ws, start, end, K, total, w_node, h0, h1, c0, c1, bits, left, squared):
    """Best split of positions start:end on feature ``f`` (row ``f`` of ``codes``, missing code
    ``mc``) of at most ``64 * bits.shape[0]`` codes: a :class:`Results` entry.

    The histograms ``h0``/``h1`` (bins * K), counts ``c0``/``c1`` and ``bits`` are zero on entry
    and are left that way. The proxy is ``-inf`` when the feature is constant in the node.
    """
    n = end - start
    best = (-np.inf, -1, -1)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    if n >= 2 * nb:
        # Many samples per code: histograms over the whole range of codes.
        lo, hi = _accumulate(codes, f, ys, ws, start, end, K, h0, h1, c0, c1, squared)
        for b in range(np.uint64(lo), np.uint64(hi + 1)):
            c0[b] += c1[b]
            c1[b] = 0
        has_missing = hi == mc
        second = (-np.inf, -1, -1)
        if has_missing:  # the second pass first: the first consumes the histograms
            for e in range(np.uint64(lo) * np.uint64(K), np.uint64(hi + 1) * np.uint64(K)):
                h0[e] += h1[e]
                h1[e] = 0.0
            second = _second_pass(h0, c0, np.int64(0), lo, mc, K, total, w_node, left, squared)
            for k in range(K):
                left[k] = 0.0
        for word in range(lo >> 6, (hi >> 6) + 1):
            x = _present(c0, 0, lo, hi, word)
            while x != 0:
                b, x = _pop_code(x, word)
                best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
                w_left = _move_code(b, K, h0, h1, left, w_left, h0, -1, squared)
                c0[np.uint64(b)] = 0
                prev = b
        return _result(best, second, has_missing)
    # Few samples: mark the codes present in a bitmap and visit them in order.
    lo_word = nb
    hi_word = 0
    uk = np.uint64(K)
    uf = np.uint64(f)
    for i in range(np.uint64(start), np.uint64(end)):
        b = np.uint64(codes[uf, i])
        _add_sample(h0, b, uk, ys[i], ws[i], squared)
        word = np.int64(b >> np.uint64(6))
        bits[word] |= np.uint64(1) << (b & np.uint64(63))
        lo_word = min(lo_word, word)
        hi_word = max(hi_word, word)
    has_missing = mc >= 0 and (bits[mc >> 6] >> np.uint64(mc & 63)) & np.uint64(1) != 0
    second = (-np.inf, -1, -1)
    if has_missing:
        second = _second_pass_of_bits(h0, bits, lo_word, mc, K, total, w_node, left, squared)
        for k in range(K):
            left[k] = 0.0
    for word in range(lo_word, hi_word + 1):
        x = bits[word]
        bits[word] = 0
        while x != 0:
            b, x = _pop_code(x, word)
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            w_left = _move_code(b, K, h0, h1, left, w_left, h0, -1, squared)
            prev = b
    return _result(best, second, has_missing)


@kernel(inline="always")
def _scan_positions(code, y, w, uj, start, end, K, total, w_node, left, w_left, squared):
    """The best of :func:`_candidate` over the boundaries between the codes of positions start:end
    of row ``uj`` of sorted runs, the left side starting as ``left`` (weight ``w_left``)."""
    best = (-np.inf, -1, -1)
    prev = np.int64(code[uj, start])
    for i in range(np.uint64(start), np.uint64(end)):
        b = np.int64(code[uj, i])
        if b != prev:
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            prev = b
        _add_sample(left, np.uint64(0), np.uint64(K), y[uj, i], w[uj, i], squared)
        w_left += w[uj, i]
    return best


@kernel(inline="always")
def _scan_both_passes(code, y, w, uj, start, real_end, K, total, w_node, left, second_left, w_second, squared):
    """Both passes of scikit-learn over the real codes of positions start:real_end of row ``uj``
    of sorted runs, in one sweep: at every boundary the first pass's candidate (the left side
    ``left``, from zero) and the second's (``second_left`` of weight ``w_second``: the missing
    values, then the same samples). Each side's sums are added in the order of a pass of its own,
    so the results are those of two passes bit for bit. Returns (best of the first pass, best of
    the second, last real code, weight of the real values) and leaves ``left`` the real values' sums."""
    first = (-np.inf, -1, -1)
    second = first
    w_left = 0.0
    uk = np.uint64(K)
    prev = np.int64(code[uj, start])
    for i in range(np.uint64(start), np.uint64(real_end)):
        b = np.int64(code[uj, i])
        if b != prev:
            first = _candidate(first, prev, b, left, total, K, w_left, w_node, squared)
            second = _candidate(second, prev, b, second_left, total, K, w_second, w_node, squared)
            prev = b
        t = y[uj, i]
        v = w[uj, i]
        _add_sample(left, np.uint64(0), uk, t, v, squared)
        _add_sample(second_left, np.uint64(0), uk, t, v, squared)
        w_left += v
        w_second += v
    return first, second, prev, w_left


# Boundaries of a two-class sorted run whose candidates are tested at a time (:func:`_scan_two_classes`),
# and the rows of prefix sums and marks that a chunk keeps at the end of each row of Buffers.left.
RUN_CHUNK = 32
CHUNK_ROWS = 8


@kernel(inline="always")
def _chunk_sums(code, y, w, uj, s, n, prev, sums, second, chunk):
    """Go over positions s:s + n of row ``uj`` of sorted runs of two classes, adding each sample to
    the left sides ``sums`` (class sums and weight of the first pass, then of the second) in its
    pass's order; before each, ``chunk`` records the sums and (row 6) whether a boundary precedes it.
    ``second``: whether the second pass is scored. Returns the last code and the new sums."""
    l0, l1, wl, m0, m1, wm = sums
    for k in range(n):
        i = s + k
        b = np.int64(code[uj, i])
        chunk[6, k] = np.float64(b != prev)
        prev = b
        chunk[0, k] = l0
        chunk[1, k] = l1
        chunk[2, k] = wl
        v = w[uj, i]
        one = y[uj, i] != 0
        # A select, not a store through the class index: the sums stay in registers. Adding 0.0
        # leaves a sum's bits as they are (no sum is -0.0: the weights are not negative).
        a0 = 0.0 if one else v
        a1 = v if one else 0.0
        l0 += a0
        l1 += a1
        wl += v
        if second:
            chunk[3, k] = m0
            chunk[4, k] = m1
            chunk[5, k] = wm
            m0 += a0
            m1 += a1
            wm += v
    return prev, (l0, l1, wl, m0, m1, wm)


@kernel(inline="always")
def _mark_hopeful(chunk, row, n, total, w_node, best_proxy):
    """Mark in ``chunk[7]`` the candidates of a chunk (left sides in rows ``row .. row + 2``) that
    :func:`_candidate` would not reject against ``best_proxy`` outright; returns whether there is
    one. No branch: the loop runs on vector registers."""
    hopeful = 0
    for k in range(n):
        l0 = chunk[row, k]
        l1 = chunk[row + 1, k]
        w_left = chunk[row + 2, k]
        w_right = w_node - w_left
        sq_left, sq_right = _square_sums_of_two(l0, l1, total)
        short = _falls_short(best_proxy, sq_left, sq_right, w_left, w_right)
        keep = (chunk[6, k] != 0.0) & (w_left > 0.0) & (w_right > 0.0) & ~short
        chunk[7, k] = np.float64(keep)
        hopeful |= np.int64(keep)
    return hopeful != 0


@kernel(inline="always")
def _chunk_candidates(best, code, uj, s, n, chunk, row, total, w_node):
    """``best`` after :func:`_candidate` of the chunk's marked boundaries, in order."""
    if _mark_hopeful(chunk, row, n, total, w_node, best[0]):
        for k in range(n):
            if chunk[7, k] != 0.0:
                i = s + k
                prev = np.int64(code[uj, i - np.uint64(1)])
                b = np.int64(code[uj, i])
                l0 = chunk[row, k]
                l1 = chunk[row + 1, k]
                sq_left, sq_right = _square_sums_of_two(l0, l1, total)
                best = _scored(best, prev, b, sq_left, sq_right, chunk[row + 2, k], w_node)
    return best


@kernel(inline="always")
def _scan_two_classes(code, y, w, uj, start, end, mc, has_missing, total, w_node, left):
    """:func:`_scan_sorted`'s bests of the first and second pass for two classes (Gini) over a
    run that is not constant: the same candidates, sums and results bit for bit.

    The sums are added sample by sample in registers, RUN_CHUNK positions at a time, and recorded;
    the chunk's candidates are then tested against the best so far all at once, branch free
    (:func:`_mark_hopeful`): most fall short of it, and only those that may not are scored in
    order as :func:`_candidate` scores them. The best only grows, so a candidate that falls short
    of the chunk's first best falls short of the one it would have met."""
    chunk = left[left.shape[0] - CHUNK_ROWS * RUN_CHUNK :].reshape((CHUNK_ROWS, RUN_CHUNK))
    none = (-np.inf, -1, -1)
    real_end = end
    m0 = 0.0
    m1 = 0.0
    wm = 0.0
    if has_missing:
        # The missing values, last in the run, start the second pass's left side.
        while np.int64(code[uj, real_end - 1]) == mc:
            real_end -= 1
        for i in range(np.uint64(real_end), np.uint64(end)):
            v = w[uj, i]
            one = y[uj, i] != 0
            m0 += 0.0 if one else v
            m1 += v if one else 0.0
            wm += v
    sums = (0.0, 0.0, 0.0, m0, m1, wm)
    first = none
    second = none
    prev = np.int64(code[uj, start])
    s = np.uint64(start)
    stop = np.uint64(real_end)
    while s < stop:
        n = min(np.uint64(RUN_CHUNK), stop - s)
        if has_missing:
            prev, sums = _chunk_sums(code, y, w, uj, s, n, prev, sums, True, chunk)
            first = _chunk_candidates(first, code, uj, s, n, chunk, 0, total, w_node)
            second = _chunk_candidates(second, code, uj, s, n, chunk, 3, total, w_node)
        else:
            prev, sums = _chunk_sums(code, y, w, uj, s, n, prev, sums, False, chunk)
            first = _chunk_candidates(first, code, uj, s, n, chunk, 0, total, w_node)
        s += n
    if has_missing:
        # The first pass's last boundary: all real values left, missing right.
        l0, l1, wl = sums[0], sums[1], sums[2]
        if wl > 0.0 and w_node - wl > 0.0:
            sq_left, sq_right = _square_sums_of_two(l0, l1, total)
            first = _scored(first, prev, mc, sq_left, sq_right, wl, w_node)
    return first, second


@kernel
def _scan_sorted(code, y, w, j, start, end, mc, K, total, w_node, left, squared):
    """Best split of positions start:end of row ``j`` of sorted runs (codes ``code``, targets
    ``y``, weights ``w``, in increasing code order) of a feature of missing code ``mc``: a
    :class:`Results` entry, the proxy ``-inf`` for a feature constant in the node. ``left`` is a
    row of :attr:`Buffers.left`: ``2 * K`` sums (the second ``K`` for the second pass), and
    :func:`_scan_two_classes`'s chunk of prefix sums at its end."""
    uj = np.uint64(j)
    has_missing = np.int64(code[uj, end - 1]) == mc
    none = (-np.inf, -1, -1)
    if np.int64(code[uj, end - 1]) == np.int64(code[uj, start]):
        return _result(none, none, has_missing)
    if squared is None and K == 2:
        first, second = _scan_two_classes(code, y, w, uj, start, end, mc, has_missing, total, w_node, left)
        return _result(first, second, has_missing)
    for k in range(K):
        left[k] = 0.0
    if not has_missing:
        first = _scan_positions(code, y, w, uj, start, end, K, total, w_node, left, 0.0, squared)
        return _result(first, none, has_missing)
    # The missing values, last in the run, start the second pass's left side.
    second_left = left[K : 2 * K]
    for k in range(K):
        second_left[k] = 0.0
    w_second = 0.0
    real_end = end
    while np.int64(code[uj, real_end - 1]) == mc:
        real_end -= 1
    for i in range(np.uint64(real_end), np.uint64(end)):
        _add_sample(second_left, np.uint64(0), np.uint64(K), y[uj, i], w[uj, i], squared)
        w_second += w[uj, i]
    first, second, last, w_real = _scan_both_passes(
        code, y, w, uj, start, real_end, K, total, w_node, left, second_left, w_second, squared
    )
    # The first pass's last boundary: all real values left, missing right.
    first = _candidate(first, last, mc, left, total, K, w_real, w_node, squared)
    return _result(first, second, has_missing)


@kernel(counts_references=False)
def _fill_and_scan(
    codes, f, mc, ys, ws, start, end, K, total, w_node,
    h0, h1, c0, c1, left, hist, counts, off, bounds, squared,
):  # fmt: skip
    """:func:`_scan_feature` for a node that keeps its histograms: they are written to bins
    ``off + lo .. off + hi`` of the stored histogram, ``(lo, hi)`` (the range of codes present) to
    ``bounds[f]``. Leaves the scratch histograms zeroed."""
    best = (-np.inf, -1, -1)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    lo, hi = _accumulate(codes, f, ys, ws, start, end, K, h0, h1, c0, c1, squared)
    bounds[np.uint64(f), 0] = lo
    bounds[np.uint64(f), 1] = hi
    uoff = np.uint64(off)
    for b in range(np.uint64(lo), np.uint64(hi + 1)):
        counts[uoff + b] = c0[b] + c1[b]
        c0[b] = 0
        c1[b] = 0
    for word in range(lo >> 6, (hi >> 6) + 1):
        x = _present(counts, off, lo, hi, word)
        while x != 0:
            b, x = _pop_code(x, word)
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            at = np.int64((uoff + np.uint64(b)) * np.uint64(K))
            w_left = _move_code(b, K, h0, h1, left, w_left, hist, at, squared)
            prev = b
    has_missing = hi == mc
    second = (-np.inf, -1, -1)
    if has_missing:
        second = _second_pass(hist, counts, off, lo, mc, K, total, w_node, left, squared)
    return _result(best, second, has_missing)


@kernel(counts_references=False)
def _scan_stored(hist, counts, off, bounds, f, mc, K, total, w_node, left, squared):
    """Best split on feature ``f`` (missing code ``mc``) from its stored histogram, codes
    ``bounds[f, 0] .. bounds[f, 1]`` (a range holding every code present), which is left unchanged:
    a :class:`Results` entry, the proxy ``-inf`` for a constant feature."""
    best = (-np.inf, -1, -1)
    for k in range(K):
        left[k] = 0.0
    w_left = 0.0
    prev = -1
    uoff = np.uint64(off)
    uk = np.uint64(K)
    uf = np.uint64(f)
    lo, hi = bounds[uf, 0], bounds[uf, 1]
    for word in range(lo >> 6, (hi >> 6) + 1):
        x = _present(counts, off, lo, hi, word)
        while x != 0:
            b, x = _pop_code(x, word)
            best = _candidate(best, prev, b, left, total, K, w_left, w_node, squared)
            base = (uoff + np.uint64(b)) * uk
            if K == 2:
                v0 = hist[base]
                v1 = hist[base + np.uint64(1)]
                left[0] += v0
                left[1] += v1
                if squared is not None:  # the weight and the weighted target sum
                    w_left += v0
                else:
                    w_left = (w_left + v0) + v1
            else:
                for k in range(uk):
                    v = hist[base + k]
                    left[k] += v
                    w_left += v
            prev = b
    # Counts outside the node's range of codes are left from another node.
    has_missing = hi == mc and counts[uoff + np.uint64(mc)] != 0
    second = (-np.inf, -1, -1)
    if has_missing:
        second = _second_pass(hist, counts, off, lo, mc, K, total, w_node, left, squared)
    return _result(best, second, has_missing)


@kernel(inline="always")
def _subtract_samples(codes, f, ys, ws, start, end, K, hist, counts, off, squared):
    """Remove positions start:end from a stored histogram of feature ``f`` (adding ``-w`` subtracts
    ``w`` exactly)."""
    uoff = np.uint64(off)
    uk = np.uint64(K)
    uf = np.uint64(f)
    for i in range(np.uint64(start), np.uint64(end)):
        b = uoff + np.uint64(codes[uf, i])
        _add_sample(hist, b, uk, ys[i], -ws[i], squared)
        counts[b] -= 1


SCAN, FILL_AND_SCAN, SCAN_STORED, SUBTRACT = 0, 1, 2, 3


# Each step's loop over a lane's features is inlined into _feature_work. The scans of a node that
# keeps its histograms (_fill_and_scan, _scan_stored: large nodes) and the histogram fill of a
# node with many samples per code (_accumulate) are kernels of their own, called once per feature:
# numba inlines a callee by running its front end again and copying its IR at every call site, in a
# scope that grows with the caller, and these scans inlined into the steps were a large share of
# the split search's compile time (docs/speed_history.md, issue 35), while a call costs little next
# to their work. _scan_feature, which scans the many small nodes, stays inlined: there a call per
# feature made MNIST's fit a few percent slower. All are compiled without reference counting
# (``counts_references=False``): a call, or a view of a feature's row, would count references to
# every array it takes, four to six atomic operations per feature, a large part of a small node's scan.


@kernel(inline="always")
def sends_left(c, code, missing):
    """Whether a sample of code ``c`` goes left at a split sending the codes <= ``code`` left, and
    the code ``missing`` too (-1 when missing values go right or there are none)."""
    return (np.int64(c) <= code) | (np.int64(c) == missing)


@kernel(inline="always")
def _store_result(results, fi, result):
    """Write a feature's :class:`Results` entry (a scan's returned tuple) at index ``fi``."""
    results.proxies[fi], results.codes[fi], results.next_codes[fi], results.missing_left[fi] = result


@kernel(inline="always")
def _in_runs(with_runs, runs, f):
    """Whether feature ``f`` is in sorted runs (never in a fit compiled without them)."""
    return with_runs is not None and runs.row[f] >= 0


@kernel(inline="always")
def _scan_run(data, node, f, K, left):
    """:func:`_scan_sorted` of feature ``f``'s run over the node's positions."""
    runs = data.runs
    return _scan_sorted(
        runs.code,
        runs.y,
        runs.w,
        runs.row[f],
        node.start,
        node.end,
        data.missing_code[f],
        K,
        node.total,
        node.w_node,
        left,
        data.squared,
    )


@kernel(inline="always")
def _scan_features(lane, first, stop, with_runs, data, node, features, results, buffers):
    K = _entries(node.total, data.squared)
    h0, h1, c0, c1 = buffers.hist[lane, 0], buffers.hist[lane, 1], buffers.counts[lane, 0], buffers.counts[lane, 1]
    bits, left = buffers.bits[lane], buffers.left[lane]
    codes, ys, ws, n_bins, _, _, missing_code, runs, squared = data
    start, end, total, w_node = node
    for fi in range(first, stop):
        f = features[fi]
        if _in_runs(with_runs, runs, f):
            result = _scan_run(data, node, f, K, left)
        else:
            result = _scan_feature(
                codes, n_bins[f], f, missing_code[f], ys, ws, start, end, K,
                total, w_node, h0, h1, c0, c1, bits, left, squared,
            )  # fmt: skip
        _store_result(results, fi, result)


@kernel(inline="always")
def _fill_and_scan_features(lane, first, stop, with_runs, data, node, features, results, buffers, stored):
    K = _entries(node.total, data.squared)
    h0, h1, c0, c1 = buffers.hist[lane, 0], buffers.hist[lane, 1], buffers.counts[lane, 0], buffers.counts[lane, 1]
    left = buffers.left[lane]
    codes, ys, ws, _, _, _, missing_code, runs, squared = data
    start, end, total, w_node = node
    hist, counts, bounds = stored.hist[stored.slot], stored.counts[stored.slot], stored.bounds[stored.slot]
    for fi in range(first, stop):
        f = features[fi]
        if _in_runs(with_runs, runs, f):
            result = _scan_run(data, node, f, K, left)
        else:
            off = stored.offsets[f]
            result = _fill_and_scan(
                codes, f, missing_code[f], ys, ws, start, end, K, total, w_node,
                h0, h1, c0, c1, left, hist, counts, off, bounds, squared,
            )  # fmt: skip
        _store_result(results, fi, result)


@kernel(inline="always")
def _scan_stored_features(lane, first, stop, with_runs, data, node, features, results, buffers, stored):
    K = _entries(node.total, data.squared)
    left = buffers.left[lane]
    hist, counts, bounds = stored.hist[stored.slot], stored.counts[stored.slot], stored.bounds[stored.slot]
    for fi in range(first, stop):
        f = features[fi]
        if _in_runs(with_runs, data.runs, f):
            result = _scan_run(data, node, f, K, left)
        else:
            off = stored.offsets[f]
            result = _scan_stored(
                hist, counts, off, bounds, f, data.missing_code[f], K,
                node.total, node.w_node, left, data.squared,
            )  # fmt: skip
        _store_result(results, fi, result)


@kernel(inline="always")
def _subtract_features(lane, first, stop, with_runs, data, node, features, stored):
    K = _entries(node.total, data.squared)
    hist, counts = stored.hist[stored.slot], stored.counts[stored.slot]
    for fi in range(first, stop):
        f = features[fi]
        if not _in_runs(with_runs, data.runs, f):  # sorted runs have no histograms
            _subtract_samples(
                data.codes, f, data.ys, data.ws, node.start, node.end, K, hist, counts, stored.offsets[f], data.squared
            )


@kernel(counts_references=False)
def _feature_work(op, lane, first, stop, with_runs, data, node, features, results, buffers, stored):
    """One step on features ``features[first:stop]``, with the scratch buffers of thread ``lane``:

    * ``SCAN``: best split of the node, histograms built in the scratch ``buffers``;
    * ``FILL_AND_SCAN``: the same, keeping the histograms in the node's stored slot;
    * ``SCAN_STORED``: the same from the histograms already in the slot;
    * ``SUBTRACT``: remove the node's positions from the histograms in the slot.

    Features in sorted runs are scanned in order whatever ``op`` asks (they have no histograms);
    ``with_runs`` is None in a fit compiled without sorted runs (see
    :func:`tnt.learn.tree_builder.build_tree`).
    ``data`` is a :class:`Data`, ``node`` a :class:`NodeRange`, ``results`` :class:`Results`,
    ``buffers`` :class:`Buffers` and ``stored`` :class:`Stored` (unused by ``SCAN``).
    """
    if op == SCAN:
        _scan_features(lane, first, stop, with_runs, data, node, features, results, buffers)
    elif op == FILL_AND_SCAN:
        _fill_and_scan_features(lane, first, stop, with_runs, data, node, features, results, buffers, stored)
    elif op == SCAN_STORED:
        _scan_stored_features(lane, first, stop, with_runs, data, node, features, results, buffers, stored)
    else:
        _subtract_features(lane, first, stop, with_runs, data, node, features, stored)


@kernel(parallel=True)
def _feature_work_in_parallel(op, with_runs, data, node, features, n_features, results, buffers, stored):
    # A parallel loop takes arrays and scalars, not named tuples: they are taken apart here and
    # put back together in each lane.
    codes, ys, ws, n_bins, bin_min, bin_max = data.codes, data.ys, data.ws, data.n_bins, data.bin_min, data.bin_max
    missing_code, squared = data.missing_code, data.squared
    row, sid, run_code, run_y, run_w = data.runs.row, data.runs.sid, data.runs.code, data.runs.y, data.runs.w
    start, end, total, w_node = node.start, node.end, node.total, node.w_node
    proxies, codes_out, next_codes = results.proxies, results.codes, results.next_codes
    missing_left = results.missing_left
    hist, counts, bits, left = buffers.hist, buffers.counts, buffers.bits, buffers.left
    s_hist, s_counts, s_bounds, slot, offsets = stored.hist, stored.counts, stored.bounds, stored.slot, stored.offsets
    n_lanes = left.shape[0]
    # Blocks small enough that every thread gets some of a node's few features (8 columns of a
    # table would otherwise be one block, scanned by one thread while the others wait).
    block = max(1, min(FEATURE_BLOCK, n_features // (2 * n_lanes)))
    next_feature = np.zeros(1, dtype=np.int64)
    for lane in prange(n_lanes):
        # Each thread takes the next block of features until none is left: a thread that starts
        # late (waking up) or meets slower features takes fewer, and no thread waits long for another.
        while True:
            first = fetch_add(next_feature, block)
            if first >= n_features:
                break
            _feature_work(
                op,
                lane,
                first,
                min(first + block, n_features),
                with_runs,
                Data(
                    codes,
                    ys,
                    ws,
                    n_bins,
                    bin_min,
                    bin_max,
                    missing_code,
                    SortedRuns(row, sid, run_code, run_y, run_w),
                    squared,
                ),
                NodeRange(start, end, total, w_node),
                features,
                Results(proxies, codes_out, next_codes, missing_left),
                Buffers(hist, counts, bits, left),
                Stored(s_hist, s_counts, s_bounds, slot, offsets),
            )


@kernel
def _on_features(op, parallel, threaded, with_runs, data, node, features, n_features, results, buffers, stored):
    """:func:`_feature_work` on all lanes of ``buffers`` at once when ``parallel``, else on one.

    ``threaded`` is None in a fit that never scans a node on several threads: numba drops a branch
    on ``threaded is not None`` before typing it, so such a fit does not compile the parallel
    kernel at all (see :func:`tnt.learn.tree_builder.build_tree`).
    """
    if threaded is not None:
        if parallel and buffers.left.shape[0] > 1:
            _feature_work_in_parallel(op, with_runs, data, node, features, n_features, results, buffers, stored)
            return
    # int64, not literal, arguments: numba compiles a separate copy of a kernel for literal ones.
    _feature_work(op, np.int64(0), np.int64(0), n_features, with_runs, data, node, features, results, buffers, stored)


BITMAP_WORDS = 16
# Features with more codes than this are kept in sorted runs instead of histograms.
HISTOGRAM_MAX_BINS = 64 * BITMAP_WORDS


def histogram_features(n_bins) -> np.ndarray:
    """Mask of the features scanned through histograms (the others are kept in sorted runs)."""
    return np.asarray(n_bins) <= HISTOGRAM_MAX_BINS


def buffer_classes(buffers) -> int:
    """The number of classes the buffers made by :func:`make_buffers` can hold."""
    return buffers.hist.shape[2] // buffers.counts.shape[2]


CACHE_LINE = 64  # bytes


def _whole_lines(count: int, dtype) -> int:
    """``count`` rounded up to the number of values of ``dtype`` in whole cache lines."""
    per_line = CACHE_LINE // np.dtype(dtype).itemsize
    return -(-count // per_line) * per_line


def _lane_rows(shape, dtype) -> np.ndarray:
    """Zeros of ``shape`` (threads first), C-contiguous, with each thread's part starting on a cache
    line and a free line on either side of the whole: no two threads write to one cache line.

    A line written by two cores travels between them at every write. The class sums of the threads
    of one node shared a line, which made a node scanned on two threads up to a third slower,
    depending on where the array fell in memory."""
    itemsize = np.dtype(dtype).itemsize
    line = CACHE_LINE // itemsize
    size = int(np.prod(shape))
    raw = np.zeros(size + 3 * line, dtype=dtype)
    start = line + (-raw.ctypes.data % CACHE_LINE) // itemsize
    return raw[start : start + size].reshape(shape)


def make_buffers(n_bins, n_classes, n_lanes) -> Buffers:
    """Per-thread :class:`Buffers` for histograms of the features of ``n_bins`` codes each, every
    thread's part in cache lines of its own (:func:`_lane_rows`)."""
    n_bins = np.asarray(n_bins)
    narrow = n_bins[histogram_features(n_bins)]
    widest = max(int(np.max(narrow)), 1) if narrow.size else 1
    widest = _whole_lines(widest, np.int32)  # the counts' rows
    classes = _whole_lines(n_classes, np.float64)  # the class sums' rows
    return Buffers(
        hist=_lane_rows((n_lanes, 2, widest * n_classes), np.float64),
        counts=_lane_rows((n_lanes, 2, widest), np.int32),
        bits=_lane_rows((n_lanes, BITMAP_WORDS), np.uint64),
        left=_lane_rows((n_lanes, 2 * classes + CHUNK_ROWS * RUN_CHUNK), np.float64),
    )


# Most features a thread takes at a time when several scan a node.
FEATURE_BLOCK = 8

# A node is split with several threads when it has at least this many (sample, feature) pairs.
PARALLEL_WORK = 50_000


@kernel
def _best_of(features, n_features, results, kept, bin_min, bin_max, missing_code):
    """The best scanned split: (feature, last real code going left, threshold, where missing values
    go (:class:`Results`), number of non-constant features), the threshold from the bin tables
    ``bin_min``, ``bin_max`` and ``missing_code`` of :class:`tnt.learn.binning.BinnedData`
    (:func:`split_threshold`); the non-constant features are written,
    in order, to ``kept`` (a feature constant in
    a node stays constant in its descendants, which therefore never look at it again). Among
    equally good splits the first in the candidate order wins, however many threads scanned them.
    """
    proxies, codes_out = results.proxies, results.codes
    best_proxy = -np.inf
    best = -1
    n_kept = 0
    for fi in range(n_features):
        if proxies[fi] == -np.inf:
            continue
        kept[n_kept] = features[fi]
        n_kept += 1
        if proxies[fi] > best_proxy:
            best_proxy = proxies[fi]
            best = fi
    if best < 0:
        return -1, -1, 0.0, np.int64(NO_MISSING), n_kept
    f, code = features[best], codes_out[best]
    threshold = split_threshold(f, code, results.next_codes[best], bin_min, bin_max, missing_code[f])
    return f, code, threshold, results.missing_left[best], n_kept
