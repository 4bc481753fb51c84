"""The learners' ``excluded_features``: columns never split on, every input kept."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_friedman1
from sklearn.utils._param_validation import InvalidParameterError

from tnt import CARTClassifier, CARTRegressor, NDGClassifier, TAOClassifier, TnTClassifier, TnTRegressor
from tnt.model_io import model_from_json, model_to_json


def split_features(model) -> set:
    g = model.graph_
    return set(g.feature[~g.is_leaf].tolist())


CLASSIFIERS = [
    TnTClassifier(C=1e-3, random_state=0),
    TnTClassifier(C=1e-3, fine_tune=3, random_state=0),
    NDGClassifier(random_state=0),
    CARTClassifier(random_state=0),
    TAOClassifier(max_leaf_nodes=8, random_state=0),
]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=repr)
def test_a_classifier_never_splits_on_an_excluded_feature(estimator):
    X, y = load_iris(return_X_y=True)
    before = estimator.fit(X, y)
    most_used = int(np.argmax(np.bincount(before.graph_.feature[~before.graph_.is_leaf], minlength=4)))
    assert most_used in split_features(before)
    after = estimator.set_params(excluded_features=[most_used]).fit(X, y)
    assert most_used not in split_features(after) and split_features(after)
    assert after.n_features_in_ == 4 and after.feature_importances_[most_used] == 0
    assert after.predict(X).shape == (150,)


@pytest.mark.parametrize(
    "estimator", [TnTRegressor(C=1e-3, random_state=0), CARTRegressor(max_leaf_nodes=12)], ids=repr
)
def test_a_regressor_never_splits_on_an_excluded_feature(estimator):
    X, y = make_friedman1(n_samples=300, random_state=0)
    assert 3 in split_features(estimator.fit(X, y))
    after = estimator.set_params(excluded_features=[3, 0]).fit(X, y)
    assert not {0, 3} & split_features(after) and after.n_features_in_ == 10


def test_a_feature_the_model_never_used_changes_nothing():
    X, y = load_iris(return_X_y=True)
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    unused = sorted(set(range(4)) - split_features(model))
    assert unused
    again = TnTClassifier(C=1e-2, random_state=0, excluded_features=unused).fit(X, y)
    assert again.graph_ == model.graph_


def test_names_of_a_data_frame_and_the_callers_array_left_as_it_was():
    data = load_iris(as_frame=True)
    X32 = np.ascontiguousarray(data.data.to_numpy(), dtype=np.float32)
    copy = X32.copy()
    TnTClassifier(C=1e-2, random_state=0, excluded_features=[2]).fit(X32, data.target)
    assert np.array_equal(X32, copy)  # the constant column is the learner's copy, not the caller's array
    model = TnTClassifier(C=1e-2, random_state=0, excluded_features=["petal length (cm)"]).fit(data.data, data.target)
    assert 2 not in split_features(model)
    loaded = model_from_json(model_to_json(model))
    assert loaded.estimator_params_["excluded_features"] == ["petal length (cm)"]


@pytest.mark.parametrize(
    ("excluded", "message"),
    [
        ([4], r"^excluded_features names column 4, but X has 4 columns \(0 to 3\)\.$"),
        ([-1], r"^excluded_features names column -1, but X has 4 columns \(0 to 3\)\.$"),
        (["age"], r"^excluded_features names the column 'age', but X has no column names; give column indices"),
        ([1.5], r"^excluded_features holds 1\.5, which is neither a column index nor a column name\.$"),
    ],
)
def test_a_bad_excluded_feature_is_named_in_one_sentence(excluded, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        TnTClassifier(excluded_features=excluded).fit(X, y)


def test_an_unknown_name_and_a_lone_string_are_refused():
    data = load_iris(as_frame=True)
    with pytest.raises(ValueError, match=r"^excluded_features names the column 'age', which X does not have\.$"):
        NDGClassifier(excluded_features=["age"]).fit(data.data, data.target)
    with pytest.raises(InvalidParameterError, match="excluded_features"):
        TnTClassifier(excluded_features="sepal length (cm)").fit(data.data, data.target)
    frame = pd.DataFrame(data.data)
    assert TnTClassifier(excluded_features=[]).fit(frame, data.target).n_splits_ > 0
