"""fine_tuned: fine-tuning a fitted TnT graph (or CART tree) equals training with fine_tune=rounds (TAO for a tree)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.exceptions import NotFittedError

from tnt import CARTClassifier, TAOClassifier, TnTClassifier
from tnt.experiments.toy import corners


def graph_arrays(model):
    g = model.graph_
    return [g.children_left, g.children_right, g.feature, g.threshold, g.value]


def weighted_digits():
    X, y = load_digits(return_X_y=True)
    w = np.random.default_rng(3).integers(0, 4, size=y.size).astype(float)  # zeros included, as in bagging
    return X, y, w, 1e-3


def cases():
    X, y = load_iris(return_X_y=True)
    yield "iris", X, y, None, 1e-2
    X, y = load_digits(return_X_y=True)
    yield "digits", X, y, None, 1e-3
    yield "digits, small C", X, y, None, 1e-4
    X, y = corners(n=2000, seed=1)
    yield "corners", X, y, None, 1e-3
    yield "weighted digits", *weighted_digits()


@pytest.mark.parametrize("case", list(cases()), ids=lambda case: case[0])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("rounds", [1, 5])
def test_fine_tuning_a_fitted_model_equals_training_with_fine_tune(case, seed, rounds):
    _, X, y, w, C = case
    grown = TnTClassifier(ccp_alpha=0.0, C=C, random_state=seed).fit(X, y, sample_weight=w)
    before = [a.copy() for a in graph_arrays(grown)]
    tuned = grown.fine_tuned(X, y, rounds=rounds, sample_weight=w)
    direct = TnTClassifier(ccp_alpha=0.0, C=C, fine_tune=rounds, random_state=seed).fit(X, y, sample_weight=w)
    for ours, theirs in zip(graph_arrays(tuned), graph_arrays(direct)):
        np.testing.assert_array_equal(ours, theirs)
    assert tuned.fine_tune == rounds and tuned.n_splits_ == direct.n_splits_
    np.testing.assert_array_equal(tuned.feature_importances_, direct.feature_importances_)
    for ours, kept in zip(graph_arrays(grown), before):  # the grown model is left as it was
        np.testing.assert_array_equal(ours, kept)


def test_zero_rounds_gives_the_same_graph():
    X, y = load_iris(return_X_y=True)
    grown = TnTClassifier(ccp_alpha=0.0, C=1e-2, random_state=0).fit(X, y)
    same = grown.fine_tuned(X, y, rounds=0)
    assert same is not grown
    for ours, theirs in zip(graph_arrays(same), graph_arrays(grown)):
        np.testing.assert_array_equal(ours, theirs)


def test_other_data_an_unfitted_model_or_a_bad_round_count_are_refused():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(NotFittedError):
        TnTClassifier().fine_tuned(X, y)
    grown = TnTClassifier(ccp_alpha=0.0, C=1e-2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="the data the model was trained on"):
        grown.fine_tuned(X[:, :3], y)
    with pytest.raises(ValueError, match="the data the model was trained on"):
        grown.fine_tuned(X[y < 2], y[y < 2])
    tuned = grown.fine_tuned(X, y, rounds=2)
    with pytest.raises(ValueError, match="starts from a model trained with fine_tune=0"):
        tuned.fine_tuned(X, y, rounds=3)
    for rounds in (-1, 2.5, True):
        with pytest.raises(ValueError, match="rounds must be"):
            grown.fine_tuned(X, y, rounds=rounds)


def test_the_compare_table_fine_tunes_the_grown_graph_and_tree_and_counts_their_growing_time():
    from tnt.data.datasets import load_bundled
    from tnt.services.compare import compare_models

    data = load_bundled("wine")
    results = compare_models(data, C=1e-3, seed=1)
    (_, grown), (tuned, fine_tuned) = results["TnT"], results["TnT fine-tuned"]
    direct = TnTClassifier(ccp_alpha=0.0, C=1e-3, fine_tune=5, random_state=1).fit(data.X_train, data.y_train)
    for ours, theirs in zip(graph_arrays(tuned), graph_arrays(direct)):
        np.testing.assert_array_equal(ours, theirs)
    assert fine_tuned["fit_time"] >= grown["fit_time"] > 0
    # TAO likewise: the CART of the table fine-tuned, as TAOClassifier trains it from scratch.
    (_, cart), (tao, tao_metrics) = results["CART (best-first)"], results["TAO"]
    direct = TAOClassifier.with_splits(grown["splits"], fine_tune=5, random_state=1).fit(data.X_train, data.y_train)
    for ours, theirs in zip(graph_arrays(tao), graph_arrays(direct)):
        np.testing.assert_array_equal(ours, theirs)
    assert tao_metrics["fit_time"] >= cart["fit_time"] > 0


@pytest.mark.parametrize("case", list(cases()), ids=lambda case: case[0])
@pytest.mark.parametrize("rounds", [1, 5])
def test_fine_tuning_a_fitted_cart_equals_training_tao(case, rounds):
    _, X, y, w, C = case
    splits = TnTClassifier(ccp_alpha=0.0, C=C, random_state=0).fit(X, y, sample_weight=w).n_splits_
    cart = CARTClassifier.with_splits(splits, random_state=1).fit(X, y, sample_weight=w)
    before = [a.copy() for a in graph_arrays(cart)]
    tao = cart.fine_tuned(X, y, rounds=rounds, sample_weight=w)
    direct = TAOClassifier.with_splits(splits, fine_tune=rounds, random_state=1).fit(X, y, sample_weight=w)
    for ours, theirs in zip(graph_arrays(tao), graph_arrays(direct)):
        np.testing.assert_array_equal(ours, theirs)
    assert type(tao) is TAOClassifier and tao.get_params() == direct.get_params()
    np.testing.assert_array_equal(tao.feature_importances_, direct.feature_importances_)
    assert any(not np.array_equal(a, b) for a, b in zip(graph_arrays(tao), before)) or rounds == 1
    for ours, kept in zip(graph_arrays(cart), before):  # the tree is left as it was
        np.testing.assert_array_equal(ours, kept)


def test_a_tree_fine_tuned_already_or_other_data_are_refused():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(NotFittedError):
        CARTClassifier().fine_tuned(X, y)
    tao = TAOClassifier(max_leaf_nodes=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="starts from a model trained with fine_tune=0"):
        tao.fine_tuned(X, y)
    cart = CARTClassifier(max_leaf_nodes=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="the data the model was trained on"):
        cart.fine_tuned(X[:, :3], y)
    with pytest.raises(ValueError, match="rounds must be"):
        cart.fine_tuned(X, y, rounds=-1)


@pytest.mark.parametrize(
    "case", [c for c in cases() if c[0] in ("digits", "corners", "weighted digits")], ids=lambda c: c[0]
)
def test_a_node_refitted_on_the_same_samples_as_last_round_is_left_alone_with_the_same_result(case, monkeypatch):
    # fine_tune_graph skips a node whose sensitive samples and targets are those of its last refit;
    # refitting every node in every round (the comparison made to always fail) gives the same graphs.
    from tnt.learn import growth

    _, X, y, w, C = case
    models = [TnTClassifier(ccp_alpha=0.0, C=C, random_state=0).fit(X, y, sample_weight=w)]
    models.append(CARTClassifier(max_leaf_nodes=models[0].n_leaves_, random_state=0).fit(X, y, sample_weight=w))
    stumps = []
    real_fit_stump = growth.fit_stump
    monkeypatch.setattr(growth, "fit_stump", lambda *args: stumps.append(1) or real_fit_stump(*args))
    for model in models:
        stumps.clear()
        skipping = model.fine_tuned(X, y, rounds=5, sample_weight=w)
        skipped_fits = len(stumps)
        with monkeypatch.context() as never_same:
            never_same.setattr(growth, "_same", lambda a, b: False)
            stumps.clear()
            refitting = model.fine_tuned(X, y, rounds=5, sample_weight=w)
        assert skipped_fits < len(stumps)
        for ours, theirs in zip(graph_arrays(skipping), graph_arrays(refitting)):
            np.testing.assert_array_equal(ours, theirs)
