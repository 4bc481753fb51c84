"""Model files: a fitted graph classifier or regressor as versioned JSON, and back, without pickle.

The file holds the estimator's kind (one of :data:`ESTIMATOR_KINDS`) and parameters, its classes
(JSON strings, integers, floats or booleans; ``null`` for a regressor, whose file says
``"task": "regression"``), feature names and the graph's arrays. A model edited by hand
(:mod:`tnt.editing`) is a ``HandEditedClassifier`` or ``HandEditedRegressor`` whose optional
``"edited"`` object records the model it was edited from and the edits, in order. Loading checks every part and
rejects a malformed or inconsistent file with one clear sentence; the structure checks (child ids
in range, topological order, which also rules out cycles, finite thresholds) are
:class:`~tnt.graph.DecisionGraph`'s own.

Version 2 stores where a missing value (NaN) goes at each split (``graph.missing_go_to_left``,
``null`` for a graph that knows nothing of missing values), whether it learned them from training
data with missing values (``graph.missing_in_training``, false when the key is absent) and writes a
test of missingness as a ``null`` threshold (JSON has no infinity). Files of version 1 still open:
their models have no directions, so they refuse NaN at prediction (:data:`tnt.graph.NO_DIRECTIONS`).

Version 3 adds categorical features: ``"categories"`` lists, per feature, its categories by name
(``null`` for a numeric feature; the key is ``null`` or absent when no feature is categorical), and
``graph.category_left`` the codes (positions in that list) each categorical split sends left
(``null`` at other nodes), its threshold written ``null``. Files of versions 1 and 2 still open.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, is_regressor
from sklearn.utils.validation import check_is_fitted

from tnt._base import GraphClassifierMixin, GraphRegressorMixin
from tnt._messages import shown
from tnt.graph import DecisionGraph
from tnt.learn.refit_guard import INTERNAL_REFITS

__all__ = [
    "ESTIMATOR_KINDS",
    "FORMAT",
    "HAND_EDITED",
    "MAX_BYTES",
    "READABLE_VERSIONS",
    "VERSION",
    "LoadedGraphModel",
    "LoadedGraphRegressor",
    "from_sklearn",
    "model_from_json",
    "model_to_json",
]

FORMAT = "tnt-explorer-model"
VERSION = 3
#: The versions this release reads: 1 (before missing values were supported), 2 (before categorical
#: features) and the one it writes.
READABLE_VERSIONS = (1, 2, VERSION)
#: Default size limit of a model file, in bytes.
MAX_BYTES = 50 * 1024 * 1024
#: The values of a model file's optional "refit_rule" (what ``internal_refit`` came to).
REFIT_RULES = tuple(rule for rule in INTERNAL_REFITS if rule != "auto")

_TOP_KEYS = ("format", "version", "estimator", "params", "classes", "n_features_in", "feature_names", "graph")
_GRAPH_INT_KEYS = ("children_left", "children_right", "feature", "n_node_samples")
_GRAPH_FLOAT_KEYS = ("threshold", "impurity")
_INPUT_DTYPES = ("float32", "float64")

#: Every kind of model a model file can hold (its ``"estimator"``, the class that was saved), with
#: its task: the project's estimators and the scikit-learn trees it converts. A new kind of model
#: the project saves gets its line here; a file naming anything else is refused.
ESTIMATOR_KINDS = {
    "TnTClassifier": "classification",
    "NDGClassifier": "classification",
    "CARTClassifier": "classification",
    "TAOClassifier": "classification",
    "DecisionTreeClassifier": "classification",
    "TnTRegressor": "regression",
    "CARTRegressor": "regression",
    "DecisionTreeRegressor": "regression",
    "HandEditedClassifier": "classification",
    "HandEditedRegressor": "regression",
}
#: The kinds of a model edited by hand, by task: their files must say what they were edited from.
HAND_EDITED = {"classification": "HandEditedClassifier", "regression": "HandEditedRegressor"}


class _Frozen:
    """A fitted model that nothing refits, as scikit-learn's ``sklearn.frozen.FrozenEstimator``:
    ``clone`` gives the model itself and ``fit`` leaves it as it is, so it can be a step of a
    ``Pipeline`` or be scored by ``cross_val_score`` as it was saved."""

    def __sklearn_clone__(self):
        return self

    def fit(self, X, y=None, *args, **kwargs):
        """Leave the model as it is (it was fitted before it was saved).

        Parameters
        ----------
        X, y, *args, **kwargs
            Ignored; accepted wherever scikit-learn calls ``fit``.

        Returns
        -------
        self
        """
        check_is_fitted(self)
        return self


class _LoadedGraph(_Frozen, BaseEstimator):
    """What a model read from a file is, whatever its task: a frozen graph estimator that also
    knows the kind and parameters of the estimator that was saved."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the graph's stored directions take them (a file of version 1 refuses them)
        return tags

    @classmethod
    def _holding(
        cls, graph: DecisionGraph, n_features: int, feature_names, kind: str, params: dict, classes=None, edited=None
    ):
        """A loaded model of this class with the given graph, features, saved kind and parameters,
        and, for a classifier, its classes; ``edited``, the record of a model edited by hand."""
        model = cls()
        if edited is not None:
            model.edit_record_ = edited
        model.graph_ = graph
        if classes is not None:
            model.classes_ = classes
            model.n_classes_ = int(classes.shape[0])
        model.n_features_in_ = int(n_features)
        if feature_names is not None:
            model.feature_names_in_ = np.asarray(feature_names, dtype=object)
        if graph.categories:
            model.categories_ = [graph.categories.get(f) for f in range(model.n_features_in_)]
        model.n_splits_ = graph.n_splits
        model.n_leaves_ = graph.n_leaves
        model.estimator_kind_ = kind
        model.estimator_params_ = params
        return model


class LoadedGraphModel(GraphClassifierMixin, _LoadedGraph):
    """A graph classifier read from a model file; it predicts exactly as the model that was saved and,
    like scikit-learn's ``FrozenEstimator``, is never refitted (``clone`` returns it, ``fit`` keeps it).

    Attributes
    ----------
    graph_ : DecisionGraph
    classes_ : ndarray of shape (n_classes,)
    n_classes_, n_features_in_, n_splits_, n_leaves_ : int
    feature_names_in_ : ndarray of str
        Defined only when the saved model had feature names.
    categories_ : list
        Defined only when the saved model has categorical features: per feature, a categorical
        feature's categories by name in the order of their codes (ndarray), None for a numeric one.
        ``predict`` reads those columns by name (:mod:`tnt.categorical`).
    estimator_kind_ : str
        Class name of the estimator that was saved (``"TnTClassifier"``, ``"CARTClassifier"``...).
    estimator_params_ : dict
        Its parameters, as saved.
    pruning_level_ : float
        Defined only when the saved model had one (TnT): the ``ccp_alpha`` its graph was pruned at,
        the parameter or the level ``ccp_alpha="auto"`` (0 when it kept ``C``), ``"held_out"`` or
        ``"held_out_regrown"`` chose.
    refit_rule_ : str
        Defined only when the saved model had one (TnT): the rule its internal nodes took refits by,
        ``"always"``, ``"improving"`` or ``"cost_complexity"``.
    edit_record_ : dict
        Defined only for a model edited by hand (``estimator_kind_`` ``"HandEditedClassifier"``):
        ``{"from": {"estimator", "params", "name"}, "edits": [...]}``, the model it was edited from and
        the edits (:class:`tnt.editing.Edit`), in order.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> from tnt.model_io import model_from_json, model_to_json
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    >>> loaded = model_from_json(model_to_json(clf))
    >>> bool((loaded.predict(X) == clf.predict(X)).all()), loaded.estimator_kind_
    (True, 'TnTClassifier')
    """


class LoadedGraphRegressor(GraphRegressorMixin, _LoadedGraph):
    """A graph regressor read from a model file; it predicts exactly as the model that was saved and,
    like scikit-learn's ``FrozenEstimator``, is never refitted (``clone`` returns it, ``fit`` keeps it).

    Attributes
    ----------
    graph_ : DecisionGraph
        A regression graph (mean training target at each node).
    estimator_kind_ : str
        Class name of the estimator that was saved (``"TnTRegressor"``, ``"DecisionTreeRegressor"``).
    n_features_in_, n_splits_, n_leaves_, feature_names_in_, categories_, estimator_params_, pruning_level_, refit_rule_ :
        As in :class:`LoadedGraphModel`.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from tnt import TnTRegressor
    >>> from tnt.model_io import model_from_json, model_to_json
    >>> X, y = make_friedman1(n_samples=200, random_state=0)
    >>> reg = TnTRegressor(C=1e-2, random_state=0).fit(X, y)
    >>> loaded = model_from_json(model_to_json(reg))
    >>> bool((loaded.predict(X) == reg.predict(X)).all()), loaded.estimator_kind_
    (True, 'TnTRegressor')
    """


def model_to_json(estimator, *, indent: int | None = None) -> str:
    """Serialise a fitted graph classifier or regressor (TnT, CART, TAO or a loaded model) to JSON text.

    A fitted scikit-learn ``DecisionTreeClassifier`` or ``DecisionTreeRegressor`` is accepted too: it is converted with
    :meth:`DecisionGraph.from_sklearn <tnt.graph.DecisionGraph.from_sklearn>`, and the loaded
    model predicts as the tree does.

    Parameters
    ----------
    estimator : fitted estimator with ``graph_`` (and ``classes_`` for a classifier), or a scikit-learn tree
    indent : int, default=None
        Indentation of the JSON text (compact when ``None``).

    Returns
    -------
    text : str

    Examples
    --------
    >>> import json
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> from tnt.model_io import model_to_json
    >>> X, y = load_iris(return_X_y=True)
    >>> doc = json.loads(model_to_json(CARTClassifier(max_leaf_nodes=3).fit(X, y)))
    >>> doc["format"], doc["version"], doc["estimator"], doc["classes"]
    ('tnt-explorer-model', 3, 'CARTClassifier', [0, 1, 2])
    """
    graph = estimator.graph_ if hasattr(estimator, "graph_") else _converted_tree(estimator)
    kind, params = _kind_and_params(estimator)
    if kind not in ESTIMATOR_KINDS:
        raise ValueError(
            f"{shown(kind)} is not a kind of model a model file holds ({', '.join(ESTIMATOR_KINDS)}); save one of those."
        )
    names = getattr(estimator, "feature_names_in_", None)
    categorical = graph.is_categorical
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": kind,
        "params": params,
        "classes": None if graph.regression else [_json_scalar(c) for c in estimator.classes_],
        "n_features_in": int(estimator.n_features_in_),
        "feature_names": None if names is None else [str(n) for n in names],
        "categories": _categories_to_json(graph, int(estimator.n_features_in_)),
        "graph": {
            "input_dtype": graph.input_dtype.name,
            "children_left": graph.children_left.tolist(),
            "children_right": graph.children_right.tolist(),
            "feature": graph.feature.tolist(),
            "threshold": [
                None if test or is_categorical else t
                for t, test, is_categorical in zip(graph.threshold.tolist(), graph.is_missing_test, categorical)
            ],
            "category_left": None
            if not categorical.any()
            else [graph.left_categories(node).tolist() if c else None for node, c in enumerate(categorical)],
            "missing_go_to_left": None if graph.missing_go_to_left is None else graph.missing_go_to_left.tolist(),
            "missing_in_training": graph.missing_in_training,
            "value": graph.value.tolist(),
            "n_node_samples": graph.n_node_samples.tolist(),
            "impurity": graph.impurity.tolist(),
        },
    }
    if graph.regression:
        doc["task"] = "regression"
    level = getattr(estimator, "pruning_level_", None)
    if level is not None:
        doc["pruning_level"] = float(level)
    rule = getattr(estimator, "refit_rule_", None)
    if rule is not None:
        doc["refit_rule"] = str(rule)
    edited = getattr(estimator, "edit_record_", None)
    if edited is not None:
        doc["edited"] = _read_edit_record(edited)
    if (kind in HAND_EDITED.values()) != (edited is not None):
        raise ValueError(f"A {kind} needs an edit record exactly when it was edited by hand.")
    return json.dumps(doc, indent=indent, allow_nan=False)


def model_from_json(text: str | bytes, *, max_bytes: int = MAX_BYTES) -> LoadedGraphModel:
    """Read a model file written by :func:`model_to_json`.

    Parameters
    ----------
    text : str or bytes
        The file's contents.
    max_bytes : int, default=50 MB
        Larger files are rejected before parsing.

    Returns
    -------
    model : LoadedGraphModel

    Raises
    ------
    ValueError
        With one sentence saying what is wrong, when the text is not a valid model file.

    Examples
    --------
    >>> from tnt.model_io import model_from_json
    >>> model_from_json('{"format": "something else"}')
    Traceback (most recent call last):
    ...
    ValueError: This is not a TnT Explorer model file (its "format" is not "tnt-explorer-model").
    """
    size = len(text.encode("utf-8") if isinstance(text, str) else text)
    if size > max_bytes:
        raise ValueError(f"The model file is {size} bytes, more than the limit of {max_bytes} bytes.")
    doc = _parse(text)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f'This is not a TnT Explorer model file (its "format" is not "{FORMAT}").')
    version = doc.get("version")
    if not _is_int(version) or version not in READABLE_VERSIONS:
        raise ValueError(
            f"Model file version {shown(version)} is not supported; this version reads "
            f"{', '.join(map(str, READABLE_VERSIONS[:-1]))} and {READABLE_VERSIONS[-1]}."
        )
    _require_keys(doc, _TOP_KEYS, "The model file")
    task = doc.get("task", "classification")
    if task not in ("classification", "regression"):
        raise ValueError('"task" must be "classification" or "regression".')
    regression = task == "regression"
    n_features = doc["n_features_in"]
    if not _is_int(n_features) or n_features < 1:
        raise ValueError('"n_features_in" must be a positive integer.')
    categories = _read_categories(doc.get("categories"), n_features) if version >= 3 else None
    graph = _read_graph(doc["graph"], regression, version, categories)
    if regression and doc["classes"] is not None:
        raise ValueError('A regression model file has "classes": null.')
    classes = None if regression else _read_classes(doc["classes"])
    if classes is not None and classes.shape[0] != graph.n_classes:
        raise ValueError(
            f"The model file lists {classes.shape[0]} classes but graph.value has {graph.n_classes} columns."
        )
    tested = graph.feature[~graph.is_leaf]
    if tested.size and tested.max() >= n_features:
        raise ValueError(f"The graph tests feature {tested.max()} but the model has only {n_features} features.")
    names = doc["feature_names"]
    if names is not None and (
        not isinstance(names, list) or len(names) != n_features or not all(isinstance(n, str) for n in names)
    ):
        raise ValueError(f'"feature_names" must be null or a list of {n_features} strings.')
    if not isinstance(doc["estimator"], str) or not isinstance(doc["params"], dict):
        raise ValueError('"estimator" must be a string and "params" an object.')
    _check_kind(doc["estimator"], task)
    _check_params(doc["params"], '"params"')
    edited = doc.get("edited")
    if (doc["estimator"] in HAND_EDITED.values()) != (edited is not None):
        raise ValueError(
            f'A model file has an "edited" record exactly when it holds a {" or ".join(HAND_EDITED.values())}.'
        )
    edited = None if edited is None else _read_edit_record(edited)
    level = doc.get("pruning_level")
    if level is not None and (not _is_number(level) or not 0 <= level < math.inf):
        raise ValueError('"pruning_level" must be a finite number of at least 0, or absent.')
    rule = doc.get("refit_rule")
    if rule is not None and rule not in REFIT_RULES:
        raise ValueError(f'"refit_rule" must be one of {", ".join(REFIT_RULES)}, or absent.')

    loaded = LoadedGraphRegressor if regression else LoadedGraphModel
    model = loaded._holding(graph, n_features, names, doc["estimator"], doc["params"], classes, edited)
    if level is not None:
        model.pruning_level_ = float(level)
    if rule is not None:
        model.refit_rule_ = rule
    return model


def from_sklearn(
    tree, *, feature_names=None, class_names=None, path=None, missing_in_training=None
) -> LoadedGraphModel | LoadedGraphRegressor:
    """A fitted scikit-learn ``DecisionTreeClassifier`` (or ``DecisionTreeRegressor``) as a model of
    this project, optionally written to a model file, so that any tree can be opened in the app or
    with ``tnt``.

    Parameters
    ----------
    tree : fitted sklearn.tree.DecisionTreeClassifier or DecisionTreeRegressor
        Single-output.
    feature_names : sequence of str, default=None
        Name of each feature; the tree's own ``feature_names_in_`` (set when it was fitted on a
        data frame) when omitted.
    class_names : sequence, default=None
        Labels to use instead of ``tree.classes_``, in the same order (strings, integers, floats
        or booleans); the loaded model predicts these.
    path : str or path-like, default=None
        Where to write the model file (the JSON of :func:`model_to_json`).
    missing_in_training : bool, default=None
        Whether the tree was trained on data with missing values, so that drawings say where
        they go (scikit-learn does not record it); when omitted, True only for a tree that tests
        missingness (:meth:`DecisionGraph.from_sklearn <tnt.graph.DecisionGraph.from_sklearn>`).

    Returns
    -------
    model : LoadedGraphModel or LoadedGraphRegressor
        Predicts as the tree does (mapped to ``class_names`` when given; a regressor has none).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from tnt.model_io import from_sklearn, model_from_json, model_to_json
    >>> data = load_iris(as_frame=True)  # a tree fitted on a data frame: the model reads columns by name
    >>> tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.data, data.target)
    >>> model = from_sklearn(tree, class_names=data.target_names)
    >>> model.predict(data.data.iloc[[0, 75, 149]]).tolist(), model.estimator_kind_
    (['setosa', 'versicolor', 'virginica'], 'DecisionTreeClassifier')
    >>> model_from_json(model_to_json(model)).feature_names_in_[0]
    'sepal length (cm)'
    """
    graph = _converted_tree(tree, missing_in_training)
    n_features = int(tree.n_features_in_)
    if feature_names is None and hasattr(tree, "feature_names_in_"):
        feature_names = tree.feature_names_in_
    if feature_names is not None:
        feature_names = [str(n) for n in feature_names]
        if len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names but the tree has {n_features} features.")
    if graph.regression:
        if class_names is not None:
            raise ValueError("A DecisionTreeRegressor has no classes: pass class_names=None.")
        loaded, classes = LoadedGraphRegressor, None
    else:
        classes = tree.classes_ if class_names is None else list(class_names)
        if len(classes) != graph.n_classes:
            raise ValueError(f"class_names has {len(classes)} names but the tree has {graph.n_classes} classes.")
        loaded, classes = LoadedGraphModel, _read_classes([_json_scalar(c) for c in classes])
    params = {k: _json_param(v) for k, v in tree.get_params().items()}
    model = loaded._holding(graph, n_features, feature_names, type(tree).__name__, params, classes)
    if path is not None:
        Path(path).write_text(model_to_json(model))
    return model


# ---------------------------------------------------------------------- writing helpers
def _kind_and_params(estimator) -> tuple[str, dict]:
    """The kind and the parameters a model file records of ``estimator`` (a loaded model: those it was read with)."""
    if isinstance(estimator, _LoadedGraph):
        return estimator.estimator_kind_, estimator.estimator_params_
    return type(estimator).__name__, {k: _json_param(v) for k, v in estimator.get_params().items()}


def _converted_tree(estimator, missing_in_training=None) -> DecisionGraph:
    if not hasattr(estimator, "tree_") or not (hasattr(estimator, "classes_") or is_regressor(estimator)):
        raise ValueError(
            f"{type(estimator).__name__} is not a fitted graph classifier or regressor, DecisionTreeClassifier or DecisionTreeRegressor."
        )
    return DecisionGraph.from_sklearn(estimator, missing_in_training)


def _json_scalar(value):
    """A class label as a JSON value (numpy scalars become Python ones)."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"Class label {value!r} cannot be stored in JSON.")
    if not isinstance(value, (str, int, float, bool)):
        raise ValueError(f"Class label {value!r} of type {type(value).__name__} cannot be stored in JSON.")
    return value


def _json_param(value):
    """A parameter as a JSON value (a list of column indices or names as a list); anything else (a
    RandomState, an estimator) as its repr."""
    value = value.item() if isinstance(value, np.generic) else value
    if value is None or isinstance(value, (str, int, bool)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) == 1:
        items = [_json_param(v) for v in np.asarray(value, dtype=object).tolist()]
        if all(isinstance(v, (str, int)) for v in items):
            return items
    return repr(value)


# ---------------------------------------------------------------------- reading helpers
def _parse(text):
    """The JSON document in ``text``, or a ValueError of one sentence (never a RecursionError)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:  # e.g. [[[[...]]]]: Python's parser recurses once per bracket
        raise ValueError("The model file nests brackets too deeply to be a model file.") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"The model file is not valid JSON (not UTF-8 text at byte {error.start}).") from None
    except json.JSONDecodeError as error:
        raise ValueError(
            f"The model file is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})."
        ) from None
    except ValueError as error:  # a constant such as NaN, or an integer of more than 4,300 digits
        message = str(error)
        if message.startswith("The model file"):
            raise
        raise ValueError("The model file holds a number too long to read.") from None


def _reject_constant(name):
    raise ValueError(f"The model file contains {name}, which is not a JSON number.")


def _require_keys(doc: dict, keys, where: str) -> None:
    missing = [k for k in keys if k not in doc]
    if missing:
        raise ValueError(f"{where} is missing the key(s) {', '.join(repr(k) for k in missing)}.")


def _is_int(v) -> bool:
    # Bounded so that any accepted integer fits numpy's int64.
    return isinstance(v, int) and not isinstance(v, bool) and -(2**62) < v < 2**62


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _all_integers(values: list) -> bool:
    """``all(map(_is_int, values))`` for parsed JSON, without a Python call per value (a model may
    have hundreds of thousands of nodes)."""
    return set(map(type, values)) <= {int} and (not values or _is_int(min(values)) and _is_int(max(values)))


def _all_numbers(values: list) -> bool:
    """``all(map(_is_number, values))`` for parsed JSON (where a number is an int or a float)."""
    return set(map(type, values)) <= {int, float}


def _array(graph: dict, key: str, check, kind: str, n_nodes: int) -> list:
    values = graph[key]
    if not isinstance(values, list) or not check(values):
        raise ValueError(f"graph.{key} must be a list of {kind}.")
    if len(values) != n_nodes:
        raise ValueError(f"graph.{key} has {len(values)} entries but the graph has {n_nodes} nodes.")
    return values


def _categories_to_json(graph: DecisionGraph, n_features: int):
    """The file's ``"categories"``: per feature its categories by name (null for a numeric
    feature), or null for a model without categorical features."""
    if not graph.categories:
        return None
    return [
        [_category_name(c) for c in graph.categories[f]] if f in graph.categories else None for f in range(n_features)
    ]


def _category_name(name):
    """A category's name as a JSON value: a string, or an integer for a column of integer codes."""
    name = name.item() if isinstance(name, np.generic) else name
    if isinstance(name, str) or (isinstance(name, int) and not isinstance(name, bool)):
        return name
    raise ValueError(
        f"The category {name!r} of type {type(name).__name__} cannot be stored in a model file; "
        "categories are text or integer codes."
    )


def _read_categories(categories, n_features: int) -> dict | None:
    """The ``"categories"`` of a file of version 3 as ``DecisionGraph.categories``."""
    if categories is None:
        return None
    if not isinstance(categories, list) or len(categories) != n_features:
        raise ValueError(f'"categories" must be null or a list of {n_features} entries, one per feature.')
    out = {}
    for f, names in enumerate(categories):
        if names is None:
            continue
        if (
            not isinstance(names, list)
            or not names
            or not (all(isinstance(n, str) for n in names) or _all_integers(names))
            or len(set(names)) != len(names)
        ):
            raise ValueError(
                f'"categories" of feature {f} must be null or a list of distinct names (all strings, or all integers).'
            )
        out[f] = names
    return out or None


def _read_category_left(graph: dict, categorical: np.ndarray) -> list | None:
    """``graph.category_left`` of a file of version 3: per node the codes sent left, None elsewhere."""
    subsets = graph.get("category_left")
    n_nodes = categorical.shape[0]
    if subsets is None:
        return None
    if not isinstance(subsets, list) or len(subsets) != n_nodes:
        raise ValueError(f"graph.category_left must be null or a list of {n_nodes} entries, one per node.")
    for node, codes in enumerate(subsets):
        if categorical[node] != (codes is not None):
            raise ValueError(
                f"graph.category_left of node {node} must be a list of codes exactly when the node splits on a "
                "categorical feature (null otherwise)."
            )
        if codes is not None and (
            not isinstance(codes, list)
            or not _all_integers(codes)
            or len(set(codes)) != len(codes)
            or min(codes, default=0) < 0
        ):
            raise ValueError(f"graph.category_left of node {node} must be a list of distinct non-negative integers.")
    return subsets


def _read_graph(graph, regression: bool = False, version: int = VERSION, categories=None) -> DecisionGraph:
    if not isinstance(graph, dict):
        raise ValueError('"graph" must be an object of arrays.')
    since_version_2 = ("missing_go_to_left",) if version >= 2 else ()
    _require_keys(graph, ("input_dtype", *_GRAPH_INT_KEYS, *_GRAPH_FLOAT_KEYS, "value", *since_version_2), '"graph"')
    left = graph["children_left"]
    if not isinstance(left, list) or not left:
        raise ValueError("graph.children_left must be a non-empty list of integers.")
    n = len(left)
    integer_keys = ("children_left", "children_right", "feature", "n_node_samples")
    arrays = {key: _array(graph, key, _all_integers, "integers", n) for key in integer_keys}
    arrays["impurity"] = _array(graph, "impurity", _all_numbers, "numbers", n)
    is_leaf = np.asarray(arrays["children_left"], dtype=np.int64) < 0
    feature = np.asarray(arrays["feature"], dtype=np.int64)
    categorical = ~is_leaf & np.isin(feature, list(categories or ()))
    category_left = _read_category_left(graph, categorical) if version >= 3 else None
    threshold, missing_go_to_left = _thresholds_and_directions(graph, is_leaf, version, categorical)
    value = _array(
        graph,
        "value",
        lambda rows: set(map(type, rows)) <= {list} and all(map(_all_numbers, rows)),
        "lists of numbers",
        n,
    )
    n_classes = len(value[0])
    if n_classes == 0 or any(len(row) != n_classes for row in value):
        raise ValueError("graph.value must have the same positive number of class columns in every row.")
    value = np.asarray(value, dtype=np.float64)
    if regression and (n_classes != 1 or not np.all(np.isfinite(value))):
        raise ValueError("graph.value of a regression model must hold one finite mean target per node.")
    if not regression and (not np.all(np.isfinite(value)) or np.any(value < 0)):
        raise ValueError("graph.value must hold finite, non-negative class counts.")
    if graph["input_dtype"] not in _INPUT_DTYPES:
        raise ValueError(f"graph.input_dtype must be one of {', '.join(_INPUT_DTYPES)}.")
    return DecisionGraph(
        children_left=np.asarray(arrays["children_left"], dtype=np.int64),
        children_right=np.asarray(arrays["children_right"], dtype=np.int64),
        feature=np.asarray(arrays["feature"], dtype=np.int64),
        threshold=threshold,
        value=value,
        n_node_samples=np.asarray(arrays["n_node_samples"], dtype=np.int64),
        impurity=np.asarray(arrays["impurity"], dtype=np.float64),
        input_dtype=np.dtype(graph["input_dtype"]),
        regression=regression,
        missing_go_to_left=missing_go_to_left,
        missing_in_training=_missing_in_training(graph, version),
        categories=categories,
        category_left=category_left,
    )


def _missing_in_training(graph: dict, version: int) -> bool:
    """``graph.missing_in_training`` of a file: a boolean, false when absent (and in version 1)."""
    learned = graph.get("missing_in_training", False) if version >= 2 else False
    if not isinstance(learned, bool):
        raise ValueError("graph.missing_in_training must be true or false.")
    return learned


def _is_param_value(v) -> bool:
    return v is None or isinstance(v, (str, int, float))


def _check_params(params, where: str) -> None:
    """Refuse parameters that are not strings, numbers, booleans, null or lists of strings and numbers."""
    if not isinstance(params, dict) or not all(
        _is_param_value(v) or (isinstance(v, list) and all(_is_param_value(i) and i is not None for i in v))
        for v in params.values()
    ):
        raise ValueError(
            f"{where} must map each parameter to a string, a number, a boolean, null or a list of strings and numbers."
        )


def _read_edit_record(record) -> dict:
    """The ``"edited"`` record of a model edited by hand, checked: the model it comes from
    (``"estimator"``, ``"params"``, ``"name"``) and the list of edits (objects of short values)."""
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("from"), dict)
        or not isinstance(record.get("edits"), list)
    ):
        raise ValueError('"edited" must be an object with "from" (the model edited) and "edits" (a list).')
    origin = record["from"]
    if not isinstance(origin.get("estimator"), str) or not isinstance(origin.get("name", ""), str):
        raise ValueError('"edited.from" must name the "estimator" edited, as text.')
    _check_params(origin.get("params", {}), '"edited.from.params"')
    for edit in record["edits"]:
        if (
            not isinstance(edit, dict)
            or not isinstance(edit.get("kind"), str)
            or not all(v is None or isinstance(v, (str, int)) for v in edit.values())
        ):
            raise ValueError('Each of "edited.edits" must be an object with a "kind" and whole numbers or text.')
    return {
        "from": {
            "estimator": origin["estimator"],
            "params": dict(origin.get("params", {})),
            "name": origin.get("name", ""),
        },
        "edits": [dict(edit) for edit in record["edits"]],
    }


def _thresholds_and_directions(
    graph: dict, is_leaf: np.ndarray, version: int, categorical: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The thresholds (``+inf`` where the file writes a test of missingness as ``null``, NaN at a
    categorical split, also written ``null``) and the directions of missing values (None in a file of
    version 1, or written ``null``)."""
    n_nodes = is_leaf.shape[0]
    if version < 2:
        return np.asarray(_array(graph, "threshold", _all_numbers, "numbers", n_nodes), dtype=np.float64), None
    written = _array(graph, "threshold", lambda t: set(map(type, t)) <= {int, float, type(None)}, "numbers", n_nodes)
    if np.any(categorical & np.array([t is not None for t in written], dtype=bool)):
        node = int(np.flatnonzero(categorical & np.array([t is not None for t in written]))[0])
        raise ValueError(f"Node {node} splits on a categorical feature; its threshold is written null.")
    tests_missing = np.array([t is None for t in written], dtype=bool) & ~categorical
    if np.any(tests_missing & is_leaf):
        node = int(np.flatnonzero(tests_missing & is_leaf)[0])
        raise ValueError(f"Leaf {node} has a null threshold; null marks a split that tests missingness.")
    threshold = np.array([np.inf if t is None else t for t in written], dtype=np.float64)
    threshold[categorical] = np.nan
    if not np.all(np.isfinite(threshold[~tests_missing & ~categorical])):
        node = int(np.flatnonzero(~np.isfinite(threshold) & ~tests_missing & ~categorical)[0])
        raise ValueError(
            f"Node {node} has a threshold that is not a finite number; a test of missingness is written null."
        )
    directions = graph["missing_go_to_left"]
    if directions is None:
        if categorical.any():
            raise ValueError(
                "graph.missing_go_to_left is null but the graph has categorical splits, which send missing "
                "values and unseen categories where it says."
            )
        if tests_missing.any():
            raise ValueError(
                "graph.threshold is null (a test of missingness) but graph.missing_go_to_left is null; "
                "a test of missingness needs a direction for missing values."
            )
        return threshold, None
    directions = _array(
        graph, "missing_go_to_left", lambda d: _all_integers(d) and set(d) <= {0, 1}, "0s and 1s", n_nodes
    )
    directions = np.asarray(directions, dtype=np.uint8)
    if np.any(directions[tests_missing] != 0):
        node = int(np.flatnonzero(tests_missing & (directions != 0))[0])
        raise ValueError(
            f"Node {node} tests whether its feature is missing (threshold null), which sends missing values "
            "right: its missing_go_to_left must be 0."
        )
    return threshold, directions


def _check_kind(kind: str, task: str) -> None:
    """Refuse an ``"estimator"`` this project cannot have written, or one of the other task."""
    if kind not in ESTIMATOR_KINDS:
        raise ValueError(
            f'The model file\'s "estimator" is {shown(kind)!r}, which this project never writes; '
            f"a model file holds one of {', '.join(ESTIMATOR_KINDS)}."
        )
    if ESTIMATOR_KINDS[kind] != task:
        raise ValueError(f'The model file holds a {kind}, a {ESTIMATOR_KINDS[kind]} model, but its "task" is {task}.')


def _read_classes(classes) -> np.ndarray:
    if not isinstance(classes, list) or not classes:
        raise ValueError('"classes" must be a non-empty list.')
    if all(isinstance(c, str) for c in classes):
        array = np.asarray(classes, dtype=str)
    elif all(isinstance(c, bool) for c in classes):
        array = np.asarray(classes, dtype=bool)
    elif all(_is_int(c) for c in classes):
        array = np.asarray(classes, dtype=np.int64)
    elif all(_is_number(c) for c in classes):
        array = np.asarray(classes, dtype=np.float64)
    else:
        raise ValueError('"classes" must all be strings, all numbers or all booleans.')
    if np.unique(array).shape[0] != array.shape[0]:
        raise ValueError('"classes" must not repeat a class.')
    return array
