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

A classifier's walk need not reach a leaf: it asks only whether the graph classifies the sample
correctly from there. Every node of the working graph as the pass found it carries the classes of
the leaves below it as bits (:func:`classes_below`), and where the samples are walked one after the
other (:func:`one_by_one`) a walk stops at the first node below which the sample's class is at no
leaf (wrong) or at every leaf (right). The label such a walk records is the sample's class or
``WRONG``, which compares with the class as the leaf's label would. A regression, which reads the
labels reached, walks to the leaves (its samples' bits are 0), and so do the interleaved walks on a
large matrix, which wait for the longest walk of their group anyway.

The walks read the training samples' feature codes (:class:`tnt.learn.binning.BinnedData`), not
their values: one-byte codes are a quarter of the bytes of float32 values, so more of them stay in
the caches (:func:`code_thresholds`).
"""

from __future__ import annotations

import numpy as np

from tnt.learn.compiled import kernel
from tnt.learn.walks import or_below

NO_MEMO = -1  # no child known (a pass starts with none): both children are walked
UNKNOWN = -2  # the first phase-start node below the known child is found when the sample moves on
WRONG = -1  # the label a walk records when it stops where no leaf below has the sample's class
# Classes from this one on share its bit: a sample of such a class is walked to its leaf.
SHARED_BIT = 62


def class_bits(classes: np.ndarray) -> np.ndarray:
    """One bit per class (int64): ``1 << c``, classes from :data:`SHARED_BIT` on sharing its bit, and
    0 for a negative class (none: a regression's samples).

    Examples
    --------
    >>> class_bits(np.array([0, 3, -1, 70])).tolist() == [1, 8, 0, 1 << 62]
    True
    """
    classes = np.asarray(classes, dtype=np.int64)
    return np.where(classes >= 0, np.left_shift(1, np.clip(classes, 0, SHARED_BIT)), 0).astype(np.int64)


def classes_below(left: np.ndarray, right: np.ndarray, label: np.ndarray, size: int) -> np.ndarray:
    """Per slot of a working graph (the first ``size``), the bits (:func:`class_bits`) of the labels
    of the leaves below it."""
    left, right = left[:size], right[:size]
    return or_below(left, right, class_bits(np.where(left < 0, label[:size], -1)))


@kernel
def code_thresholds(feature, threshold, bin_min, bin_max, n_bins):
    """A graph's splits as thresholds on the codes of the training samples: per node, the last code
    its split sends left (float64; codes up to it go left, -1 when none does, 0 for a leaf), and
    whether routing on codes is routing on values at every node, which holds unless a bin holds
    values on both sides of a threshold. Splits fitted on these bins never cut one (their thresholds
    lie between two bins); a graph fitted on other data may. A feature's missing code, its largest
    (bounds NaN), is never counted: a missing value goes by the node's direction (:func:`missing_routing`),
    and a test of missingness (threshold ``+inf``) sends the last real code and those below it left.

    ``feature`` and ``threshold`` are the graph's (leaves: ``feature < 0``); ``bin_min``, ``bin_max``
    and ``n_bins`` those of :class:`tnt.learn.binning.BinnedData`.
    """
    on_codes = np.zeros(feature.shape[0])
    exact = True
    for v in range(feature.shape[0]):
        f = feature[v]
        if f < 0:
            continue
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
            exact = False
    return on_codes, exact


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


# Walks made together on a large matrix: their independent steps keep several memory loads in
# flight at once, which hides the latency of reading samples' feature values (as in routing.py).
LANES = 16
# Up to this size a matrix stays in a core's cache (2 MB of level 2 on the benchmark machine, with
# room for the graph), and its walks go one after the other, each stopping where its class decides:
# on pendigits (120 kB of codes) the sensitive samples are found in two thirds of the time the lanes
# take, and the samples moved in three quarters; on MNIST (47 MB) the lanes are the faster.
CACHED_BYTES = 1 << 20
# A row of at most this many bytes is read one after the other at any size: a walk's steps read at
# most two cache lines of it, and a wave's rows go in increasing order, which the hardware's
# prefetching follows. Whole fits, one thread, lanes against one by one (docs/speed_history.md):
# rows of 24 bytes (1.2 to 4.8 MB) 9 to 13 % faster one by one; of 64, 100 and 400 bytes even;
# MNIST's 784 bytes faster in lanes.
NARROW_ROW_BYTES = 32


def one_by_one(X: np.ndarray) -> bool:
    """Whether the walks read ``X`` one after the other (:func:`sensitive_samples`): a matrix of at
    most :data:`CACHED_BYTES`, or of rows of at most :data:`NARROW_ROW_BYTES`.

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
def _decided(node, bit, below):
    """Whether a classifier's walk can stop at ``node``: the sample's class (``bit``; 0: never) is at
    no leaf below it or at every one (``below``: :func:`classes_below` of the working graph as the
    pass found it, which is the graph below the nodes the pass has not visited yet)."""
    if bit == 0 or node >= below.shape[0]:
        return False
    return (below[node] & bit) == 0 or below[node] == bit


@kernel(inline="always")
def _step(X, r, node, graph, missing):
    """The child of internal ``node`` that sample ``r`` goes to."""
    left, right, feature, threshold = graph
    f = feature[node]
    x = np.float64(X[r, f])
    goes_left = np.int64(x <= threshold[node])
    if missing is not None:
        goes_left |= _missing_goes_left(x, f, node, missing)
    # Arithmetic, not a branch: which side a sample takes is as unpredictable as a coin.
    return right[node] + goes_left * (left[node] - right[node])


@kernel(inline="always")
def _walk_one(X, r, node, n_orig, graph, missing, bit, below, to_phase_start):
    """Walk sample ``r`` (a row of ``X``: values, or codes with :func:`code_thresholds`) from ``node``
    of ``graph = (left, right, feature, threshold)``, a missing value going where ``missing``
    (:func:`missing_routing`) says, to a leaf, or to where its class decides (:func:`_decided`: its
    ``bit``, 0 for none, and ``below``), or with ``to_phase_start`` to the first phase-start node (id
    below ``n_orig``) it passes. Returns where it ended (with ``to_phase_start``, that phase-start
    node, -1 when a leaf came first) and the first phase-start node it passed (-1: none)."""
    left = graph[0]
    first = -1
    while left[node] >= 0 and not (to_phase_start and first >= 0) and not _decided(node, bit, below):
        node = _step(X, r, node, graph, missing)
        if node < n_orig and first < 0:
            first = node
    return (first if to_phase_start else node), first


@kernel
def _walk_together(X, rows, at, first, n, n_orig, graph, to_phase_start, missing):
    """Walk samples ``rows[:n]`` from nodes ``at[:n]``, interleaved: ``at[j]`` ends at the leaf
    reached, or with ``to_phase_start`` at the first phase-start node (id below ``n_orig``) passed,
    -1 when a leaf comes first; ``first[j]`` is that first phase-start node in either case (-1: none).
    Arguments as :func:`_walk_one`'s; walks that end early wait for the group's longest, whose
    steps' memory loads they keep in flight."""
    left = graph[0]
    for j in range(n):
        first[j] = -1
    active = n
    while active > 0:
        active = 0
        for j in range(n):
            node = at[j]
            if node < 0 or left[node] < 0 or (to_phase_start and first[j] >= 0):
                continue
            node = _step(X, rows[j], node, graph, missing)
            at[j] = node
            if node < n_orig and first[j] < 0:
                first[j] = node
                if to_phase_start:
                    continue
            if left[node] >= 0:
                active += 1
    if to_phase_start:
        for j in range(n):
            at[j] = first[j]


@kernel
def sensitive_samples(
    X,
    y,
    wave,
    start_left,
    start_right,
    n_orig,
    graph,
    missing,
    label,
    memo,
    found,
    sensitive,
    target,
    verdict,
    one_by_one,
):
    """For the samples at the internal nodes of a wave: ``sensitive[k]``, whether the graph
    classifies sample ``order[k]`` correctly from exactly one of its node's phase-start children,
    and ``target[k]``, 1 when that is the right child.

    ``wave`` is ``(order, offsets, nodes)`` (:func:`bucket_rows`; a node's positions are
    ``offsets[i]:offsets[i + 1]``, which may be clipped to route a part), ``graph`` the working graph's
    ``(left, right, feature, threshold)``, ``missing`` where missing values go (:func:`missing_routing`)
    and ``memo`` ``(memo_child, memo_label)`` by sample.
    ``found = (below, reached)`` receives, per position and child (0: left, 1: right), the first
    phase-start node the sample passes below that child (``UNKNOWN`` for the child known from the
    memo, or when the walk stopped before passing one) and the label it reaches from it (``WRONG``
    or the class when it stopped early), for :func:`move_samples`.

    With ``one_by_one`` (:func:`one_by_one`) the walks go one after the other, each stopping where
    its sample's class decides (``verdict = (below, bits)``: :func:`classes_below` of the working
    graph at the pass's start and :func:`class_bits` of the samples' classes). Else :data:`LANES`
    go at once, interleaved, each to its leaf.
    """
    order, offsets, nodes = wave
    memo_child, memo_label = memo
    below, reached = found
    classes, bits = verdict
    # Pending walks of the lanes (position, side; sample, node).
    pk = np.empty(2 * LANES, dtype=np.int64)
    ps = np.empty(2 * LANES, dtype=np.int64)
    pr = np.empty(2 * LANES, dtype=np.int64)
    at = np.empty(2 * LANES, dtype=np.int64)
    fp = np.empty(2 * LANES, dtype=np.int64)
    for i in range(nodes.shape[0]):
        v = nodes[i]
        if start_left[v] < 0:
            continue
        n = 0
        for k in range(offsets[i], offsets[i + 1]):
            r = order[k]
            for side in range(2):
                c = start_left[v] if side == 0 else start_right[v]
                if c == memo_child[r]:
                    reached[k, side] = memo_label[r]
                    below[k, side] = UNKNOWN
                elif one_by_one:
                    node, first = _walk_one(X, r, c, n_orig, graph, missing, bits[r], classes, False)
                    if graph[0][node] < 0:
                        reached[k, side] = label[node]
                        below[k, side] = first
                    else:  # stopped early, perhaps before passing a phase-start node
                        reached[k, side] = y[r] if classes[node] == bits[r] else WRONG
                        below[k, side] = first if first >= 0 else UNKNOWN
                else:
                    pk[n], ps[n], pr[n], at[n] = k, side, r, c
                    n += 1
            if n >= LANES or (n > 0 and k == offsets[i + 1] - 1):
                _walk_together(X, pr, at, fp, n, n_orig, graph, False, missing)
                for j in range(n):
                    reached[pk[j], ps[j]] = label[at[j]]
                    below[pk[j], ps[j]] = fp[j]
                n = 0
        for k in range(offsets[i], offsets[i + 1]):
            left_ok = reached[k, 0] == y[order[k]]
            right_ok = reached[k, 1] == y[order[k]]
            sensitive[k] = left_ok != right_ok
            target[k] = right_ok


@kernel
def move_samples(X, wave, start_left, n_orig, graph, missing, found, pos, memo, one_by_one):
    """Send the samples at the internal nodes of a wave through their new
    micro trees to their phase-start children (``pos``), each with its memo for that child, made
    from what :func:`sensitive_samples` ``found``. Arguments as there.

    Below the child a sample goes to, the first phase-start node is known unless the walk from
    that child was not made (the memo's child) or stopped before passing one: it is found here."""
    below, reached = found
    order, offsets, nodes = wave
    no_verdict = np.zeros(0, dtype=np.int64)  # a class bit of 0 never stops a walk
    pr = np.empty(LANES, dtype=np.int64)
    at = np.empty(LANES, dtype=np.int64)
    fp = np.empty(LANES, dtype=np.int64)
    child = np.empty(LANES, dtype=np.int64)
    for i in range(nodes.shape[0]):
        v = nodes[i]
        if start_left[v] < 0:
            continue
        if one_by_one:
            for k in range(offsets[i], offsets[i + 1]):
                r = order[k]
                to, _ = _walk_one(X, r, v, n_orig, graph, missing, 0, no_verdict, True)
                side = 0 if to == start_left[v] else 1
                b = below[k, side]
                if b == UNKNOWN:
                    b, _ = _walk_one(X, r, to, n_orig, graph, missing, 0, no_verdict, True)
                pos[r] = to
                memo[0][r] = b
                memo[1][r] = reached[k, side]
            continue
        for k0 in range(offsets[i], offsets[i + 1], LANES):
            n = min(LANES, offsets[i + 1] - k0)
            for j in range(n):
                pr[j] = order[k0 + j]
                at[j] = v
            _walk_together(X, pr, at, fp, n, n_orig, graph, True, missing)
            for j in range(n):
                child[j] = at[j]
                side = 0 if at[j] == start_left[v] else 1
                if below[k0 + j, side] != UNKNOWN:
                    at[j] = -1  # nothing to walk
            _walk_together(X, pr, at, fp, n, n_orig, graph, True, missing)
            for j in range(n):
                k = k0 + j
                side = 0 if child[j] == start_left[v] else 1
                b = below[k, side]
                if b == UNKNOWN:
                    b = at[j]
                pos[pr[j]] = child[j]
                memo[0][pr[j]] = b
                memo[1][pr[j]] = reached[k, side]
