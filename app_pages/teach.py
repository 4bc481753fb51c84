"""Teach page: decision regions of CART and TnT on two-feature data, the paper's four-split graph,
graph reduction, and a step-through of training."""

import streamlit as st

from tnt.experiments.toy import corners
from tnt.services.teaching import teaching_models, training_accuracy, training_steps
from tnt.viz.regions import regions_figure
from ui import state
from ui.analysis import remembered, show_graph
from ui.display import C_GRID, format_C

st.header("Teach")
data = state.dataset()
sources = ["Corners (the paper's toy problem)"]
if data.n_features == 2 and not data.is_regression:  # decision regions of classes
    sources.append(f"Current data: {data.name}")
c1, c2, c3 = st.columns(3)
source = c1.radio("Data", sources, key="teach/source")
C = c2.select_slider("C of TnT", options=C_GRID, value=1e-2, format_func=format_C, key="teach/C")
seed = c3.number_input("Seed", 0, 1000, 0, key="teach/seed")
on_corners = source == sources[0]
if on_corners:
    X, y = corners(seed=int(seed))
    names, classes = ["x1", "x2"], ["0 (inside)", "1 (corner)"]
    st.caption(
        "2,000 uniform points; class 1 in the four corner squares of side 0.25 (Fig. 2a). A tree needs "
        "six splits; the paper's graph needs four, because both outer bands share one test of x2."
    )
else:
    X, y = data.X_train, data.y_train
    names, classes = list(data.feature_names), data.class_names

key = (source, data.key if not on_corners else None, C, int(seed))
models = remembered("teach", key, lambda: teaching_models(X, y, C=C, seed=int(seed), corners=on_corners))
graphs = {
    name: model if hasattr(model, "apply") and not hasattr(model, "graph_") else model.graph_
    for name, model in models.items()
}
for i, (col, (name, model)) in enumerate(zip(st.columns(len(models)), models.items())):
    with col:
        st.markdown(f"**{name}**")
        col.metric("Splits", graphs[name].n_splits)
        col.metric("Training accuracy", f"{training_accuracy(model, X, y):.4f}")
        fig = regions_figure(model, X, y, feature_names=names, resolution=150, height=330)
        st.plotly_chart(fig, key=f"teach/regions/{i}")
# The graphs two by two: four side by side shrink a six-split tree's labels out of reading.
drawn = list(graphs.items())
for row in range(0, len(drawn), 2):
    for col, (i, (name, graph)) in zip(st.columns(2), enumerate(drawn[row : row + 2], start=row)):
        with col:
            st.markdown(f"**{name}**")
            show_graph(graph, names, classes, key=f"teach/graph/{i}")

st.subheader("Step through training")
st.caption(
    "The graph after every grow pass and every merge of Algorithm 2: micro trees grow inside the "
    "nodes during a phase and are merged into the graph at its end. Each step says what it did and why."
)
steps = remembered("teach-steps", key, lambda: training_steps(X, y, names, C=C, random_state=int(seed)))
step = st.slider("Step", 1, len(steps), len(steps), key="teach/step")
current = steps[step - 1]
graph = current.graph
st.markdown(f"**Step {step} of {len(steps)}: {current.label}**, training accuracy {current.train_accuracy:.4f}")
st.markdown("\n".join(f"- {reason}" for reason in current.reasons))
left, right = st.columns(2)
left.plotly_chart(regions_figure(graph, X, y, feature_names=names, resolution=150), key="teach/step/regions")
with right:
    show_graph(graph, names, classes, key="teach/step/graph")
