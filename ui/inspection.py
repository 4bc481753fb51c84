"""The Graph page's inspection views: the distributions at the chosen node, where the model is wrong on
the test data (with a clickable confusion matrix), a what-if form, a counterfactual and the rules of
every leaf. The computation is in :mod:`tnt.inspect`; this module only lays it out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from tnt.inspect.counterfactual import DEFAULT_BUDGET, CounterfactualSpace, counterfactual
from tnt.inspect.distributions import node_distribution
from tnt.inspect.errors import confusion, error_leaves, node_scores
from tnt.inspect.reach import class_indices, routes
from tnt.inspect.rules import Categories, leaf_rules, rule_text
from tnt.inspect.what_if import blank_sample, what_if
from tnt.viz.figure_image import figure_image
from tnt.viz.inspection import (
    MAX_SMALL_MULTIPLES,
    graph_by_test_score,
    graph_small_multiples,
    node_figure,
)
from tnt.wording import format_value
from ui import state
from ui.display import counted
from ui.drawing import MIME, NAMES_HASH
from ui.tables import show_table

VIEWS = ["Node distributions", "Test data", "What if?", "Counterfactual", "Rules"]
PART = "graph/inspect/part"
CONFUSION = "graph/inspect/confusion"
CELL_SAMPLES = "graph/inspect/cell_samples"
LISTED = "graph/inspect/listed"  # the test samples of the chosen confusion cell, in the listed order
# The sample as edited in the what-if form, drawn on the graph above: (model key, sample, values).
WHAT_IF_SAMPLE = "graph/inspect/whatif/edited"
# The counterfactual drawn on the graph above: (model key, sample, its values, the tests it changes).
COUNTERFACTUAL_SAMPLE = "graph/inspect/cf/followed"
# plotly's camera button saves SVG, at the size shown.
CHART_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "svg"}}


@st.cache_resource(max_entries=8, show_spinner="Following every sample's path...")
def sample_routes(model_key, data_key, part: str, _graph, _X):
    """The paths of a part's samples (``tnt.inspect.reach.routes``), kept per model and data."""
    return routes(_graph, _X)


@st.cache_resource(max_entries=4, show_spinner="Sorting the training values...")
def counterfactual_space(model_key, data_key, _graph, _X) -> CounterfactualSpace:
    return CounterfactualSpace(_graph, _X)


@st.cache_resource(max_entries=4, show_spinner="Writing the rules of every leaf...")
def rules_of(model_key, data_key, _graph, _train, _y_train, _test, _y_test, _names, _classes):
    return leaf_rules(_graph, _train, _y_train, _test, _y_test, feature_names=_names, class_names=_classes)


@st.cache_data(max_entries=64, show_spinner="Searching for the smallest change...")
def find_counterfactual(model_key, data_key, sample: int, wanted, allow_missing_changes: bool, _space, _x):
    return counterfactual(_space, _x, wanted, budget=DEFAULT_BUDGET, allow_missing_changes=allow_missing_changes)


def what_if_sample(model_key, sample: int) -> tuple[np.ndarray | None, tuple]:
    """The test sample ``sample`` as the open What-if form edited it, or as the open Counterfactual view
    changed it, for the drawing to follow its path, with the tests it changes (the counterfactual's:
    the explorer opens them and draws them bold); ``(None, ())`` when neither view is open, it belongs
    to another model or sample, or changed nothing."""
    view = st.session_state.get("graph/inspect/view")
    store = {VIEWS[2]: WHAT_IF_SAMPLE, VIEWS[3]: COUNTERFACTUAL_SAMPLE}.get(view)
    kept = st.session_state.get(store) if store else None
    if kept is None:
        return None, ()
    key, index, x, *marked = kept
    return (x, tuple(marked[0]) if marked else ()) if key == model_key and index == sample else (None, ())


def _follow(store: str, model_key, sample: int, x0: np.ndarray, x1: np.ndarray, marked=None) -> None:
    """Keep the changed sample (and the tests it changes) for the drawing above, and run the page again
    when it changed (the drawing was made before the form was read)."""
    changed = not np.array_equal(x0, x1, equal_nan=True)
    wanted = (model_key, sample, x1.copy(), *([] if marked is None else [tuple(marked)])) if changed else None
    kept = st.session_state.get(store)
    same = (kept is None and wanted is None) or (
        kept is not None and wanted is not None and kept[:2] == wanted[:2] and kept[3:] == wanted[3:]
        and np.array_equal(kept[2], wanted[2], equal_nan=True)
    )  # fmt: skip
    if not same:
        st.session_state[store] = wanted
        st.rerun()


def targets(model, y) -> np.ndarray:
    """Class indices of the model (a regression's targets as they are)."""
    return np.asarray(y, dtype=np.float64) if model.graph_.regression else class_indices(model.classes_, y)


@st.cache_resource(max_entries=8, show_spinner=False)
def kept_targets(model_key, data_key, part: str, _model, _y) -> np.ndarray:
    """:func:`targets` of a part of the data, kept per model and data (60,000 MNIST labels take 25 ms
    to index, at every rerun of the Graph page before)."""
    return targets(_model, _y)


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=NAMES_HASH)
def kept_node_figure(model_key, data_key, part: str, node: int, names, classes, target_name, _graph, _routes, _X, _y):
    """The node's chart of :func:`_distributions` (:func:`tnt.viz.inspection.node_figure`), kept per
    model, data, part and node: built again at every rerun before (0.1 s on MNIST), after a click in the
    graph too. Shared, not copied: the page only reads it."""
    dist = node_distribution(_graph, _routes, _X, _y, node)
    return dist, node_figure(dist, names, classes, part=part, target_name=target_name)


def apply_chosen_sample() -> None:
    """Make the test sample picked in a confusion cell's list the page's test sample (called before
    the sample's number input is drawn; applied once per pick)."""
    listed = st.session_state.get(LISTED) or []
    rows = (((st.session_state.get(CELL_SAMPLES) or {}).get("selection") or {}).get("rows")) or []
    if rows and rows[0] < len(listed):
        chosen = int(listed[rows[0]])
        if st.session_state.get("graph/inspect/applied") != (tuple(listed), chosen):
            st.session_state["graph/inspect/applied"] = (tuple(listed), chosen)
            state.ask("graph/sample", chosen)
            state.ask("graph/highlight", True)


def inspection_section(model_key, data, model, names, classes, node: int, sample: int) -> None:
    """The inspection views under the graph, one at a time."""
    st.subheader("Inspect")
    # Each keyed widget's own default is the value it holds (ui.state.held), for a browser mounting it afresh.
    view = st.radio(
        "Inspect",
        VIEWS,
        horizontal=True,
        label_visibility="collapsed",
        **state.keyed("graph/inspect/view", VIEWS[0], options=VIEWS),
    )
    graph = model.graph_
    train = sample_routes(model_key, data.key, "train", graph, data.X_train)
    test = sample_routes(model_key, data.key, "test", graph, data.X_test)
    y_train = kept_targets(model_key, data.key, "train", model, data.y_train)
    y_test = kept_targets(model_key, data.key, "test", model, data.y_test)
    if view == VIEWS[0]:
        _distributions(model_key, data, graph, names, classes, node, (train, y_train), (test, y_test))
    elif view == VIEWS[1]:
        _test_data(graph, names, classes, test, y_test)
    elif view == VIEWS[2]:
        _what_if(model_key, data, model, names, sample)
    elif view == VIEWS[3]:
        _counterfactual(model_key, data, model, names, classes, sample)
    else:
        rules = rules_of(model_key, data.key, graph, train, y_train, test, y_test, names, classes)
        _rules(rules, classes, data.target_name if graph.regression else "class")


def _distributions(model_key, data, graph, names, classes, node, train, test) -> None:
    parts = ["training", "test"]
    part = st.radio("Samples", parts, horizontal=True, **state.keyed(PART, parts[0], options=parts))
    (r, y), X = (train, data.X_train) if part == "training" else (test, data.X_test)
    dist, figure = kept_node_figure(model_key, data.key, part, node, names, classes, data.target_name, graph, r, X, y)
    st.plotly_chart(figure, width="stretch", key="graph/inspect/node_chart", config=CHART_CONFIG)
    shared = len(dist.parent_ids) > 1
    st.caption(
        ("What the leaf's samples are, its prediction outlined (a regression: marked)." if dist.is_leaf else
         "The node's feature over the samples that reach it, a bar per category stacked by class: the test holds "
         "('yes') for the categories left of the line, those the split sends 'yes'; a missing value or a category "
         "unseen in training goes where the split sends missing values." if dist.categories is not None else
         "The node's feature over the samples that reach it, stacked by class, with its threshold (dashed): "
         "left of it the test holds ('yes').")
        + (" A node with several parents: one panel per parent the samples came through." if shared else "")
    )  # fmt: skip
    stem = f"node{node}_{part}"
    cols = st.columns(4)
    for col, fmt in zip(cols, ("svg", "png")):
        col.download_button(
            fmt.upper(), data=lambda fmt=fmt: figure_image(figure, fmt, width=900), file_name=f"{stem}.{fmt}",
            mime=MIME[fmt], key=f"graph/inspect/download/{fmt}", on_click="ignore",
        )  # fmt: skip
    if graph.node_count <= MAX_SMALL_MULTIPLES and st.toggle(
        "Every node (small multiples)", **state.keyed("graph/inspect/all", False)
    ):
        r_all, y_all = train if part == "training" else test
        every = graph_small_multiples(graph, r_all, X, y_all, names, classes, part=part)
        st.plotly_chart(every, width="content", key="graph/inspect/every_chart", config=CHART_CONFIG)


def _test_data(graph, names, classes, test, y_test) -> None:
    scores = node_scores(graph, test, y_test)
    st.markdown(
        f"**{len(y_test):,} test samples.** Per node: training and test samples reaching it, and "
        + ("the RMSE of the test samples passing it." if graph.regression else
           "the share of the test samples passing it that end up predicted right.")
        + " A branch whose test share falls well below its training share, or whose accuracy drops, is over-fitted."
    )  # fmt: skip
    scores["train_share"] = scores["train_samples"] / max(int(scores.loc[0, "train_samples"]), 1)
    scores["test_share"] = scores["test_samples"] / max(len(y_test), 1)
    figure = graph_by_test_score(graph, scores, names, classes)
    figure.update_layout(margin={"t": 10})
    st.plotly_chart(
        figure, width="stretch", key="graph/inspect/test_graph", config={**CHART_CONFIG, "scrollZoom": True}
    )
    st.caption(
        ("Each node coloured by the RMSE of the test samples passing it, green (smallest) to red (largest)"
         if graph.regression else
         "Each node coloured by the test accuracy of the samples passing it, red (0) to green (1)")
        + "; grey: no test sample passes. Hover a node for its training and test samples."
    )  # fmt: skip
    worst = error_leaves(graph, test, y_test, names, top=None)
    st.markdown("**Leaves by test errors**, each with the path most of its errors took")
    show_table(worst, key="graph/inspect/error_leaves", max_rows=10)
    st.markdown("**Every node**, most test errors first" if not graph.regression else "**Every node**")
    order = scores.sort_values("test_samples" if graph.regression else "test_errors", ascending=False)
    show_table(order, key="graph/inspect/node_scores", max_rows=10)
    if not graph.regression:
        _confusion(graph, classes, test, y_test)


def _confusion(graph, classes, test, y_test) -> None:
    c = confusion(graph, test, y_test)
    names = [str(k) for k in (classes if classes is not None else range(graph.n_classes))]
    st.markdown("**Confusion matrix** of the test set (rows: true class, columns: predicted). Click a cell to "
                "list its samples, then a sample to follow its path on the graph above.")  # fmt: skip
    event = st.dataframe(c.frame(names), on_select="rerun", selection_mode="single-cell", key=CONFUSION)
    cells = event.selection.get("cells", []) if event is not None else []
    if not cells:
        st.session_state[LISTED] = []
        return
    row, column = cells[0]
    true, predicted = int(row), names.index(str(column))
    samples = c.samples(true, predicted)
    st.session_state[LISTED] = samples.tolist()
    st.markdown(f"**{samples.size:,} test samples** of class {names[true]} predicted as {names[predicted]}:")
    listing = pd.DataFrame({"test sample": samples, "leaf": test.leaves[samples]})
    show_table(listing, key=CELL_SAMPLES, width="half", max_rows=6, on_select="rerun", selection_mode="single-row")


def _what_if(model_key, data, model, names, sample: int) -> None:
    graph = model.graph_
    categorical = [f for f, name in enumerate(names) if name in data.categorical]
    blank_label = "blank (training medians" + (", most common categories)" if categorical else ")")
    starts = [f"test sample #{sample}", blank_label]
    start = st.radio(
        "Start from", starts, horizontal=True, **state.keyed("graph/inspect/whatif/start", starts[0], options=starts)
    )
    blank = start.startswith("blank")
    x0 = blank_sample(data.X_train, categorical) if blank else np.asarray(data.X_test[sample], dtype=np.float64)
    on_path = list(dict.fromkeys(int(graph.feature[n]) for n in graph.decision_path(x0.reshape(1, -1)).indices
                                 if not graph.is_leaf[n]))  # fmt: skip
    origin = "blank" if blank else str(sample)
    features_key = f"graph/inspect/whatif/features/{origin}"
    chosen = st.multiselect(
        "Features to edit (those tested on the path first)", list(names), key=features_key,
        default=state.held(features_key, [names[f] for f in on_path[:8]])[1].get("value"),
    )  # fmt: skip
    x1 = x0.copy()
    cols = st.columns(4)
    for i, name in enumerate(chosen):
        f = list(names).index(name)
        column = data.X_train[:, f]
        categories = data.categories.get(name)
        missing = bool(np.isnan(x0[f]))  # an empty input is a missing value
        if categories:  # a coded feature: pick a category by name
            code = None if missing else int(np.clip(np.rint(x0[f]), 0, len(categories) - 1))
            field = f"graph/inspect/whatif/{origin}/{f}"
            picked = cols[i % 4].selectbox(
                name, categories, placeholder="missing",
                **state.keyed(field, None if code is None else categories[code], options=categories),
                help="A categorical column: the model reads the category by name; leave it empty for a missing value."
                if name in data.categorical else "A text column, coded as numbers in alphabetical order: "
                f"{', '.join(f'{c}={k}' for k, c in enumerate(categories[:5]))}{', ...' if len(categories) > 5 else ''}.",
            )  # fmt: skip
            x1[f] = np.nan if picked is None else float(categories.index(picked))
            continue
        column = column[~np.isnan(column)]
        if column.size == 0:  # no training value to offer
            continue
        low, high = float(np.nanmin([column.min(), x0[f]])), float(np.nanmax([column.max(), x0[f]]))
        integer = bool(np.all(np.mod(column, 1) == 0) and (missing or x0[f] % 1 == 0))
        value = None if missing else int(x0[f]) if integer else float(x0[f])
        field = f"graph/inspect/whatif/{origin}/{f}"
        entered = cols[i % 4].number_input(
            name, min_value=int(low) if integer else low, max_value=int(high) if integer else high,
            step=1 if integer else None, placeholder="missing", format=None if integer else "%g",
            **state.keyed(field, value), help=f"Training values run from {format_value(column.min())} "
            f"to {format_value(column.max())}; leave it empty for a missing value.",
        )  # fmt: skip
        x1[f] = np.nan if entered is None else entered
    w = what_if(graph, x0, x1, names)
    if not blank:
        _follow(WHAT_IF_SAMPLE, model_key, sample, x0, x1)
    before, after = (_prediction(model, data, x) for x in (x0, x1))
    verdict = "unchanged" if before == after else f"was {before}"
    on_path = [n for n in w.changed_tests if n in set(w.path)]
    left_behind = [n for n in w.changed_tests if n not in set(w.path)]
    st.markdown(f"Predicted: **{after}** ({verdict}); leaf #{w.leaf}" +
                ("" if w.same_leaf else f" (was #{w.original_leaf})") +
                (f"; tests on the new path that go the other way (highlighted below): "
                 f"{', '.join(f'#{n}' for n in on_path)}" if on_path else "") +
                (f"; the old path's {'test' if len(left_behind) == 1 else 'tests'} "
                 f"{', '.join(f'#{n}' for n in left_behind)} would also go the other way, off the new path"
                 if left_behind else "") +
                ("." if w.changed_tests else "; no test changed outcome.") +
                ("" if blank or not w.changed_tests else " The drawing above follows the new path."))  # fmt: skip
    changed = w.table["changed"].to_numpy()
    show_table(w.table.assign(changed=np.where(changed, "yes", "")), key="graph/inspect/whatif/path", max_rows=None,
               marked=changed)  # fmt: skip


def _prediction(model, data, x) -> str:
    """What ``model`` predicts for the sample ``x`` of ``data`` (codes), its categories given by name."""
    value = model.predict(data.model_input(x.reshape(1, -1), model))[0]
    return format_value(value) if model.graph_.regression else str(value)


def _counterfactual(model_key, data, model, names, classes, sample: int) -> None:
    graph = model.graph_
    x = np.asarray(data.X_test[sample], dtype=np.float64)
    now = _prediction(model, data, x)
    try:  # a model the search cannot take says so before any control is offered
        space = counterfactual_space(model_key, data.key, graph, data.X_train)
    except ValueError as err:
        st.info(str(err))
        return
    if graph.regression:
        low_y, high_y = float(np.min(data.y_train)), float(np.max(data.y_train))
        kept = state.keyed("graph/inspect/cf/range", (low_y, (low_y + high_y) / 2),
                           fit=lambda v: tuple(min(max(float(e), low_y), high_y) for e in v))  # fmt: skip
        wanted = st.slider(f"Wanted {data.target_name} range", low_y, high_y, **kept)
        wanted = (float(wanted[0]), float(wanted[1]))
        said = f"a {data.target_name} between {format_value(wanted[0])} and {format_value(wanted[1])}"
    else:
        names_of_classes = [str(c) for c in classes]
        index = (names_of_classes.index(now) + 1) % len(names_of_classes) if now in names_of_classes else 0
        class_key = f"graph/inspect/cf/class/{sample}"
        label = st.selectbox(
            "Wanted class",
            names_of_classes,
            **state.keyed(class_key, names_of_classes[index], options=names_of_classes),
        )
        wanted = names_of_classes.index(label)
        said = f"class **{label}**"
    allow = True
    if graph.missing_in_training or (graph.missing_go_to_left is not None and np.isnan(x).any()):
        allow = st.checkbox(
            "Allow changes to or from a missing value",
            **state.keyed("graph/inspect/cf/missing", True),
            help="A value made missing, or a missing value filled in, counts as one feature changed at a "
            "distance of one interquartile range. Unticked, the search keeps every missing value missing "
            "and every present value present.",
        )
    try:
        cf = find_counterfactual(model_key, data.key, sample, wanted, allow, space, x)
    except ValueError as err:  # a sample with missing values on a model that has no direction for them
        st.info(str(err))
        return
    st.markdown(f"Test sample **#{sample}** is predicted **{now}**. To get {said}: {cf.describe(names).rstrip('.')}.")
    if cf.exact:
        st.caption(
            f"The smallest change (fewest features, then the smallest total distance in interquartile ranges): "
            f"the search finished in {cf.seconds * 1e3:.0f} ms over {cf.states:,} states."
        )
    else:
        n, dist = cf.lower_bound
        st.caption(
            f"The best change found within {DEFAULT_BUDGET:g} s, not proven smallest: no change needs fewer than {n} "
            f"feature{'s' if n != 1 else ''}" + (f" at a distance under {dist:.2f}" if n == cf.n_changed else "") + "."
        )
    if cf.changes:
        show_table(pd.DataFrame([_change_row(c, names) for c in cf.changes]), key="graph/inspect/cf/changes")
        tests = what_if(graph, x, cf.sample, names).changed_tests
        category = any(c.categories is not None for c in cf.changes)
        st.caption(
            f"Path of the changed sample ends in leaf #{cf.leaf}; each new value is a training value"
            + (
                " (a category changed counts as one feature at a distance of one interquartile range)"
                if category
                else ""
            )
            + f". The drawing above follows its path, the tests it changes ({', '.join(f'#{n}' for n in tests)}) "
            "drawn bold."
        )
        _follow(COUNTERFACTUAL_SAMPLE, model_key, sample, x, cf.sample, tests)
    else:  # nothing to follow
        _follow(COUNTERFACTUAL_SAMPLE, model_key, sample, x, x)


def _change_row(change, names) -> dict:
    """A row of the counterfactual's table: the feature, its value before and after (a category by
    name) and the values that take the same path."""
    if change.categories is not None:
        held = Categories(change.categories, frozenset(change.allowed))
        return {"feature": names[change.feature], "from": change.category_name(change.old),
                "to": change.category_name(change.new),
                "any value with": "missing" if np.isnan(change.new) else rule_text({change.feature: (held,)}, names)}  # fmt: skip
    return {"feature": names[change.feature], "from": _value_or_missing(change.old),
            "to": _value_or_missing(change.new), "any value with": "missing" if np.isnan(change.new)
            else rule_text({change.feature: (change.low, change.high)}, names)}  # fmt: skip


def _value_or_missing(value: float) -> str:
    """A value as typed (the shortest text that reads back as the same number), or "missing"."""
    if np.isnan(value):
        return "missing"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def rules_measured_on(table: pd.DataFrame, part: str) -> pd.DataFrame:
    """The Rules view's columns for one part of the data (``"train"`` or ``"test"``): the leaf, its
    prediction, the rule and its paths, then that part's measures without their prefix, so that the
    table fits the page at 1,440 px."""
    prefix = f"{part}_"
    measured = {c: c[len(prefix) :] for c in table.columns if c.startswith(prefix)}
    return table[["leaf", "prediction", "rule", "paths", *measured]].rename(columns=measured)


def _rules(rules, classes, target_name: str) -> None:
    table = rules.rules
    options = ["every class"] + sorted(set(table["prediction"]), key=list(table["prediction"]).index)
    which = st.selectbox("Rules of", options, **state.keyed("graph/inspect/rules/class", options[0], options=options))
    shown = table if which == "every class" else table[table["prediction"] == which]
    leaves = rules.leaves
    top = int(leaves["rules_shown"].max()) if len(leaves) else 0
    hidden = int(leaves["other_paths"].sum())
    st.markdown(
        f"**{counted(len(leaves), 'leaf', 'leaves')}** reached by {counted(leaves['paths'].sum(), 'path')}; "
        + ("the rule of each leaf" if top == 1 else f"the top {top} rules of each leaf by training coverage")
        + (f" ({counted(hidden, 'path')} not shown cover "
           f"{counted(leaves['other_train_samples'].sum(), 'training sample')})." if hidden else ".")
    )  # fmt: skip
    parts = ["training rows", "test rows"]
    part = st.radio(
        "Measured on", parts, horizontal=True, **state.keyed("graph/inspect/rules/part", parts[0], options=parts)
    )
    show_table(rules_measured_on(shown, "train" if part.startswith("training") else "test"),
               key="graph/inspect/rules/table", max_rows=10)  # fmt: skip
    if len(shown):  # a rule of many conditions (MNIST's) ends in "…" in its row: read it whole here
        picked = st.selectbox(
            "Read a rule whole",
            range(len(shown)),
            **state.keyed("graph/inspect/rules/whole", 0, options=range(len(shown))),
            format_func=lambda i: f"leaf #{shown['leaf'].iloc[i]} ({shown['prediction'].iloc[i]}), rule {i + 1}",
        )
        st.code(str(shown["rule"].iloc[picked]), language=None, wrap_lines=True)
    cols = st.columns(4)
    cols[0].download_button("Rules (CSV)", rules.to_csv(), file_name="rules.csv", mime="text/csv",
                            key="graph/inspect/rules/csv", on_click="ignore")  # fmt: skip
    cols[1].download_button("Rules (text)", rules.to_text(target_name), file_name="rules.txt", mime=MIME["txt"],
                            key="graph/inspect/rules/txt", on_click="ignore")  # fmt: skip
