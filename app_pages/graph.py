"""Graph page: the decision graph coloured by dominant class, a test sample's path, one node's
details, and downloads of both models."""

import streamlit as st

from tnt.viz.explain import drawing_mode, drawing_note, node_info, path_table, sample_path
from tnt.viz.plotly_view import graph_figure
from ui.display import format_C
from ui import drawing, state
from ui.views import ensure_result

st.header("Graph")
data = state.dataset()
result = ensure_result()

if result is not None:
    p = result.params
    names, classes = list(data.feature_names), data.class_names
    models = {"TnT": result.tnt, "CART (same splits)": result.cart}

    top = st.columns([2, 2, 3])
    which = top[0].radio("Model", list(models), horizontal=True, key="graph/model")
    model = models[which]
    graph = model.graph_
    model_key = (result.dataset_key, p, which, drawing.fingerprint(graph))
    big = drawing_mode(graph) != "browser"
    views = ["Graphviz (in the browser)", "SVG (rendered on the server)", "Interactive (plotly)"]
    view = top[1].radio("View", views, index=1 if big else 0, key=f"graph/view/{big}")
    max_depth = int(graph.node_depth().max())
    window = top[2].slider(
        "Depth window (layers shown)",
        0,
        max(max_depth, 1),
        (0, min(max_depth, 7) if big else max(max_depth, 1)),
        key=f"graph/window/{model_key[-1]}",  # a new graph starts with its own default window
        help="Layers of the drawing shown in the Graphviz and SVG views; edges leaving the window end in "
        "the id of the node they lead to.",
    )
    st.caption(
        f"{which} on {data.name} at C={format_C(p.C)}, N1={p.N1}, N2={p.N2}: {graph.n_splits} splits, "
        f"{graph.n_leaves} leaves, {graph.shared_nodes.size} nodes with several parents (double border), "
        f"{max_depth + 1} layers. Left edge ('yes'): the test holds; dashed ('no'): it does not."
    )
    drawing.legend(classes)

    left, right = st.columns([5, 2], gap="medium")
    with right:
        highlight = st.toggle("Highlight a test sample", value=True, key="graph/highlight")
        state.clamp("graph/sample", 0, len(data.y_test) - 1)
        index = st.number_input("Test sample", 0, len(data.y_test) - 1, key="graph/sample")
        x = data.X_test[int(index)]
        predicted = model.predict(x.reshape(1, -1))[0]
        truth = data.y_test[int(index)]
        verdict = "right" if predicted == truth else "wrong"
        st.markdown(f"Sample **#{index}**: class **{truth}**, predicted **{predicted}** ({verdict}).")
        steps = sample_path(graph, x, names)
        st.dataframe(
            path_table(steps),
            hide_index=True,
            height=min(36 * (len(steps) + 1) + 2, 320),
        )

    window_arg = None if window == (0, max(max_depth, 1)) else tuple(window)
    sample_arg = int(index) if highlight else None
    with left:
        if not view.startswith("Interactive") and drawing_mode(graph, window_arg) == "plotly":
            st.info(drawing_note(graph, window_arg))
            view = views[2]
        if not view.startswith("Interactive"):
            dot = drawing.dot_source(
                model_key, graph, names, classes, window_arg, sample_arg, _sample=x if highlight else None
            )
        if view.startswith("Graphviz"):
            st.graphviz_chart(dot, width="content")
        elif view.startswith("SVG"):
            fit = st.toggle("Shrink to the frame's width (overview)", key="graph/fit")
            try:
                drawing.svg_panel(drawing.image(dot, "svg"), fit=fit)
            except Exception as err:  # never a stack trace on screen
                st.error(f"The graph could not be drawn on the server ({err}); try the interactive view.")
        else:
            figure = graph_figure(graph, feature_names=names, class_names=classes, highlight_sample=x if highlight else None)
            st.plotly_chart(figure, width="stretch", key="graph/plotly", config={"scrollZoom": True})

    with right:
        st.divider()
        state.clamp("graph/node", 0, graph.node_count - 1)
        node = st.number_input("Node", 0, graph.node_count - 1, key="graph/node")
        info = node_info(graph, int(node), names, classes)
        st.markdown(f"**Node #{info.node}** ({'leaf' if info.is_leaf else info.rule})")
        st.markdown(
            f"{info.n_samples:,} training samples, dominant class **{info.dominant}**  \n"
            f"parents: {', '.join(f'#{q}' for q in info.parents) or 'none (root)'}  \n"
            + ("" if info.is_leaf else f"children: yes #{info.left}, no #{info.right}")
        )
        drawing.class_shares(info.distribution)

    st.subheader("Downloads")
    for label, est in models.items():
        stem = ("tnt" if label == "TnT" else "cart") + f"_C{format_C(p.C)}"
        drawing.download_row(label, (result.dataset_key, p, label), est, names, classes, stem)
