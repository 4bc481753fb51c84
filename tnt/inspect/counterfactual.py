"""Counterfactuals on a decision graph: the smallest change to a sample that makes the graph predict
a wanted class (or a target within a range).

The cost of a change is lexicographic: first the number of features changed, then the total
distance, each feature's change divided by its training interquartile range (its range where that
is 0, and 1 where that is 0 too). A proposed value is a real one: the training value nearest to the
sample's beyond the thresholds the new path needs, so integers stay integers.

Contract
--------
Finding the minimum over every path of a DAG is hard in general (a graph can have millions of
paths), so the search is a best-first branch and bound over states ``(node, box)``, ``box`` holding
for each feature tested so far the interval the path allows. A state's cost is the cost of the
cheapest sample in its box; it never falls along a path, so it bounds every completion from below.
States that cannot reach a wanted leaf, whose box holds no training value for a feature the sample
must change, or that a state already expanded at the same node contains, are dropped. Training
samples the graph already sends to a wanted leaf give a first solution. The search returns the exact
minimum when it finishes within the time budget; otherwise the best change found with a certified
lower bound (the cheapest state left), and ``exact`` says which. No path is ever listed.

Missing values
--------------
A feature's value may also be *missing*: a box holds, for each feature, the interval of present
values the path allows and whether it allows a missing value (a split sends missing values one way;
a test of missingness, threshold ``+inf``, sends present values left and missing ones right). Changing
a value to missing, or a missing value to a present one, is a change like any other: one feature
changed, at a distance of one unit (:data:`MISSING_DISTANCE`); a missing value is filled with the
training value within the allowed interval nearest the feature's training median. A value is made
missing only in a graph that learned from missing values (``missing_in_training``). With
``allow_missing_changes=False`` the search keeps every value present or missing as it is and goes
around the paths that would need otherwise.

Categorical features
--------------------
At a feature the graph splits by subsets of its categories (:attr:`DecisionGraph.categories`), a box
holds the set of categories the path allows (a bitmask of their codes) instead of an interval. A
change of category is one feature changed at a distance of one unit (:data:`CATEGORY_DISTANCE`, as
a change to or from missing: categories have no order, so no category is nearer than another). The
new category is a real one, a category of the feature that training holds; among those the path
allows, the most common in training. A code the graph does not know (a category unseen in
training) is routed as missing, so the search treats it as a missing value.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from tnt.categorical import read_codes, subset_codes
from tnt.graph import DecisionGraph
from tnt.wording import format_number

__all__ = [
    "CATEGORY_DISTANCE",
    "MISSING_DISTANCE",
    "Change",
    "Counterfactual",
    "CounterfactualSpace",
    "counterfactual",
    "feature_scales",
]

#: Default time budget of a search, in seconds.
DEFAULT_BUDGET = 0.5
# Training samples of the wanted outcome whose paths seed the first solution.
_SEEDS = 16
# Expanded boxes kept per node for the containment test.
_KEPT_BOXES = 24
#: Scaled distance of changing a value to missing, or a missing value to a present one (one unit, as
#: moving a value by its feature's interquartile range).
MISSING_DISTANCE = 1.0
#: Scaled distance of changing a categorical feature's category to another (one unit, as a change to or
#: from missing: any other category is as far).
CATEGORY_DISTANCE = 1.0
# A box's entry for a feature no node of the path tests: any present value, or missing. At a categorical
# feature the first entry is the bitmask of the categories allowed, -1 (every bit set) for all of them.
_OPEN = (-1, -1, True, True, (None, 0.0))


def feature_scales(X) -> np.ndarray:
    """Each feature's unit of distance: its interquartile range, its range where that is 0, and 1
    where that is 0 too.

    Examples
    --------
    >>> feature_scales(np.array([[0.0, 5.0, 1.0], [1.0, 5.0, 1.0], [2.0, 5.0, 1.0], [3.0, 5.0, 9.0]])).tolist()
    [1.5, 1.0, 2.0]
    """
    return _scales_of_sorted(np.sort(np.asarray(X), axis=0))


def _scales_of_sorted(columns: np.ndarray) -> np.ndarray:
    """:func:`feature_scales` of columns already sorted (quartiles interpolated linearly, as numpy's
    default percentile)."""
    s, n = columns, columns.shape[0]

    def quantile(q):
        position = (n - 1) * q
        low = int(np.floor(position))
        high = min(low + 1, n - 1)
        a, b = s[low].astype(np.float64), s[high].astype(np.float64)
        return a + (b - a) * (position - low)

    scale = quantile(0.75) - quantile(0.25)
    spread = s[-1].astype(np.float64) - s[0].astype(np.float64)
    scale = np.where(scale > 0, scale, spread)
    return np.where(scale > 0, scale, 1.0)


class CounterfactualSpace:
    """What a search needs from a graph and its training data, computed once per model: the sorted
    training values of every feature the graph tests, their scales, and which leaves the training
    samples reach.

    Parameters
    ----------
    graph : DecisionGraph
    X_train : array-like of shape (n_samples, n_features)
    """

    def __init__(self, graph: DecisionGraph, X_train):
        X = np.asarray(X_train)
        if X.ndim != 2:
            raise ValueError(f"X_train must be 2-dimensional, got shape {X.shape}.")
        self.graph = graph
        self.n_features = X.shape[1]
        self.used = np.unique(graph.feature[~graph.is_leaf])
        # Only the tested features matter; they are kept in their own number type (pixels in bytes).
        self.X_used = X[:, self.used]
        self.values, self.scales = {}, np.ones(self.n_features)
        self.medians = np.zeros(self.n_features)
        if X.shape[0] and self.used.size and X.dtype.kind == "f" and np.isnan(self.X_used).any():
            # Missing training values are no value to move to, nor part of a feature's spread.
            for i, f in enumerate(self.used):
                present = np.sort(self.X_used[:, i][~np.isnan(self.X_used[:, i])])
                self.values[int(f)] = np.unique(present).astype(np.float64)
                if present.size:
                    self.scales[f] = _scales_of_sorted(present[:, None])[0]
        elif X.shape[0] and self.used.size:
            columns = np.sort(self.X_used, axis=0)  # one sort gives each feature's values and quartiles
            fresh = np.ones(columns.shape, dtype=bool)
            fresh[1:] = columns[1:] != columns[:-1]
            self.values = {int(f): columns[fresh[:, i], i].astype(np.float64) for i, f in enumerate(self.used)}
            self.scales[self.used] = _scales_of_sorted(columns)
        for f in self.used:  # what a missing value is filled with: the present value nearest the median
            present = self.values.get(int(f), np.zeros(0))
            column = self.X_used[:, np.searchsorted(self.used, f)].astype(np.float64)
            column = column[~np.isnan(column)]
            if present.size and column.size:
                self.medians[f] = float(np.median(column))
        self._categorical(graph)
        # Thresholds ``x <= t`` as the graph routes float64 input (the float32 cast applied).
        self.routing = graph._arrays()[3]
        self.missing_left = graph._arrays()[4].astype(bool)
        self.train_leaves = graph.apply(X) if X.shape[0] else np.empty(0, dtype=np.intp)

    def _categorical(self, graph: DecisionGraph) -> None:
        """Per categorical feature the graph tests: the bitmask of all its categories (``full``), its
        training categories most common first (``common``); per categorical split, the bitmask of the
        categories it sends left (``left_mask``)."""
        self.categories = {f: names for f, names in (graph.categories or {}).items() if f in set(self.used.tolist())}
        self.full, self.common, self.left_mask = {}, {}, {}
        for f, names in self.categories.items():
            codes = read_codes(self.X_used[:, np.searchsorted(self.used, f)], names.shape[0])
            counts = np.bincount(codes[codes >= 0], minlength=names.shape[0])
            self.full[f] = (1 << names.shape[0]) - 1
            self.common[f] = np.argsort(-counts, kind="stable")[: np.count_nonzero(counts)].tolist()
            self.values[f] = np.flatnonzero(counts).astype(np.float64)
            self.scales[f], self.medians[f] = 1.0, 0.0
        for node in np.flatnonzero(graph.is_categorical):
            self.left_mask[int(node)] = sum(1 << int(code) for code in subset_codes(graph.category_left[node]))

    def commonest(self, f: int, allowed: int) -> int | None:
        """The most common training category of the categorical feature ``f`` among the bitmask
        ``allowed``; None when training holds none of them."""
        return next((code for code in self.common[f] if allowed >> code & 1), None)


@dataclass(frozen=True)
class Change:
    """One feature's change: from ``old`` to ``new`` (NaN: missing); any present value in
    ``low < x <= high`` takes the same path (``low`` and ``high`` are the thresholds as the graph shows
    them; infinite when open). At a categorical feature ``old`` and ``new`` are category codes,
    ``categories`` the feature's categories by name and ``allowed`` the codes of those that take the
    same path (``low`` and ``high`` infinite)."""

    feature: int
    old: float
    new: float
    low: float
    high: float
    categories: tuple | None = None
    allowed: tuple | None = None

    def describe(self, feature_names=None, precision: int = 3) -> str:
        name = str(feature_names[self.feature]) if feature_names is not None else f"x[{self.feature}]"
        if self.categories is not None:
            return f"`{name}` from {self.category_name(self.old)} to {self.category_name(self.new)}"
        old, new = ("missing" if np.isnan(value) else format_number(value, precision) for value in (self.old, self.new))
        if np.isnan(self.new) or np.isnan(self.old):
            return f"`{name}` from {old} to {new}"
        if self.new < self.old and not np.isfinite(self.low):
            return f"`{name}` from {old} to {new} or less"
        if self.new > self.old and not np.isfinite(self.high):
            return f"`{name}` from {old} to {new} or more"
        return f"`{name}` from {old} to {new}"

    def category_name(self, code: float) -> str:
        """A categorical value by name: "missing" for NaN, "an unseen category" for a code the
        graph does not know (routed as missing)."""
        known = int(read_codes([code], len(self.categories))[0])
        if known >= 0:
            return str(self.categories[known])
        return "missing" if np.isnan(code) else "an unseen category"


@dataclass(frozen=True, eq=False)
class Counterfactual:
    """The result of :func:`counterfactual`.

    Attributes
    ----------
    found : bool
        Whether a change was found (False when no sample of real training values reaches a wanted
        leaf, which is then certain when ``exact``).
    exact : bool
        The search finished: ``changes`` is a minimum. Otherwise it is the best found within the
        budget, and ``lower_bound`` certifies how much cheaper a minimum could be at most.
    changes : list of Change
    n_changed : int
    distance : float
        The total scaled distance of ``changes``.
    lower_bound : tuple of (int, float)
        No change costs less than this ``(features changed, distance)``; equal to the cost found when
        ``exact``.
    sample : ndarray or None
        The changed sample.
    leaf : int or None
        The leaf it reaches.
    states : int
        States expanded.
    seconds : float
    """

    found: bool
    exact: bool
    changes: list = field(default_factory=list)
    n_changed: int = 0
    distance: float = 0.0
    lower_bound: tuple = (0, 0.0)
    sample: np.ndarray | None = None
    leaf: int | None = None
    states: int = 0
    seconds: float = 0.0

    def describe(self, feature_names=None) -> str:
        """The change in words: "change `age` from 52 to 37 or less and `hours` from 40 to 46"."""
        if not self.found:
            return "No change of the sample to real training values reaches the wanted prediction."
        if not self.changes:
            return "The sample already gets the wanted prediction."
        return "change " + " and ".join(c.describe(feature_names) for c in self.changes)


def _wanted_leaves(graph: DecisionGraph, wanted) -> np.ndarray:
    if graph.regression:
        try:
            low, high = (float(v) for v in wanted)
        except (TypeError, ValueError):
            raise ValueError("For a regression, give the wanted target as a range (low, high).") from None
        if low > high:
            raise ValueError(f"The wanted range starts at {low:g} above its end {high:g}; give (low, high).")
        return graph.is_leaf & (graph.value[:, 0] >= low) & (graph.value[:, 0] <= high)
    if isinstance(wanted, (tuple, list)) or not 0 <= int(wanted) < graph.n_classes:
        raise ValueError(f"The wanted class must be a class index from 0 to {graph.n_classes - 1}, got {wanted!r}.")
    return graph.is_leaf & (graph.predicted_class() == int(wanted))


class _Search:
    """One search: the sample, the space, and the cost of a feature within what a path allows."""

    def __init__(self, space: CounterfactualSpace, x: np.ndarray, allow_missing_changes: bool = True):
        self.space, self.x, self.allow_missing_changes = space, x, allow_missing_changes
        # A value is made missing only where the graph learned where missing values go: elsewhere its
        # directions are a default rule, not something the model knows about missing values.
        self.to_missing = allow_missing_changes and space.graph.missing_in_training
        # The sample's category codes, -1 for a missing value or a category the graph does not know.
        self.codes = {f: int(read_codes([x[f]], names.shape[0])[0]) for f, names in space.categories.items()}

    def feature_cost(self, f: int, low: int, high: int, present: bool, missing: bool):
        """``(new value or None, scaled distance)`` of the cheapest value of feature ``f`` that a path
        allows: a present value between the thresholds of nodes ``low`` and ``high`` (-1: open) when
        ``present``, a missing one (new value NaN) when ``missing``. None when no such value is the
        sample's own or a training value (or a change to or from missing is not allowed). At a
        categorical feature ``low`` is the bitmask of the categories allowed (:meth:`category_cost`)."""
        if f in self.space.categories:
            return self.category_cost(f, low, present, missing)
        v = self.x[f]
        options = []
        if np.isnan(v):
            if missing:
                return (None, 0.0)
            if not self.allow_missing_changes:
                return None
            values = self._present_values(f, low, high) if present else None
            if values is None:
                return None
            new = values[np.argmin(np.abs(values - self.space.medians[f]))]
            return (float(new), MISSING_DISTANCE)
        if present:
            t = self.space.routing
            lo = t[low] if low >= 0 else -np.inf
            hi = t[high] if high >= 0 else np.inf
            if lo < v <= hi:
                return (None, 0.0)
            values = self._present_values(f, low, high)
            if values is not None:
                new = values[0] if v <= lo else values[-1]
                options.append((float(new), abs(float(new) - v) / self.space.scales[f]))
        if missing and self.to_missing:
            options.append((np.nan, MISSING_DISTANCE))
        return min(options, key=lambda option: option[1]) if options else None

    def category_cost(self, f: int, allowed: int, present: bool, missing: bool):
        """:meth:`feature_cost` of a categorical feature, ``allowed`` the bitmask of the categories
        the path allows (-1: all): no change when the sample's category (or its missing value) takes
        the path, else the most common training category allowed at :data:`CATEGORY_DISTANCE` (from
        a missing value, :data:`MISSING_DISTANCE`) or a missing value."""
        space, code = self.space, self.codes[f]
        allowed &= space.full[f]
        new = space.commonest(f, allowed) if present else None
        if code < 0:  # missing, or a category the graph does not know: routed as missing
            if missing:
                return (None, 0.0)
            if new is None or not self.allow_missing_changes:
                return None
            return (float(new), MISSING_DISTANCE)
        if present and allowed >> code & 1:
            return (None, 0.0)
        options = [] if new is None else [(float(new), CATEGORY_DISTANCE)]
        if missing and self.to_missing:
            options.append((np.nan, MISSING_DISTANCE))
        return options[0] if options else None

    def _present_values(self, f: int, low: int, high: int):
        """The training values of ``f`` between the thresholds of ``low`` and ``high``; None if none."""
        t = self.space.routing
        values = self.space.values[f]
        a = int(np.searchsorted(values, t[low], side="right")) if low >= 0 else 0
        b = int(np.searchsorted(values, t[high], side="right")) if high >= 0 else values.size
        return values[a:b] if a < b else None

    def child(self, box: dict, n: int, dist: float, node: int, left: bool):
        """The box, changes and distance after taking one branch of ``node``; None when infeasible."""
        g = self.space.graph
        f = int(g.feature[node])
        entry = box.get(f, _OPEN)
        low, high, present, missing, old = entry
        t = self.space.routing
        if f in self.space.categories:  # the categories the path allows, all of them as -1
            full, sent_left = self.space.full[f], self.space.left_mask[node]
            allowed = low & (sent_left if left else ~sent_left) & full
            present = present and allowed != 0
            low = -1 if allowed == full else allowed
        elif left:
            if not (high >= 0 and t[high] <= t[node]):
                high = node
        elif np.isposinf(t[node]):  # a test of missingness: no present value goes right
            present = False
        elif not (low >= 0 and t[low] >= t[node]):
            low = node
        missing = missing and bool(self.space.missing_left[node]) == left
        if present and low >= 0 and high >= 0 and t[low] >= t[high] and f not in self.space.categories:
            present = False
        if (low, high, present, missing) == entry[:4]:
            return box, n, dist
        if not (present or missing):
            return None
        cost = self.feature_cost(f, low, high, present, missing)
        if cost is None:
            return None
        box = dict(box)
        box[f] = (low, high, present, missing, cost)
        n += (cost[0] is not None) - (old[0] is not None)
        return box, n, dist + cost[1] - old[1]


def _contains(outer: dict, inner: dict, t: np.ndarray, categorical) -> bool:
    """Whether box ``outer`` contains box ``inner``: every value, present or missing, that ``inner``
    allows for a feature, ``outer`` allows too (``categorical``: the categorical features)."""
    for f, (low, high, present, missing, _) in outer.items():
        ilow, ihigh, ipresent, imissing, _ = inner.get(f, _OPEN)
        if imissing and not missing:
            return False
        if not ipresent:
            continue
        if not present:
            return False
        if f in categorical:
            if ilow & ~low:  # a category inner allows and outer does not (bitmasks, -1 for all)
                return False
            continue
        if low >= 0 and (ilow < 0 or t[ilow] < t[low]):
            return False
        if high >= 0 and (ihigh < 0 or t[ihigh] > t[high]):
            return False
    return True


def _result(space, x, box, n, dist, leaf, exact, bound, states, start) -> Counterfactual:
    g = space.graph
    changes, sample = [], x.copy()
    for f in sorted(box):
        low, high, _, _, (new, _) = box[f]
        if new is None:
            continue
        sample[f] = new
        if f in space.categories:
            names = space.categories[f]
            allowed = tuple(code for code in range(names.shape[0]) if low >> code & 1)
            changes.append(Change(f, float(x[f]), new, -np.inf, np.inf, tuple(names.tolist()), allowed))
            continue
        changes.append(Change(f, float(x[f]), new, float(g.threshold[low]) if low >= 0 else -np.inf,
                              float(g.threshold[high]) if high >= 0 else np.inf))  # fmt: skip
    return Counterfactual(found=True, exact=exact, changes=changes, n_changed=n, distance=dist,
                          lower_bound=(n, dist) if exact else bound, sample=sample, leaf=leaf, states=states,
                          seconds=time.perf_counter() - start)  # fmt: skip


def _path_box(search: _Search, path: list[int]):
    box, n, dist = {}, 0, 0.0
    g = search.space.graph
    for node, child in zip(path[:-1], path[1:]):
        step = search.child(box, n, dist, node, child == g.children_left[node])
        if step is None:
            return None
        box, n, dist = step
    return box, n, dist


def _seeds(search: _Search, good: np.ndarray):
    """Boxes of the paths of the training samples nearest the sample among those the graph sends to a
    wanted leaf: a first solution to prune with."""
    space = search.space
    chosen = np.flatnonzero(good[space.train_leaves])
    if chosen.size == 0:
        return []
    theirs, mine = space.X_used[chosen].astype(np.float64), search.x[space.used]
    diff = np.abs(theirs - mine) / space.scales[space.used]
    # A value missing on one side only is one change of MISSING_DISTANCE; missing on both, none.
    one_missing = np.isnan(theirs) != np.isnan(mine)
    diff = np.where(one_missing, MISSING_DISTANCE, np.nan_to_num(diff, nan=0.0))
    for i, f in enumerate(space.used.tolist()):  # a category is the same or another, at one unit
        if f in space.categories:
            codes = read_codes(theirs[:, i], space.categories[f].shape[0])
            diff[:, i] = np.where(codes != search.codes[f], CATEGORY_DISTANCE, 0.0)
    score = (diff > 0).sum(axis=1) + diff.sum(axis=1) / (diff.sum(axis=1).max() + 1.0)
    nearest = chosen[np.argsort(score, kind="stable")[:_SEEDS]]
    found = []
    X = np.zeros((nearest.size, space.n_features))
    X[:, space.used] = space.X_used[nearest]
    indicator = space.graph.decision_path(X)
    for i in range(nearest.size):
        path = indicator.indices[indicator.indptr[i] : indicator.indptr[i + 1]].tolist()
        step = _path_box(search, path)
        if step is not None:
            found.append((step, path[-1]))
    return found


def counterfactual(
    space: CounterfactualSpace, x, wanted, budget: float = DEFAULT_BUDGET, *, allow_missing_changes: bool = True
) -> Counterfactual:
    """The smallest change to ``x`` that makes the graph predict ``wanted``.

    Parameters
    ----------
    space : CounterfactualSpace
        The graph and its training values.
    x : array-like of shape (n_features,)
    wanted : int or (float, float)
        The wanted class index, or for a regression the range ``(low, high)`` the prediction should
        fall in.
    budget : float, default=0.5
        Seconds the search may take; past it, the best change found is returned with a certified
        lower bound and ``exact=False``.
    allow_missing_changes : bool, default=True
        Whether a value may be changed to missing, or a missing value to a present one (each one
        feature changed at distance :data:`MISSING_DISTANCE`). When False, the search goes around
        the tests that would need such a change.

    Returns
    -------
    Counterfactual

    Examples
    --------
    >>> g = DecisionGraph([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2], [50, -2, 40, -2, -2],
    ...                   [[3, 1], [3, 0], [0, 3], [0, 2], [0, 1]])
    >>> X_train = np.array([[37, 30], [45, 40], [52, 46], [60, 50]])
    >>> cf = counterfactual(CounterfactualSpace(g, X_train), [52, 40], 0)
    >>> cf.exact, cf.describe(["age", "hours"])
    (True, 'change `age` from 52 to 45 or less')
    """
    start = time.perf_counter()
    graph = space.graph
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    if x.size != space.n_features:
        raise ValueError(f"The sample has {x.size} values but the model has {space.n_features} features.")
    if graph.missing_go_to_left is None and np.isnan(x[space.used]).any():
        raise ValueError(
            "This model was trained without missing values and has no direction for them: give every "
            "feature it tests a value."
        )
    good = _wanted_leaves(graph, wanted)
    reaches = graph.ancestors(np.flatnonzero(good))  # whether some wanted leaf lies below each node
    search = _Search(space, x, allow_missing_changes)
    best = None  # ((n, dist), box, leaf)
    for (box, n, dist), leaf in _seeds(search, good):
        if best is None or (n, dist) < best[0]:
            best = ((n, dist), box, leaf)
    heap = [((0, 0.0), 0, 0, {})] if reaches[0] else []
    kept: dict[int, list] = {}
    counter, states, pops = 1, 0, 0
    left, right, t, is_leaf = graph.children_left, graph.children_right, space.routing, graph.is_leaf
    timed_out = False
    while heap:
        cost, _, node, box = heap[0]
        if best is not None and cost >= best[0]:
            break
        pops += 1
        if pops % 8 == 0 and time.perf_counter() - start > budget:
            timed_out = True
            break
        heapq.heappop(heap)
        if good[node]:  # the cheapest state left is a wanted leaf: nothing cheaper remains
            best = (cost, box, node)
            break
        if is_leaf[node]:
            continue
        here = kept.setdefault(node, [])
        if any(_contains(other, box, t, space.categories) for other in here):
            continue
        if len(here) < _KEPT_BOXES:
            here.append(box)
        states += 1
        for child, is_left in ((left[node], True), (right[node], False)):
            if not reaches[child]:
                continue
            step = search.child(box, cost[0], cost[1], node, is_left)
            if step is None:
                continue
            child_box, n, dist = step
            if best is not None and (n, dist) >= best[0]:
                continue
            if good[child]:
                best = ((n, dist), child_box, int(child))
                continue
            heapq.heappush(heap, ((n, dist), counter, int(child), child_box))
            counter += 1
    if timed_out:
        bound = heap[0][0] if heap else best[0]
        bound = min(bound, best[0]) if best is not None else bound
    if best is None:
        return Counterfactual(found=False, exact=not timed_out, lower_bound=bound if timed_out else (0, 0.0),
                              states=states, seconds=time.perf_counter() - start)  # fmt: skip
    (n, dist), box, leaf = best
    return _result(space, x, box, n, dist, leaf, not timed_out, bound if timed_out else None, states, start)
