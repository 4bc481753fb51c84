"""``TnTClassifier``: the Tree in Tree decision graph as a scikit-learn estimator."""

from __future__ import annotations

from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from tnt._base import GraphClassifierMixin
from tnt._tnt_estimator import TnTEstimator

__all__ = ["TnTClassifier"]


class TnTClassifier(GraphClassifierMixin, TnTEstimator):
    """Tree in Tree (TnT) decision graph classifier.

    TnT grows small cost-complexity-pruned CART trees ("micro trees") inside the leaves and the
    internal nodes of a graph and merges them back, so that nodes are shared between decision
    paths. The result is a directed acyclic graph of axis-aligned splits.

    Parameters
    ----------
    C : float, default=1e-3
        Pruning strength. Each micro tree is pruned with minimal cost-complexity pruning at
        ``C_i = C * W / W_i``, where ``W`` is the total training weight and ``W_i`` the weight of the
        samples the micro tree is fitted on. Larger ``C`` gives fewer splits.
    N1 : int, default=2
        Number of merge phases: micro trees are merged into the graph ``N1`` times. ``N1=1``
        grows one micro tree: scikit-learn's ``DecisionTreeClassifier(ccp_alpha=C)`` up to ties
        between equally good splits (see ``random_state``), the same tree down to any node where
        the two chose differently between equally good splits.
    N2 : int, default=5
        Grow passes per phase: every node's micro tree is refitted ``N2`` times before a merge.
    fine_tune : int, default=0
        Rounds of fine-tuning (the paper's Algorithm A.1) after training: each internal node
        refits its single split on its sensitive samples, each leaf takes its majority class.
    random_state : int, RandomState instance or None, default=None
        Seed of the order in which micro trees try features
        (``np.random.RandomState(seed).permutation(n_features)``, one order for the whole fit): of
        equally good splits the first feature in that order wins, and within a feature the lowest
        threshold. scikit-learn's trees draw a new order at every node instead.
    n_jobs : int, default=None
        Threads used for training: the training matrix is binned, and the samples of a wave of
        nodes are routed, in one part per thread; nodes of which none is an ancestor of another are
        grown at the same time, and a large node scans its features on all of them. ``None`` means
        1, ``-1`` every core this process may use (its CPU affinity and a container's CPU quota
        respected), ``-2`` all but one; 0 is refused. The fitted graph does not depend on it.
        Small data is fitted on one thread whatever ``n_jobs``: fewer than 1,000,000 training
        values (samples times features), no feature with more than 1,024 distinct values (missing
        counted as one), where threads cost more than they save (``tnt.learn.growth.fit_threads``).
    max_bins : int, default=65535
        Most split positions per feature, between 2 and 65,535. A feature with at most
        ``max_bins`` distinct training values is split exactly where scikit-learn's CART would
        split it (halfway between two consecutive values present); a feature with more is cut into
        ``max_bins`` quantile bins first, so its thresholds lie halfway between two bins. With the
        default only columns of more than 65,535 distinct values are binned. ``max_bins=255``, as
        scikit-learn's ``HistGradientBoostingClassifier``, trains much faster on continuous
        features (one byte per value instead of two; measured in ``benchmarks/README.md``), may
        cost a little accuracy there, and changes nothing for features of at most 255 values
        (pixels, counts, categories). ``N1=1`` equals CART only where no feature is binned.
    excluded_features : array-like of int or str, default=None
        Columns the learner never splits on (indices, or names when fitted on a data frame); the
        model still takes every column (``n_features_in_`` is unchanged). For a feature that must
        not decide, such as a leaked or unfair one. Each such column is presented to the learner as
        a constant, which no split can separate; the other settings train as without it.
    validation_fraction : float in (0, 1) or None, default=None
        Held-out stopping. ``None`` runs the whole schedule (the paper's). A share: that share of
        the training samples (rounded up; stratified by class when every class has two samples or
        more, drawn with ``random_state``) is held out, the graph is trained on the rest and scored
        on it after every step (grow pass, merge, fine-tuning round), then trained again on all the
        samples up to the first step that scored best, so no sample is lost to the choice. Training
        takes two to three times as long (both trainings, and a score of the graph at every step).
        Measured against the defaults in ``docs/learner_options.md``.
    internal_refit : {"auto", "always", "improving", "cost_complexity"}, default="auto"
        Whether an internal node takes the micro tree refitted on its sensitive samples always
        (the paper's Algorithm 2), only when it misroutes less of their weight than the split the
        node had at the start of the phase ("improving"), or only when it misroutes less by more
        than ``C`` times the total weight per split it adds ("cost_complexity"). Once the training
        samples are all classified right, every refit is as good as the node's split on them and
        is chosen on fewer samples; "improving" keeps the split then. "auto" is "improving" when
        some training value is missing (NaN), "always" otherwise: with missing values the refits
        that do not lower the training loss cost more accuracy (``docs/accuracy_missing.md``).
        "cost_complexity" (which a regressor at the default size may choose) keeps nearly every
        split of a classifier's graph as it was and loses most of its gain over CART
        (``docs/learner_options.md``).
    ccp_alpha : "auto", float, "held_out" or "held_out_regrown", default="auto"
        The graph's size, with ``C`` as its **lower bound** on the cost per split. "auto" (the
        default since 0.2): a held-out 20 % of the training samples chooses the level (stratified,
        drawn with ``random_state``): a CART pruned at ``C`` is fitted on the other 80 % and scored
        held out at every level of its cost-complexity pruning path; a larger level than ``C`` is
        taken only where it scores better than ``C`` by more than one standard error of the
        per-sample differences (the best such level); the graph is then grown on all the samples
        at that level and pruned there (``pruning_level_``; 0 when ``C`` was kept). It costs one
        CART on 80 % of the rows (about 1.1x the fit with ``C`` alone on MNIST) and gives up to
        ten points of accuracy where ``C`` alone over-fits (``docs/learner_options.md``). A float:
        weakest-link pruning of the finished graph, the graph analogue of scikit-learn's
        ``ccp_alpha``: while collapsing some internal node into a leaf costs at most ``ccp_alpha``
        of weighted Gini impurity (as a share of the training weight, the units of ``C``) per split
        it frees, the cheapest is collapsed. A collapse frees the node's split and those only it
        reaches; nodes other paths reach stay. **0 prunes nothing: the graph of ``C`` alone, the
        default of version 0.1 and the paper's** (``benchmarks/paper.py`` runs with it). On a
        tree (``N1=1``) this is ``DecisionTreeClassifier(ccp_alpha=...)``'s pruning. "held_out":
        the level a held-out 20 % of the training samples chooses on the pruning path of a graph
        grown on the rest (the most pruned of the best), pruning the graph grown on all the samples;
        "held_out_regrown": that level, the graph on all the samples grown at the larger of ``C``
        and the level, then pruned at it. Both grow a second graph (about 2.7 times the time of
        ``C`` alone on MNIST). All are measured in ``docs/learner_options.md``.
    categorical_features : "from_dtype", None, array-like of int, bool or str, default="from_dtype"
        Which columns are categorical, with the conventions of scikit-learn's
        ``HistGradientBoosting*``: "from_dtype" the pandas ``category`` columns of a DataFrame
        (nothing else), None none, indices, a boolean mask, or column names. A categorical column
        holds pandas categories, text or non-negative integer codes (at most 255 categories), and
        is split into two **subsets** of its categories, searched among the prefixes of Breiman's
        ordering at each node (exact for two classes and for the squared error; for more classes
        the first principal component of the categories' class shares). Missing values and
        categories never seen in training go where the split sends missing values. Every setting
        learns subsets (merge phases, fine-tuning, held-out stopping, the sizes of ``ccp_alpha``):
        training routes each subset test by a column of its own (:mod:`tnt.learn.category_columns`).
        See ``docs/categorical.md``.
    min_category_samples : int in [1, 255], default=1
        A regularisation of the subset splits of a categorical feature of many categories: at a
        node where the feature has at least 5 categories, those with fewer samples than this are
        pooled into one before the categories are ordered, so that a split sends them all the same
        way instead of choosing a side for each on a few samples (the idea of LightGBM's
        ``min_data_per_group``). The default, 1, pools nothing: Breiman's exact ordering. 10
        raises TnT's accuracy on ``churn`` (51 states) by 1.7 points and lowers it on ``credit_g``
        by 0.9 (``benchmarks/categorical.md``, column (i); ``docs/categorical.md``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels (any type scikit-learn accepts, strings included).
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined only when ``X`` has feature names that are all strings.
    graph_ : DecisionGraph
        The fitted graph, with the weighted class counts of the training samples at each node.
    n_splits_ : int
        Number of internal nodes (the paper's measure of complexity).
    n_leaves_ : int
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised total weighted Gini decrease brought by each feature.
    categories_ : list of (ndarray or None)
        Per feature, the categories of a categorical feature in their order (a category's code is
        its position), None for a numeric one. Defined only when a column is categorical;
        ``predict`` then reads those columns by name.
    n_steps_ : int
        Steps of the schedule (grow passes, merges and fine-tuning rounds) the graph was trained
        for: all ``N1 * (N2 + 1) + fine_tune`` unless ``validation_fraction`` stopped earlier.
    pruning_level_ : float
        The ``ccp_alpha`` the graph was pruned at: the parameter, or the level "auto", "held_out"
        or "held_out_regrown" chose (0 when "auto" kept ``C``).
    refit_rule_ : {"always", "improving", "cost_complexity"}
        The rule the internal nodes took refits by (what ``internal_refit`` came to).
    validation_scores_ : ndarray of shape (N1 * (N2 + 1) + fine_tune,)
        With ``validation_fraction``, the held-out accuracy after each step; empty otherwise (and
        when too few samples were given to hold any out).

    See Also
    --------
    tnt.CARTClassifier : CART with the same graph-based interface.
    tnt.TAOClassifier : CART fine-tuned by alternating optimisation.

    Notes
    -----
    Training follows the paper's Algorithm 2: starting from a single leaf, ``N1`` phases each of
    ``N2`` grow passes and a merge. A grow pass visits the nodes breadth-first, each node after all
    its parents. A leaf's micro tree is fitted on the class labels of the samples reaching it. An
    internal node's micro tree is fitted on its *sensitive* samples (those the graph classifies
    correctly through exactly one of the node's two children), labelled by the child that is
    right; its leaves become edges to that child, which is how nodes come to be shared. Before each
    merge, dead nodes (splits that send all their training samples one way) are removed; this
    never changes a training prediction.

    References
    ----------
    .. [1] B. Zhu and M. Shoaran, "Tree in Tree: from Decision Trees to Decision Graphs",
       NeurIPS 2021.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    >>> clf.n_splits_ == clf.graph_.n_splits
    True
    """

    def fine_tuned(self, X, y, rounds: int = 5, sample_weight=None) -> TnTClassifier:
        """A copy of this model fine-tuned for ``rounds`` rounds (the paper's Algorithm A.1).

        On the data a model with ``fine_tune=0`` was trained on, this is the model that
        ``fine_tune=rounds`` trains, without growing the graph again: measuring TnT with and
        without fine-tuning (the paper's Fig. 4) grows each graph once.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The training data (fine-tuning refits splits on the samples reaching them).
        rounds : int, default=5
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        model : TnTClassifier
            A new fitted estimator with ``fine_tune=rounds``; this one is unchanged.

        Raises
        ------
        ValueError
            If this model was trained with ``fine_tune > 0`` (rounds continued from a fine-tuned
            graph can differ from training with their sum, so no ``fine_tune`` value would describe
            the result), was pruned (``ccp_alpha`` other than 0, unless "auto" kept ``C``: training
            prunes after fine-tuning, so a pruned graph fine-tuned is no graph that training gives), or ``(X, y)``
            has other features or classes than its training data.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from tnt import TnTClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> tnt = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
        >>> tuned = tnt.fine_tuned(X, y, rounds=5)
        >>> direct = TnTClassifier(C=1e-2, fine_tune=5, random_state=0).fit(X, y)
        >>> bool((tuned.predict(X) == direct.predict(X)).all()), tuned.fine_tune
        (True, 5)
        """
        check_is_fitted(self)  # before reading the level the fit chose
        if self._pruned_after_growth():
            raise ValueError(
                f"fine_tuned starts from a graph that was not pruned; this one has ccp_alpha={self.ccp_alpha!r} "
                f"(pruned at {self.pruning_level_:.3g}), and training prunes after fine-tuning. Train it with the "
                "rounds you want instead (fine_tune=...)."
            )
        return self._fine_tuned(
            lambda n: clone(self).set_params(fine_tune=n), X, y, rounds, sample_weight, int(self.max_bins)
        )
