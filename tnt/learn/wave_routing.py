"""Compiled routing for a grow pass of Algorithm 2, a wave of nodes at a time.

A grow pass visits the nodes of the phase-start graph wave by wave (:func:`tnt.learn.growth._waves`).
Every training sample sits at one phase-start node at a time (``pos``); a node's samples are those
sitting at it, in increasing order, and the node sends each of them, through its new micro tree, to
one of its phase-start children. The kernels here do that bookkeeping for many nodes per call, and
find the sensitive samples of internal nodes (those that the graph classifies correctly from one
child and wrongly from the other).

Finding a sample's prediction from both children of a node means routing it down the graph twice.
Half of that is known already: when the sample's parent node was visited, the sample was routed
from this node through its (previous) micro tree to one of its phase-start children ``a`` and on to a
leaf, and nothing from ``a`` down has changed since (nodes below ``a`` are visited after ``a``'s
parent, in later waves). So each sample carries a *memo*: that child ``a`` and the label reached
from it. Only the route from the other child is walked.

The walks from the other child go to a leaf, :data:`LANES` at a time, each lane taking the next
walk as soon as its own ends (:func:`_walk_in_lanes`): a walk is a chain of loads that wait on
each other, and sixteen chains side by side keep the core busy. The moves through a node's new
micro tree to the next phase-start node are short walks; they go one after the other on a matrix
that stays in the caches or of narrow rows, else interleaved (:func:`one_by_one`).

The walks read the training samples' feature codes (:class:`tnt.learn.binning.BinnedData`), not
their values: one-byte codes are a quarter of the bytes of float32 values, so more of them stay in
the caches (:func:`code_thresholds`); a sample whose code is that of a quantile bin a node's
threshold cuts goes by its value there (:func:`cut_routing`).
"""

from __future__ import annotations

import numpy as np

from tnt.learn.compiled import kernel

NO_MEMO = -1  # no child known (a pass starts with none): both children are walked
UNKNOWN = -2  # the first phase-start node below the known child is found when the sample moves on


@kernel
def code_thresholds(feature, threshold, bin_min, bin_max, n_bins):
    """A graph's splits as thresholds on the codes of the training samples: per node, the last code
    its split sends left (float64; codes up to it go left, -1 when none does, 0 for a leaf), and the
    code of the bin whose values lie on both sides of its threshold (-1 where none does: a leaf, and
    every split of a graph grown on bins of one value each). Codes route as values do but in that
    bin, whose samples the walks compare by value (:func:`cut_routing`): where a node cuts bin ``c``,
    its threshold on codes is ``c - 0.5`` (codes below go left, and code ``c``, one half above the
    threshold, is told apart without another array to read). A quantile bin holds many
    values, and a micro tree's threshold lies between the last code it sends left and the next code
    its node's samples have, which may be a few bins up: the bins between may be cut. A feature's
    missing code, its largest (bounds NaN), is never counted: a missing value goes by the node's
    direction (:func:`missing_routing`), and a test of missingness (threshold ``+inf``) sends the last
    real code and those below it left.

    ``feature`` and ``threshold`` are the graph's (leaves: ``feature < 0``); ``bin_min``, ``bin_max``
    and ``n_bins`` those of :class:`tnt.learn.binning.BinnedData`.
    """
    on_codes = np.zeros(feature.shape[0])
    cut = np.full(feature.shape[0], -1, dtype=np.int64)
    update_code_thresholds(
        feature, threshold, bin_min, bin_max, n_bins, np.empty(0, dtype=np.int64), 0, feature.shape[0], on_codes, cut
    )
    return on_codes, cut


@kernel
def update_code_thresholds(feature, threshold, bin_min, bin_max, n_bins, nodes, first, stop, on_codes, cut):
    """:func:`code_thresholds` written into ``on_codes`` and ``cut`` for the slots ``nodes`` and
    ``first:stop`` only (those a grow pass's installs wrote), the others left as they are."""
    for i in range(nodes.shape[0]):
        _code_threshold(feature, threshold, bin_min, bin_max, n_bins, nodes[i], on_codes, cut)
    for v in range(first, stop):
        _code_threshold(feature, threshold, bin_min, bin_max, n_bins, v, on_codes, cut)


@kernel(inline="always")
def _code_threshold(feature, threshold, bin_min, bin_max, n_bins, v, on_codes, cut):
    f = feature[v]
    on_codes[v] = 0.0
    cut[v] = -1
    if f >= 0:
        t = threshold[v]
        # Bins are in increasing order: count those whose largest value goes left.
        lo, hi = 0, n_bins[f]
        while lo < hi:
            mid = (lo + hi) // 2
            if np.float64(bin_max[f, mid]) <= t:
                lo = mid + 1
            else:
                hi = mid
        on_codes[v] = lo - 1
        if lo < n_bins[f] and np.float64(bin_min[f, lo]) <= t:
            cut[v] = lo
            on_codes[v] = lo - 0.5  # code lo goes by value (_step): the threshold says so itself


def cut_routing(cut, X, threshold, always: bool = False):
    """The ``cut`` argument of the walks here: ``None`` when no split cuts a bin (``cut``, from
    :func:`code_thresholds`, all -1: the walks then never look) unless ``always``, else
    ``(X, threshold)``: a sample whose code at a node is the node's cut bin (its threshold on codes
    plus one half) goes by its value in ``X`` against the node's ``threshold``, as it would on values.

    Each kind of ``cut`` is a copy of every walk to compile. Two-byte codes take the tuple
    ``always`` (``growth``), so that one copy of the walks serves them, cut bins or none: the check
    is a comparison with the threshold a step has read anyway, about 4 % of a regression fit on
    California housing (no bin cut there; ``docs/speed_history.md``).

    Examples
    --------
    >>> cut_routing(np.array([-1, -1]), None, None) is None
    True
    >>> cut_routing(np.array([-1, -1]), "X", "t", always=True)
    ('X', 't')
    >>> cut_routing(np.array([-1, 3]), "X", "t")
    ('X', 't')
    """
    if not always and (cut.size == 0 or cut.max() < 0):
        return None
    return X, threshold


@kernel
def bucket_rows(pos, index_of, n_nodes):
    """The samples sitting at the nodes of a wave, grouped by node: ``order[offsets[i]:offsets[i + 1]]``
    are those at the wave's node ``i`` (``index_of[node] == i``, -1 for nodes outside the wave), in
    increasing order."""
    offsets = np.zeros(n_nodes + 1, dtype=np.int64)
    n = pos.shape[0]
    for r in range(n):
        i = index_of[pos[r]]
        if i >= 0:
            offsets[i + 1] += 1
    for i in range(n_nodes):
        offsets[i + 1] += offsets[i]
    order = np.empty(offsets[n_nodes], dtype=np.int64)
    fill = offsets[:n_nodes].copy()
    for r in range(n):
        i = index_of[pos[r]]
        if i >= 0:
            order[fill[i]] = r
            fill[i] += 1
    return order, offsets


# Walks in flight at once, interleaved: their steps keep several memory loads in flight, which
# hides the latency of reading samples' feature values (as in routing.py).
LANES = 16
# The moves to the next phase-start node go one after the other on a matrix up to this size, which
# stays in a core's cache (2 MB of level 2 on the benchmark machine, with room for the graph): on
# pendigits (120 kB of codes) in three quarters of the time the lanes take; on MNIST (47 MB) the
# lanes are the faster.
CACHED_BYTES = 1 << 20
# ... and on rows of at most this many bytes at any size: a walk's steps read at most two cache
# lines of the row, and a wave's rows go in increasing order, which the hardware's prefetching
# follows (whole fits, one thread, docs/speed_history.md: rows of 24 bytes 9 to 13 % faster one by
# one; 64, 100 and 400 bytes even; MNIST's 784 bytes faster in lanes).
NARROW_ROW_BYTES = 32


def one_by_one(X: np.ndarray) -> bool:
    """Whether the moves (:func:`move_samples`) read ``X`` one after the other: a matrix of at most
    :data:`CACHED_BYTES`, or of rows of at most :data:`NARROW_ROW_BYTES`.

    Examples
    --------
    >>> one_by_one(np.zeros((7494, 16), dtype=np.uint8)), one_by_one(np.zeros((60000, 784), dtype=np.uint8))
    (True, False)
    >>> one_by_one(np.zeros((1_000_000, 32), dtype=np.uint8)), one_by_one(np.zeros((250_000, 32), dtype=np.uint16))
    (True, False)
    """
    return X.nbytes <= CACHED_BYTES or X.shape[1] * X.itemsize <= NARROW_ROW_BYTES


@kernel(inline="always")
def _missing_goes_left(x, f, node, missing):
    """1 when the value or code ``x`` of feature ``f`` is missing and sent left by the node's
    direction, else 0 (``missing`` is :func:`missing_routing`'s); bitwise, without a branch."""
    missing_code, missing_left = missing
    return np.int64(missing_left[node] == 1) & (np.int64(x != x) | np.int64(x == missing_code[f]))


def missing_routing(missing_code, missing_left, on_codes: bool):
    """The ``missing`` argument of the walks here: ``None`` when no training sample has a missing
    value (the walks then never look for one), else ``(missing code of each feature as float64,
    missing_left)``. On values a missing value is NaN, which equals no code (the codes are then NaN);
    on codes it is the feature's missing code (:attr:`tnt.learn.binning.BinnedData.missing_code`).

    Examples
    --------
    >>> missing_routing(np.array([-1, -1]), np.zeros(3, dtype=np.int8), on_codes=True) is None
    True
    >>> missing_routing(np.array([-1, 4]), np.zeros(3, dtype=np.int8), on_codes=True)[0].tolist()
    [-1.0, 4.0]
    """
    missing_code = np.asarray(missing_code)
    if missing_left is None or not np.any(missing_code >= 0):
        return None
    codes = missing_code.astype(np.float64) if on_codes else np.full(missing_code.shape, np.nan)
    return codes, missing_left


@kernel(inline="always")
def _step(X, r, node, graph, missing, cut):
    """The child of internal ``node`` that sample ``r`` goes to."""
    left, right, feature, threshold = graph
    f = feature[node]
    x = np.float64(X[r, f])
    t = threshold[node]
    goes_left = np.int64(x <= t)
    if cut is not None and x == t + 0.5:  # the bin ``node`` cuts (code_thresholds): rare, predicted
        goes_left = np.int64(np.float64(cut[0][r, f]) <= cut[1][node])
    if missing is not None:
        goes_left |= _missing_goes_left(x, f, node, missing)
    # Arithmetic, not a branch: which side a sample takes is as unpredictable as a coin.
    return right[node] + goes_left * (left[node] - right[node])


@kernel(inline="always")
def _walk_one(X, r, node, n_orig, graph, missing, cut):
    """Walk sample ``r`` (a row of ``X``: values, or codes with :func:`code_thresholds`) from ``node``
    of ``graph = (left, right, feature, threshold)``, a missing value going where ``missing``
    (:func:`missing_routing`) says and a code of a cut bin by value (``cut``, :func:`cut_routing`),
    to the first phase-start node (id below ``n_orig``) it passes: that node, -1 when a leaf came first."""
    left = graph[0]
    first = -1
    while left[node] >= 0 and first < 0:
        node = _step(X, r, node, graph, missing, cut)
        if node < n_orig:
            first = node
    return first


@kernel(counts_references=False)
def _walk_together(X, rows, at, first, n, n_orig, graph, missing, cut):
    """Walk samples ``rows[:n]`` from nodes ``at[:n]``, interleaved, each to the first phase-start
    node (id below ``n_orig``) it passes, as :func:`_walk_one` walks one: ``at[j]`` ends there, -1
    when a leaf comes first (``first`` is the walks' scratch). Walks that end early wait for the
    group's longest, whose steps' memory loads they keep in flight."""
    left = graph[0]
    for j in range(n):
        first[j] = -1
    active = n
    while active > 0:
        active = 0
        for j in range(n):
            node = at[j]
            if node < 0 or left[node] < 0 or first[j] >= 0:
                continue
            node = _step(X, rows[j], node, graph, missing, cut)
            at[j] = node
            if node < n_orig:
                first[j] = node
            elif left[node] >= 0:
                active += 1
    for j in range(n):
        at[j] = first[j]


# The most walks handed to _walk_in_lanes at once: their lists stay in the caches.
WALKS = 4096


@kernel
def _self_loops(graph):
    """The walks' copy of ``graph = (left, right, feature, threshold)`` for :func:`_walk_in_lanes`:
    each leaf its own two children, testing feature 0 against ``+inf`` (so that a step from a leaf
    stays there, without a branch), and a flag per node, 1 at leaves."""
    left, right, feature, threshold = graph
    n = left.shape[0]
    loop_left = np.empty(n, dtype=np.int64)
    loop_right = np.empty(n, dtype=np.int64)
    loop_feature = np.empty(n, dtype=np.int64)
    loop_threshold = np.empty(n)
    leaf = np.empty(n, dtype=np.bool_)
    for v in range(n):
        leaf[v] = left[v] < 0
        loop_left[v] = v if leaf[v] else left[v]
        loop_right[v] = v if leaf[v] else right[v]
        loop_feature[v] = 0 if leaf[v] else feature[v]
        loop_threshold[v] = np.inf if leaf[v] else threshold[v]
    return (loop_left, loop_right, loop_feature, loop_threshold), leaf


@kernel
def _walk_in_lanes(X, rows, starts, n, n_orig, loops, leaf, missing, cut, end, first):
    """Walk samples ``rows[:n]`` (rows of ``X``: values, or codes with :func:`code_thresholds`) from
    nodes ``starts[:n]`` to their leaves, in a graph given by :func:`_self_loops` (``loops``,
    ``leaf``), a missing value going where ``missing`` (:func:`missing_routing`) says and a code of a
    cut bin by value (``cut``, :func:`cut_routing`; a leaf cuts none): ``end[i]`` is
    the leaf reached and ``first[i]`` the first phase-start node (id below ``n_orig``) passed on the
    way (-1: none; a walk from a leaf passes none).

    :data:`LANES` walks go at once, a step of each in turn, and a lane takes the next walk as soon
    as its own ends. A walk's steps wait on each other (node, then feature, value, next node);
    sixteen in flight keep the core busy meanwhile, on a matrix in the caches as on a far larger
    one. The lanes are fast for what they leave out (each measured, ``docs/speed_history.md``): no
    lane waits for another's walk to end, a turn tests one flag, a step from a leaf stays there
    instead of branching on it, and a lane's state is stored only when it changes; a loop of
    refills inside the loop over lanes, or a store of the first node passed at every turn, would
    make them slower than walks one after the other.
    """
    # The walks from leaves end at once; the others wait in line.
    waiting = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if leaf[starts[i]]:
            end[i] = starts[i]
            first[i] = -1
        else:
            waiting[m] = i
            m += 1
    # Per lane: its node (-1: none left), walk, row and first phase-start node passed.
    at = np.full(LANES, -1, dtype=np.int64)
    walk = np.empty(LANES, dtype=np.int64)
    row = np.empty(LANES, dtype=np.int64)
    passed = np.empty(LANES, dtype=np.int64)
    _lanes(X, rows, starts, waiting, m, n_orig, loops, leaf, missing, cut, end, first, at, walk, row, passed)


@kernel(counts_references=False)
def _lanes(X, rows, starts, waiting, m, n_orig, loops, leaf, missing, cut, end, first, at, walk, row, passed):
    """:func:`_walk_in_lanes`' lanes over the walks ``waiting[:m]``, none from a leaf, compiled without
    reference counting: numba counts a reference to each array an inlined step binds (the values of
    cut bins among them, :func:`cut_routing`), which made a walk several times as long."""
    live = min(LANES, m)
    for j in range(live):
        i = waiting[j]
        walk[j], row[j] = i, rows[i]
        at[j] = _step(X, rows[i], starts[i], loops, missing, cut)
        passed[j] = at[j] if at[j] < n_orig else -1
    taken = live
    while live > 0:
        for j in range(LANES):
            node = at[j]
            if node < 0:
                continue
            p = passed[j]
            if leaf[node]:
                w = walk[j]
                end[w] = node
                first[w] = p
                if taken == m:
                    at[j] = -1
                    live -= 1
                    continue
                i = waiting[taken]
                taken += 1
                node, p = starts[i], -1
                walk[j], row[j], passed[j] = i, rows[i], -1
            node = _step(X, row[j], node, loops, missing, cut)
            at[j] = node
            if p < 0 and node < n_orig:
                passed[j] = node


@kernel
def sensitive_samples(
    X, y, wave, start_left, start_right, n_orig, graph, missing, cut, label, memo, found, sensitive, target
):
    """For the samples at the internal nodes of a wave: ``sensitive[k]``, whether the graph
    classifies sample ``order[k]`` correctly from exactly one of its node's phase-start children,
    and ``target[k]``, 1 when that is the right child.

    ``wave`` is ``(order, offsets, nodes)`` (:func:`bucket_rows`; a node's positions are
    ``offsets[i]:offsets[i + 1]``, which may be clipped to route a part), ``graph`` the working graph's
    ``(left, right, feature, threshold)``, ``missing`` where missing values go (:func:`missing_routing`),
    ``cut`` which codes go by value (:func:`cut_routing`) and ``memo`` ``(memo_child, memo_label)`` by sample.
    ``found = (below, reached)`` receives, per position and child (0: left, 1: right), the first
    phase-start node the sample passes below that child (``UNKNOWN`` for the child known from the
    memo) and the label of the leaf it reaches from it, for :func:`move_samples`. The walks go in
    lanes (:func:`_walk_in_lanes`), :data:`WALKS` at a time.
    """
    order, offsets, nodes = wave
    memo_child, memo_label = memo
    below, reached = found
    loops, leaf = _self_loops(graph)
    # The walks to make: position and side; sample and start; leaf reached and first node passed.
    walks = np.empty((6, WALKS), dtype=np.int64)
    n = 0
    for i in range(nodes.shape[0]):
        v = nodes[i]
        if start_left[v] < 0:
            continue
        for k in range(offsets[i], offsets[i + 1]):
            r = order[k]
            for side in range(2):
                c = start_left[v] if side == 0 else start_right[v]
                if c == memo_child[r]:
                    reached[k, side] = memo_label[r]
                    below[k, side] = UNKNOWN
                    continue
                walks[0, n], walks[1, n], walks[2, n], walks[3, n] = k, side, r, c
                n += 1
                if n == WALKS:
                    _walks_to_leaves(X, walks, n, n_orig, loops, leaf, missing, cut, label, found)
                    n = 0
    _walks_to_leaves(X, walks, n, n_orig, loops, leaf, missing, cut, label, found)
    for i in range(nodes.shape[0]):
        if start_left[nodes[i]] < 0:
            continue
        for k in range(offsets[i], offsets[i + 1]):
            left_ok = reached[k, 0] == y[order[k]]
            right_ok = reached[k, 1] == y[order[k]]
            sensitive[k] = left_ok != right_ok
            target[k] = right_ok


@kernel
def _walks_to_leaves(X, walks, n, n_orig, loops, leaf, missing, cut, label, found):
    """:func:`sensitive_samples`' walks ``[:n]`` (``walks``' rows: position, side, sample, start)
    made in lanes to their leaves, and the labels reached and first phase-start nodes passed
    recorded."""
    below, reached = found
    _walk_in_lanes(X, walks[2], walks[3], n, n_orig, loops, leaf, missing, cut, walks[4], walks[5])
    for j in range(n):
        k, side = walks[0, j], walks[1, j]
        reached[k, side] = label[walks[4, j]]
        below[k, side] = walks[5, j]


@kernel
def move_samples(X, wave, start_left, n_orig, graph, missing, cut, found, pos, memo, one_by_one):
    """Send the samples at the internal nodes of a wave through their new
    micro trees to their phase-start children (``pos``), each with its memo for that child, made
    from what :func:`sensitive_samples` ``found``. Arguments as there.

    Below the child a sample goes to, the first phase-start node is known unless the walk from
    that child was not made (the memo's child): it is found here. With ``one_by_one``
    (:func:`one_by_one`) the walks go one after the other, else :data:`LANES` at once, interleaved."""
    _move(
        X,
        wave,
        start_left,
        n_orig,
        graph,
        missing,
        cut,
        found,
        pos,
        memo,
        one_by_one,
        np.empty((4, LANES), dtype=np.int64),
    )


@kernel(counts_references=False)
def _move(X, wave, start_left, n_orig, graph, missing, cut, found, pos, memo, one_by_one, lanes):
    """:func:`move_samples` with its lanes' scratch, compiled without reference counting (see :func:`_lanes`)."""
    below, reached = found
    order, offsets, nodes = wave
    pr, at, fp, child = lanes[0], lanes[1], lanes[2], lanes[3]
    for i in range(nodes.shape[0]):
        v = nodes[i]
        if start_left[v] < 0:
            continue
        if one_by_one:
            for k in range(offsets[i], offsets[i + 1]):
                r = order[k]
                to = _walk_one(X, r, v, n_orig, graph, missing, cut)
                side = 0 if to == start_left[v] else 1
                b = below[k, side]
                if b == UNKNOWN:
                    b = _walk_one(X, r, to, n_orig, graph, missing, cut)
                pos[r] = to
                memo[0][r] = b
                memo[1][r] = reached[k, side]
            continue
        for k0 in range(offsets[i], offsets[i + 1], LANES):
            n = min(LANES, offsets[i + 1] - k0)
            for j in range(n):
                pr[j] = order[k0 + j]
                at[j] = v
            _walk_together(X, pr, at, fp, n, n_orig, graph, missing, cut)
            for j in range(n):
                child[j] = at[j]
                side = 0 if at[j] == start_left[v] else 1
                if below[k0 + j, side] != UNKNOWN:
                    at[j] = -1  # nothing to walk
            _walk_together(X, pr, at, fp, n, n_orig, graph, missing, cut)
            for j in range(n):
                k = k0 + j
                side = 0 if child[j] == start_left[v] else 1
                b = below[k, side]
                if b == UNKNOWN:
                    b = at[j]
                pos[pr[j]] = child[j]
                memo[0][pr[j]] = b
                memo[1][pr[j]] = reached[k, side]
