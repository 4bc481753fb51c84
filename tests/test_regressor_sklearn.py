"""TnTRegressor (and CARTRegressor, its baseline) among scikit-learn's regressors: the estimator checks and
the meta-estimators."""

import pandas as pd
import pytest
from estimator_check_helpers import expected_failed_checks
from sklearn.base import clone
from sklearn.datasets import make_friedman1
from sklearn.ensemble import AdaBoostRegressor, BaggingRegressor
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from tnt import TnTRegressor
from tnt.baselines import CARTRegressor


@parametrize_with_checks(
    [
        TnTRegressor(C=1e-3, random_state=0),
        TnTRegressor(C=1e-3, fine_tune=1, random_state=0),
        TnTRegressor(C=1e-3, validation_fraction=0.2, internal_refit="improving", random_state=0),
        TnTRegressor(C=1e-3, ccp_alpha="held_out", random_state=0),
        TnTRegressor(C=1e-3, ccp_alpha="held_out_regrown", random_state=0),
        CARTRegressor(max_leaf_nodes=8, random_state=0),  # the app's baseline of TnTRegressor
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def friedman_split():
    X, y = make_friedman1(n_samples=800, n_features=6, noise=0.5, random_state=0)
    return train_test_split(X, y, test_size=0.3, random_state=0)


def test_clone(friedman_split):
    # Pickling is covered by scikit-learn's own check_estimators_pickle above; the project's code and
    # tests never unpickle (tests/test_safe_files.py).
    X_tr, _, y_tr, _ = friedman_split
    fitted = TnTRegressor(C=1e-3, random_state=0).fit(X_tr, y_tr)
    assert clone(fitted).get_params() == fitted.get_params()


def test_dataframe_keeps_feature_names(friedman_split):
    X_tr, _, y_tr, _ = friedman_split
    frame = pd.DataFrame(X_tr, columns=[f"f{i}" for i in range(X_tr.shape[1])])
    fitted = TnTRegressor(C=1e-3, random_state=0).fit(frame, pd.Series(y_tr))
    assert list(fitted.feature_names_in_) == list(frame.columns)


def test_pipeline_and_grid_search(friedman_split):
    X_tr, X_te, y_tr, y_te = friedman_split
    pipe = make_pipeline(StandardScaler(), TnTRegressor(random_state=0))
    search = GridSearchCV(pipe, {"tntregressor__C": [1e-1, 1e-3]}, cv=3).fit(X_tr, y_tr)
    assert search.best_params_["tntregressor__C"] == 1e-3  # C=0.1 leaves a handful of splits
    assert search.score(X_te, y_te) > 0.6


@pytest.mark.parametrize("ensemble", [BaggingRegressor, AdaBoostRegressor])
def test_ensembles_improve_on_one_graph(friedman_split, ensemble):
    # Bagging draws bootstrap samples; AdaBoost.R2 passes sample weights to every fit.
    X_tr, X_te, y_tr, y_te = friedman_split
    single = TnTRegressor(C=3e-3, random_state=0).fit(X_tr, y_tr).score(X_te, y_te)
    model = ensemble(TnTRegressor(C=3e-3, random_state=0), n_estimators=10, random_state=0).fit(X_tr, y_tr)
    assert model.score(X_te, y_te) > single
