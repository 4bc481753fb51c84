"""TnTClassifier: the algorithm's defining properties."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError

from tnt import CARTClassifier, GrowthEvent, TAOClassifier, TnTClassifier
from tnt.learn.growth import _grow_pass, _MicroTreeCache, _Problem, _Workers
from tnt.learn.working_graph import FlatGraph, WorkingGraph, compact


@pytest.mark.parametrize("C", [1e-4, 1e-3, 1e-2])
@pytest.mark.parametrize("name", ["pendigits", "optdigits"])
def test_one_phase_is_cost_complexity_pruned_cart(name, C, request):
    # N1=1 grows one micro tree on all the data: CART pruned at ccp_alpha=C, up to tied splits.
    X, y, X_test, _ = request.getfixturevalue(name)
    tnt = TnTClassifier(C=C, N1=1, random_state=0).fit(X, y)
    cart = DecisionTreeClassifier(ccp_alpha=C, random_state=0).fit(X, y)
    assert np.mean(tnt.predict(X) == cart.predict(X)) >= 0.995
    cart_splits = cart.tree_.node_count - cart.get_n_leaves()
    assert abs(tnt.n_splits_ - cart_splits) <= 0.02 * cart_splits


@pytest.mark.parametrize("C", [1e-4, 1e-3])
def test_one_phase_is_exactly_cart_on_continuous_weighted_data(C):
    X, y = make_classification(n_samples=2000, n_features=6, n_informative=4, n_classes=3, random_state=1)
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=y.shape[0])
    tnt = TnTClassifier(C=C, N1=1, ccp_alpha=0.0, random_state=0).fit(X, y, sample_weight=w)
    cart = DecisionTreeClassifier(ccp_alpha=C, random_state=0).fit(X, y, sample_weight=w)
    assert np.array_equal(tnt.predict(X), cart.predict(X))
    assert tnt.n_splits_ == cart.tree_.node_count - cart.get_n_leaves()


def _problem(X, y):
    classes, y_enc = np.unique(y, return_inverse=True)
    return _Problem(
        X=np.ascontiguousarray(X, dtype=np.float32), y=y_enc, w=np.ones(len(y)), n_classes=classes.size, seed=0
    )


def test_merge_and_dead_node_pruning_never_change_training_predictions(optdigits):
    X, y, _, _ = optdigits
    problem = _problem(X, y)
    graph = FlatGraph.single_leaf(0)
    all_rows = np.arange(X.shape[0])
    removed_any = False
    workers = _Workers(problem, 1)
    for _ in range(3):
        working = WorkingGraph(graph)
        cache = _MicroTreeCache()
        for _ in range(2):
            _grow_pass(working, problem, 1e-3, cache, workers)
        before = working.predict_from(0, problem.X, all_rows)
        merged = compact(working, problem.X)
        after = WorkingGraph(merged).predict_from(0, problem.X, all_rows)
        assert np.array_equal(before, after)
        removed_any |= merged.n_splits < _reachable_splits(working)
        graph = merged
    assert removed_any, "the test should exercise the removal of at least one dead node"


def _reachable_splits(working):
    seen, stack = set(), [0]
    while stack:
        s = stack.pop()
        if s in seen or working.left[s] < 0:
            continue
        seen.add(s)
        stack += [working.left[s], working.right[s]]
    return len(seen)


def test_no_dead_nodes_remain(optdigits):
    X, y, _, _ = optdigits
    clf = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    g = clf.graph_
    path = clf.decision_path(X)
    internal = np.flatnonzero(~g.is_leaf)
    reached = np.asarray(path.sum(axis=0)).ravel()
    assert np.all(reached > 0)
    # every split sends training samples both ways
    went_left = np.asarray(path[:, g.children_left[internal]].multiply(path[:, internal]).sum(axis=0)).ravel()
    assert np.all(went_left > 0)
    assert np.all(went_left < reached[internal])


def test_nodes_are_shared_on_optdigits(optdigits):
    X, y, X_test, y_test = optdigits
    clf = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    assert clf.n_shared_nodes_ > 0
    assert clf.graph_.n_parents.max() >= 2
    cart = CARTClassifier(max_leaf_nodes=clf.n_splits_ + 1, random_state=0).fit(X, y)
    # Deeper decisions at the same complexity, the paper's Fig. 3a.
    assert clf.decision_depth(X_test).mean() > cart.decision_depth(X_test).mean()


def test_topological_numbering_and_consistent_attributes(optdigits):
    X, y, _, _ = optdigits
    clf = TnTClassifier(C=3e-3, random_state=0).fit(X, y)
    g = clf.graph_
    internal = ~g.is_leaf
    ids = np.arange(g.node_count)
    assert np.all(g.children_left[internal] > ids[internal])
    assert np.all(g.children_right[internal] > ids[internal])
    assert clf.n_splits_ == g.n_splits and clf.n_leaves_ == g.n_leaves
    assert g.value[0].sum() == pytest.approx(len(y))
    assert clf.feature_importances_.shape == (X.shape[1],)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    assert np.array_equal(clf.apply(X), g.apply(X))


def test_progress_callback_reports_every_pass_and_merge():
    X, y = load_iris(return_X_y=True)
    events: list[GrowthEvent] = []
    clf = TnTClassifier(C=1e-2, N1=2, N2=3, fine_tune=2, random_state=0)
    clf.fit(X, y, progress_callback=events.append)
    assert [e.kind for e in events] == ["grow"] * 3 + ["merge"] + ["grow"] * 3 + ["merge"] + ["fine_tune"] * 2
    assert [e.step for e in events] == list(range(1, 11))
    assert all(e.total_steps == 10 for e in events)
    assert events[-1].n_splits == clf.n_splits_
    assert events[3].snapshot().n_splits == events[3].n_splits


def test_string_labels_and_dataframe_feature_names():
    X, y = load_iris(return_X_y=True, as_frame=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = TnTClassifier(C=1e-2, random_state=0).fit(X, names)
    assert list(clf.feature_names_in_) == list(X.columns)
    assert set(clf.predict(X)) <= set(names)
    assert clf.predict(X).dtype.kind == "U"
    assert clf.score(X, names) > 0.95


def test_integer_weights_act_like_repeated_samples():
    X, y = make_classification(n_samples=300, n_features=5, n_informative=3, random_state=0)
    w = np.random.default_rng(0).integers(0, 4, size=y.shape[0])
    weighted = TnTClassifier(C=3e-3, random_state=0).fit(X, y, sample_weight=w)
    repeated = TnTClassifier(C=3e-3, random_state=0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert np.allclose(weighted.predict_proba(X), repeated.predict_proba(X))
    assert weighted.n_splits_ == repeated.n_splits_


@pytest.mark.parametrize(
    "params, name",
    [({"C": -1.0}, "'C'"), ({"N1": 0}, "'N1'"), ({"N2": 0}, "'N2'"), ({"fine_tune": -1}, "'fine_tune'")],
)
def test_bad_parameters_raise_invalid_parameter_error(params, name):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(InvalidParameterError, match=name):
        TnTClassifier(**params).fit(X, y)


def test_fine_tuning_never_lowers_training_accuracy(pendigits):
    X, y, _, _ = pendigits
    plain = TnTClassifier(C=1e-3, random_state=0).fit(X, y)
    tuned = TnTClassifier(C=1e-3, fine_tune=3, random_state=0).fit(X, y)
    assert tuned.score(X, y) >= plain.score(X, y)
    assert tuned.n_splits_ <= plain.n_splits_


def test_tao_improves_cart_on_training_data(pendigits):
    X, y, X_test, y_test = pendigits
    cart = CARTClassifier(max_leaf_nodes=40, random_state=0).fit(X, y)
    tao = TAOClassifier(max_leaf_nodes=40, random_state=0).fit(X, y)
    assert tao.score(X, y) >= cart.score(X, y)
    assert tao.n_splits_ <= cart.n_splits_
    assert tao.graph_.shared_nodes.size == 0  # fine-tuning keeps a tree a tree


def test_cart_baseline_matches_scikit_learn(pendigits):
    X, y, X_test, _ = pendigits
    ours = CARTClassifier(max_leaf_nodes=50, random_state=3).fit(X, y)
    theirs = DecisionTreeClassifier(max_leaf_nodes=50, random_state=3).fit(X, y)
    assert ours.n_splits_ == 49
    assert np.array_equal(ours.predict(X_test), theirs.predict(X_test))
    assert np.allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test))


def test_single_class_predicts_that_class():
    X = np.random.default_rng(0).normal(size=(20, 3))
    clf = TnTClassifier().fit(X, ["only"] * 20)
    assert clf.n_splits_ == 0
    assert clf.predict(X).tolist() == ["only"] * 20


@pytest.mark.parametrize(("C", "fine_tune"), [(1e-3, 0), (1e-4, 0), (1e-3, 2)])
def test_threads_do_not_change_the_graph(pendigits, C, fine_tune, monkeypatch):
    # Nodes of which none is an ancestor of another are grown concurrently: same graph, fine-tuned
    # or not. pendigits is too small for threads to pay off; make every wave use them anyway.
    import tnt.learn.growth

    monkeypatch.setattr(tnt.learn.growth, "THREADED_WORK", 0)
    X, y, _, _ = pendigits
    one = TnTClassifier(C=C, fine_tune=fine_tune, random_state=0, n_jobs=1).fit(X, y)
    two = TnTClassifier(C=C, fine_tune=fine_tune, random_state=0, n_jobs=2).fit(X, y)
    assert one.graph_ == two.graph_
