"""Teach page: a gallery of two-feature problems with their measured splits, data drawn by hand,
decision regions of CART and TnT, the paper's four-split graph, graph reduction, and a step-through
of training."""

import streamlit as st

from tnt.experiments.gallery import PROBLEMS
from tnt.services.drawn_data import MAX_CLASSES, DrawnDataError, drawing_grid, drawn_data
from tnt.services.split_counts import measure_splits, splits_sentence
from tnt.services.teaching import teaching_models, training_accuracy, training_steps
from tnt.viz.drawing_board import points_figure
from tnt.viz.regions import regions_figure
from ui import state, teaching
from ui.analysis import remembered, show_graph
from ui.display import C_GRID, format_C

UNIT_SQUARE = ((0.0, 1.0), (0.0, 1.0))

st.header("Teach")
data = state.dataset()
labels = {"gallery": "Gallery of problems", "draw": "Draw your own data"}
if data.n_features == 2 and not data.is_regression:  # decision regions of classes
    labels["data"] = f"Current data: {data.name}"
teaching.restore(labels)
c1, c2, c3 = st.columns([2, 1, 1])
source = c1.radio(
    "Data", list(labels), format_func=labels.get, horizontal=True, **teaching.shown(teaching.SOURCE, options=labels)
)
C = c2.select_slider("C of TnT", options=C_GRID, format_func=format_C, **teaching.shown(teaching.C))
seed = int(c3.number_input("Seed", 0, teaching.MAX_SEED, **teaching.shown(teaching.SEED)))

X = y = None
names, classes, bounds, problem = ["x1", "x2"], None, None, None
if source == "gallery":
    st.caption(
        "Each problem: 2,000 points in the unit square. Under each, what it shows, and the splits measured "
        "on it at this C and seed: TnT's, after graph reduction, and the fewest with which CART (grown "
        "best-first) classifies the training points as well."
    )
    noisy = st.toggle("Noisy copies: 10% of the labels changed at random", **teaching.shown(teaching.NOISY))
    for row in range(0, len(PROBLEMS), 3):
        for col, problem_id in zip(st.columns(3), list(PROBLEMS)[row : row + 3]):
            with col:
                X_p, y_p = teaching.gallery_data(problem_id, noisy, seed)
                st.markdown(f"**{PROBLEMS[problem_id].name}**")
                st.plotly_chart(
                    points_figure(X_p, y_p, height=300, max_points=500, marker_size=4, legend=False),
                    key=f"teach/thumb/{problem_id}",
                    config={"staticPlot": True},
                )
                st.caption(PROBLEMS[problem_id].shows)
                st.markdown(splits_sentence(teaching.gallery_splits(problem_id, noisy, C, seed)))
    problem = st.radio(
        "Problem to look at closely",
        list(PROBLEMS),
        format_func=lambda p: PROBLEMS[p].name,
        horizontal=True,
        **teaching.shown(teaching.PROBLEM, options=PROBLEMS),
    )
    X, y = teaching.gallery_data(problem, noisy, seed)
    if problem == "corners":
        classes = ["0 (inside)", "1 (corner)"]
elif source == "draw":
    st.caption(
        "Click on the plot to add a point of the chosen class (the click lands on a fine grid), then train. "
        "Undo removes the last point."
    )
    board, tools = st.columns([3, 1])
    with tools:
        classes_offered = list(range(MAX_CLASSES))
        st.radio(
            "Class to add",
            classes_offered,
            format_func=lambda c: f"class {c}",
            **teaching.shown(teaching.DRAW_CLASS, options=classes_offered),
        )
        st.button("Undo", on_click=teaching.undo, disabled=not st.session_state[teaching.POINTS], width="stretch")
        st.button("Clear", on_click=teaching.clear, disabled=not st.session_state[teaching.POINTS], width="stretch")
        st.button("Train on these points", on_click=teaching.train, type="primary", width="stretch")
        st.metric("Points drawn", len(st.session_state[teaching.POINTS]))
    with board:
        drawn = st.session_state[teaching.POINTS]
        st.plotly_chart(
            points_figure(
                [p[:2] for p in drawn],
                [p[2] for p in drawn],
                n_classes=MAX_CLASSES,
                grid=drawing_grid(),
                height=480,
                marker_size=9,
            ),
            key=teaching.board_key(),
            on_select=teaching.add_clicked,
            selection_mode="points",
        )
    trained = st.session_state[teaching.TRAINED]
    if not trained:
        st.info("Add points of at least two classes, then press Train on these points.")
    else:
        if trained != st.session_state[teaching.POINTS]:
            st.caption("The points changed since the last training: press Train on these points to see them.")
        try:
            X, y = drawn_data(trained)
            bounds = UNIT_SQUARE
        except DrawnDataError as error:
            st.warning(str(error))
else:
    X, y = data.X_train, data.y_train
    names, classes = list(data.feature_names), data.class_names
teaching.save()

if X is not None:
    if source == "draw":
        key = ("draw", tuple(map(tuple, st.session_state[teaching.TRAINED])), C, seed)
    elif source == "gallery":
        key = ("gallery", problem, st.session_state[teaching.NOISY], C, seed)
    else:
        key = ("data", data.key, C, seed)
    if classes is None:
        classes = [str(c) for c in sorted(set(y.tolist()))]
    if source != "gallery":  # the gallery's sentences are above
        counts = remembered("teach-splits", key, lambda: measure_splits(X, y, C=C, seed=seed))
        st.markdown(splits_sentence(counts))
    models = remembered("teach", key, lambda: teaching_models(X, y, C=C, seed=seed, corners=problem == "corners"))
    graphs = {
        name: model if hasattr(model, "apply") and not hasattr(model, "graph_") else model.graph_
        for name, model in models.items()
    }
    # The decision regions two by two: four side by side left each square about 140 px wide.
    listed = list(models.items())
    for row in range(0, len(listed), 2):
        for col, (i, (name, model)) in zip(st.columns(2, gap="large"), enumerate(listed[row : row + 2], start=row)):
            with col:
                st.markdown(f"**{name}**")
                left, right = st.columns(2)
                left.metric("Splits", graphs[name].n_splits)
                right.metric("Training accuracy", f"{training_accuracy(model, X, y):.4f}")
                fig = regions_figure(model, X, y, feature_names=names, resolution=150, height=440, bounds=bounds)
                fig.update_layout(margin={"l": 45, "r": 10, "t": 40, "b": 45})
                st.plotly_chart(fig, key=f"teach/regions/{i}")
    # The graphs two by two: four side by side shrink a six-split tree's labels out of reading.
    shown = list(graphs.items())
    for row in range(0, len(shown), 2):
        for col, (i, (name, graph)) in zip(st.columns(2), enumerate(shown[row : row + 2], start=row)):
            with col:
                st.markdown(f"**{name}**")
                show_graph(graph, names, classes, key=f"teach/graph/{i}")

    st.subheader("Step through training")
    st.caption(
        "The graph after every grow pass and every merge of Algorithm 2: micro trees grow inside the "
        "nodes during a phase and are merged into the graph at its end. Each step says what it did and why."
    )
    steps = remembered("teach-steps", key, lambda: training_steps(X, y, names, C=C, random_state=seed))
    step = st.slider("Step", 1, len(steps), **state.keyed("teach/step", len(steps), fit=state.in_range(1, len(steps))))
    current = steps[step - 1]
    graph = current.graph
    st.markdown(f"**Step {step} of {len(steps)}: {current.label}**, training accuracy {current.train_accuracy:.4f}")
    st.markdown("\n".join(f"- {reason}" for reason in current.reasons))
    left, right = st.columns(2)
    left.plotly_chart(
        regions_figure(graph, X, y, feature_names=names, resolution=150, bounds=bounds), key="teach/step/regions"
    )
    with right:
        show_graph(graph, names, classes, key="teach/step/graph")
