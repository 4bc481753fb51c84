"""Graph page: the decision graph coloured by dominant class (by mean target, with a colour bar, for a
regression), a test sample's path, one node's details, the editor, and downloads; for the models
trained here and for a model file the user opens."""

import streamlit as st

from tnt.inspect.path import path_table, sample_path
from tnt.services.tasks import is_regression
from tnt.viz import focus
from tnt.viz.explain import LARGE_GRAPH_NODES, drawing_mode, drawing_note, node_info
from tnt.viz.plotly_view import graph_figure
from tnt.wording import format_value
from ui import drawing, state
from ui.display import LABELS, counted, format_C, format_measure
from ui.editor import editor_section
from ui.explorer import explorer_fragment, explorer_state, live_view
from ui.inspection import apply_chosen_sample, inspection_section, what_if_sample
from ui.opened import (
    model_file_panel,
    opened_against_data,
    opened_label,
    reduced_model,
    reduction_panel,
    scores_on,
)
from ui.tables import show_table
from ui.views import ensure_result

PLOTLY = "graph/plotly"
PLOTLY_ROUND = "graph/plotly_round"  # the clicks applied so far: the chart's key is PLOTLY/<round>
VIEWS = [
    "Graphviz (in the browser)",
    "SVG (rendered on the server)",
    "Interactive (plotly)",
    "Explorer (focus and context)",
]
#: A graph too large to read whole opens in the explorer (focus and context).
DEFAULT_VIEW = {"browser": 0, "server": 3, "interactive": 3}

st.header("Graph")
data = state.dataset()
just_opened = model_file_panel("graph")
result = ensure_result()

if result is not None:
    p = result.params
    data_classes = None if data.is_regression else data.class_names  # a regression graph has no classes
    # name -> (model, feature names, class names, does the data in use fit it, caption's opening)
    models = {
        label: (est, list(data.feature_names), data_classes, True,
                f"{label} on {data.name} at C={format_C(p.C)}, N1={p.N1}, N2={p.N2}")
        for label, est in (("TnT", result.tnt), ("CART (same splits)", result.cart))
    }  # fmt: skip
    problem = None
    opened = opened_against_data(data)
    if opened is not None:
        file, match = opened
        model = match.model if match.ok else file.model
        own = getattr(model, "feature_names_in_", None)
        names = [str(n) for n in own] if own is not None else (list(data.feature_names) if match.ok else None)
        label = opened_label(file)
        own_classes = None if is_regression(model) else [str(c) for c in model.classes_]
        models[label] = (model, names, own_classes, match.ok, f"{model.estimator_kind_} from {file.name}")
        problem = match.problem
        if just_opened:
            state.ask("graph/model", label)
        reduced = reduced_model(file, data) if match.ok and not data.is_regression else None
        if reduced is not None:
            models[f"{label}, reduced"] = (reduced, names, models[label][2], True, f"{label} after graph reduction")
    # Each keyed widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
    top = st.columns([3, 2, 3])
    which = top[0].radio(
        "Model", list(models), horizontal=True, **state.keyed("graph/model", next(iter(models)), options=models)
    )
    model, names, classes, data_fits, opening = models[which]
    graph = model.graph_
    fp = drawing.fingerprint(graph)
    model_key = (result.dataset_key, p, which, fp)
    mode = drawing_mode(graph)
    # Graphviz in the browser shrinks a large graph to the page's width, unreadably, after laying it
    # out for up to a minute: it is offered for graphs the app draws in the browser or on the server.
    offered = VIEWS if mode != "interactive" else VIEWS[1:]
    view = top[1].radio(
        "View",
        offered,
        **state.keyed(f"graph/view/{mode}", VIEWS[DEFAULT_VIEW[mode]], options=offered),
        help=None
        if mode != "interactive"
        else f"{graph.node_count:,} nodes: too many for Graphviz in the browser, "
        "which shrinks the whole graph to the page's width; the SVG view draws its layers at natural size.",
    )
    interactive = view.startswith("Interactive")
    exploring = view.startswith("Explorer")  # opened from the root down: no depth window
    # A graph too large to read whole: the interactive view draws what the explorer has opened.
    focused = interactive and graph.node_count > LARGE_GRAPH_NODES
    max_depth = int(graph.node_depth().max())
    windowed = mode != "browser" and view.startswith("SVG")  # a big SVG starts with its first layers
    whole = (0, max(max_depth, 1))
    window = whole
    if not (exploring or focused):
        window_key = f"graph/window/{fp}/{VIEWS.index(view)}"  # each graph and view starts with its own window
        window = top[2].slider(
            "Depth window (layers shown)",
            0,
            max(max_depth, 1),
            **state.keyed(window_key, (0, min(max_depth, 7) if windowed else max(max_depth, 1))),
            help="Layers of the drawing shown: in the Graphviz and SVG views edges leaving the window end in the "
            "id of the node they lead to; in the interactive view the window is the part in view at first (zoom "
            "out or double-click to see all).",
        )
    accuracy = ""
    if which.startswith("Opened") and data_fits:
        found = scores_on(model_key, data.key, model, data)
        if graph.regression:
            accuracy = (
                f" On {data.name}: " + ", ".join(f"{LABELS[k]} {format_measure(k, v)}" for k, v in found.items()) + "."
            )
        else:
            accuracy = (
                f" Accuracy on {data.name}: test {found['test_accuracy']:.3f}, train {found['train_accuracy']:.3f}."
            )
    st.caption(
        f"{opening}: {counted(graph.n_splits, 'split')}, {counted(graph.n_leaves, 'leaf', 'leaves')}, "
        f"{counted(graph.shared_nodes.size, 'node')} with several parents (double border), "
        f"{counted(max_depth + 1, 'layer')}. {drawing.EDGE_LEGEND}{accuracy}"
    )
    if graph.regression:
        drawing.value_legend(graph, data.target_name if data_fits else "target")
    else:
        drawing.legend(classes)
    if which.startswith("Opened") and not data_fits:
        st.info(f"{problem} The drawing and the node details need only the file; load data with the model's "
                "columns on the Data page to see a sample's path, the accuracy and the edge widths.")  # fmt: skip

    # A click on a node of the interactive view picks that node for the inspector (read before the
    # node picker is drawn) and, in a large graph, opens or closes it. Applied once: the chart then takes
    # a new key, its selection empty, so that a second click on the same node counts too.
    chart_key = f"{PLOTLY}/{st.session_state.get(PLOTLY_ROUND, 0)}"
    clicked = drawing.clicked_node(st.session_state.get(chart_key), graph.node_count) if interactive else None
    if clicked is not None:
        st.session_state[PLOTLY_ROUND] = st.session_state.get(PLOTLY_ROUND, 0) + 1
        chart_key = f"{PLOTLY}/{st.session_state[PLOTLY_ROUND]}"
        state.ask("graph/node", clicked)
    chosen_node, node_default = state.clamp("graph/node", 0, graph.node_count - 1)
    if data_fits:  # a test sample picked in the confusion matrix's list becomes the page's sample
        apply_chosen_sample()

    left, right = st.columns([5, 3], gap="medium")
    x = edited = None
    marked = ()
    with right:
        if data_fits:
            highlight = st.toggle("Highlight a test sample", **state.keyed("graph/highlight", True))
            last = len(data.y_test) - 1
            index = st.number_input(
                "Test sample", 0, last, **state.keyed("graph/sample", 0, fit=state.in_range(0, last))
            )
            x = data.X_test[int(index)]
            predicted = model.predict(data.model_input(x.reshape(1, -1), model))[0]
            truth = data.y_test[int(index)]
            if graph.regression:
                st.markdown(
                    f"Sample **#{index}**: {data.target_name} **{format_value(truth)}**, predicted "
                    f"**{format_value(predicted)}** (the mean of its leaf's training samples; off by "
                    f"{format_value(abs(predicted - truth))})."
                )
            else:
                verdict = "right" if predicted == truth else "wrong"
                st.markdown(f"Sample **#{index}**: class **{truth}**, predicted **{predicted}** ({verdict}).")
            steps = sample_path(graph, x, names)
            show_table(path_table(steps), key="graph/path", width="side", max_rows=None)
            edited, marked = what_if_sample(model_key, int(index))
            if edited is not None and highlight:
                x = edited
                st.caption(
                    "The drawing shows the path of this sample as "
                    + ("the counterfactual below changes it." if marked else "edited in What if? below.")
                )
            if not highlight:
                x, marked = None, ()
        else:
            st.markdown("No test sample: the data in use do not fit this model.")

    window_arg = None if window == whole else tuple(window)
    # The highlighted sample: the test sample, or the sample as edited in What if? (a key of its own).
    sample_arg = None if x is None else int(index) if edited is None else f"{int(index)} edited {x.tobytes().hex()}"
    with left:
        note = None if interactive or exploring else drawing_note(graph, window_arg)
        if note:  # too many nodes for Graphviz: the interactive view instead
            st.info(note)
            interactive = True
        if exploring:
            # A fragment: a click on the drawing or a control of the explorer reruns it alone, not the page.
            explorer_fragment(model_key, graph, fp, names, classes, x, sample_arg, node=chosen_node,
                              marked=marked)  # fmt: skip
        elif interactive:
            shown = target = None
            if focused:  # the explorer's controls and state; a click opens or closes a node, as in its SVG
                opened_splits, target = explorer_state(model_key, graph, fp, names, classes, x,
                                                       chosen_node, marked, clicked)  # fmt: skip
                shown = focus.graph_view(graph, opened_splits)
            flows = None
            width_key = "graph/edge_width" if data_fits else "graph/edge_width/no_data"  # off, greyed out
            if st.toggle("Edge width: training samples along each edge", disabled=not data_fits,
                         **state.keyed(width_key, False),
                         help="Each edge drawn as wide as the number of training samples that take it."):  # fmt: skip
                flows = drawing.edge_samples(model_key, data.key, graph, data.X_train)
            figure = graph_figure(
                graph, feature_names=names, class_names=classes, highlight_sample=x, edge_samples=flows,
                layers=window_arg, selected_node=chosen_node,
                target_name=data.target_name if data_fits and graph.regression else None, view=shown,
                # Opened zoomed on the view's target (the explorer's), the reader's zoom kept until it changes.
                focus_node=None if target is None else target[0], frame_px=drawing.EXPLORER_FRAME_PX,
                uirevision=None if target is None else f"{fp}/{target[1]}",
            )  # fmt: skip
            figure.update_layout(showlegend=False)  # the page's legend is above (the top margin: the mode bar's room)
            figure.update_traces(marker_showscale=False, selector={"name": "mean target"})  # and its colour bar
            st.plotly_chart(
                figure, width="stretch", key=chart_key, on_select="rerun", selection_mode="points",
                config={"scrollZoom": True, "displaylogo": False},
            )  # fmt: skip
            if shown is None:
                st.caption("Drag to pan, scroll to zoom, double-click for the whole graph; hover a node for its "
                           "details, click it to inspect it.")  # fmt: skip
            else:
                st.caption(f"{shown.size:,} of {int(graph.reachable().sum()):,} nodes shown. A diamond stands for the "
                           "splits below it (their number and samples, its class mix as a bar above it): click it to "
                           "open it and inspect it (click an open split to close it), or *Find* a node; a grey #id "
                           "names a node not shown that leads to the node below it (click it to open the way). Drag "
                           "to pan, scroll to zoom, hover a node for its details.")  # fmt: skip
        else:
            dot = drawing.dot_source(model_key, graph, names, classes, window_arg, sample_arg, _sample=x)
            if view.startswith("Graphviz"):
                st.graphviz_chart(dot, width="content")
            else:
                fit = st.toggle("Shrink to the frame's width (overview)", **state.keyed("graph/fit", False))
                try:
                    drawing.svg_panel(drawing.image(dot, "svg"), fit=fit)
                except Exception as err:  # never a stack trace on screen
                    st.error(f"The graph could not be drawn on the server ({err}); try the interactive view.")

    with right:
        st.divider()
        node = st.number_input("Node", 0, graph.node_count - 1, key="graph/node", **node_default)
        info = node_info(graph, int(node), names, classes)
        st.markdown(f"**Node #{info.node}** ({'leaf' if info.is_leaf else info.rule})")
        summary = (
            f"mean **{format_value(info.mean)}**, spread (std) {format_value(info.std)} over "
            f"**{info.n_samples:,}** training samples" + (" (the leaf predicts the mean)" if info.is_leaf else "")
            if graph.regression
            else f"{info.n_samples:,} training samples, dominant class **{info.dominant}**"
        )
        st.markdown(
            f"{summary}  \n"
            f"parents: {', '.join(f'#{q}' for q in info.parents) or 'none (root)'}  \n"
            + ("" if info.is_leaf else f"children: yes #{info.left}, no #{info.right}")
        )
        if not graph.regression:
            drawing.class_shares(info.distribution)

    if opened is not None and opened[1].ok and not data.is_regression:  # reduction merges equal class predictions
        reduction_panel(opened[0], opened[1], data, expanded=which.startswith("Opened"))

    editor_section(which, model, names, classes, data, data_fits, None if which.startswith("Opened") else p)

    if data_fits:
        inspection_section(model_key, data, model, names, classes, int(node), int(index))

    st.subheader("Downloads")
    for label, (est, est_names, est_classes, _, _) in models.items():
        stem = drawing.file_stem(label, p)
        # The model in the explorer: its drawings are what the explorer shows when the button is clicked.
        opened = live_view(fp) if (exploring or focused) and label == which else None
        drawing.download_row(label, (result.dataset_key, p, label), est, est_names, est_classes, stem, opened)
