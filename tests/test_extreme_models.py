"""Model files that are valid but extreme: a chain of 50,000 splits, a graph of 100,000 nodes, a node
with 10,000 parents. They load, predict, describe themselves and export without recursion or
quadratic work (each step's memory is bounded, and every step runs under the fuzz tests' alarm),
and drawing them falls back to the interactive view with a note."""

from __future__ import annotations

import json
import sys
import tracemalloc

import numpy as np
import pytest

from tnt import DecisionGraph
from tnt.model_io import LoadedGraphModel, model_from_json, model_to_json
from tnt.viz.explain import MAX_DRAWN_NODES, drawing_mode, drawing_note
from tnt.viz.export_dot import drawn_node_count

N_FEATURES = 4


def chain(n_splits: int) -> DecisionGraph:
    """Split ``i`` sends "yes" to its own leaf and "no" to split ``i + 1``; the last "no" is a leaf."""
    splits = np.arange(n_splits)
    left = np.r_[n_splits + splits, np.full(n_splits + 1, -1)]
    right = np.r_[splits[1:], 2 * n_splits, np.full(n_splits + 1, -1)]
    return _graph(left, right, n_splits)


def complete_tree(n_nodes: int) -> DecisionGraph:
    """Node ``i``'s children are ``2i + 1`` and ``2i + 2`` (a complete binary tree, 17 layers for 100,000)."""
    ids = np.arange(n_nodes)
    internal = 2 * ids + 2 < n_nodes
    left = np.where(internal, 2 * ids + 1, -1)
    right = np.where(internal, 2 * ids + 2, -1)
    return _graph(left, right, int(internal.sum()))


def many_parents(n_parents: int) -> DecisionGraph:
    """A chain of ``n_parents`` splits whose "yes" branches all lead to one shared leaf."""
    splits = np.arange(n_parents)
    shared, last = n_parents, n_parents + 1
    left = np.r_[np.full(n_parents, shared), -1, -1]
    right = np.r_[splits[1:], last, -1, -1]
    return _graph(left, right, n_parents)


def _graph(left, right, n_splits) -> DecisionGraph:
    n = left.shape[0]
    rng = np.random.default_rng(0)
    leaf = left < 0
    value = rng.integers(0, 5, size=(n, 3)).astype(float)
    value[0] += 1  # the root has samples
    return DecisionGraph(
        children_left=left,
        children_right=right,
        feature=np.where(leaf, -2, np.arange(n) % N_FEATURES),
        threshold=np.where(leaf, -2.0, rng.normal(size=n)),
        value=value,
    )


def as_model_file(graph: DecisionGraph) -> str:
    model = LoadedGraphModel()
    model.graph_, model.classes_, model.n_features_in_ = graph, np.array(["a", "b", "c"]), N_FEATURES
    model.estimator_kind_, model.estimator_params_ = "TnTClassifier", {}
    return model_to_json(model)


EXTREME = {
    "chain of 50,000 splits": lambda: chain(50_000),
    "100,000 nodes": lambda: complete_tree(100_000),
    "a node with 10,000 parents": lambda: many_parents(10_000),
}


@pytest.fixture(scope="module", params=sorted(EXTREME))
def extreme(request):
    graph = EXTREME[request.param]()
    return request.param, graph, as_model_file(graph)


def peak_memory(function, *args, **kwargs):
    """``function``'s result and the peak of the memory it allocated (bytes)."""
    tracemalloc.start()
    try:
        result = function(*args, **kwargs)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_shapes_are_what_they_say():
    assert chain(50_000).n_splits == 50_000 and chain(50_000).depth_range() == (1, 50_000)
    assert complete_tree(100_000).node_count == 100_000
    assert many_parents(10_000).n_parents.max() == 10_000


def test_extreme_model_files_load_and_predict_as_the_graph_does(extreme):
    name, graph, text = extreme
    # Reading holds the parsed JSON lists and the arrays: a small multiple of the file.
    loaded, peak = peak_memory(model_from_json, text)
    assert peak < 40 * len(text), f"{name}: {peak / 1e6:.0f} MB to read {len(text) / 1e6:.1f} MB"
    assert loaded.graph_ == graph
    X = np.random.default_rng(1).normal(size=(2_000, N_FEATURES))
    assert np.array_equal(loaded.apply(X), graph.apply(X))
    depth = loaded.decision_depth(X)
    assert depth.min() >= 1 and depth.max() <= graph.depth_range()[1]


def test_path_statistics_take_linear_memory(extreme):
    name, graph, _ = extreme
    (lengths, counts), peak = peak_memory(graph.path_length_distribution)
    # One count per node and length between its shortest and longest distance from the root: for
    # these graphs a few per node; a table of nodes x depth would be billions of entries.
    assert peak < 400 * graph.node_count, f"{name}: {peak / 1e6:.0f} MB"
    assert (int(lengths[0]), int(lengths[-1])) == graph.depth_range()
    assert sum(counts) == _count_paths(graph)


def _count_paths(graph: DecisionGraph) -> int:
    """Root-to-leaf paths, counted by a second, independent dynamic programme (paths into each node)."""
    paths = [0] * graph.node_count
    paths[0] = 1
    for node in np.flatnonzero(~graph.is_leaf).tolist():
        paths[graph.children_left[node]] += paths[node]
        paths[graph.children_right[node]] += paths[node]
    return sum(p for p, leaf in zip(paths, graph.is_leaf) if leaf)


def test_the_command_line_describes_and_exports_them(extreme, tmp_path, capsys):
    from tnt.cli import main

    name, graph, text = extreme
    path = tmp_path / "model.json"
    path.write_text(text)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    shortest, longest = graph.depth_range()
    assert f"paths       {shortest} to {longest} splits from root to leaf" in out
    assert main(["export", str(path), "-o", str(tmp_path / "rules.txt")]) == 0
    rules = (tmp_path / "rules.txt").read_text()
    assert len(rules.splitlines()) >= graph.n_splits  # a line per branch at least...
    assert len(rules) < 200 * graph.node_count  # ...but never one indent per level for 50,000 levels
    assert main(["export", str(path), "-o", str(tmp_path / "model.dot")]) == 0
    # An image of the whole graph would keep Graphviz busy for minutes: refused, with what to do.
    assert main(["export", str(path), "-o", str(tmp_path / "model.svg")]) == 1
    error = capsys.readouterr().err.strip()
    assert error.endswith("pass --depth-window A B to draw some layers, or export dot, json or txt.")
    assert not (tmp_path / "model.svg").exists()
    assert main(["export", str(path), "-o", str(tmp_path / "top.svg"), "--depth-window", "0", "3"]) == 0
    assert (tmp_path / "top.svg").read_bytes().startswith(b"<?xml")


def test_drawing_them_whole_falls_back_to_the_interactive_view(extreme):
    name, graph, _ = extreme
    assert drawn_node_count(graph) == graph.node_count > MAX_DRAWN_NODES
    assert drawing_mode(graph) == "interactive"
    note = drawing_note(graph)
    assert f"would hold {graph.node_count:,} nodes" in note and "interactive view" in note
    # The first layers, the app's default window for large graphs, are drawn by Graphviz.
    assert drawing_note(graph, (0, 7)) is None


def test_the_interactive_view_lays_them_out(extreme):
    from tnt.viz.plotly_view import graph_figure

    name, graph, _ = extreme
    figure = graph_figure(graph, highlight_sample=np.zeros(N_FEATURES))
    nodes = next(trace for trace in figure.data if trace.name == "nodes")
    assert len(nodes.x) == graph.node_count
    assert len(set(zip(np.round(nodes.x, 6), nodes.y))) == graph.node_count  # no two nodes on one spot
    # What the browser receives grows with the nodes (a hover text each), not with nodes x layers.
    assert len(figure.to_json()) < 1_000 * graph.node_count


def test_a_model_file_of_the_largest_graph_stays_under_the_size_limit():
    from tnt.model_io import MAX_BYTES

    text = as_model_file(complete_tree(100_000))
    assert len(text) < MAX_BYTES and json.loads(text)["graph"]["children_left"][0] == 1


# ---------------------------------------------------------------------- linear as the graphs double
# "Linear time and memory", tested without a clock: as a graph doubles, the peak memory of each step
# (tracemalloc) and the Python lines it runs (sys.settrace; the compiled kernels run none) at most
# about double. Both are deterministic. The path statistics' work is in a compiled kernel: it is
# one count per node and length between the node's shortest and longest distance from the root
# (DecisionGraph.path_length_distribution), counted below, which is linear for these shapes but
# not for every graph.
def _lines_run(function) -> int:
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    sys.settrace(lambda frame, event, arg: local)
    try:
        function()
    finally:
        sys.settrace(None)
    return count


def _steps(graph: DecisionGraph) -> dict:
    from tnt.viz.export_dot import to_dot
    from tnt.viz.export_text import export_text

    text = as_model_file(graph)
    model = model_from_json(text)
    X = np.random.default_rng(1).normal(size=(200, N_FEATURES))
    return {
        "load": lambda: model_from_json(text),
        "predict": lambda: model.predict(X),
        "path statistics": graph.path_length_distribution,
        "depth range": graph.depth_range,
        "text export": lambda: export_text(graph),
        "dot export": lambda: to_dot(graph),
    }


SHAPES = {"chain": chain, "complete tree": complete_tree, "many parents": many_parents}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_step_takes_memory_and_python_work_in_proportion_to_the_nodes(shape):
    make = SHAPES[shape]
    sizes = (2_000, 4_000, 8_000)
    memory = [{step: peak_memory(run)[1] for step, run in _steps(make(n)).items()} for n in sizes]
    lines = [{step: _lines_run(run) for step, run in _steps(make(n)).items()} for n in (1_000, 2_000)]
    for step in memory[0]:
        for small, large in zip(memory, memory[1:]):
            assert large[step] <= 2.3 * small[step], f"{shape}, {step}: memory x{large[step] / small[step]:.2f}"
        assert lines[1][step] <= 2.1 * lines[0][step], f"{shape}, {step}: lines x{lines[1][step] / lines[0][step]:.2f}"


def _path_statistics_entries(graph: DecisionGraph) -> int:
    """The counts the path statistics keep: per node, one per length between its shortest and
    longest distance from the root."""
    from tnt.learn.walks import distance_ranges

    shortest, longest = distance_ranges(graph.children_left, graph.children_right)
    return int(np.sum(np.maximum(longest - shortest + 1, 0)))


def ladder(n_splits: int) -> DecisionGraph:
    """Split ``i`` leads to splits ``i + 1`` and ``i + 2``: node ``i`` lies ``i / 2`` to ``i`` splits deep."""
    splits = np.arange(n_splits)
    left = np.r_[splits + 1, -1, -1]
    right = np.r_[np.minimum(splits + 2, n_splits + 1), -1, -1]
    right[n_splits - 1] = n_splits + 1
    return _graph(left, right, n_splits)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_path_statistics_keep_a_few_counts_per_node_for_these_shapes(shape):
    for n in (5_000, 10_000):
        graph = SHAPES[shape](n)
        assert _path_statistics_entries(graph) <= 2 * graph.node_count


def test_path_statistics_are_not_linear_for_every_graph():
    """In a ladder a node lies between ``i / 2`` and ``i`` splits deep, so the counts the statistics
    keep grow with nodes x depth: four times as many when the ladder doubles."""
    small, large = ladder(2_000), ladder(4_000)
    assert small.depth_range() == (1000, 2000)
    ratio = _path_statistics_entries(large) / _path_statistics_entries(small)
    assert 3.9 < ratio < 4.1
