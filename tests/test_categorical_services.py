"""The Compare, Sweep and Ensembles pages' services on a data set with categorical columns (issue 52):
every model reads the categories by name (or, in ensembles, as codes by index) and splits them by
subsets; each checked against the same model fitted by hand with ``categorical_features``."""

import numpy as np
import pandas as pd
import pytest

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier
from tnt.data.datasets import make_dataset
from tnt.experiments.ensembles import compare_ensembles, fit_ensemble
from tnt.experiments.sweep import sweep
from tnt.services.compare import compare_models


def colour_data(missing: bool = True):
    """A data set of a text column of six colours (empty cells among them) and a number: the class
    is a subset of the colours, flipped above a size, with a tenth of noise."""
    rng = np.random.default_rng(0)
    n = 400
    colours = np.array(["amber", "blue", "cyan", "green", "red", "teal"], dtype=object)
    colour = colours[rng.integers(0, 6, n)]
    if missing:
        colour[rng.random(n) < 0.05] = None
    size = rng.normal(size=n).round(2)
    label = np.isin(colour, ["blue", "red", "teal"]) ^ (size > 0.8) ^ (rng.random(n) < 0.1)
    frame = pd.DataFrame({"colour": colour, "size": size, "y": np.where(label, "yes", "no")})
    return make_dataset(frame, target="y", features=["colour", "size"], name="colours", test_size=0.3)


def test_compare_fits_every_model_on_the_categories_by_name():
    data = colour_data()
    results = compare_models(data, C=1e-2, seed=0)
    X, y = data.model_input(data.X_train), data.y_train
    tnt = TnTClassifier(C=1e-2, random_state=0, categorical_features=["colour"]).fit(X, y)
    splits = tnt.n_splits_
    by_hand = {
        "TnT": tnt,
        "TnT fine-tuned": TnTClassifier(C=1e-2, random_state=0, fine_tune=5, categorical_features=["colour"]).fit(X, y),
        "CART (best-first)": CARTClassifier.with_splits(splits, random_state=0, categorical_features=["colour"]).fit(
            X, y
        ),
        "TAO": TAOClassifier.with_splits(splits, fine_tune=5, random_state=0, categorical_features=["colour"]).fit(
            X, y
        ),
        "NDG": NDGClassifier.with_splits(splits, random_state=0, categorical_features=["colour"]).fit(X, y),
    }
    X_test = data.model_input(data.X_test)
    for name, (model, measured) in results.items():
        assert model.graph_.is_categorical.any(), name
        np.testing.assert_array_equal(model.predict(X_test), by_hand[name].predict(X_test), err_msg=name)
        assert measured["test_accuracy"] == pytest.approx(np.mean(by_hand[name].predict(X_test) == data.y_test))


def test_sweep_learns_subsets_from_the_pandas_categories():
    data = colour_data()
    X, X_test = data.model_input(data.X_train), data.model_input(data.X_test)
    table = sweep(X, data.y_train, X_test, data.y_test, [1e-3, 1e-2], [0, 1], models=("ndg",))
    checked = 0
    for row in table.itertuples():
        tnt = TnTClassifier(C=row.C, ccp_alpha=0.0, random_state=row.seed, categorical_features=["colour"])
        tnt.fit(X, data.y_train)  # the sweep trains the graph C alone grows
        cart = CARTClassifier.with_splits(tnt.n_splits_, random_state=row.seed, categorical_features=["colour"])
        cart.fit(X, data.y_train)
        assert row.tnt_splits == tnt.n_splits_ and row.tnt_test_acc == tnt.score(X_test, data.y_test)
        assert row.cart_test_acc == cart.score(X_test, data.y_test)
        checked += 1
    assert checked == 4


def test_ensembles_split_codes_by_subsets_when_told_their_columns():
    data = colour_data(missing=False)  # scikit-learn's AdaBoost takes no missing value
    parts = (data.X_train, data.y_train, data.X_test, data.y_test)
    rows = compare_ensembles(*parts, n_estimators=3, C_bagging=1e-2, C_boosting=5e-2, categorical_features=[0])
    assert rows["ensemble"].tolist() == ["TnT-bagging", "Random Forest", "TnT-AdaBoost", "AdaBoost"]
    row = fit_ensemble("TnT-bagging", *parts, n_estimators=3, seed=0, C=1e-2, categorical_features=[0])
    assert row == rows.iloc[0].to_dict() | {"size": 3}
    # Each base graph of the bagging splits the colour codes by subsets (its own categories: those of its draw).
    from tnt.experiments.ensembles import _make

    bagging = _make("TnT-bagging", 3, 0, 1e-2, None, "binned", [0]).fit(data.X_train, data.y_train)
    assert all(e.graph_.is_categorical.any() for e in bagging.estimators_)
    with pytest.raises(ValueError, match="scikit-learn's trees have no subset splits of categorical features"):
        compare_ensembles(*parts, n_estimators=2, cart_trees="scikit-learn", categorical_features=[0])


def test_the_app_training_pools_rare_categories_in_tnt_and_cart_alike():
    """``TrainParams.min_category_samples`` reaches TnT and the CART beside it, in a training and in a
    budget search, as the same models fitted by hand; data without categorical columns leaves CART's
    parameter at its default."""
    from tnt.data.datasets import load_bundled
    from tnt.services.training import TrainParams, train, train_to_budget

    data = colour_data()
    X, y, X_test = data.model_input(data.X_train), data.y_train, data.model_input(data.X_test)
    params = TrainParams(C=1e-2, min_category_samples=40)
    result = train(data, params)
    tnt = TnTClassifier(C=1e-2, random_state=0, categorical_features=["colour"], min_category_samples=40).fit(X, y)
    cart = CARTClassifier.with_splits(
        tnt.n_splits_, random_state=0, categorical_features=["colour"], min_category_samples=40
    ).fit(X, y)
    np.testing.assert_array_equal(result.tnt.predict(X_test), tnt.predict(X_test))
    np.testing.assert_array_equal(result.cart.predict(X_test), cart.predict(X_test))
    assert result.tnt.min_category_samples == result.cart.min_category_samples == 40
    budget, _ = train_to_budget(data, 4, params)
    assert budget.tnt.min_category_samples == budget.cart.min_category_samples == 40
    plain = train(load_bundled("iris"), TrainParams(C=1e-2, min_category_samples=40))
    assert plain.cart.min_category_samples == 1
