"""What every classifier and regressor backed by a :class:`~tnt.graph.DecisionGraph` shares:
prediction, routing, validation of the training data and the fitted attributes derived from the graph."""

from __future__ import annotations

import dataclasses
import inspect
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import assert_all_finite, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from tnt._messages import shown
from tnt.categorical import CategoryCoding, categorical_mask
from tnt.graph import EXACT_IN_FLOAT32, NO_DIRECTIONS, DecisionGraph
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.learn.growth import _Problem, fine_tune_graph
from tnt.learn.regression_growth import RegressionProblem
from tnt.learn.tree_builder import SUBSET_WORDS
from tnt.learn.working_graph import FlatGraph

# Both scikit-learn's trees and TnT compare float32 feature values with their thresholds.
DTYPE = np.float32
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# scikit-learn 1.9's weight check refuses weights that are all zero in its own words, earlier ones
# accept them: the project refuses them itself (_training_weights), in one sentence on every version.
_ZERO_WEIGHTS_OURS = (
    {"allow_all_zero_weights": True}
    if "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters
    else {}
)


# The input types prediction routes as they are (the rest is converted to float32).
_ROUTED_DTYPES = [*EXACT_IN_FLOAT32, np.float64]
_ROUTED = frozenset(np.dtype(t) for t in _ROUTED_DTYPES)


def _plain_array(X, model) -> bool:
    """Whether ``X`` is a NumPy array that scikit-learn's ``validate_data(model, X, dtype=_ROUTED_DTYPES,
    reset=False, ensure_all_finite=False)`` would return unchanged without a warning: a 2-d array of
    a routed type, with rows and the model's number of features, for a model fitted without feature
    names. Prediction skips that validation for it, which costs more than routing a few thousand
    samples (mostly scikit-learn's test for data frames; ``docs/speed_history.md``)."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.dtype in _ROUTED
        and X.shape[0] > 0
        and X.shape[1] == getattr(model, "n_features_in_", -1)
        and not hasattr(model, "feature_names_in_")
    )


#: The ``excluded_features`` parameter of every learner: columns it never splits on.
EXCLUDED_FEATURES = {"excluded_features": [None, "array-like"]}
#: The parameter of the estimators that learn subsets of categories (scikit-learn's
#: ``HistGradientBoosting*`` conventions, read by :func:`tnt.categorical.categorical_mask`).
CATEGORICAL_FEATURES = {"categorical_features": [StrOptions({"from_dtype"}), None, "array-like"]}
#: The parameter of the estimators that learn subsets with the project's learner: the fewest samples
#: a category needs at a node to be ordered on its own (:func:`tnt.learn.tree_builder._ordered_scan`).
MIN_CATEGORY_SAMPLES = {"min_category_samples": [Interval(Integral, 1, 255, closed="both")]}


class GraphModelMixin:
    """Routing and introspection for an estimator whose fitted model is ``self.graph_``."""

    def _validate_X_predict(self, X, check_values=True) -> np.ndarray:
        check_is_fitted(self)
        if self.graph_.categories:
            # Categorical columns are read by name (strings, pandas categories or integer codes) and
            # turned into their codes, NaN for a missing value or a category unseen in training.
            X = validate_data(self, X, dtype=None, reset=False, ensure_all_finite=False)
            X = CategoryCoding(self.graph_.categories).codes(X)
        # Types float32 holds exactly are kept, and so is float64 once its values are known to fit
        # float32's range: the graph routes them without a copy, each value where its float32 cast
        # would go. Anything else becomes float32, as in training.
        elif not _plain_array(X, self):
            X = validate_data(self, X, dtype=_ROUTED_DTYPES, reset=False, ensure_all_finite=False)
        if check_values and X.dtype.kind == "f" and X.size:
            # One look at the extremes (no copy) checks finiteness and float32's range at once.
            low, high = X.min(), X.max()
            if not (-_FLOAT32_MAX <= low and high <= _FLOAT32_MAX):
                self._reject_values(X)
        return X

    def _reject_values(self, X) -> None:
        """Raise scikit-learn's error for infinity, one sentence for NaN when the graph has no direction
        for missing values, else the float32 range error when it applies."""
        assert_all_finite(X, allow_nan=True, estimator_name=type(self).__name__, input_name="X")
        if np.isnan(np.min(X)):
            if self.graph_.missing_go_to_left is None:
                raise ValueError(NO_DIRECTIONS)
            if not self.__sklearn_tags__().input_tags.allow_nan:  # refused at fit, so at prediction too
                raise ValueError(
                    f"X contains missing values (NaN), which {type(self).__name__} does not take; fill them "
                    "or drop the rows that have them."
                )
        if self.graph_.input_dtype == DTYPE:
            _check_float32_range(X)

    def _leaves(self, X) -> np.ndarray:
        """The leaf of each sample, its values checked in the pass that routes them where it can."""
        X = self._validate_X_predict(X, check_values=False)
        X = self.graph_._as_input(X)
        leaves = self.graph_._leaves_within_float32(X)
        if leaves is None:  # a value the fast walk does not take: missing, infinite or out of range
            if X.dtype.kind == "f":
                self._reject_values(X)
            leaves = self.graph_._walk_to_leaves(X)
        return leaves

    def predict(self, X):
        """The prediction of each sample's leaf: a classifier's majority class there, a regressor's
        weighted mean training target.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        return self._predicted_at(self._leaves(X))  # _leaves checks first that the model is fitted

    def apply(self, X):
        """Id of the leaf (node of ``graph_``) each sample reaches."""
        return self._leaves(X)

    def decision_path(self, X):
        """Sparse (n_samples, n_nodes) indicator of the nodes each sample passes through."""
        X = self._validate_X_predict(X)
        return self.graph_.decision_path(X)

    def decision_depth(self, X):
        """Number of splits each sample passes on its way to a leaf."""
        X = self._validate_X_predict(X)
        return self.graph_.decision_depth(X)

    @property
    def n_shared_nodes_(self) -> int:
        """Number of nodes with more than one parent."""
        check_is_fitted(self)
        return int(self.graph_.shared_nodes.size)


class GrownGraphEstimator(BaseEstimator):
    """What fitting does in every estimator of the project: check the parameters, validate the
    training data into a problem (the task's mixin), grow a flat graph from it (the estimator's own
    ``_grow``) and store the graph with its statistics (the task's mixin).

    Every learner of the project learns from missing values (NaN), as scikit-learn's trees do: its
    input tags declare ``allow_nan``, which :func:`_check_missing_learnable` reads.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the model to the training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, or a regressor's numeric targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Samples of weight zero act as if they were absent.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight, **growth_options):
        self._validate_params()
        problem = self._training_problem(X, y, sample_weight, self._max_bins())
        self._set_graph(self._grow(problem, **growth_options), problem)
        return self

    def _training_problem(self, X, y, sample_weight, max_bins: int):
        """The task's validated problem, each column of ``excluded_features`` (where the estimator
        has that parameter) replaced by a constant: no learner can split a constant column, so the
        graph never tests it, and the model keeps every input (``n_features_in_`` unchanged)."""
        X = self._coded_categories(X)
        problem = self._validate_training_data(X, y, sample_weight, max_bins)
        if self._category_coding is not None:
            # Per feature, the fewest samples a category needs at a node to be ordered on its own
            # (tnt.learn.tree_builder's _ordered_scan): 1, Breiman's ordering, unless the
            # estimator has min_category_samples; 0 for a numeric feature.
            fewest = int(getattr(self, "min_category_samples", 1))
            problem = dataclasses.replace(
                problem, categorical=self._categorical_mask.astype(np.uint8) * np.uint8(fewest)
            )
        columns = excluded_columns(
            getattr(self, "excluded_features", None), self.n_features_in_, getattr(self, "feature_names_in_", None)
        )
        if columns.size == 0:
            return problem
        X = problem.X.copy()  # the problem's X may be the caller's own array
        X[:, columns] = 0
        return dataclasses.replace(problem, X=X)

    def _max_bins(self) -> int:
        """Most codes per feature of the training matrix (estimators without ``max_bins`` bin nothing)."""
        return MAX_EXACT_BINS

    def _coded_categories(self, X):
        """``X`` with the columns ``categorical_features`` marks replaced by their category codes
        (NaN for a missing value), a DataFrame kept a DataFrame of the same columns; sets
        ``categories_`` (per feature its categories, None for a numeric one) when a column is
        categorical. Estimators without the parameter, and fits where it marks no column, take ``X``
        as it is."""
        self._category_coding = None
        self.__dict__.pop("categories_", None)
        given = getattr(self, "categorical_features", None)
        if given is None or (isinstance(given, str) and given == "from_dtype" and not hasattr(X, "dtypes")):
            return X  # only a DataFrame has column dtypes: any other input is taken as it is
        names = getattr(X, "columns", None)
        if not hasattr(X, "shape"):
            X = np.asarray(X, dtype=object)
        if len(X.shape) != 2:
            return X  # validate_data refuses it in its own words
        n_features = int(X.shape[1])
        mask = categorical_mask(given, X, n_features, None if names is None else [str(c) for c in names])
        if not mask.any():
            return X
        coding = CategoryCoding.learn(X, mask)
        for f, found in coding.categories.items():
            if found.size == 0:
                name = repr(str(names[f])) if names is not None else str(f)
                raise ValueError(
                    f"Categorical column {name} has no value in the training data, only missing ones; "
                    "drop it or do not mark it categorical."
                )
        codes = coding.codes(X)
        if names is not None:
            import pandas as pd

            codes = pd.DataFrame(codes, columns=names, index=X.index)
        self._category_coding, self._categorical_mask = coding, mask
        self.categories_ = [coding.categories.get(f) for f in range(n_features)]
        return codes

    def _graph_categories(self, category_left, node_count: int) -> dict:
        """The keywords giving a :class:`DecisionGraph` of ``node_count`` nodes this fit's categories
        (none when no feature is categorical): each categorical feature's names and each split's
        subset, from ``category_left`` (the learner's bitsets, or None: no categorical split)."""
        coding = getattr(self, "_category_coding", None)
        if coding is None:
            return {}
        n_words = max(1, -(-max(c.shape[0] for c in coding.categories.values()) // 64))
        bits = category_left
        if bits is None:
            bits = np.zeros((node_count, n_words), dtype=np.uint64)
        return {"categories": coding.categories, "category_left": np.ascontiguousarray(bits[:, :n_words])}

    def _grow(self, problem, **growth_options) -> FlatGraph:
        raise NotImplementedError


class GraphClassifierMixin(ClassifierMixin, GraphModelMixin):
    """Prediction and introspection for a classifier whose fitted model is ``self.graph_``."""

    def _validate_training_data(self, X, y, sample_weight, max_bins: int = MAX_EXACT_BINS) -> _Problem:
        # float64 is kept so that values beyond float32's range are reported rather than turned into
        # infinity; anything else becomes float32 directly, as scikit-learn's trees convert it.
        X, y = validate_data(self, X, y, dtype=(DTYPE, np.float64), ensure_all_finite="allow-nan")
        X = _within_float32(X)
        _check_missing_learnable(self, X)
        check_classification_targets(y)
        if y.ndim != 1:
            y = np.ravel(y)
        self.classes_, y_encoded = np.unique(y, return_inverse=True)
        self.n_classes_ = self.classes_.shape[0]
        w = _training_weights(sample_weight, X)
        # A sample of weight zero must act as if it were absent.
        keep = w > 0
        if not np.all(keep):
            X, y_encoded, w = X[keep], y_encoded[keep], w[keep]
        return _Problem(
            X=np.ascontiguousarray(X, dtype=DTYPE),
            y=y_encoded.astype(np.intp),
            w=w,
            n_classes=self.n_classes_,
            seed=_seed(self.random_state),
            max_bins=max_bins,
        )

    def _set_graph(self, flat: FlatGraph, problem: _Problem) -> None:
        """Store the fitted graph with the statistics of the training data and derived attributes."""
        shape = _shape(
            flat,
            problem.n_classes,
            missing_in_training=has_missing(problem.X),
            **self._graph_categories(flat.category_left, flat.node_count),
        )
        self.graph_, self.feature_importances_ = shape.with_training_stats_and_importances(
            problem.X, problem.y, problem.w, n_features=self.n_features_in_
        )
        self.n_splits_ = self.graph_.n_splits
        self.n_leaves_ = self.graph_.n_leaves

    def _fine_tuned(self, make_model, X, y, rounds, sample_weight, max_bins: int = MAX_EXACT_BINS):
        """What ``fine_tuned`` returns: ``make_model(rounds)`` (a new estimator whose ``fine_tune`` is
        ``rounds``) fitted as this fitted model's graph fine-tuned for ``rounds`` rounds on ``(X, y)``."""
        check_is_fitted(self)
        if not isinstance(rounds, Integral) or isinstance(rounds, bool) or rounds < 0:
            raise ValueError(f"rounds must be a whole number of rounds, 0 or more; got {rounds!r}.")
        rounds = int(rounds)
        model = make_model(rounds)
        if self.fine_tune != 0:
            raise ValueError(
                f"fine_tuned starts from a model trained with fine_tune=0; this one has fine_tune={self.fine_tune}. "
                "Train it with fine_tune=0, or with the rounds you want."
            )
        problem = model._training_problem(X, y, sample_weight, max_bins)
        if model.n_features_in_ != self.n_features_in_ or not np.array_equal(model.classes_, self.classes_):
            raise ValueError(
                "fine_tuned needs the data the model was trained on: these samples have other "
                "features or classes; pass the training data."
            )
        model._set_graph(fine_tune_graph(flat_from_graph(self.graph_), problem, rounds), problem)
        return model

    def predict_proba(self, X):
        """Class probabilities: the weighted class distribution of the training samples in each
        sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        leaves = self._leaves(X)  # checks first that the model is fitted
        return self.graph_.proba()[leaves]

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` for zero probabilities)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _predicted_at(self, leaves: np.ndarray) -> np.ndarray:
        # The class of each leaf, then each sample's leaf: no (n_samples, n_classes) array.
        return self.classes_.take(self.graph_.predicted_class()[leaves])


class GraphRegressorMixin(RegressorMixin, GraphModelMixin):
    """Prediction and introspection for a regressor whose fitted model is ``self.graph_``
    (a regression graph: the mean training target at each node)."""

    def _validate_training_data(self, X, y, sample_weight, max_bins: int = MAX_EXACT_BINS) -> RegressionProblem:
        """Float32 ``X``, float64 ``y`` and positive weights, samples of weight zero removed."""
        X, y = validate_data(self, X, y, dtype=(DTYPE, np.float64), y_numeric=True, ensure_all_finite="allow-nan")
        X = _within_float32(X)
        _check_missing_learnable(self, X)
        y = np.asarray(y, dtype=np.float64)
        if y.ndim != 1:
            y = np.ravel(y)
        w = _training_weights(sample_weight, X)
        keep = w > 0
        if not np.all(keep):
            X, y, w = X[keep], y[keep], w[keep]
        return RegressionProblem.standardised(
            np.ascontiguousarray(X, dtype=DTYPE), y, w, _seed(self.random_state), max_bins
        )

    def _set_graph(self, flat: FlatGraph, problem: RegressionProblem) -> None:
        """Store the fitted graph with the mean targets of the training data and derived attributes."""
        X, y, w = problem.X, problem.target, problem.w
        shape = DecisionGraph(
            flat.children_left,
            flat.children_right,
            flat.feature,
            flat.threshold,
            np.zeros((flat.node_count, 1)),
            regression=True,
            missing_go_to_left=flat.missing_go_to_left,
            missing_in_training=has_missing(X),
            **self._graph_categories(flat.category_left, flat.node_count),
        )
        self.graph_ = shape.with_regression_stats(X, y, w)
        self.n_splits_ = self.graph_.n_splits
        self.n_leaves_ = self.graph_.n_leaves
        self.feature_importances_ = self.graph_.regression_feature_importances(X, y, w, n_features=self.n_features_in_)

    def _predicted_at(self, leaves: np.ndarray) -> np.ndarray:
        return self.graph_.value[leaves, 0]


def graph_from_flat(
    flat: FlatGraph, X, y, w, n_classes: int, input_dtype=DTYPE, missing_in_training: bool = False
) -> DecisionGraph:
    """The :class:`DecisionGraph` of a flat graph, with the statistics of the samples ``(X, y, w)``
    (``missing_in_training`` as the graph's)."""
    return _shape(flat, n_classes, input_dtype, missing_in_training).with_training_stats(X, y, w)


def has_missing(X: np.ndarray) -> bool:
    """Whether the array ``X`` holds a missing value (NaN). A graph fitted to training data that does is
    ``missing_in_training``: every estimator's ``_set_graph`` asks this of the samples it learned from.

    Examples
    --------
    >>> has_missing(np.array([[1.0, np.nan]], dtype=np.float32)), has_missing(np.zeros((0, 2)))
    (True, False)
    """
    return bool(X.size) and bool(np.isnan(np.min(X)))


def _shape(
    flat: FlatGraph, n_classes: int, input_dtype=DTYPE, missing_in_training: bool = False, **categories
) -> DecisionGraph:
    """The splits of a flat graph as a :class:`DecisionGraph`, without statistics yet (``categories``:
    its ``categories`` and ``category_left`` when a feature is categorical)."""
    return DecisionGraph(
        flat.children_left,
        flat.children_right,
        flat.feature,
        flat.threshold,
        np.zeros((flat.node_count, n_classes)),
        input_dtype=input_dtype,
        missing_go_to_left=flat.missing_go_to_left,
        missing_in_training=missing_in_training,
        **categories,
    )


def flat_from_graph(graph: DecisionGraph) -> FlatGraph:
    """The :class:`FlatGraph` behind a fitted classification graph: its arrays, each leaf labelled
    with the first largest of its training class weights.

    That is the label TnT's growth gave the leaf: a micro tree's leaf takes the first largest class
    weight of the samples it holds, which are the samples reaching it once the pass is over (nodes
    are visited parents first), and a merge joins leaves of one label, whose summed weights keep it.
    """
    leaf = graph.children_left < 0
    category_left = None
    if graph.category_left is not None:  # as the learner keeps subsets: SUBSET_WORDS words a node
        category_left = np.zeros((graph.node_count, SUBSET_WORDS), dtype=np.uint64)
        category_left[:, : graph.category_left.shape[1]] = graph.category_left
    return FlatGraph(
        np.array(graph.children_left, dtype=np.intp),
        np.array(graph.children_right, dtype=np.intp),
        np.array(graph.feature, dtype=np.intp),
        np.array(graph.threshold, dtype=np.float64),
        np.where(leaf, np.argmax(graph.value, axis=1), -1).astype(np.intp),
        missing_go_to_left=None if graph.missing_go_to_left is None else graph.missing_go_to_left.copy(),
        category_left=category_left,
    )


def excluded_columns(excluded, n_features: int, feature_names=None) -> np.ndarray:
    """The column indices named by an estimator's ``excluded_features``: indices, or names of the
    columns of a data frame it is fitted on.

    Parameters
    ----------
    excluded : array-like of int or str, or None
    n_features : int
        Columns of the training data.
    feature_names : array-like of str, default=None
        Their names (``feature_names_in_``), when the data had names.

    Returns
    -------
    columns : ndarray of int
        Sorted, without repeats; empty for ``None``.

    Raises
    ------
    ValueError
        One sentence naming the entry that is not a column of the data.

    Examples
    --------
    >>> excluded_columns([2, 0, 2], 3).tolist()
    [0, 2]
    >>> excluded_columns(["b"], 2, feature_names=["a", "b"]).tolist()
    [1]
    >>> excluded_columns([5], 3)
    Traceback (most recent call last):
    ...
    ValueError: excluded_features names column 5, but X has 3 columns (0 to 2).
    """
    if excluded is None:
        return np.zeros(0, dtype=np.intp)
    names = None if feature_names is None else [str(n) for n in feature_names]
    columns = []
    for entry in np.asarray(excluded, dtype=object).ravel().tolist():
        if isinstance(entry, str):
            if names is None:
                raise ValueError(
                    f"excluded_features names the column {shown(entry)!r}, but X has no column names; "
                    "give column indices, or fit on a data frame."
                )
            if entry not in names:
                raise ValueError(f"excluded_features names the column {shown(entry)!r}, which X does not have.")
            columns.append(names.index(entry))
        elif isinstance(entry, Integral) and not isinstance(entry, bool):
            if not 0 <= entry < n_features:
                raise ValueError(
                    f"excluded_features names column {entry}, but X has {n_features} columns (0 to {n_features - 1})."
                )
            columns.append(int(entry))
        else:
            raise ValueError(
                f"excluded_features holds {shown(entry)}, which is neither a column index nor a column name."
            )
    return np.unique(np.asarray(columns, dtype=np.intp))


def _training_weights(sample_weight, X) -> np.ndarray:
    """The float64 training weight of each sample of ``X`` (1 when ``sample_weight`` is None), refusing
    negative weights and weights that are all zero, as every estimator of the project does.

    Examples
    --------
    >>> import numpy as np
    >>> _training_weights(None, np.zeros((2, 1))).tolist()
    [1.0, 1.0]
    >>> _training_weights([0, 0], np.zeros((2, 1)))
    Traceback (most recent call last):
    ...
    ValueError: Every sample has weight zero: there is nothing to learn from; give some samples a positive weight.
    """
    w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True, **_ZERO_WEIGHTS_OURS)
    if w.size and not np.any(w > 0):
        raise ValueError(
            "Every sample has weight zero: there is nothing to learn from; give some samples a positive weight."
        )
    return w


def _check_missing_learnable(model, X: np.ndarray) -> None:
    """Refuse, in one sentence, training data with missing values (NaN) for an estimator whose input
    tags do not declare ``allow_nan`` (every learner of the project declares it; a subclass may not)."""
    if not model.__sklearn_tags__().input_tags.allow_nan and has_missing(X):
        raise ValueError(
            f"X contains missing values (NaN), which {type(model).__name__} cannot learn from; fill them or "
            "drop the rows that have them."
        )


def _within_float32(X: np.ndarray) -> np.ndarray:
    """``X`` as float32, refusing finite values too large for float32 rather than turning them into infinity.

    Parameters
    ----------
    X : ndarray of float32 or float64, all values finite or missing (NaN)

    Returns
    -------
    X32 : ndarray of float32

    Raises
    ------
    ValueError
        When a value's magnitude exceeds float32's largest number (about 3.4e38). Values too small
        for float32 (below about 1.4e-45) become 0, as they do for scikit-learn's trees.

    Examples
    --------
    >>> import numpy as np
    >>> _within_float32(np.array([[1e-300, 2.5]])).tolist()
    [[0.0, 2.5]]
    >>> _within_float32(np.array([[1e300]]))
    Traceback (most recent call last):
    ...
    ValueError: X has values beyond the float32 range (|x| up to 1e+300 in feature 0, the limit is 3.4e+38): ...
    """
    if X.dtype == np.float64:
        _check_float32_range(X)
    return np.asarray(X, dtype=DTYPE)


def _check_float32_range(X: np.ndarray) -> None:
    """Raise a ValueError naming the feature of float64 ``X`` whose magnitude exceeds float32's range most."""
    if X.size:
        # Two reads of X, no copy of it; fmax and fmin pass over missing values.
        magnitude = np.fmax(np.fmax.reduce(X, axis=0), -np.fmin.reduce(X, axis=0))
        if np.fmax.reduce(magnitude) > _FLOAT32_MAX:
            feature = int(np.argmax(magnitude))
            raise ValueError(
                f"X has values beyond the float32 range (|x| up to {magnitude[feature]:.3g} in feature {feature}, "
                f"the limit is {_FLOAT32_MAX:.2g}): decision trees compare features as float32 numbers, "
                "so rescale that feature (for example to standard units or a logarithm) first."
            )


def _seed(random_state) -> int:
    """An int seed (the int itself, or one drawn from a generator): it orders the features TnT's micro
    trees try, and is passed unchanged to scikit-learn's tree by the CART baselines."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


__all__ = [
    "GraphClassifierMixin",
    "GraphModelMixin",
    "GraphRegressorMixin",
    "GrownGraphEstimator",
    "BaseEstimator",
    "DTYPE",
    "EXCLUDED_FEATURES",
    "excluded_columns",
    "graph_from_flat",
    "has_missing",
]
