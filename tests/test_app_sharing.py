"""The Shared nodes page, training to a budget on the Train page, and the Teach page's reasons,
through Streamlit's AppTest."""

import json

import numpy as np
import pytest

from tnt.services.sharing import edge_flows, incoming_edges, unfold_counts
from tnt.viz.colors import class_palette
from ui.display import counted, format_count, table_height


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


def chosen_edges(at):
    """The chosen node and the edges into it, computed here from the current model."""
    result = current_model(at)
    graph = result.tnt.graph_
    data = at.session_state["data/dataset"]
    flows = edge_flows(graph, data.X_train, np.searchsorted(result.tnt.classes_, data.y_train))
    node = node_box(at).value
    return node, incoming_edges(graph, node, flows, list(data.feature_names))


def incoming_chart(at):
    (spec,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return spec


def test_shared_nodes_page_lists_the_nodes_and_explains_the_busiest(app):
    go(app, "sharing")
    assert app.header[0].value == "Shared nodes"
    result = current_model(app)
    graph = result.tnt.graph_
    u = unfold_counts(graph)
    assert metric(app, "Splits of the graph") == format_count(graph.n_splits)
    assert metric(app, "Nodes with several parents") == format_count(graph.shared_nodes.size)
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
    assert f"**Sharing node #{node} saves {counted(u.saved_by(node), 'split')}**" in text
    _, edges = chosen_edges(app)
    parents = app.dataframe[1].value  # the table under the chart, every edge by parent id
    assert list(parents["parent"]) == [f"#{e.parent}" for e in edges]
    assert list(parents["samples"]) == [format_count(e.samples) for e in edges]
    assert sum(e.samples for e in edges) == graph.n_node_samples[node]


def test_what_arrives_from_each_parent_is_one_chart(app):
    go(app, "sharing")
    graph = current_model(app).tnt.graph_
    most = int(graph.shared_nodes[np.argmax(graph.n_parents[graph.shared_nodes])])
    node_box(app).set_value(most).run()  # the node with the most parents
    node, edges = chosen_edges(app)
    assert node == most and len(edges) == graph.n_parents[most] >= 2
    busiest = sorted(edges, key=lambda e: -e.samples)
    samples, *shares = incoming_chart(app)["data"]
    # One bar per parent (by its id and the condition on the way), busiest first, of its samples.
    assert samples["name"] == "samples" and samples["orientation"] == "h"
    assert samples["y"] == [f"#{e.parent}  {e.condition}" for e in busiest]
    assert samples["x"] == [e.samples for e in busiest]
    assert samples["text"] == [format_count(e.samples) for e in busiest]
    # Then one trace per class, in class order and colours, stacking each parent's shares to 100%.
    data = app.session_state["data/dataset"]
    assert [t["name"] for t in shares] == [str(c) for c in data.class_names]
    assert [t["marker"]["color"] for t in shares] == class_palette(len(data.class_names))
    for i, e in enumerate(busiest):
        row = np.array([t["x"][i] for t in shares])
        assert row.sum() == pytest.approx(100)
        assert row == pytest.approx(100 * e.class_counts / e.samples)
    # The page says each parent in words only once: no stack of per-parent bars any more.
    assert not any(m.value.startswith("From **#") for m in app.markdown)


def test_the_table_says_its_savings_overlap_and_counts_are_formatted_alike(app):
    go(app, "sharing")
    captions = " ".join(c.value for c in app.caption)
    assert "Read the last column row by row, not as a sum" in captions
    assert "savings of nested shared nodes overlap" in captions
    table = app.dataframe[0].value
    # The graph's counts: numbers (sorted as numbers), shown with thousands separators.
    shown = json.loads(app.dataframe[0].proto.columns)
    for column in ("parents", "samples", "samples from other parents"):
        assert shown[column]["type_config"]["format"] == "localized" and table[column].dtype.kind in "iu"
    assert table["samples"].max() > 1000  # the busiest nodes have over a thousand samples
    # The unfolded tree's counts (too large for a float at times): text by format_count, right-aligned.
    for column in ("paths to it (its copies in the tree)", "splits of the tree below it", "splits its sharing saves"):
        assert all(isinstance(v, str) and v == format_count(int(v.replace(",", ""))) for v in table[column])
        assert shown[column]["alignment"] == "right"
    node = node_box(app).value
    assert node_box(app).format_func(node).endswith(f"({format_count(table['samples'][0])} samples)")


def test_the_table_is_as_tall_as_its_rows_with_no_empty_row_below(app, monkeypatch):
    import streamlit

    heights = []
    shown = streamlit.dataframe

    def recording(data=None, *args, **kwargs):
        heights.append((len(data), kwargs.get("height")))
        return shown(data, *args, **kwargs)

    monkeypatch.setattr(streamlit, "dataframe", recording)
    go(app, "sharing")
    rows, height = heights[0]
    assert 1 < rows < 9 and height == table_height(rows) == 35 * (rows + 1) + 2  # header, rows, border
    # One row: the header and that row; many rows: the table stops at 360 px and scrolls.
    assert table_height(1, max_px=360) == 72 and table_height(9, max_px=360) == 352
    assert table_height(10, max_px=360) == table_height(1000, max_px=360) == 360


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
