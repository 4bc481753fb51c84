"""Open any model, read big graphs, take them elsewhere: the library side of the Graph page's
model files, the plotly view's options, the standalone HTML file and ``tnt.plot_graph``."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import tnt
from tnt.data.datasets import load_bundled
from tnt.model_io import from_sklearn, model_from_json, model_to_json
from tnt.reduction import reduce_model
from tnt.services.model_on_data import match_data, open_model_file, reduction_summary
from tnt.viz.plotly_view import graph_figure, standalone_html


@pytest.fixture(scope="module")
def digits():
    return load_bundled("digits")


@pytest.fixture(scope="module")
def digits_tree(digits):
    return DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(digits.X_train, digits.y_train)


# ------------------------------------------------------------------ scikit-learn trees to model files
def test_a_scikit_learn_tree_becomes_a_model_file_in_one_call(digits, digits_tree, tmp_path):
    path = tmp_path / "tree.json"
    model = from_sklearn(digits_tree, feature_names=digits.feature_names, path=path)
    loaded = model_from_json(path.read_bytes())
    named = pd.DataFrame(digits.X_test, columns=digits.feature_names)  # as a model given names reads them
    for m in (model, loaded):
        assert np.array_equal(m.predict(named), digits_tree.predict(digits.X_test))
        assert np.allclose(m.predict_proba(named), digits_tree.predict_proba(digits.X_test))
    assert loaded.estimator_kind_ == "DecisionTreeClassifier" and loaded.estimator_params_["max_leaf_nodes"] == 40
    assert list(loaded.feature_names_in_) == list(digits.feature_names)
    assert loaded.n_splits_ == digits_tree.tree_.node_count // 2 == 39
    assert model_to_json(loaded) == path.read_text()  # the same file again


def test_class_names_replace_the_trees_labels(digits, digits_tree):
    names = [f"digit {k}" for k in digits_tree.classes_]
    model = from_sklearn(digits_tree, class_names=names)
    expected = np.asarray(names)[np.searchsorted(digits_tree.classes_, digits_tree.predict(digits.X_test))]
    assert np.array_equal(model.predict(digits.X_test), expected)
    assert not hasattr(model, "feature_names_in_")


def test_from_sklearn_says_what_is_wrong(digits_tree):
    with pytest.raises(ValueError, match="class_names has 3 names but the tree has 10 classes"):
        from_sklearn(digits_tree, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="feature_names has 2 names but the tree has 64 features"):
        from_sklearn(digits_tree, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="is not a fitted graph classifier or regressor"):
        from_sklearn(DecisionTreeClassifier())


# ------------------------------------------------------------------ a model against the data in use
def test_a_model_matches_the_data_it_was_trained_on_and_predicts_its_labels(digits, digits_tree):
    text_labels = from_sklearn(digits_tree, class_names=[str(k) for k in digits_tree.classes_])
    match = match_data(text_labels, digits)
    assert match.ok and match.problem is None
    assert match.model.classes_.dtype == digits.classes.dtype  # the file's "3" is the data's 3
    assert match.model.score(digits.X_test, digits.y_test) == digits_tree.score(digits.X_test, digits.y_test)
    assert text_labels.classes_.dtype.kind == "U"  # the opened model itself is unchanged


def test_each_mismatch_is_one_sentence(digits, digits_tree):
    named = from_sklearn(digits_tree, feature_names=[f"f{i}" for i in range(64)])
    problem = match_data(named, digits).problem
    assert problem.startswith("The model's feature columns have other names") and "column 1 is 'f0'" in problem
    iris = load_bundled("iris")
    problem = match_data(from_sklearn(digits_tree), iris).problem
    assert problem == "The model needs 64 feature columns; the data in use, Iris, has 4."
    other = from_sklearn(digits_tree, class_names=[f"c{k}" for k in range(10)])
    problem = match_data(other, digits).problem
    assert problem.startswith("The model predicts classes that the data in use") and "c0, c1, c2, c3, ..." in problem
    for p in (problem,):
        assert p.count(". ") == 0 and "Traceback" not in p


def test_bad_files_are_one_sentence_through_the_apps_reader():
    cases = {
        b"": "not valid JSON",
        b"\xff\xfe": "not valid JSON",
        b'{"format": "x"}': "This is not a TnT Explorer model file",
        b'{"format": "tnt-explorer-model", "version": 9}': "version 9 is not supported",
    }
    for content, message in cases.items():
        with pytest.raises(ValueError, match=message) as info:
            open_model_file(content, "bad.json")
        assert "\n" not in str(info.value)


def test_reduction_turns_a_tree_into_a_smaller_graph_and_says_so(digits, digits_tree):
    model = match_data(from_sklearn(digits_tree), digits).model
    reduced = reduce_model(model, digits.X_train, digits.y_train)
    summary = reduction_summary(model, reduced, digits)
    assert summary["training_predictions_kept"] is True
    assert summary["splits_after"] <= summary["splits"] == 39
    assert summary["leaves_after"] < summary["leaves"] == 40  # a tree's repeated leaves become shared ones
    assert summary["shared_nodes"] == 0 and summary["shared_nodes_after"] == reduced.n_shared_nodes_


# ------------------------------------------------------------------ the plotly view's options
def test_edge_samples_count_every_sample_once_per_split_it_passes(toy_graph):
    X = np.array([[0.1, 1.0], [0.3, 2.0], [0.9, 2.0], [0.9, 3.0]])
    counts = toy_graph.edge_samples(X)
    assert counts.shape == (7, 2) and counts[0].tolist() == [2, 2]
    assert counts[toy_graph.is_leaf].sum() == 0
    # Every sample leaves each split of its path once: the total is the sum of decision depths.
    assert counts.sum() == toy_graph.decision_depth(X).sum()


def test_edge_widths_follow_the_samples_along_each_edge(toy_graph):
    X = np.array([[0.1, 1.0]] * 8 + [[0.9, 3.0]] * 2)  # 8 go 0 -> 1 -> 3, 2 go 0 -> 2 -> 6
    fig = graph_figure(toy_graph, edge_samples=toy_graph.edge_samples(X))
    widths = {}
    for trace in fig.data:
        if trace.name in ("yes (<=)", "no (>)"):
            xs = list(trace.x)  # each edge a polyline (through dag_layout's dummies) ended by None
            ends = [i for i, v in enumerate(xs) if v is None]
            assert ends and ends[-1] == len(xs) - 1
            for start, end in zip([0, *[e + 1 for e in ends[:-1]]], ends):
                widths[(trace.name, xs[start], xs[end - 1])] = trace.line.width
    assert max(widths.values()) == 14.0  # the busiest edges: 8 samples
    assert min(widths.values()) == 0.5  # edges no sample takes are hairlines
    assert len(set(widths.values())) >= 3
    hover = next(t for t in fig.data if t.name == "nodes").hovertext[0]
    assert hover.endswith("training samples sent: 8 yes, 2 no")


def test_the_depth_window_sets_the_first_view_and_a_node_can_be_marked(toy_graph):
    assert graph_figure(toy_graph).layout.yaxis.range is None  # the whole shape
    fig = graph_figure(toy_graph, layers=(1, 2), selected_node=4)
    assert list(fig.layout.yaxis.range) == [-2.5, -0.5]
    (arrow,) = fig.layout.annotations
    assert arrow.text == "<b>#4</b>" and arrow.showarrow


def test_the_standalone_html_file_works_offline(toy_graph):
    page = standalone_html(graph_figure(toy_graph, feature_names=["a", "b"]), title="toy <graph>")
    assert "<title>toy &lt;graph&gt;</title>" in page
    assert re.findall(r"<script[^>]*>", page) == ["<script>"] * 3  # no script comes from the network
    assert not re.search(r"<(link|img|iframe)\b", page)
    assert len(page) > 3_000_000  # plotly.js itself is inside
    assert '"scrollZoom": true' in page
    data = json.loads(re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.S).group(1))
    assert any(t.get("name") == "nodes" and len(t["hovertext"]) == toy_graph.node_count for t in data)


# ------------------------------------------------------------------ notebooks
def test_plot_graph_is_inline_svg_with_the_apps_colours_legend_and_path(digits):
    clf = tnt.TnTClassifier(C=1e-2, random_state=0).fit(digits.X_train, digits.y_train)
    drawing = tnt.plot_graph(clf, highlight=digits.X_test[0], feature_names=digits.feature_names)
    svg = drawing._repr_svg_()
    assert svg.startswith("<svg") and "</svg>" in svg
    assert 'stroke="#c00000"' in svg  # the sample's path
    assert "sample&#39;s path" in svg and svg.count('id="legend') >= 3  # the legend's chips
    assert digits.feature_names[0] not in svg or "<=" in svg
    plain = tnt.plot_graph(clf, legend=False)._repr_svg_()
    assert 'id="legend' not in plain and "#c00000" not in plain


def test_plot_graph_takes_trees_graphs_and_windows_and_saves(digits_tree, tmp_path):
    tree_svg = tnt.plot_graph(digits_tree, show_ids=True)._repr_svg_()
    assert "#0" in tree_svg and tree_svg.count('class="node"') >= 79
    windowed = tnt.plot_graph(from_sklearn(digits_tree), depth_window=(0, 2))._repr_svg_()
    assert windowed.count('class="node"') < tree_svg.count('class="node"')
    path = tnt.plot_graph(digits_tree).save(tmp_path / "tree.png")
    assert path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="Cannot save as '.gif'"):
        tnt.plot_graph(digits_tree).save(tmp_path / "tree.gif")


def test_the_documentations_notebook_example_runs_as_printed(tmp_path):
    root = Path(__file__).resolve().parent.parent
    page = root / "docs" / "guide" / "notebooks.md"
    blocks = re.findall(r"```python\n(.+?)\n```", page.read_text(), flags=re.S)
    (example,) = [b for b in blocks if "plot_graph" in b]
    (tmp_path / "example.py").write_text(example)
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "example.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    model = model_from_json((tmp_path / "tree.json").read_bytes())
    assert model.estimator_kind_ == "DecisionTreeClassifier" and model.n_splits_ == 39
    assert (tmp_path / "tree.pdf").read_bytes().startswith(b"%PDF-")
