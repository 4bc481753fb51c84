"""The corners toy problem, path depths, ensembles, decision regions and training snapshots."""

import re

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from tnt import CARTClassifier, TnTClassifier
from tnt.experiments.ensembles import (
    ADABOOST_TAKES_NO_MISSING,
    ENSEMBLES,
    compare_ensembles,
    fit_ensemble,
    fit_ensemble_sizes,
    summarize_ensembles,
)
from tnt.experiments.path_lengths import depth_distributions, sample_depths, structural_depths
from tnt.experiments.toy import corners, four_split_graph
from tnt.services.teaching import training_snapshots
from tnt.viz.regions import decision_regions, regions_figure


def test_corners_labels_are_the_four_corners():
    X, y = corners(n=2000, width=0.25, seed=3)
    assert X.shape == (2000, 2) and X.min() >= 0 and X.max() <= 1
    near = lambda v: (v < 0.25) | (v > 0.75)  # noqa: E731
    np.testing.assert_array_equal(y, near(X[:, 0]) & near(X[:, 1]))
    X2, _ = corners(seed=3)
    np.testing.assert_array_equal(X, X2)


@pytest.mark.parametrize("seed", range(5))
def test_four_split_graph_is_perfect_on_corners(seed):
    X, y = corners(seed=seed)
    g = four_split_graph(X, y)
    assert (g.n_splits, g.n_leaves) == (4, 3)
    assert g.parents(3) == [0, 1]
    assert (g.predict_proba(X).argmax(1) == y).mean() == 1.0
    assert g.value[0].sum() == 2000


def test_four_split_graph_with_other_thresholds_is_not():
    X, y = corners(seed=0)
    g = four_split_graph(X, y, low=0.3, high=0.7)
    assert (g.predict_proba(X).argmax(1) == y).mean() < 1.0


def test_depth_distributions_of_tnt_and_cart():
    X, y = corners(seed=0)
    models = {
        "TnT": TnTClassifier(C=1e-2, random_state=0).fit(X, y),
        "CART": CARTClassifier(max_leaf_nodes=7).fit(X, y),
    }
    d = depth_distributions(models, X)
    assert set(d) == {"TnT (test samples)", "TnT (paths)", "CART (test samples)", "CART (paths)"}
    lengths, shares = d["CART (test samples)"]
    depth = models["CART"].decision_depth(X)
    assert np.isclose(np.sum(lengths * shares), depth.mean())
    lengths, shares = structural_depths(models["CART"].graph_)
    assert np.isclose(shares.sum(), 1.0) and lengths.min() >= 1
    assert sample_depths(four_split_graph(X, y), X)[0].tolist() == [2, 3, 4]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_ensembles_match_total_splits_and_measure_accuracy(wine):
    Xa, Xb, ya, yb = wine
    rows = compare_ensembles(Xa, ya, Xb, yb, n_estimators=4, C_bagging=1e-2, C_boosting=1e-1, seeds=(0, 1))
    assert rows["ensemble"].tolist() == [e for e in ENSEMBLES for _ in (0, 1)]
    bag = rows[rows["ensemble"] == "TnT-bagging"]
    rf = rows[rows["ensemble"] == "Random Forest"]
    # CART base trees get max_leaf_nodes = mean TnT splits + 1, so each has at most that many splits.
    assert (rf["mean_splits"] <= round(bag["mean_splits"].mean()) + 1e-9).all()
    assert (bag["estimators"] == 4).all() and (rf["estimators"] == 4).all()
    assert rows[["train_accuracy", "test_accuracy"]].stack().between(0.5, 1.0).all()
    again = fit_ensemble("TnT-bagging", Xa, ya, Xb, yb, n_estimators=4, seed=1, C=1e-2)
    assert (
        again["test_accuracy"] == bag.iloc[1]["test_accuracy"] and again["total_splits"] == bag.iloc[1]["total_splits"]
    )
    summary = summarize_ensembles(rows)
    assert list(summary.index) == list(ENSEMBLES)
    assert float(summary.loc["TnT-bagging", "total_splits"]) == pytest.approx(bag["total_splits"].mean(), abs=0.05)


@pytest.mark.parametrize("kind", ["TnT-bagging", "Random Forest", "TnT-AdaBoost"])
def test_the_first_estimators_of_a_larger_ensemble_are_the_smaller_ensemble(wine, kind):
    Xa, Xb, ya, yb = wine
    rows = fit_ensemble_sizes(kind, Xa, ya, Xb, yb, sizes=(5, 2), seed=3, C=1e-2, max_leaf_nodes=6)
    assert [r["size"] for r in rows] == [2, 5]
    for row in rows:
        alone = fit_ensemble(kind, Xa, ya, Xb, yb, n_estimators=row["size"], seed=3, C=1e-2, max_leaf_nodes=6)
        assert {k: v for k, v in row.items()} == alone


def test_ensembles_in_parallel_give_the_same_rows(wine):
    Xa, Xb, ya, yb = wine
    kw = dict(n_estimators=2, C_bagging=1e-2, C_boosting=1e-1, seeds=(0,))
    a = compare_ensembles(Xa, ya, Xb, yb, **kw)
    b = compare_ensembles(Xa, ya, Xb, yb, n_jobs=2, **kw)
    assert a.equals(b)


def test_unknown_ensemble_is_refused(wine):
    Xa, Xb, ya, yb = wine
    with pytest.raises(ValueError, match="Unknown ensemble 'Forest'"):
        fit_ensemble("Forest", Xa, ya, Xb, yb, n_estimators=2, seed=0)


def test_decision_regions_follow_the_model():
    X, y = corners(seed=0)
    model = CARTClassifier(max_leaf_nodes=7, random_state=0).fit(X, y)
    xs, ys, z = decision_regions(model, X, resolution=50)
    assert z.shape == (50, 50)
    i, j = 10, 30
    assert model.predict([[xs[j], ys[i]]])[0] == model.classes_[z[i, j]]
    fig = regions_figure(model, X, y, title="CART", max_points=300, height=300)
    assert fig.layout.height == 300
    assert fig.data[0].type == "heatmap" and sum(len(t.x) for t in fig.data[1:]) == 300
    with pytest.raises(ValueError, match="exactly two features"):
        decision_regions(model, np.c_[X, X])


def test_regions_of_a_bare_graph():
    X, y = corners(seed=0)
    g = four_split_graph(X, y)
    _, _, z = decision_regions(g, X, resolution=4, margin=0)
    assert z.tolist() == [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 1]]
    assert [t.name for t in regions_figure(g, X, y, resolution=10).data[1:]] == ["class 0", "class 1"]


def test_regions_with_string_labels():
    X, y = corners(n=400, seed=0)
    labels = np.array(["inside", "corner"])[y]
    model = TnTClassifier(C=1e-2, random_state=0).fit(X, labels)
    _, _, z = decision_regions(model, X, resolution=4, margin=0)
    assert model.classes_[z[0, 0]] == "corner" and model.classes_[z[1, 1]] == "inside"


def test_training_snapshots_step_through_algorithm_2():
    X, y = corners(seed=0)
    steps = training_snapshots(X, y, C=1e-2, N1=2, N2=3, fine_tune=1, random_state=0)
    labels = [label for label, _ in steps]
    assert len(steps) == 2 * (3 + 1) + 1
    assert labels[0].startswith("phase 1, grow pass 1 of 3") and labels[3].startswith("phase 1, merge")
    assert labels[4].startswith("phase 2, grow pass 1 of 3") and labels[-1].startswith("fine-tuning round 1")
    final = TnTClassifier(C=1e-2, N1=2, N2=3, fine_tune=1, random_state=0).fit(X, y).graph_
    assert steps[-1][1] == final
    for label, graph in steps:
        assert label.endswith(f": {graph.n_splits} splits")
        assert graph.value[0].sum() == len(y)


def test_teaching_models_on_corners_and_on_other_two_feature_data():
    from tnt.services.teaching import teaching_models, training_accuracy

    X, y = corners(seed=1)
    models = teaching_models(X, y, C=1e-2, seed=1)
    assert list(models) == ["CART", "TnT", "The paper's graph (Fig. 2c)", "TnT after graph reduction"]
    assert models["CART"].n_splits_ == models["TnT"].n_splits_ == 6
    assert models["TnT after graph reduction"].n_splits_ == 4
    assert training_accuracy(models["TnT after graph reduction"], X, y) == models["TnT"].score(X, y)
    rng = np.random.default_rng(0)
    X2 = rng.normal(size=(300, 2))
    y2 = np.where(X2[:, 0] + X2[:, 1] > 0, "a", "b")
    other = teaching_models(X2, y2, C=1e-2, corners=False)
    assert list(other) == ["CART", "TnT", "TnT after graph reduction"]
    assert training_accuracy(other["TnT"], X2, y2) == other["TnT"].score(X2, y2)


def test_unknown_grower_of_cart_trees_is_refused(wine):
    Xa, Xb, ya, yb = wine
    with pytest.raises(ValueError, match="Unknown grower of CART trees 'exact'"):
        fit_ensemble("Random Forest", Xa, ya, Xb, yb, n_estimators=2, seed=0, cart_trees="exact")
    with pytest.raises(ValueError, match="Unknown grower of CART trees 'exact'"):  # before any TnT is trained
        compare_ensembles(Xa, ya, Xb, yb, n_estimators=2, cart_trees="exact")


def test_ensembles_on_data_with_missing_values_are_refused_in_one_sentence(wine):
    Xa, Xb, ya, yb = wine
    Xb = np.array(Xb, dtype=float)
    Xb[0, 0] = np.nan
    with pytest.raises(ValueError, match=f"^{re.escape(ADABOOST_TAKES_NO_MISSING)}$"):
        compare_ensembles(Xa, ya, Xb, yb, n_estimators=2)


@pytest.fixture(scope="module")
def tie_free():
    """Continuous features, exact in float32 (scikit-learn's thresholds), and nodes of many samples:
    no two splits are equally good, so both growers must grow the same trees. (With a few samples
    per node, two features often split a node equally well, and the growers break such ties by
    different feature orders.)"""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5)).astype(np.float32).astype(np.float64)
    score = X[:, 0] + X[:, 1] ** 2 - 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=len(X))
    y = np.digitize(score, np.quantile(score, [0.4, 0.75]))
    return X[:2000], y[:2000], X[2000:], y[2000:]


@pytest.mark.parametrize("kind", ["Random Forest", "AdaBoost"])
@pytest.mark.parametrize("leaves", [4, 12, 30])
def test_binned_cart_trees_are_scikit_learns_trees(tie_free, kind, leaves):
    """The fast grower of the CART ensembles' base trees (the default) gives the same ensembles as
    scikit-learn's DecisionTreeClassifier: same split counts, same accuracies at every size."""
    Xa, ya, Xb, yb = tie_free
    kw = dict(sizes=(3, 6), seed=1, max_leaf_nodes=leaves)
    binned = fit_ensemble_sizes(kind, Xa, ya, Xb, yb, cart_trees="binned", **kw)
    exact = fit_ensemble_sizes(kind, Xa, ya, Xb, yb, cart_trees="scikit-learn", **kw)
    assert binned == exact
    assert all(row["mean_splits"] == leaves - 1 for row in binned)  # trees as large as asked: not a trivial match
