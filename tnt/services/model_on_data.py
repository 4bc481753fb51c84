"""A model file opened against a data set: does the data fit the model, and what does it say then.

A model file (:mod:`tnt.model_io`) may come from anywhere: ``tnt train``, the app's downloads, a
scikit-learn tree converted with :func:`tnt.model_io.from_sklearn`. Its drawing and node details
need only the file; a sample's path, the accuracy, per-edge sample counts and graph reduction
need a data set whose columns and classes are the model's. :func:`match_data` checks that and
says in one sentence what is missing when they are not.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from tnt.categorical import subset_bits
from tnt.data.datasets import Dataset
from tnt.graph import DecisionGraph
from tnt.model_io import MAX_BYTES, LoadedGraphModel, model_from_json

__all__ = [
    "DataMatch",
    "OpenedModel",
    "in_data_codes",
    "match_data",
    "open_model_file",
    "opened_metrics",
    "reduction_summary",
]

_LISTED = 4  # names quoted in a message


@dataclass(frozen=True, eq=False)
class OpenedModel:
    """A model read from a file, and the file's name."""

    name: str
    model: LoadedGraphModel


@dataclass(frozen=True, eq=False)
class DataMatch:
    """A model against a data set: ``model`` predicts the data set's own labels when ``problem`` is
    None; otherwise ``model`` is None and ``problem`` says, in one sentence, what does not match."""

    model: LoadedGraphModel | None
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def open_model_file(content: bytes, name: str) -> OpenedModel:
    """Read an uploaded model file, checked as ``tnt`` checks it (same size limit, same messages).

    Raises
    ------
    ValueError
        One sentence saying what is wrong with the file.

    Examples
    --------
    >>> open_model_file(b"[1, 2]", "list.json")
    Traceback (most recent call last):
    ...
    ValueError: This is not a TnT Explorer model file (its "format" is not "tnt-explorer-model").
    """
    return OpenedModel(name=str(name), model=model_from_json(content, max_bytes=MAX_BYTES))


def _listed(names) -> str:
    names = [str(n) for n in names]
    return ", ".join(names[:_LISTED]) + (", ..." if len(names) > _LISTED else "")


def match_data(model: LoadedGraphModel, data: Dataset) -> DataMatch:
    """Check that ``data`` has the model's feature columns and classes (or, for a regression model,
    that ``data`` is a regression too).

    Columns match when their number is the model's and, if the file names its features, their
    names are the file's, in the same order; data with missing values need a model that stores where
    they go (not one from a file of version 1). Classes match when every class of the model is a
    class of the data (compared as text, so a file's ``"3"`` is the data's ``3``); the model
    returned then predicts the data's labels.

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> from tnt.model_io import from_sklearn
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> iris, wine = load_bundled("iris"), load_bundled("wine")
    >>> tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(iris.X_train, iris.y_train)
    >>> model = from_sklearn(tree, feature_names=iris.feature_names)
    >>> match_data(model, iris).ok
    True
    >>> print(match_data(model, wine).problem)  # doctest: +ELLIPSIS
    The model needs 4 feature columns (sepal length (cm), ...); the data in use, Wine, has 13.
    """
    names = getattr(model, "feature_names_in_", None)
    n = int(model.n_features_in_)
    if names is not None:
        described = f" ({_listed(names)})"
    else:
        described = ""
    if data.n_features != n:
        return DataMatch(
            None,
            f"The model needs {n} feature columns{described}; the data in use, {data.name}, has {data.n_features}.",
        )
    if names is not None and [str(x) for x in names] != [str(x) for x in data.feature_names]:
        differ = [i for i in range(n) if str(names[i]) != str(data.feature_names[i])]
        i = differ[0]
        return DataMatch(
            None,
            f"The model's feature columns have other names than those of the data in use, {data.name} "
            f"({len(differ)} differ; column {i + 1} is '{names[i]}' in the model, '{data.feature_names[i]}' in the data).",
        )
    for f in sorted(model.graph_.categories or ()):
        name = str(data.feature_names[f])
        if name not in data.categorical:
            return DataMatch(
                None,
                f"The model reads '{name}' as categories, by name, and the data in use, {data.name}, has it as "
                "numbers; tick it among the categorical columns on the Data page.",
            )
    if model.graph_.missing_go_to_left is None and any(np.isnan(X).any() for X in (data.X_train, data.X_test)):
        return DataMatch(
            None,
            f"The model was saved before missing values were supported, and the data in use, {data.name}, has "
            "missing values; retrain the model, or load the data with 'Drop rows with missing values'.",
        )
    regression = bool(model.graph_.regression)
    if regression != data.is_regression:
        kinds = (
            ("a regression (it predicts numbers)", "a classification")
            if regression
            else ("a classifier", "a regression (a numeric target)")
        )
        return DataMatch(
            None,
            f"The model is {kinds[0]}, and the data in use, {data.name}, is {kinds[1]}; load data of the model's "
            "kind on the Data page.",
        )
    if model.graph_.categories:
        model = copy.copy(model)
        model.graph_ = in_data_codes(
            model.graph_, {f: data.categories[data.feature_names[f]] for f in model.graph_.categories}
        )
    if regression:
        return DataMatch(model, None)
    by_text = {str(c): c for c in data.classes}
    missing = [str(c) for c in model.classes_ if str(c) not in by_text]
    if missing:
        return DataMatch(
            None,
            f"The model predicts classes that the data in use, {data.name}, does not have ({_listed(missing)}; "
            f"the data's classes are {_listed(data.class_names)}).",
        )
    aligned = copy.copy(model)
    aligned.classes_ = np.asarray([by_text[str(c)] for c in model.classes_], dtype=np.asarray(data.classes).dtype)
    return DataMatch(aligned, None)


def in_data_codes(graph: DecisionGraph, categories: dict) -> DecisionGraph:
    """``graph`` reading the codes of a data set whose categorical feature ``f`` has the categories
    ``categories[f]`` (matched by name, as text): the data's categories first, in its order, then
    those only the graph knows; a category only the data has goes where the graph sends a missing
    value (as the model routes a category unseen in training). The graph itself when the
    categories are already the data's.

    Examples
    --------
    >>> from tnt.categorical import subset_codes
    >>> g = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [np.nan, -2, -2], [[2, 2], [2, 0], [0, 2]],
    ...                   missing_go_to_left=[0, 0, 0], categories={0: ["blue", "red"]}, category_left=[[0], None, None])
    >>> h = in_data_codes(g, {0: ("green", "red", "blue")})
    >>> h.categories[0].tolist(), subset_codes(h.category_left[0]).tolist()
    (['green', 'red', 'blue'], [2])
    """
    if all([str(c) for c in graph.categories[f]] == [str(c) for c in categories[f]] for f in graph.categories):
        return graph
    renamed = {}
    for f, own in graph.categories.items():
        theirs = [str(c) for c in categories[f]]
        renamed[f] = list(categories[f]) + [c for c in own.tolist() if str(c) not in theirs]
    n_words = max(1, -(-max(len(names) for names in renamed.values()) // 64))
    bits = np.zeros((graph.node_count, n_words), dtype=np.uint64)
    missing_left = graph.missing_go_to_left
    for node in np.flatnonzero(graph.is_categorical):
        f = int(graph.feature[node])
        own = [str(c) for c in graph.categories[f].tolist()]
        left = {own[code] for code in graph.left_categories(node).tolist()}
        unseen_left = missing_left is not None and bool(missing_left[node])
        codes = [j for j, name in enumerate(map(str, renamed[f])) if name in left or (name not in own and unseen_left)]
        bits[node] = subset_bits(codes, n_words)
    recoded = graph.copy()
    recoded.categories = {f: np.asarray(names, dtype=object) for f, names in renamed.items()}
    recoded.category_left = bits
    return recoded


def opened_metrics(model, data: Dataset) -> dict:
    """The measures the app shows for a trained model (:func:`tnt.services.training.metrics`),
    for a model that matches ``data``; its fit time is unknown (NaN)."""
    from tnt.services.training import metrics

    return metrics(model, data, float("nan"))


def reduction_summary(model, reduced, data: Dataset) -> dict:
    """What graph reduction (:func:`tnt.reduction.reduce_model` on ``data``'s training part) saved,
    and a check that it changed no training prediction.

    Returns
    -------
    summary : dict
        ``splits``, ``leaves``, ``shared_nodes`` and ``test_accuracy`` before, the same with
        ``_after`` after, and ``training_predictions_kept`` (bool).
    """
    X_train, X_test = data.model_input(data.X_train, model), data.model_input(data.X_test, model)
    same = bool(np.array_equal(model.predict(X_train), reduced.predict(X_train)))
    return {
        "splits": int(model.n_splits_),
        "splits_after": int(reduced.n_splits_),
        "leaves": int(model.n_leaves_),
        "leaves_after": int(reduced.n_leaves_),
        "shared_nodes": int(model.n_shared_nodes_),
        "shared_nodes_after": int(reduced.n_shared_nodes_),
        "test_accuracy": float(model.score(X_test, data.y_test)),
        "test_accuracy_after": float(reduced.score(X_test, data.y_test)),
        "training_predictions_kept": same,
    }
