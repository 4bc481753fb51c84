"""Shared nodes page: every node with several parents, what flows into it from each parent, and the
tree the graph stands for (how many splits sharing saves)."""

import numpy as np
import pandas as pd
import streamlit as st

from tnt.services.sharing import edge_flows, incoming_edges, neighbourhood, shared_nodes_table, unfold_counts
from tnt.viz.explain import drawing_mode
from tnt.viz.export_dot import to_dot
from ui import drawing, state
from ui.analysis import remembered
from ui.display import counted, format_C, format_count, shared_table
from ui.tables import show_table
from ui.views import ensure_result

#: Shorter headers of the shared nodes' table, with their tooltips.
SHARED_LABELS = {
    "paths to it (its copies in the tree)": ("paths to it", "Paths from the root to the node: its copies in the tree"),
    "splits of the tree below it": ("splits below", "Splits of the tree below the node, once unfolded"),
    "splits its sharing saves": ("splits saved", "Splits a tree would repeat for the node's other copies"),
}
#: Tallest the chart of the incoming edges is shown (pixels); a taller one scrolls in its frame.
CHART_PX = 560

st.header("Shared nodes")
data = state.dataset()
result = ensure_result()

if result is not None:
    model, p = result.tnt, result.params
    graph = model.graph_
    names, classes = list(data.feature_names), None if data.is_regression else data.class_names
    key = (result.dataset_key, p, drawing.fingerprint(graph))

    def analyse():
        # A regression graph has one column of values: its samples are counted as one "class".
        y = np.zeros(len(data.y_train), np.intp) if graph.regression else np.searchsorted(model.classes_, data.y_train)
        flows = edge_flows(graph, data.X_train, y)
        unfolding = unfold_counts(graph)
        return flows, unfolding, shared_nodes_table(graph, flows, unfolding, names)

    flows, unfolding, table = remembered("sharing", key, analyse)
    st.caption(
        f"TnT on {data.name} at C={format_C(p.C)}, N1={p.N1}, N2={p.N2}. A node with several parents is "
        "reached along several decision paths; a tree would need one copy of it, and of everything "
        "below it, per path."
    )
    cols = st.columns(4)
    cols[0].metric("Splits of the graph", format_count(graph.n_splits))
    cols[1].metric("Nodes with several parents", format_count(len(table)))
    cols[2].metric("Splits of the tree it stands for", format_count(unfolding.splits))
    cols[3].metric("Leaves of that tree", format_count(unfolding.leaves))
    st.caption(
        "The tree it stands for is the graph unfolded: it makes the same decision for every sample. "
        "Its size is counted path by path with dynamic programming, never by listing the paths."
    )

    if table.empty:
        st.info("No node of this graph has several parents: it is a tree, and unfolds to itself.")
    else:
        st.subheader("Every shared node, most training samples first")
        show_table(shared_table(table), key="sharing/table", max_rows=10, labels=SHARED_LABELS)
        st.caption(
            "Read the last column row by row, not as a sum: a node's saving counts the whole tree below "
            "it, shared nodes below included, so the savings of nested shared nodes overlap and add up "
            "to more than the tree itself."
        )
        rows = {int(n): i for i, n in enumerate(table["node"])}
        node_key = f"sharing/node/{key[-1]}"
        node = st.selectbox(
            "Shared node",
            list(rows),
            format_func=lambda n: f"#{n}: {table['rule'][rows[n]]} ({counted(table['samples'][rows[n]], 'sample')})",
            **state.keyed(node_key, next(iter(rows)), options=rows),  # its own default: the node it holds
        )
        row = table.iloc[rows[node]]
        st.markdown(
            f"**Node #{node}** ({row['rule']}): {counted(row['samples'], 'training sample')} from "
            f"{counted(row['parents'], 'parent')}. **Sharing node #{node} saves "
            f"{counted(row['splits_saved'], 'split')}**: a tree would repeat the "
            f"{counted(row['splits_below'], 'split')} below it once for each of the "
            f"{counted(row['paths'], 'path')} that reach it."
        )
        edges = incoming_edges(graph, node, flows, names)
        st.markdown(
            "**What arrives from each parent**, busiest parent first"
            + ("" if classes is None else ": how many training samples, and their classes (hover for counts)")
        )
        figure = drawing.incoming_figure(edges, classes)
        frame = st.container(height=CHART_PX) if figure.layout.height > CHART_PX else st.container()
        frame.plotly_chart(figure, key="sharing/incoming", config={"displayModeBar": False})
        with st.expander(f"The {format_count(len(edges))} edges into node #{node} as a table"):
            edge_table = {
                "parent": [f"#{e.parent}" for e in edges],
                "on the way": [e.condition for e in edges],
                "samples": [format_count(e.samples) for e in edges],
            }
            show_table(pd.DataFrame(edge_table), key="sharing/edges", max_rows=10)
        small = drawing_mode(graph) == "browser"
        whole = st.toggle(
            "The whole graph",
            **state.keyed("sharing/whole", small),
            help="Otherwise the node's parents, the node and two levels below it.",
        )
        dot = to_dot(
            graph,
            feature_names=names,
            class_names=classes,
            show_ids=True,
            highlight_edges=[(e.parent, node) for e in edges],
            nodes=None if whole else neighbourhood(graph, node),
        )
        st.caption(f"The edges into node #{node} in red; edges to nodes not drawn end in the id of the node.")
        try:
            drawing.svg_panel(drawing.image(dot, "svg"), fit=whole and not small, focus=node)
        except Exception as err:  # never a stack trace on screen
            st.error(f"The graph could not be drawn on the server ({err}).")
