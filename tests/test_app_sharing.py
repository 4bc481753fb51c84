"""The Shared nodes page, training to a budget on the Train page, and the Teach page's reasons,
through Streamlit's AppTest."""

import numpy as np
import pytest

from tnt.experiments.sharing import edge_flows, incoming_edges, unfold_counts
from ui.display import format_count


@pytest.fixture
def app(open_app):
    return open_app(90)


def go(at, page):
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def metric(at, label):
    (match,) = [m.value for m in at.metric if m.label == label]
    return match


def node_box(at):
    (box,) = [s for s in at.selectbox if s.label == "Shared node"]
    return box


def current_model(at):
    return at.session_state["train/models"].latest()


def test_shared_nodes_page_lists_the_nodes_and_explains_the_busiest(app):
    go(app, "sharing")
    assert app.header[0].value == "Shared nodes"
    result = current_model(app)
    graph = result.tnt.graph_
    u = unfold_counts(graph)
    assert metric(app, "Splits of the graph") == str(graph.n_splits)
    assert metric(app, "Nodes with several parents") == str(graph.shared_nodes.size)
    assert metric(app, "Splits of the tree it stands for") == format_count(u.splits)
    assert metric(app, "Leaves of that tree") == format_count(u.leaves)
    assert u.splits > graph.n_splits
    table = app.dataframe[0].value
    assert len(table) == graph.shared_nodes.size
    samples = graph.n_node_samples[[int(n.lstrip("#")) for n in table["node"]]]
    assert list(table["samples"]) == sorted(samples, reverse=True)
    # The chosen node (the busiest at first): its rule, what sharing it saves, each parent's flow.
    node = node_box(app).value
    assert f"#{node}" == table["node"][0]
    text = " ".join(m.value for m in app.markdown)
    assert f"**Sharing node #{node} saves {format_count(u.saved_by(node))} splits**" in text
    data = app.session_state["data/dataset"]
    flows = edge_flows(graph, data.X_train, np.searchsorted(result.tnt.classes_, data.y_train))
    edges = incoming_edges(graph, node, flows, list(data.feature_names))
    parents = app.dataframe[1].value
    assert list(parents["parent"]) == [f"#{e.parent}" for e in edges]
    assert list(parents["samples"]) == [e.samples for e in edges]
    assert sum(parents["samples"]) == graph.n_node_samples[node]


def test_choosing_another_shared_node(app):
    go(app, "sharing")
    box = node_box(app)
    other = int(box.options[-1].split(":")[0].lstrip("#"))
    assert other != box.value
    box.set_value(other).run()
    assert not app.exception
    node = node_box(app).value
    assert node == other
    assert any(m.value.startswith(f"**Node #{node}**") for m in app.markdown)


def test_train_page_trains_to_a_budget(app):
    go(app, "train")
    app.toggle(key="train/budget_on").set_value(True)
    app.number_input(key="train/budget").set_value(50)
    (button,) = [b for b in app.button if b.label == "Train"]
    button.click().run()
    assert not app.exception and not app.error
    splits = int(metric(app, "Splits"))
    assert splits <= 50
    note = " ".join(i.value for i in app.info)
    assert note.startswith("Budget of 50 splits: C=") and f"gives {splits} splits" in note
    assert app.table[0].value.loc["splits", "CART (same splits)"] == str(splits)
    params = app.session_state["train/params"]
    assert current_model(app).params == params and current_model(app).tnt.C == params.C


def test_teach_page_says_what_each_step_did(app):
    go(app, "teach")
    app.slider(key="teach/step").set_value(1).run()
    assert not app.exception
    text = "\n".join(m.value for m in app.markdown)
    assert "- Leaf #0 (2,000 samples) grew a micro tree of 6 splits on the class labels." in text
    assert "- Splits 0 to 6 (+6); training accuracy" in text
    app.slider(key="teach/step").set_value(7).run()  # phase 2, first grow pass
    text = "\n".join(m.value for m in app.markdown)
    assert "sensitive samples" in text or "had no sensitive sample" in text
