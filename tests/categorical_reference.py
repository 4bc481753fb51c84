"""The best split of one node on a categorical feature, in plain numpy: by exhaustive search over
every subset of its categories, and by Breiman's ordering (categories sorted by a statistic of the
node's samples, then scanned as an ordered feature). The reference the learner's categorical split
search is tested against, and the measurement of the ordering chosen for more than two classes.

A split's score is scikit-learn's proxy of the criterion's improvement, ``sum_k L_k^2 / W_L +
sum_k R_k^2 / W_R`` (Gini: class weights on either side; squared error: the weighted target sum),
the larger the better. Missing values go wholly to one side, as in the learner.
"""

from __future__ import annotations

from itertools import product

import numpy as np


def node_statistics(codes, y, w, n_categories: int, n_classes: int | None):
    """Per category and for the missing values (NaN or -1 codes): class weights (``n_classes``), or
    for a regression (``n_classes`` None) the weight and the weighted target sum."""
    codes = np.asarray(codes, dtype=np.float64)
    missing = np.isnan(codes) | (codes < 0)
    index = np.where(missing, n_categories, codes).astype(np.int64)
    if n_classes is None:
        stats = np.zeros((n_categories + 1, 2))
        np.add.at(stats[:, 0], index, w)
        np.add.at(stats[:, 1], index, w * y)
    else:
        stats = np.zeros((n_categories + 1, n_classes))
        np.add.at(stats, (index, np.asarray(y, dtype=np.int64)), w)
    return stats[:n_categories], stats[n_categories]


def _proxy(left, right, squared: bool):
    """The proxy of each candidate, rows of ``left`` and ``right`` statistics; -inf for an empty side."""
    if squared:
        wl, wr = left[..., 0], right[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = left[..., 1] ** 2 / wl + right[..., 1] ** 2 / wr
    else:
        wl, wr = left.sum(-1), right.sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (left**2).sum(-1) / wl + (right**2).sum(-1) / wr
    return np.where((wl > 0) & (wr > 0), score, -np.inf)


def exhaustive_split(stats, missing, squared: bool = False):
    """The best (score, categories sent left as a frozenset of codes, missing values left) over
    every subset of the categories present and both sides for the missing values."""
    present = np.flatnonzero((stats[:, 0] if squared else stats.sum(1)) > 0)
    best = (-np.inf, frozenset(), False)
    if present.size == 0:
        return best
    masks = np.array(list(product([0, 1], repeat=present.size)), dtype=np.float64)  # (2^k, k)
    left = masks @ stats[present]
    total = stats[present].sum(0)
    for missing_left in (False, True):
        sent, kept = (left + missing, total - left) if missing_left else (left, total - left + missing)
        score = _proxy(sent, kept, squared)
        i = int(np.argmax(score))
        if score[i] > best[0]:
            best = (float(score[i]), frozenset(present[masks[i] == 1].tolist()), missing_left)
    return best


def ordering(stats, squared: bool, rule: str = "pca"):
    """The categories present, in the order their prefixes are scanned: by the share of the second
    class (two classes), the mean target (squared error), and for more classes by ``rule``:
    ``"pca"`` the first principal component of the categories' class shares (weighted by their
    weights; Coppersmith, Hong and Hosking, 1999), ``"majority"`` the share of the node's most
    frequent class."""
    weight = stats[:, 0] if squared else stats.sum(1)
    present = np.flatnonzero(weight > 0)
    if squared:
        key = stats[present, 1] / weight[present]
    else:
        shares = stats[present] / weight[present, None]
        if stats.shape[1] == 2:
            key = shares[:, 1]
        elif rule == "majority":
            key = shares[:, int(np.argmax(stats.sum(0)))]
        else:
            mean = (weight[present, None] * shares).sum(0) / weight[present].sum()
            centred = shares - mean
            cov = (weight[present, None, None] * centred[:, :, None] * centred[:, None, :]).sum(0)
            _, vectors = np.linalg.eigh(cov)
            key = centred @ vectors[:, -1]
    return present[np.argsort(key, kind="stable")]


def ordered_split(stats, missing, squared: bool = False, rule: str = "pca"):
    """The best (score, categories left, missing left) among the prefixes of :func:`ordering`, with
    the missing values on either side: what the learner's scan finds."""
    order = ordering(stats, squared, rule)
    best = (-np.inf, frozenset(), False)
    if order.size == 0:
        return best
    left = np.cumsum(stats[order], axis=0)  # prefix j holds order[: j + 1]
    total = left[-1]
    for missing_left in (False, True):
        sent, kept = (left + missing, total - left) if missing_left else (left, total - left + missing)
        score = _proxy(sent, kept, squared)
        i = int(np.argmax(score))
        if score[i] > best[0]:
            best = (float(score[i]), frozenset(order[: i + 1].tolist()), missing_left)
    return best
