"""scikit-learn compatibility: the estimator checks, and the meta-estimators people use."""

import pickle

import numpy as np
import pandas as pd
import pytest
from estimator_check_helpers import expected_failed_checks
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier

ESTIMATORS = [
    TnTClassifier(C=1e-3, random_state=0),
    TnTClassifier(C=1e-3, fine_tune=2, random_state=0),
    TnTClassifier(C=1e-3, validation_fraction=0.2, internal_refit="improving", random_state=0),
    TnTClassifier(C=1e-3, ccp_alpha="held_out", random_state=0),
    TnTClassifier(C=1e-3, ccp_alpha="held_out_regrown", random_state=0),
    CARTClassifier(random_state=0),
    TAOClassifier(max_leaf_nodes=8, random_state=0),
    NDGClassifier(random_state=0),
    NDGClassifier(max_splits=6, merge=False, random_state=0),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def iris_split():
    X, y = load_iris(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: repr(e))
class TestContract:
    """One contract for every estimator the project ships."""

    def test_clone_and_params(self, estimator):
        twin = clone(estimator)
        assert twin.get_params() == estimator.get_params()
        twin.set_params(random_state=7)
        assert twin.get_params()["random_state"] == 7

    def test_pickle_round_trip(self, estimator, iris_split):
        X_tr, X_te, y_tr, _ = iris_split
        fitted = clone(estimator).fit(X_tr, y_tr)
        restored = pickle.loads(pickle.dumps(fitted))
        assert np.array_equal(restored.predict(X_te), fitted.predict(X_te))

    def test_probabilities_sum_to_one(self, estimator, iris_split):
        X_tr, X_te, y_tr, _ = iris_split
        proba = clone(estimator).fit(X_tr, y_tr).predict_proba(X_te)
        assert proba.shape == (len(X_te), 3)
        assert np.allclose(proba.sum(axis=1), 1.0)

    def test_dataframe_and_string_labels(self, estimator):
        X, y = load_iris(return_X_y=True, as_frame=True)
        labels = pd.Series(np.array(["a", "b", "c"])[y])
        fitted = clone(estimator).fit(X, labels)
        assert list(fitted.feature_names_in_) == list(X.columns)
        assert set(fitted.predict(X)) <= {"a", "b", "c"}
        with pytest.warns(UserWarning, match="feature names"):
            fitted.predict(X.to_numpy())

    def test_pipeline(self, estimator, iris_split):
        X_tr, X_te, y_tr, y_te = iris_split
        pipe = make_pipeline(StandardScaler(), clone(estimator)).fit(X_tr, y_tr)
        assert pipe.score(X_te, y_te) > 0.85


def test_grid_search_over_C(iris_split):
    X_tr, X_te, y_tr, y_te = iris_split
    search = GridSearchCV(TnTClassifier(random_state=0), {"C": [1e-3, 1e-2, 1e-1], "N2": [1, 3]}, cv=3)
    search.fit(X_tr, y_tr)
    assert search.best_params_["C"] in (1e-3, 1e-2, 1e-1)
    assert search.score(X_te, y_te) > 0.85


def test_bagging(pendigits):
    X, y, X_test, y_test = pendigits
    X, y = X[:2000], y[:2000]
    single = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    bag = BaggingClassifier(
        TnTClassifier(C=1e-3), n_estimators=8, max_samples=1.0, bootstrap_features=False, random_state=0
    ).fit(X, y)
    assert bag.score(X_test, y_test) > single.score(X_test, y_test)


def test_adaboost_samme_honours_sample_weights(pendigits):
    X, y, X_test, y_test = pendigits
    X, y = X[:2000], y[:2000]
    single = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    boost = AdaBoostClassifier(TnTClassifier(C=1e-2, random_state=0), n_estimators=8, learning_rate=1.0, random_state=0)
    boost.fit(X, y)
    assert boost.score(X_test, y_test) > single.score(X_test, y_test)
    # The later estimators were fitted on reweighted data, so they differ from the first.
    preds = [est.predict(X_test) for est in boost.estimators_]
    assert any(not np.array_equal(preds[0], p) for p in preds[1:])


def test_a_pickled_graph_keeps_no_routing_tables_and_predicts_the_same():
    """The tables prediction derives from a graph are not pickled, and a pickle that holds some (an
    earlier version's, in another layout) has them dropped on loading."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    model = TnTClassifier(C=1e-3, random_state=0).fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    expected = model.predict(X)  # fills the graph's derived tables
    assert "_derived_cache" in model.graph_.__dict__
    graph = pickle.loads(pickle.dumps(model.graph_))
    assert "_derived_cache" not in graph.__dict__ and graph == model.graph_
    model.graph_.__dict__["_derived_cache"]["walk_tables"] = ([], ("two", "tables"))  # an old layout
    state = dict(model.graph_.__dict__)
    graph = object.__new__(type(model.graph_))
    graph.__setstate__(state)
    model.graph_ = graph
    assert np.array_equal(model.predict(X), expected)
