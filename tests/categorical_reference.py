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
    if present.size < 2:
        return present
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
            component = vectors[:, -1]
            # the sign the learner gives it: its largest entry (the first of equal ones) positive
            component = component if component[np.argmax(np.abs(component))] >= 0 else -component
            key = centred @ component
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


def _node_proxy(left, total, squared: bool):
    """The learner's proxy of a split whose left side has the statistics ``left`` (class weights,
    or weight and weighted target sum) in a node of statistics ``total``: the same sums in the same
    order, so that equal splits tie exactly as they do in the learner. -inf for an empty side."""
    w_left = left[0] if squared else float(np.sum(left))
    w_node = total[0] if squared else float(np.sum(total))
    if w_left <= 0 or w_node - w_left <= 0:
        return -np.inf
    if squared:
        sq_left, sq_right = left[1] * left[1], (total[1] - left[1]) ** 2
    else:
        sq_left = sq_right = 0.0
        for k in range(total.shape[0]):
            sq_left += left[k] * left[k]
            sq_right += (total[k] - left[k]) * (total[k] - left[k])
    return sq_left / w_left + sq_right / (w_node - w_left)


def _best_split(X, y, w, categorical, n_categories, n_classes, feature_order, search):
    """The best split of one node's samples: (proxy, feature, threshold, categories left, missing
    left or None when the node has no missing value of the feature); None when no split is valid.
    Features are tried in ``feature_order``, the first strictly best wins; a numeric feature's
    thresholds lie halfway between consecutive values present; missing values go right first, then
    left only when strictly better (scikit-learn's two passes)."""
    squared = n_classes is None
    best = None
    for f in feature_order:
        column = X[:, f].astype(np.float64)
        missing = np.isnan(column)
        width = 2 if squared else n_classes

        def stats_of(mask):
            if squared:
                return np.array([np.sum(w[mask]), np.sum(w[mask] * y[mask])])
            return np.bincount(y[mask], w[mask], minlength=n_classes).astype(np.float64)

        total = stats_of(np.ones(len(y), dtype=bool))
        has_missing = bool(missing.any())
        candidates = []  # (goes left among the present values, description)
        if categorical[f]:
            stats, miss = node_statistics(column, y, w, n_categories[f], n_classes)
            if search == "exhaustive":
                present = np.flatnonzero(stats[:, 0] if squared else stats.sum(1))
                subsets = [
                    frozenset(present[np.array(m, dtype=bool)].tolist()) for m in product([0, 1], repeat=present.size)
                ]
            else:
                order = ordering(stats, squared)
                subsets = [frozenset(order[: i + 1].tolist()) for i in range(order.size)]
            for subset in subsets:
                goes = np.isin(column, list(subset)) & ~missing
                candidates.append((goes, (np.nan, subset)))
        else:
            values = np.unique(column[~missing])
            for a, b in zip(values[:-1], values[1:]):
                threshold = float(a) / 2 + float(b) / 2
                if threshold == b:
                    threshold = float(a)
                candidates.append((column <= a, (threshold, None)))
            if has_missing and values.size:
                candidates.append((~missing, (np.inf, None)))  # all present values left, missing right
        del width
        found = None
        for missing_left in (False, True) if has_missing else (False,):
            for goes, (threshold, subset) in candidates:
                if missing_left and threshold == np.inf:
                    continue
                sent = goes | (missing & missing_left)
                proxy = _node_proxy(stats_of(sent), total, squared)
                if proxy > -np.inf and (found is None or proxy > found[0]):
                    found = (proxy, f, threshold, subset, missing_left if has_missing else None)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return best


def _impurity(y, w, n_classes):
    if n_classes is None:
        mean = np.sum(w * y) / np.sum(w)
        return np.sum(w * (y - mean) ** 2) / np.sum(w)
    shares = np.bincount(y, w, minlength=n_classes) / np.sum(w)
    return 1.0 - np.sum(shares**2)


def exact_cart(X, y, w, categorical, n_categories, n_classes, alpha=0.0, feature_order=None, search="exhaustive"):
    """A pure-Python CART with subset splits of categorical features, as a list of nodes (dicts):
    grown depth-first until pure or of one sample, then pruned by minimal cost-complexity pruning at
    ``alpha`` (a split stays when its subtree's ``R(T) + alpha * |leaves|`` is strictly below its
    node's as a leaf; ``R`` the weighted impurity as a share of the total weight).

    ``X`` holds category codes (NaN missing) in the columns ``categorical`` marks, ``n_categories``
    their number; ``n_classes`` None grows a regression tree (squared error). ``search`` is
    ``"exhaustive"`` (every subset of the categories present) or ``"ordered"`` (the prefixes of
    :func:`ordering`, what the learner scans). A categorical split sends its subset left, the other
    categories present and those absent from the node right; missing values go where the split
    chose, or, when the node had none, to the child with more samples (the right one on a tie).
    A node is ``{"leaf": value}`` or ``{"feature", "threshold", "subset", "missing_left", "left",
    "right"}``, with the children's indices."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    w = np.asarray(w, dtype=np.float64)
    order = np.arange(X.shape[1]) if feature_order is None else np.asarray(feature_order)
    total_w = float(np.sum(w))
    nodes: list = []

    def value_of(rows):
        if n_classes is None:
            return float(np.sum(w[rows] * y[rows]) / np.sum(w[rows]))
        return int(np.argmax(np.bincount(y[rows], w[rows], minlength=n_classes)))

    def grow(rows):
        index = len(nodes)
        nodes.append({"leaf": value_of(rows), "rows": rows})
        impurity = _impurity(y[rows], w[rows], n_classes)
        if rows.size < 2 or impurity <= np.finfo(np.float64).eps:
            return index
        split = _best_split(X[rows], y[rows], w[rows], categorical, n_categories, n_classes, order, search)
        if split is None:
            return index
        _, f, threshold, subset, missing_left = split
        column = X[rows, f]
        missing = np.isnan(column)
        goes = np.isin(column, list(subset)) if subset is not None else column <= threshold
        goes &= ~missing
        if missing_left is None:
            missing_left = int(np.count_nonzero(goes)) > rows.size - int(np.count_nonzero(goes))
        goes |= missing & missing_left
        nodes[index].update(feature=int(f), threshold=threshold, subset=subset, missing_left=bool(missing_left))
        nodes[index]["left"] = grow(rows[goes])
        nodes[index]["right"] = grow(rows[~goes])
        return index

    grow(np.arange(X.shape[0]))

    def cost(i):
        """(the pruned subtree's R(T) + alpha |leaves|) and prune below ``i`` in place."""
        node = nodes[i]
        rows = node["rows"]
        as_leaf = float(np.sum(w[rows])) * _impurity(y[rows], w[rows], n_classes) / total_w + alpha
        if "left" not in node:
            return as_leaf
        branch = cost(node["left"]) + cost(node["right"])
        if alpha == 0.0 or branch < as_leaf:
            return branch
        for key in ("feature", "threshold", "subset", "missing_left", "left", "right"):
            node.pop(key)
        return as_leaf

    cost(0)
    # The pruned tree's nodes, numbered again depth-first, left child first.
    kept: list = []

    def renumber(i):
        index, node = len(kept), dict(nodes[i])
        kept.append(node)
        if "left" in node:
            node["left"] = renumber(node["left"])
            node["right"] = renumber(node["right"])
        return index

    renumber(0)
    return kept


def cart_predict(nodes, X, n_categories):
    """The value of each row's leaf in a tree of :func:`exact_cart` (:func:`cart_leaves`)."""
    return np.array([nodes[i]["leaf"] for i in cart_leaves(nodes, X, n_categories)])


def cart_leaves(nodes, X, n_categories):
    """The leaf of each row in a tree of :func:`exact_cart`, walked one sample at a time; a
    missing value, or a code outside ``0..n_categories[f]-1`` (a category never seen in training),
    goes where the split sends missing values."""
    out = []
    for row in np.asarray(X, dtype=np.float64):
        i = 0
        while "left" in nodes[i]:
            node = nodes[i]
            v = row[node["feature"]]
            if node["subset"] is not None and not (0 <= v < n_categories[node["feature"]]):
                left = node["missing_left"]  # NaN too
            elif np.isnan(v):
                left = node["missing_left"]
            elif node["subset"] is not None:
                left = v in node["subset"]
            else:
                left = v <= node["threshold"]
            i = node["left"] if left else node["right"]
        out.append(i)
    return np.array(out, dtype=np.int64)
