"""``NDGClassifier``: the naive decision graph of the paper's Algorithm 1, a baseline of its Fig. 4."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval

from tnt._base import (
    CATEGORICAL_FEATURES,
    EXCLUDED_FEATURES,
    MIN_CATEGORY_SAMPLES,
    GraphClassifierMixin,
    GrownGraphEstimator,
)
from tnt.learn.naive_graph import grow_naive_graph
from tnt.learn.working_graph import FlatGraph

__all__ = ["NDGClassifier", "PAPER_C"]

#: The complexity penalty of NDG in the paper's Fig. 4 ("fixed at C=3e-4 on all tasks").
PAPER_C = 3e-4


class NDGClassifier(GraphClassifierMixin, GrownGraphEstimator):
    """Naive decision graph (NDG): greedy splits of leaves and merges of pairs of leaves.

    The paper's Algorithm 1 (after Oliver, 1992, and Zighed et al., 2007): start from one leaf; at
    each step find the best split of every leaf and the gain of merging every pair of leaves, and
    apply the best operation; a split pays the complexity penalty ``C``.

    The paper leaves open, and this implementation decides:

    - **Units.** The graph minimises ``R(G) + C * |leaves(G)|``, ``R`` being the weighted Gini
      impurity of the leaves as a share of the total training weight (the units of scikit-learn's
      ``ccp_alpha`` and of :class:`tnt.TnTClassifier`'s ``C``). A split's gain is the impurity it
      removes minus ``C`` (in a tree ``|leaves| = splits + 1``, so each split pays ``C``). A merge's
      gain is ``C`` (one leaf less) minus the impurity it adds (never negative: Gini is concave), so
      merges and splits are compared in the same units.
    - **Splits** are the best Gini split of the leaf's samples (the project's binned split search,
      the stump fine-tuning fits), thresholds at midpoints as in scikit-learn.
    - **Merges** join any two leaves, wherever they are in the graph: every edge into either
      leaf then leads to the merged leaf, which holds the samples of both. A split whose two edges
      come to lead to the same node decides nothing and is bypassed (no training sample changes
      leaf). The graph stays acyclic, since only leaves are merged.
    - **A merged leaf is split later** like any leaf: by the best split of all its samples; the
      new split is then shared by the parents of both former leaves.
    - **Stopping**: growth ends when no operation has a positive gain, or once the graph has
      ``max_splits`` splits and no merge has a positive gain. Each step strictly lowers the
      objective, so growth always ends. A tie between a split and a merge goes to the split.

    With ``merge=False`` and ``C=0`` it grows best-first CART: the same tree as
    ``CARTClassifier(max_leaf_nodes=max_splits + 1)`` up to ties between equally good splits.

    Parameters
    ----------
    C : float, default=3e-4
        Penalty per leaf (the paper's Fig. 4 fixes ``C=3e-4``).
    max_splits : int or None, default=None
        Largest number of splits; ``None`` lets ``C`` alone decide.
    merge : bool, default=True
        Consider merges; ``False`` gives a greedy best-first tree.
    random_state : int, RandomState instance or None, default=None
        Seed of the order in which features are tried, which breaks ties between equal splits.
    excluded_features : array-like of int or str, default=None
        Columns never split on, as in :class:`tnt.TnTClassifier`.
    categorical_features : "from_dtype", None, array-like of int, bool or str, default="from_dtype"
        Categorical columns, as in :class:`tnt.TnTClassifier`: a leaf's best split of such a column
        sends a subset of its categories left (Breiman's ordering of the leaf's samples), and
        ``predict`` reads the column by name.
    min_category_samples : int in [1, 255], default=1
        As in :class:`tnt.TnTClassifier`: a category with fewer samples at a leaf (of a feature
        with at least 5 categories there) is ordered with the other rare ones, as one. The default,
        1, pools nothing.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, graph_, n_splits_, n_leaves_, feature_importances_
        As in :class:`tnt.TnTClassifier`.
    categories_ : list of (ndarray or None)
        As in :class:`tnt.TnTClassifier`, when a column is categorical.

    References
    ----------
    .. [1] J. J. Oliver, "Decision graphs: an extension of decision trees", 1992.
    .. [2] B. Zhu and M. Shoaran, "Tree in Tree: from Decision Trees to Decision Graphs",
       NeurIPS 2021, Algorithm 1.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import NDGClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = NDGClassifier(C=1e-2, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    >>> NDGClassifier(max_splits=3, random_state=0).fit(X, y).n_splits_ <= 3
    True
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="left")],
        "max_splits": [Interval(Integral, 0, None, closed="left"), None],
        "merge": ["boolean"],
        "random_state": ["random_state"],
        **EXCLUDED_FEATURES,
        **CATEGORICAL_FEATURES,
        **MIN_CATEGORY_SAMPLES,
    }

    def __init__(
        self,
        *,
        C=PAPER_C,
        max_splits=None,
        merge=True,
        random_state=None,
        excluded_features=None,
        categorical_features="from_dtype",
        min_category_samples=1,
    ):
        self.C = C
        self.max_splits = max_splits
        self.merge = merge
        self.random_state = random_state
        self.excluded_features = excluded_features
        self.categorical_features = categorical_features
        self.min_category_samples = min_category_samples

    @classmethod
    def with_splits(cls, n_splits: int, **params):
        """The naive graph to compare with a graph of ``n_splits`` splits: at most as many splits.

        Examples
        --------
        >>> from tnt import NDGClassifier
        >>> NDGClassifier.with_splits(6).max_splits
        6
        """
        return cls(max_splits=max(int(n_splits), 0), **params)

    def _grow(self, problem) -> FlatGraph:
        return grow_naive_graph(problem, float(self.C), self.max_splits, bool(self.merge))
