"""The learner's options: held-out stopping (``validation_fraction``) and the guard on internal
nodes' refits (``internal_refit``). Each does what its docstring says; the defaults leave training
as it was (tests/test_learner_fingerprints.py, tests/test_n1_is_cart.py)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification, make_friedman1
from sklearn.utils._param_validation import InvalidParameterError

from tnt import TnTClassifier, TnTRegressor
from tnt.learn.growth import _Problem, grow_graph
from tnt.learn.micro_tree import MicroTree
from tnt.learn.refit_guard import improves_on_split
from tnt.learn.selection import held_out_rows


def _graph_arrays(model):
    g = model.graph_
    return g.children_left, g.children_right, g.feature, g.threshold


def _same_graph(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(_graph_arrays(a), _graph_arrays(b), strict=True))


@pytest.fixture(scope="module")
def noisy():
    """A small classification with label noise: large graphs over-fit it."""
    return make_classification(n_samples=400, n_features=8, n_informative=4, flip_y=0.15, random_state=0)


def _problem(X, y, seed=0):
    return _Problem(
        X=np.ascontiguousarray(X, dtype=np.float32),
        y=y.astype(np.intp),
        w=np.ones(len(y)),
        n_classes=int(y.max()) + 1,
        seed=seed,
    )


# ---------------------------------------------------------------- held-out rows


@pytest.mark.parametrize("fraction", [0.1, 0.2, 0.33, 0.5])
def test_held_out_share_is_respected_and_stratified(fraction):
    X, y = load_iris(return_X_y=True)
    fit_rows, held_rows = held_out_rows(_problem(X, y), fraction, classification=True)
    assert held_rows.size == int(np.ceil(fraction * len(y)))
    assert np.array_equal(np.sort(np.concatenate([fit_rows, held_rows])), np.arange(len(y)))
    # stratified: each class's held-out count is within one of its share
    for c in range(3):
        assert abs(np.count_nonzero(y[held_rows] == c) - fraction * np.count_nonzero(y == c)) <= 1


def test_held_out_rows_depend_on_the_seed_only():
    X, y = load_iris(return_X_y=True)
    first = held_out_rows(_problem(X, y, seed=3), 0.2, classification=True)
    again = held_out_rows(_problem(X, y, seed=3), 0.2, classification=True)
    other = held_out_rows(_problem(X, y, seed=4), 0.2, classification=True)
    assert np.array_equal(first[1], again[1])
    assert not np.array_equal(first[1], other[1])


def test_nothing_is_held_out_when_a_part_would_be_empty():
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    assert held_out_rows(_problem(X, y), 0.6, classification=True) is None
    model = TnTClassifier(ccp_alpha=0.0, C=0.0, validation_fraction=0.6, random_state=0).fit(X, y)
    assert model.validation_scores_.size == 0
    assert model.n_steps_ == 12
    assert model.score(X, y) == 1.0


def test_a_class_with_one_sample_is_held_out_unstratified():
    X = np.arange(20, dtype=float).reshape(-1, 1)
    y = np.array([0] * 10 + [1] * 9 + [2])
    fit_rows, held_rows = held_out_rows(_problem(X, y), 0.25, classification=True)
    assert held_rows.size == 5 and fit_rows.size == 15


# ---------------------------------------------------------------- stopping after a number of steps


def test_max_steps_gives_the_snapshot_of_that_step(noisy):
    X, y = noisy
    problem = _problem(X, y)
    snapshots = []
    grow_graph(problem, 1e-3, 2, 2, fine_tune=1, callback=lambda event: snapshots.append(event.snapshot()))
    assert len(snapshots) == 2 * 3 + 1
    for step, snapshot in enumerate(snapshots, start=1):
        stopped = grow_graph(_problem(X, y), 1e-3, 2, 2, fine_tune=1, max_steps=step)
        for name in ("children_left", "children_right", "feature", "threshold", "label"):
            assert np.array_equal(getattr(stopped, name), getattr(snapshot, name)), (step, name)


# ---------------------------------------------------------------- validation_fraction


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_held_out_stop_trains_all_samples_up_to_the_best_step(Model, noisy):
    X, y = noisy if Model is TnTClassifier else make_friedman1(n_samples=300, noise=1.0, random_state=0)
    model = Model(ccp_alpha=0.0, C=1e-4, N2=3, validation_fraction=0.25, random_state=1).fit(X, y)
    scores = model.validation_scores_
    assert scores.shape == (2 * 4,)
    assert model.n_steps_ == int(np.argmax(scores)) + 1  # the first of the best
    assert scores[model.n_steps_ - 1] == scores.max()
    # the graph is the one training on all the samples has at that step
    events = []
    Model(ccp_alpha=0.0, C=1e-4, N2=3, random_state=1).fit(X, y, progress_callback=events.append)
    at_step = events[model.n_steps_ - 1].snapshot()
    assert np.array_equal(model.graph_.children_left, at_step.children_left)
    assert np.array_equal(model.graph_.feature, at_step.feature)
    assert np.array_equal(model.graph_.threshold, at_step.threshold)


def test_held_out_stop_is_deterministic_with_random_state(noisy):
    X, y = noisy
    a = TnTClassifier(ccp_alpha=0.0, C=1e-4, validation_fraction=0.2, random_state=5).fit(X, y)
    b = TnTClassifier(ccp_alpha=0.0, C=1e-4, validation_fraction=0.2, random_state=5).fit(X, y)
    assert np.array_equal(a.validation_scores_, b.validation_scores_)
    assert a.n_steps_ == b.n_steps_ and _same_graph(a, b)


# Fits that grow graphs on 80 % of the rows before the one they keep (trials), and how many: one to
# choose a held-out size or a held-out stop, two to choose a regressor's refit rule (its default).
TRIALS = [
    (TnTClassifier, {"ccp_alpha": "held_out"}, 1),
    (TnTClassifier, {"ccp_alpha": "held_out_regrown"}, 1),
    (TnTClassifier, {"ccp_alpha": 0.0, "validation_fraction": 0.2}, 1),
    (TnTClassifier, {}, 0),
    (TnTRegressor, {}, 2),
    (TnTRegressor, {"validation_fraction": 0.2}, 3),
    (TnTRegressor, {"ccp_alpha": 0.0}, 0),
]


@pytest.mark.parametrize(("estimator", "options", "trials"), TRIALS)
def test_progress_counts_the_trial_growths_then_the_kept_one(noisy, estimator, options, trials):
    """Every step of every growth reaches the callback, trials first (``kind="trial"``), numbered in
    one count across the fit (``fit_step``), which the kept growth's last step completes; the kept
    growth's own steps are numbered as a fit without trials numbers them."""
    X, y = noisy
    target = y if estimator is TnTClassifier else X[:, 0] + y
    events = []
    model = estimator(C=1e-3, N1=2, N2=3, random_state=0, **options).fit(X, target, progress_callback=events.append)
    per_growth = 2 * (3 + 1)
    trial_events = [e for e in events if e.kind == "trial"]
    kept = [e for e in events if e.kind != "trial"]
    assert events[: len(trial_events)] == trial_events  # the trials come first
    assert len(trial_events) == trials * per_growth
    assert [e.fit_step for e in events] == list(range(1, len(events) + 1))
    assert {e.fit_steps for e in trial_events} <= {(trials + 1) * per_growth}
    assert all(e.fit_steps == len(events) for e in kept)
    assert [e.step for e in kept] == list(range(1, model.n_steps_ + 1))
    assert all(e.total_steps == model.n_steps_ for e in kept)
    assert [e.step for e in trial_events] == list(range(1, per_growth + 1)) * trials
    assert kept[-1].n_splits >= model.n_splits_  # pruned after growth, never grown larger
    assert all(e.snapshot().n_splits == e.n_splits for e in trial_events[per_growth - 1 :: per_growth])
    # Reporting changes nothing that is learned.
    quiet = estimator(C=1e-3, N1=2, N2=3, random_state=0, **options).fit(X, target)
    assert _same_graph(model, quiet)


def test_a_trial_that_cannot_hold_rows_out_is_left_out_of_the_count():
    """One sample holds none out: the regressor's refit rule is the paper's without trial growths,
    and the kept growth's steps make up the whole count."""
    events = []
    model = TnTRegressor(C=1e-3, N1=1, N2=2, random_state=0).fit(
        [[0.0], [1.0]][:1], [1.0], progress_callback=events.append
    )
    assert [e.kind for e in events] == ["grow", "grow", "merge"]
    assert [(e.fit_step, e.fit_steps) for e in events] == [(1, 3), (2, 3), (3, 3)]
    assert model.n_steps_ == 3


def test_without_the_options_nothing_is_held_out(noisy):
    X, y = noisy
    model = TnTClassifier(ccp_alpha=0.0, C=1e-3, random_state=0).fit(X, y)
    assert model.validation_scores_.size == 0 and model.n_steps_ == 12


# ---------------------------------------------------------------- internal_refit


def test_improves_on_split_weighs_the_misrouted_samples():
    X = np.array([[0.0], [1.0], [2.0]], dtype=np.float32)
    stump = MicroTree(
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([0, -2, -2]),
        np.array([0.5, -2.0, -2.0]),
        np.array([-1, 0, 1]),
    )
    rows, targets = np.arange(3), np.array([0, 1, 0])
    # the stump misroutes row 2, the split at 2.5 (all left) row 1: their weights decide
    assert improves_on_split(stump, 0, 2.5, 0, X, rows, targets, np.array([1.0, 2.0, 1.0]))
    assert not improves_on_split(stump, 0, 2.5, 0, X, rows, targets, np.array([1.0, 1.0, 2.0]))
    assert not improves_on_split(stump, 0, 2.5, 0, X, rows, targets, np.ones(3))  # a tie keeps the split


def test_guard_keeps_a_tree_that_fits_its_training_samples(noisy):
    """When the first phase fits every training sample, no refit can misroute fewer sensitive samples
    than the splits they were sorted by: the guarded graph is the first phase's tree, where the
    paper's refits change it."""
    X, y = noisy
    first = TnTClassifier(ccp_alpha=0.0, C=0.0, N1=1, random_state=0).fit(X, y)
    assert first.score(X, y) == 1.0
    guarded = TnTClassifier(ccp_alpha=0.0, C=0.0, internal_refit="improving", random_state=0).fit(X, y)
    assert _same_graph(first, guarded)
    paper = TnTClassifier(ccp_alpha=0.0, C=0.0, random_state=0).fit(X, y)
    assert not _same_graph(first, paper)


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_guard_never_raises_the_training_loss_of_a_phase(Model, noisy):
    """Each guarded refit lowers the node's share of the loss: after the second phase the training
    loss is no higher than the first phase's."""
    X, y = noisy if Model is TnTClassifier else make_friedman1(n_samples=300, noise=1.0, random_state=0)
    first = Model(ccp_alpha=0.0, C=1e-3, N1=1, random_state=0).fit(X, y)
    guarded = Model(ccp_alpha=0.0, C=1e-3, internal_refit="improving", random_state=0).fit(X, y)
    assert guarded.score(X, y) >= first.score(X, y) - 1e-12


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
def test_n1_is_one_tree_whatever_the_guard(Model, noisy):
    X, y = noisy if Model is TnTClassifier else make_friedman1(n_samples=300, noise=1.0, random_state=0)
    plain = Model(ccp_alpha=0.0, C=1e-3, N1=1, random_state=0).fit(X, y)
    guarded = Model(ccp_alpha=0.0, C=1e-3, N1=1, internal_refit="improving", random_state=0).fit(X, y)
    assert _same_graph(plain, guarded)


# ---------------------------------------------------------------- parameter checks


@pytest.mark.parametrize("Model", [TnTClassifier, TnTRegressor])
@pytest.mark.parametrize(
    "params, match",
    [
        ({"validation_fraction": 0.0}, "'validation_fraction' parameter"),
        ({"validation_fraction": 1.0}, "'validation_fraction' parameter"),
        ({"internal_refit": "sometimes"}, "'internal_refit' parameter"),
    ],
)
def test_bad_option_values_are_refused(Model, params, match):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(InvalidParameterError, match=match):
        Model(**params).fit(X, y)
