"""Text export: golden output with a shared node printed once and referred back to."""

import re

from tnt import TnTClassifier
from tnt.viz.export_text import export_text

GOLDEN_TEXT = """\
|--- petal width <= 0.5
|   |--- petal length <= 1.5
|   |   |--- class: setosa
|   |--- petal length > 1.5
|   |   |--- node #4: petal width <= 0.25
|   |   |   |--- class: setosa
|   |   |--- node #4: petal width > 0.25
|   |   |   |--- node #6: class: other
|--- petal width > 0.5
|   |--- petal length <= 2.5
|   |   |--- -> see node #4
|   |--- petal length > 2.5
|   |   |--- -> see node #6 (class: other)
"""


def test_golden_text_of_a_graph_with_shared_nodes(toy_graph):
    text = export_text(toy_graph, feature_names=["petal width", "petal length"], class_names=["setosa", "other"])
    assert text == GOLDEN_TEXT


def test_default_names_and_precision(toy_graph):
    text = export_text(toy_graph, precision=1)
    assert text.splitlines()[0] == "|--- x[0] <= 0.5"
    assert "|   |   |--- node #4: x[0] <= 0.2" in text  # 0.25 rounded to one decimal
    assert "class: 0" in text and "class: 1" in text


def test_every_shared_node_is_printed_once_and_every_reference_resolves(optdigits):
    X, y, _, _ = optdigits
    graph = TnTClassifier(C=3e-3, N1=2, N2=2, random_state=0).fit(X, y).graph_
    text = export_text(graph)
    assert graph.shared_nodes.size > 0
    defined = re.findall(r"--- node #(\d+): ", text)
    references = set(re.findall(r"-> see node #(\d+)", text))
    shared = {str(i) for i in graph.shared_nodes}
    # A split is defined by its two condition lines, a leaf by one line.
    for node in shared:
        assert defined.count(node) == (1 if graph.is_leaf[int(node)] else 2)
    assert references <= shared
    # Every split is printed exactly once (its "<=" line), so the text grows linearly with the graph.
    assert sum(" <= " in line for line in text.splitlines()) == graph.n_splits
    assert len(text.splitlines()) <= 4 * graph.n_splits + 1
