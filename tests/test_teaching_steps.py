"""Training replayed with reasons, on the corners toy problem."""

import numpy as np
import pytest

from tnt import TnTClassifier
from tnt.experiments.toy import corners
from tnt.learn.working_graph import FlatGraph, WorkingGraph, dead_splits
from tnt.services.teaching import training_accuracy, training_steps


@pytest.fixture(scope="module")
def replay():
    X, y = corners(seed=0)
    params = dict(C=1e-2, N1=2, N2=3, random_state=0)
    events = []
    model = TnTClassifier(**params).fit(X, y, progress_callback=events.append)
    return X, y, model, events, training_steps(X, y, ["x1", "x2"], **params)


def test_one_step_per_grow_pass_and_merge_ending_with_the_model(replay):
    X, y, model, _, steps = replay
    assert len(steps) == 2 * (3 + 1)
    assert steps[-1].graph == model.graph_
    assert steps[-1].train_accuracy == pytest.approx(model.score(X, y))
    for step in steps:
        assert step.train_accuracy == training_accuracy(step.graph, X, y)


def test_the_first_pass_grows_a_micro_tree_in_the_single_leaf(replay):
    _, _, _, _, steps = replay
    first = steps[0]
    assert (
        first.reasons[0]
        == f"Leaf #0 (2,000 samples) grew a micro tree of {first.graph.n_splits} splits on the class labels."
    )
    majority = max(np.mean(corners(seed=0)[1] == k) for k in (0, 1))
    assert first.reasons[-1] == (
        f"Splits 0 to {first.graph.n_splits} (+{first.graph.n_splits}); "
        f"training accuracy {majority:.4f} to {first.train_accuracy:.4f}."
    )


def test_every_step_states_how_splits_and_accuracy_changed(replay):
    _, _, _, _, steps = replay
    for before, after in zip(steps, steps[1:]):
        last = after.reasons[-1]
        if after.graph.n_splits == before.graph.n_splits:
            assert last.startswith(f"Splits unchanged at {after.graph.n_splits}")
        else:
            assert last.startswith(f"Splits {before.graph.n_splits} to {after.graph.n_splits}")
        assert f"{after.train_accuracy:.4f}." in last
    # Phase 2's second pass changes nothing on the corners, and says so.
    assert steps[5].graph == steps[4].graph
    assert steps[5].reasons[0].startswith("Every node received as many samples as in the previous pass")
    merges = [s for s in steps if ", merge:" in s.label]
    assert len(merges) == 2
    assert all(s.reasons[0].startswith("The phase ends: the micro trees become part of the graph") for s in merges)


def test_phase_two_refits_splits_on_their_sensitive_samples(replay):
    _, _, _, events, steps = replay
    grow = events[4]  # phase 2, first grow pass
    assert (grow.kind, grow.phase) == ("grow", 2)
    records = grow.details["micro_trees"]
    internal = [r for r in records if not r[1]]
    assert internal, "phase 2 starts from a graph with splits"
    root = records[0]
    assert root[0] == 0 and root[2] == 2000 and 0 <= root[3] <= root[2]
    assert all(sensitive <= samples for _, _, samples, sensitive, _ in internal)
    _, _, samples, sensitive, splits = root
    assert (
        f"Split #0 ({samples:,} samples) was refitted as a micro tree of {splits} split{'s' * (splits != 1)} "
        f"on its {sensitive:,} sensitive samples"
    ) in " ".join(steps[4].reasons)
    # What the micro trees hold, less the dead splits, is what the graph has after the pass.
    total = sum(r[4] for r in records)
    assert grow.n_splits <= total - len(grow.details["dead"])


def test_dead_splits_are_those_sending_every_sample_one_way():
    # Root: x0 <= 0.5 (all samples have x0 < 0.5: dead, all left); node 1: x1 <= 0.5 (both ways).
    flat = FlatGraph(
        children_left=np.array([1, 2, -1, -1]),
        children_right=np.array([3, 3, -1, -1]),
        feature=np.array([0, 1, -2, -2]),
        threshold=np.array([0.5, 0.5, -2.0, -2.0]),
        label=np.array([-1, -1, 0, 1]),
    )
    X = np.array([[0.1, 0.2], [0.2, 0.9], [0.3, 0.4]], dtype=np.float32)
    assert dead_splits(WorkingGraph(flat), X) == [(0, 0.5, 3, "left")]


def test_a_dead_categorical_split_is_listed_on_its_feature_and_removed():
    # Root: colour in {0, 1} (every sample's colour is 0 or 1: dead, all left); node 1: x1 <= 0.5.
    from tnt.categorical import subset_bits
    from tnt.learn.category_columns import CategoryColumns
    from tnt.learn.working_graph import compact
    from tnt.services.teaching import _dead_test

    subsets = np.zeros((4, 4), dtype=np.uint64)
    subsets[0] = subset_bits([0, 1], 4)
    flat = FlatGraph(
        children_left=np.array([1, 2, -1, -1]),
        children_right=np.array([3, 3, -1, -1]),
        feature=np.array([0, 1, -2, -2]),
        threshold=np.array([np.nan, 0.5, -2.0, -2.0]),
        label=np.array([-1, -1, 0, 1]),
        missing_go_to_left=np.zeros(4, dtype=np.uint8),
        category_left=subsets,
    )
    X = np.array([[0, 0.2], [1, 0.9], [0, 0.4]], dtype=np.float32)
    working = WorkingGraph(flat, categories=CategoryColumns(X))
    ((feature, threshold, samples, side),) = dead_splits(working, X)
    assert (feature, samples, side) == (0, 3, "left") and np.isnan(threshold)
    assert _dead_test("colour", threshold) == "a test of colour's categories"
    merged = compact(working, X)
    assert merged.feature.tolist() == [1, -2, -2] and merged.category_left is None


def test_the_steps_are_those_of_the_kept_graph_not_of_a_held_out_trial():
    """With a held-out stop the fit first grows a trial graph on 80 % of the rows: its steps reach the
    progress callback as trials and are not replayed; the steps shown end with the model's graph."""
    X, y = corners(seed=0)
    params = dict(C=1e-2, N1=2, N2=3, random_state=0, ccp_alpha=0.0, validation_fraction=0.2)
    events = []
    model = TnTClassifier(**params).fit(X, y, progress_callback=events.append)
    assert sum(e.kind == "trial" for e in events) == 2 * (3 + 1)
    steps = training_steps(X, y, ["x1", "x2"], **params)
    assert len(steps) == model.n_steps_ == sum(e.kind != "trial" for e in events)
    assert steps[-1].graph == model.graph_
