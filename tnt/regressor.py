"""``TnTRegressor``: the Tree in Tree decision graph for regression, as a scikit-learn estimator."""

from __future__ import annotations

from tnt._base import GraphRegressorMixin
from tnt._tnt_estimator import TnTEstimator

__all__ = ["TnTRegressor"]


class TnTRegressor(GraphRegressorMixin, TnTEstimator):
    """Tree in Tree (TnT) decision graph regressor (squared error).

    The paper's training scheme with regression micro trees: leaves grow squared-error CART trees,
    internal nodes grow classification micro trees that choose, for each sample, the child through
    which the graph predicts it better. Leaves predict the weighted mean training target.

    Parameters
    ----------
    C : float, default=1e-3
        Pruning strength, a price per split as a share of the training target's (weighted)
        variance: one ``C`` gives about the same number of splits whatever the units of ``y``.
        Each micro tree is pruned with minimal cost-complexity pruning at ``C_i = C * W / W_i``
        (``W`` the total training weight, ``W_i`` the weight its fit sees). ``N1=1`` gives
        ``DecisionTreeRegressor(ccp_alpha=C * v)``, ``v`` the weighted variance of ``y`` (the
        impurity of that tree's root), up to ties between equally good splits.
    N1 : int, default=2
        Number of merge phases.
    N2 : int, default=5
        Grow passes per phase.
    fine_tune : int, default=0
        Rounds of fine-tuning after training (the paper's Algorithm A.1 for the squared error): each
        internal node refits its single split on its reduced problem, each leaf takes the weighted
        mean target of its samples.
    random_state : int, RandomState instance or None, default=None
        Seed of the order in which micro trees try features, which breaks ties between equally good
        splits as in :class:`tnt.TnTClassifier`.
    n_jobs : int, default=None
        Threads used for training (the training matrix is binned in one part per thread, and nodes
        of which none is an ancestor of another grow at the same time), as in
        :class:`tnt.TnTClassifier`: ``None`` means 1, ``-1`` every core this process may use; 0 is
        refused, and small data whose features have at most 1,024 distinct values each is fitted
        on one thread, as there. The fitted graph does not depend on it.
    max_bins : int, default=65535
        Most split positions per feature, as in :class:`tnt.TnTClassifier`: features of more
        distinct training values are cut into ``max_bins`` quantile bins; 255 trains much faster on
        continuous features. ``N1=1`` equals CART only where no feature is binned.
    excluded_features : array-like of int or str, default=None
        Columns the learner never splits on, as in :class:`tnt.TnTClassifier`.
    validation_fraction : float in (0, 1) or None, default=None
        Held-out stopping, as in :class:`tnt.TnTClassifier`: that share of the training samples
        (rounded up, drawn with ``random_state``) is held out, the graph is trained on the rest and
        scored on it after every step, then trained again on all the samples up to the first step
        that scored best. ``None`` runs the whole schedule (the paper's).
    internal_refit : {"auto", "always", "improving", "cost_complexity"}, default="auto"
        Whether an internal node takes the micro tree refitted on its reduced problem always
        (the paper's Algorithm 2), only when it misroutes less weight (``w_i |L_i(l) - L_i(r)|``,
        see Notes: its squared training error) than the split the node had at the start of the
        phase ("improving"), or only when it misroutes less by more than ``C`` per split it adds
        ("cost_complexity": the training objective's price per split, which the leaves' micro trees
        pay through their pruning). "auto": the paper's rule, "improving" when some training value
        is missing and "always" otherwise, as in :class:`tnt.TnTClassifier`; at the default size
        (``ccp_alpha="auto"``, since 0.2) the held-out 20 % of the size choice picks between that
        rule and "cost_complexity" (a graph grown with each on the other 80 %, the lower squared
        error wins: ``refit_rule_``), which costs two more growths on 80 % of the samples.
        ``ccp_alpha=0.0`` still grows version 0.1's graphs. Priced refits seldom share a node.
        Measured in ``docs/learner_options.md`` and ``docs/accuracy.md``.
    ccp_alpha : "auto", float, "held_out" or "held_out_regrown", default="auto"
        The graph's size, ``C`` its lower bound, as in :class:`tnt.TnTClassifier`, on the squared
        error of the standardised targets (the units of ``C``): "auto" (the default since 0.2)
        grows the graph at the level a CART on 80 % of the samples, scored on the other 20 %,
        chooses when it is clearly better held out than ``C``'s (the per-sample differences of
        squared error, one standard error), and prunes it there. A float: weakest-link pruning of
        the finished graph (while collapsing some internal node into a leaf costs at most
        ``ccp_alpha`` per split it frees, the cheapest is collapsed); **0 prunes nothing: the graph
        of ``C`` alone, the default of 0.1**. "held_out" the level a held-out 20 % chooses on a
        graph grown on the rest, and "held_out_regrown" that level with the graph grown at the
        larger of ``C`` and it before pruning, as in :class:`tnt.TnTClassifier`. Measured in
        ``docs/learner_options.md`` and ``docs/accuracy.md``.
    categorical_features : "from_dtype", None, array-like of int, bool or str, default="from_dtype"
        Categorical columns, split by subsets of their categories, as in :class:`tnt.TnTClassifier`;
        the categories are ordered by their mean target, which is exact for the squared error.
    min_category_samples : int in [1, 255], default=1
        Categories with fewer samples at a node are ranked as one, as in :class:`tnt.TnTClassifier`;
        1 keeps the exact ordering.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined only when ``X`` has feature names that are all strings.
    graph_ : DecisionGraph
        The fitted regression graph (``graph_.regression`` is True): ``value[:, 0]`` is the weighted
        mean training target at each node, ``impurity`` its weighted mean squared error.
    n_splits_ : int
    n_leaves_ : int
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised total weighted squared-error decrease brought by each feature.
    categories_ : list of (ndarray or None)
        As in :class:`tnt.TnTClassifier`, when a column is categorical.
    n_steps_ : int
        Steps of the schedule the graph was trained for, as in :class:`tnt.TnTClassifier`.
    pruning_level_ : float
        The ``ccp_alpha`` the graph was pruned at, as in :class:`tnt.TnTClassifier`.
    refit_rule_ : {"always", "improving", "cost_complexity"}
        The rule the internal nodes took refits by (what ``internal_refit`` came to).
    validation_scores_ : ndarray of shape (N1 * (N2 + 1) + fine_tune,)
        With ``validation_fraction``, the held-out score after each step (minus the weighted mean
        squared error of the standardised targets); empty otherwise (and when too few samples were
        given to hold any out).

    See Also
    --------
    tnt.TnTClassifier : The classifier.

    Notes
    -----
    **Derivation.** Training minimises ``sum_i w_i (y_i - f(x_i))^2 / (W v) + C * splits`` over
    graphs ``f``, where ``v`` is the weighted variance of ``y`` (targets are standardised). As in
    the classifier, ``N1`` phases of ``N2`` grow passes visit every node after its parents:

    * A leaf's micro tree is a squared-error CART on the samples reaching it. On ``W_i`` of the
      weight, lowering the graph's objective by more than ``C`` per split is lowering the micro
      tree's own (``W_i``-normalised) error by more than ``C * W / W_i``: its ``ccp_alpha``.
    * At an internal node, with the rest of the graph fixed, sending sample ``i`` to child ``c``
      costs ``w_i L_i(c)``, ``L_i(c)`` the squared error the graph makes on it from ``c`` on.
      Writing ``w_i L_i(c) = w_i min(L_i(l), L_i(r)) + w_i |L_i(l) - L_i(r)| [c is worse]``, the
      first term does not depend on the node, so its best decision function is a weighted binary
      classifier: each sample labelled by its better child and weighted by
      ``v_i = w_i |L_i(l) - L_i(r)|``; samples with ``v_i = 0`` do not matter and are left out.
      The node's micro tree is the classifier's Gini micro tree on these weights, pruned at
      ``C * W / V`` (``V = sum v_i``, in the same standardised units). For the 0/1 loss, ``v_i``
      is ``w_i`` on the samples classified correctly through exactly one child and 0 elsewhere:
      the classifier's sensitive samples.

    Merges, dead-node removal and fine-tuning are the classifier's. With ``N1=1`` the graph is one
    micro tree fitted on all the data: cost-complexity pruned CART for the squared error.

    References
    ----------
    .. [1] B. Zhu and M. Shoaran, "Tree in Tree: from Decision Trees to Decision Graphs",
       NeurIPS 2021: Algorithm 2 and its Algorithm A.1, here with the squared error.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from tnt import TnTRegressor
    >>> X, y = make_friedman1(n_samples=500, random_state=0)
    >>> reg = TnTRegressor(C=1e-3, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.8
    True
    >>> reg.graph_.regression
    True
    """
