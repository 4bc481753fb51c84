"""Model files: exact round trips, no pickle, and a clear error for each kind of broken file."""

import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from tnt import CARTClassifier, DecisionGraph, NDGClassifier, TAOClassifier, TnTClassifier, TnTRegressor
from tnt.model_io import HAND_EDITED, LoadedGraphModel, model_from_json, model_to_json


def assert_predicts_identically(original, loaded, X):
    assert np.array_equal(loaded.predict(X), original.predict(X))
    assert np.array_equal(loaded.predict_proba(X), original.predict_proba(X))
    assert np.array_equal(loaded.apply(X), original.apply(X))
    assert np.array_equal(loaded.decision_path(X).toarray(), original.decision_path(X).toarray())
    assert np.array_equal(loaded.classes_, original.classes_)
    assert loaded.graph_ == original.graph_
    assert np.array_equal(loaded.graph_.n_node_samples, original.graph_.n_node_samples)
    assert np.array_equal(loaded.graph_.impurity, original.graph_.impurity)
    assert (loaded.n_splits_, loaded.n_leaves_, loaded.n_features_in_) == (
        original.n_splits_,
        original.n_leaves_,
        original.n_features_in_,
    )


def test_tnt_round_trip_predicts_identically(optdigits):
    X, y, X_test, _ = optdigits
    clf = TnTClassifier(C=3e-3, N1=2, N2=2, random_state=0).fit(X, y)
    assert clf.n_shared_nodes_ > 0
    loaded = model_from_json(model_to_json(clf))
    assert isinstance(loaded, LoadedGraphModel)
    assert_predicts_identically(clf, loaded, X_test)
    assert loaded.estimator_kind_ == "TnTClassifier"
    assert loaded.estimator_params_ == {
        "C": 3e-3,
        "N1": 2,
        "N2": 2,
        "fine_tune": 0,
        "random_state": 0,
        "n_jobs": None,
        "max_bins": 65535,
        "excluded_features": None,
        "validation_fraction": None,
        "internal_refit": "auto",
        "ccp_alpha": "auto",
        "categorical_features": "from_dtype",
        "min_category_samples": 1,
    }
    assert model_to_json(loaded) == model_to_json(clf)  # a loaded model saves to the same file


@pytest.mark.parametrize(
    "estimator",
    [
        CARTClassifier(max_leaf_nodes=40, random_state=0),
        TAOClassifier(max_leaf_nodes=20),
        NDGClassifier(random_state=0),
    ],
)
def test_converted_cart_round_trip_predicts_identically(pendigits, estimator):
    X, y, X_test, _ = pendigits
    clf = estimator.fit(X, y)
    assert_predicts_identically(clf, model_from_json(model_to_json(clf, indent=1)), X_test)


def test_scikit_learn_tree_converts_and_predicts_like_the_tree(pendigits):
    X, y, X_test, _ = pendigits
    tree = DecisionTreeClassifier(max_leaf_nodes=60, random_state=0).fit(X, y)
    loaded = model_from_json(model_to_json(tree))
    assert loaded.estimator_kind_ == "DecisionTreeClassifier" and loaded.estimator_params_["max_leaf_nodes"] == 60
    assert np.array_equal(loaded.predict(X_test), tree.predict(X_test))
    assert np.array_equal(loaded.apply(X_test), tree.apply(X_test))
    np.testing.assert_allclose(loaded.predict_proba(X_test), tree.predict_proba(X_test), rtol=0, atol=1e-12)


def test_unfitted_or_foreign_estimators_are_refused():
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(ValueError, match="LogisticRegression is not a fitted graph classifier"):
        model_to_json(LogisticRegression())


def test_string_classes_and_feature_names_survive(optdigits):
    X, y, X_test, _ = optdigits
    names = [f"pixel {i}" for i in range(X.shape[1])]
    labels = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])[y]
    clf = TnTClassifier(C=1e-2, N2=1, random_state=0).fit(pd.DataFrame(X, columns=names), labels)
    loaded = model_from_json(model_to_json(clf))
    assert loaded.feature_names_in_.tolist() == names
    frame = pd.DataFrame(X_test, columns=names)
    assert np.array_equal(loaded.predict(frame), clf.predict(frame))
    assert loaded.predict(frame).dtype.kind == "U"


@pytest.mark.parametrize("labels", [np.array([1.0, 2.0]), np.array([False, True]), np.array([-3, 7])])
def test_float_bool_and_int_classes_survive(labels):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    clf = CARTClassifier().fit(X, labels[[0, 0, 1, 1]])
    loaded = model_from_json(model_to_json(clf))
    assert loaded.classes_.tolist() == labels.tolist()
    assert loaded.predict(X).tolist() == clf.predict(X).tolist()


def test_loading_never_unpickles(monkeypatch, toy_model_json):
    def refuse(*args, **kwargs):
        raise AssertionError("pickle must not be used")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(np, "load", refuse)
    assert model_from_json(toy_model_json).n_splits_ == 1


@pytest.fixture(scope="module")
def loaded_pair():
    """A loaded classifier and a loaded regressor, each with data it was trained on."""
    from sklearn.datasets import load_iris, make_friedman1

    from tnt import TnTRegressor

    X, y = load_iris(return_X_y=True)
    Xr, yr = make_friedman1(n_samples=200, random_state=0)
    classifier = model_from_json(model_to_json(TnTClassifier(C=1e-2, random_state=0).fit(X, y)))
    regressor = model_from_json(model_to_json(TnTRegressor(C=1e-2, random_state=0).fit(Xr, yr)))
    return [(classifier, X, y), (regressor, Xr, yr)]


@pytest.mark.parametrize("which", [0, 1], ids=["classifier", "regressor"])
def test_a_clone_of_a_loaded_model_keeps_the_model(loaded_pair, which):
    """As scikit-learn's FrozenEstimator: clone returns the fitted model, not an empty copy."""
    from sklearn.base import clone

    model, X, _ = loaded_pair[which]
    copy = clone(model)
    assert np.array_equal(copy.predict(X), model.predict(X))
    assert copy.graph_ == model.graph_


@pytest.mark.parametrize("which", [0, 1], ids=["classifier", "regressor"])
def test_fit_leaves_a_loaded_model_as_it_is(loaded_pair, which):
    model, X, y = loaded_pair[which]
    before = model_to_json(model)
    rng = np.random.default_rng(0)
    other_y = rng.permutation(y)  # labels it would learn something else from
    assert model.fit(X, other_y, sample_weight=np.ones(len(y))) is model
    assert model_to_json(model) == before


@pytest.mark.parametrize("which", [0, 1], ids=["classifier", "regressor"])
def test_a_loaded_model_is_a_frozen_step_of_a_pipeline_in_cross_validation(loaded_pair, which):
    """Cross-validation refits nothing: each fold scores the saved model on that fold's test part."""
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    model, X, y = loaded_pair[which]
    pipeline = make_pipeline(FunctionTransformer(), model)
    folds = KFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(pipeline, X, y, cv=folds)
    expected = [model.score(X[test], y[test]) for _, test in folds.split(X)]
    np.testing.assert_array_equal(scores, expected)


@pytest.fixture
def toy_model_json():
    return model_to_json(CARTClassifier().fit([[0.0], [1.0]], ["a", "b"]))


def make_cycle(doc):
    graph = doc["graph"]
    graph["children_left"], graph["children_right"] = [1, 0, -1], [2, 2, -1]  # node 1 points back to 0
    graph["feature"], graph["threshold"] = [0, 0, -2], [0.5, 0.5, -2.0]


def edit_graph(**arrays):
    return lambda doc: doc["graph"].update(arrays)


def drop(*path):
    def edit(doc):
        for key in path[:-1]:
            doc = doc[key]
        del doc[path[-1]]

    return edit


def put(key, value):
    return lambda doc: doc.__setitem__(key, value)


# The toy model's graph: node 0 splits feature 0, leaves 1 and 2; classes "a" and "b".
MALFORMED = {
    "wrong format": (put("format", "sklearn-pickle"), "not a TnT Explorer model file"),
    "wrong version": (put("version", 4), "version 4 is not supported; this version reads 1, 2 and 3"),
    "no directions key": (
        drop("graph", "missing_go_to_left"),
        "\"graph\" is missing the key\\(s\\) 'missing_go_to_left'",
    ),
    "direction not 0 or 1": (
        edit_graph(missing_go_to_left=[2, 0, 0]),
        "missing_go_to_left must be a list of 0s and 1s",
    ),
    "direction a boolean": (edit_graph(missing_go_to_left=[True, 0, 0]), "list of 0s and 1s"),
    "directions of a list": (edit_graph(missing_go_to_left=[[1], 0, 0]), "0s and 1s"),
    "null threshold at a leaf": (edit_graph(threshold=[0.5, None, -2]), "Leaf 1 has a null threshold"),
    "missingness test without directions": (
        edit_graph(threshold=[None, -2, -2], missing_go_to_left=None),
        "a test of missingness needs a direction",
    ),
    "missingness test sending missing left": (
        edit_graph(threshold=[None, -2, -2], missing_go_to_left=[1, 0, 0]),
        "Node 0 tests whether its feature is missing .* must be 0",
    ),
    "leaf sending missing left": (edit_graph(missing_go_to_left=[0, 1, 0]), "Leaf 1 has missing_go_to_left 1"),
    "missing key": (drop("classes"), "missing the key\\(s\\) 'classes'"),
    "missing graph array": (drop("graph", "threshold"), "\"graph\" is missing the key\\(s\\) 'threshold'"),
    "wrong array length": (edit_graph(feature=[0, -2]), "graph.feature has 2 entries but the graph has 3 nodes"),
    "float child id": (edit_graph(children_left=[1.5, -1, -1]), "children_left must be a list of integers"),
    "bool count": (edit_graph(n_node_samples=[True, 1, 1]), "n_node_samples must be a list of integers"),
    "huge feature id": (edit_graph(feature=[2**70, -2, -2]), "graph.feature must be a list of integers"),
    "bool threshold": (edit_graph(threshold=[False, -2, -2]), "threshold must be a list of numbers"),
    "text in value": (edit_graph(value=[[1, "1"], [1, 0], [0, 1]]), "value must be a list of lists of numbers"),
    "child id out of range": (edit_graph(children_right=[7, -1, -1]), "right child id out of range"),
    "cycle": (make_cycle, "topological order, which also rules out cycles"),
    "one child": (edit_graph(children_right=[2, 2, -1]), "exactly one child"),
    "class count": (put("classes", ["a", "b", "c"]), "lists 3 classes but graph.value has 2 columns"),
    "ragged value": (edit_graph(value=[[1, 1], [1], [0, 1]]), "same positive number of class columns"),
    "negative count": (edit_graph(value=[[1, 1], [-1, 0], [0, 1]]), "finite, non-negative class counts"),
    "feature out of range": (edit_graph(feature=[3, -2, -2]), "tests feature 3 but the model has only 1 features"),
    "feature names": (put("feature_names", ["a", "b"]), "list of 1 strings"),
    "mixed classes": (put("classes", ["a", 1]), "must all be strings, all numbers or all booleans"),
    "repeated class": (put("classes", ["a", "a"]), "must not repeat a class"),
    "bad dtype": (edit_graph(input_dtype="object"), "input_dtype must be one of"),
    "negative pruning level": (put("pruning_level", -1e-3), '"pruning_level" must be a finite number of at least 0'),
    "text pruning level": (put("pruning_level", "0.01"), 'pruning_level" must be a finite number'),
    "unknown refit rule": (put("refit_rule", "auto"), '"refit_rule" must be one of always, improving, cost_complexity'),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_each_malformed_file_is_rejected_with_its_own_message(toy_model_json, case):
    edit, message = MALFORMED[case]
    doc = json.loads(toy_model_json)
    edit(doc)
    with pytest.raises(ValueError, match=message):
        model_from_json(json.dumps(doc))


def test_messages_are_distinct():
    assert len({message for _, message in MALFORMED.values()}) == len(MALFORMED)


def test_not_json_and_nan_and_size_limit_are_rejected(toy_model_json):
    with pytest.raises(ValueError, match="not valid JSON"):
        model_from_json("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        model_from_json(b"\xff\xfe garbage")
    with pytest.raises(ValueError, match="not a TnT Explorer model file"):
        model_from_json("[1, 2]")
    with pytest.raises(ValueError, match="contains NaN, which is not a JSON number"):
        model_from_json(toy_model_json.replace('"threshold": [', '"threshold": [NaN, '))
    with pytest.raises(ValueError, match="more than the limit of 100 bytes"):
        model_from_json(toy_model_json, max_bytes=100)
    overflowing = toy_model_json.replace('"threshold": [0.5,', '"threshold": [1e999,')
    assert overflowing != toy_model_json
    with pytest.raises(ValueError, match="threshold that is not a finite number"):
        model_from_json(overflowing)  # 1e999 is valid JSON but parses to infinity
    assert model_from_json(toy_model_json.encode()).classes_.tolist() == ["a", "b"]


# ---------------------------------------------------------------------- the kinds of model a file holds
def _with_estimator(text: str, kind, task=None) -> str:
    doc = json.loads(text)
    doc["estimator"] = kind
    if task is not None:
        doc["task"] = task
    return json.dumps(doc)


@pytest.mark.parametrize("kind", ["LogisticRegression", "tnTClassifier", "os.system", "", "TnTClassifier "])
def test_a_file_naming_a_kind_of_model_the_project_never_writes_is_refused(toy_model_json, kind):
    with pytest.raises(ValueError, match=r"^The model file's \"estimator\" is .*, which this project never writes; a"):
        model_from_json(_with_estimator(toy_model_json, kind))


def test_a_file_whose_kind_belongs_to_the_other_task_is_refused(toy_model_json):
    with pytest.raises(
        ValueError, match=r"holds a TnTRegressor, a regression model, but its \"task\" is classification"
    ):
        model_from_json(_with_estimator(toy_model_json, "TnTRegressor"))


def test_every_estimator_the_project_ships_and_the_trees_it_converts_are_kinds_a_file_holds():
    """The one list (``ESTIMATOR_KINDS``) names every graph estimator of ``tnt`` with its task, so a
    new estimator fails here until it has its line there."""
    import importlib
    import pkgutil

    import tnt
    from tnt._base import GraphClassifierMixin, GraphModelMixin, GraphRegressorMixin
    from tnt.model_io import ESTIMATOR_KINDS, LoadedGraphRegressor

    for module in pkgutil.walk_packages(tnt.__path__, "tnt."):
        if not module.name.startswith(("tnt.warmup", "tnt.cli")):
            importlib.import_module(module.name)

    def every_subclass(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every_subclass(sub)

    loaded = {LoadedGraphModel, LoadedGraphRegressor}  # they save the kind they were read as
    shipped = {
        cls.__name__: "regression" if issubclass(cls, GraphRegressorMixin) else "classification"
        for cls in every_subclass(GraphModelMixin)
        if cls.__module__.startswith("tnt.")
        and not cls.__name__.startswith("_")
        and cls not in loaded
        and cls not in (GraphClassifierMixin, GraphRegressorMixin)
    }
    shipped.update(DecisionTreeClassifier="classification", DecisionTreeRegressor="regression")
    shipped.update({kind: task for task, kind in HAND_EDITED.items()})  # models edited by hand (tnt.editing)
    assert shipped == ESTIMATOR_KINDS


def test_every_kind_saved_is_read_back():
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from tnt.baselines import CARTRegressor
    from tnt.editing import GraphEditor
    from tnt.model_io import ESTIMATOR_KINDS

    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    models = [
        TnTClassifier(),
        NDGClassifier(),
        CARTClassifier(),
        TAOClassifier(),
        DecisionTreeClassifier(),
        TnTRegressor(),
        CARTRegressor(),
        DecisionTreeRegressor(),
    ]
    fitted = [m.fit(X, y) for m in models]
    edited = [GraphEditor(m, X, y).edited_model() for m in (fitted[0], fitted[5])]
    kinds = {model_from_json(model_to_json(m)).estimator_kind_ for m in fitted + edited}
    assert kinds == set(ESTIMATOR_KINDS)


def test_a_subclass_the_format_does_not_know_is_not_written():
    class MyTnT(TnTClassifier):
        pass

    with pytest.raises(ValueError, match=r"^MyTnT is not a kind of model a model file holds \(TnTClassifier, "):
        model_to_json(MyTnT().fit([[0.0], [1.0]], [0, 1]))


def test_a_loaded_model_whose_kind_was_changed_is_not_written(toy_model_json):
    loaded = model_from_json(toy_model_json)
    loaded.estimator_kind_ = "Evil\nClassifier"
    with pytest.raises(ValueError, match=r"^Evil\\nClassifier is not a kind of model a model file holds"):
        model_to_json(loaded)


# ---------------------------------------------------------------------- models edited by hand
@pytest.fixture(scope="module")
def edited_doc():
    from tnt.editing import GraphEditor

    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    editor = GraphEditor(CARTClassifier().fit(X, y), X, y, name="CART on four points")
    editor.collapse(0)
    return json.loads(model_to_json(editor.edited_model()))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda doc: doc.pop("edited"),
            r'^A model file has an "edited" record exactly when it holds a HandEditedClassifier',
        ),
        (lambda doc: doc.update(estimator="CARTClassifier"), r'^A model file has an "edited" record exactly when'),
        (
            lambda doc: doc.update(edited=[]),
            r'^"edited" must be an object with "from" \(the model edited\) and "edits"',
        ),
        (
            lambda doc: doc["edited"]["from"].update(estimator=3),
            r'^"edited.from" must name the "estimator" edited, as text\.$',
        ),
        (lambda doc: doc["edited"]["from"].update(params={"C": {}}), r'^"edited.from.params" must map each parameter'),
        (
            lambda doc: doc["edited"]["edits"].append({"node": 1}),
            r'^Each of "edited.edits" must be an object with a "kind"',
        ),
    ],
)
def test_a_bad_edit_record_is_refused_in_one_sentence(edited_doc, change, message):
    doc = copy.deepcopy(edited_doc)
    change(doc)
    with pytest.raises(ValueError, match=message):
        model_from_json(json.dumps(doc))


def test_a_hand_edited_model_file_reads_back_with_its_record(edited_doc):
    loaded = model_from_json(json.dumps(edited_doc))
    assert loaded.estimator_kind_ == "HandEditedClassifier" and loaded.n_splits_ == 0
    assert loaded.edit_record_ == {
        "from": {
            "estimator": "CARTClassifier",
            "params": edited_doc["edited"]["from"]["params"],
            "name": "CART on four points",
        },
        "edits": [{"kind": "collapse", "node": 0}],
    }
    assert json.loads(model_to_json(loaded)) == edited_doc


@pytest.mark.parametrize("bad", [{"a": 1}, [[1]], [None], [True, {}]])
def test_a_parameter_that_is_no_scalar_nor_a_flat_list_is_refused(toy_model_json, bad):
    doc = json.loads(toy_model_json)
    doc["params"]["excluded_features"] = bad
    with pytest.raises(
        ValueError, match=r'^"params" must map each parameter to a string, a number, a boolean, null or a list'
    ):
        model_from_json(json.dumps(doc))


def test_a_list_parameter_is_written_as_a_list_and_others_by_their_repr():
    model = TnTClassifier(excluded_features=np.array([2, 0])).fit([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0]], [0, 1])
    params = model_from_json(model_to_json(model)).estimator_params_
    assert params["excluded_features"] == [2, 0]
    assert isinstance(
        model_from_json(
            model_to_json(TnTClassifier(random_state=np.random.RandomState(0)).fit([[0.0], [1.0]], [0, 1]))
        ).estimator_params_["random_state"],
        str,
    )


# ---------------------------------------------------------------------- missing values (version 2)
OLD_FILE = Path(__file__).parent / "model_files" / "iris_tnt_version1.json"


@pytest.mark.parametrize("estimator", [TnTClassifier, TnTRegressor])
def test_a_tnt_model_keeps_its_pruning_level_in_the_file(estimator):
    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    model = estimator(C=1e-2, ccp_alpha="held_out", random_state=0).fit(X, y)
    doc = json.loads(model_to_json(model))
    assert doc["pruning_level"] == model.pruning_level_
    loaded = model_from_json(json.dumps(doc))
    assert loaded.pruning_level_ == model.pruning_level_
    as_set = json.loads(model_to_json(estimator(C=1e-2, ccp_alpha=1e-3, random_state=0).fit(X, y)))
    assert as_set["pruning_level"] == 1e-3
    cart = json.loads(model_to_json(CARTClassifier(max_leaf_nodes=4).fit(X, y)))
    assert "pruning_level" not in cart
    assert not hasattr(model_from_json(json.dumps(cart)), "pruning_level_")


@pytest.mark.parametrize("estimator", [TnTClassifier, TnTRegressor])
def test_a_tnt_model_keeps_its_refit_rule_in_the_file(estimator):
    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    for option in ("auto", "cost_complexity"):
        model = estimator(C=1e-2, internal_refit=option, random_state=0).fit(X, y)
        doc = json.loads(model_to_json(model))
        assert doc["refit_rule"] == model.refit_rule_ and model.refit_rule_ in ("always", "cost_complexity")
        assert model_from_json(json.dumps(doc)).refit_rule_ == model.refit_rule_
    cart = json.loads(model_to_json(CARTClassifier(max_leaf_nodes=4).fit(X, y)))
    assert "refit_rule" not in cart and not hasattr(model_from_json(json.dumps(cart)), "refit_rule_")


def test_a_file_of_version_1_still_opens_and_predicts():
    """A TnTClassifier on iris (C=1e-2, random_state=0) saved by the release before missing values."""
    from sklearn.datasets import load_iris

    data = load_iris(as_frame=True)
    model = model_from_json(OLD_FILE.read_text())
    assert json.loads(OLD_FILE.read_text())["version"] == 1
    assert model.graph_.missing_go_to_left is None
    assert model.n_splits_ == 4
    assert model.score(data.data, data.target_names[data.target]) > 0.95
    again = json.loads(model_to_json(model))
    assert again["version"] == 3 and again["graph"]["missing_go_to_left"] is None
    assert model_from_json(json.dumps(again)).graph_ == model.graph_


def test_a_file_of_version_1_refuses_nan_at_prediction_in_one_sentence():
    from sklearn.datasets import load_iris

    data = load_iris(as_frame=True)
    X = data.data.copy()
    X.iloc[3, 2] = np.nan
    model = model_from_json(OLD_FILE.read_text())
    with pytest.raises(
        ValueError,
        match=r"^X contains missing values \(NaN\), .*saved before missing values were supported.*retrain it",
    ):
        model.predict(X)


def nan_tree_data(n=400):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[y == 1, 2] = np.nan  # missingness of feature 2 tells the class: a split at +inf
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: CARTClassifier(max_leaf_nodes=6, random_state=0),
        lambda: DecisionTreeClassifier(max_depth=3, random_state=0),
    ],
)
def test_directions_and_tests_of_missingness_survive_a_file(make):
    X, y = nan_tree_data()
    model = make().fit(X, y)
    text = model_to_json(model)
    doc = json.loads(text)
    assert doc["version"] == 3 and "Infinity" not in text
    graph = model.graph_ if hasattr(model, "graph_") else DecisionGraph.from_sklearn(model)
    assert graph.is_missing_test.any()
    assert [t is None for t in doc["graph"]["threshold"]] == graph.is_missing_test.tolist()
    loaded = model_from_json(text)
    assert loaded.graph_ == graph
    assert np.array_equal(loaded.predict(X), model.predict(X))
