"""Training for the app, and the plain views of nodes and paths."""

import numpy as np
import pytest

from tnt import DecisionGraph
from tnt.data.datasets import load_bundled
from tnt.inspect.path import path_table, rule, sample_path
from tnt.services.training import TrainParams, train
from tnt.viz.explain import INTERACTIVE_GRAPH_NODES, LARGE_GRAPH_NODES, drawing_mode, node_info
from ui.display import C_GRID, comparison_table, format_C, history_table


@pytest.fixture(scope="module")
def digits_result():
    return train(load_bundled("digits"), TrainParams(C=1e-3, seed=0))


def test_c_grid_is_a_log_scale_from_1e5_to_1e1():
    assert C_GRID[0] == 1e-5 and C_GRID[-1] == 1e-1
    assert list(C_GRID) == sorted(C_GRID) and 1e-3 in C_GRID
    assert np.all(np.diff(np.log10(C_GRID)) < 0.5)
    assert format_C(2e-4) == "2e-04"


def test_train_puts_cart_at_the_same_number_of_splits(digits_result):
    r = digits_result
    assert r.tnt.n_splits_ == r.tnt_metrics["splits"] == r.cart.n_splits_
    assert r.tnt_metrics["shared_nodes"] > 0 and r.cart_metrics["shared_nodes"] == 0
    assert 0.8 < r.tnt_metrics["test_accuracy"] <= 1 and r.tnt_metrics["fit_time"] > 0
    table = comparison_table(r)
    assert list(table.columns) == ["TnT", "CART (same splits)"]
    assert table.loc["splits", "TnT"] == table.loc["splits", "CART (same splits)"] == str(r.tnt.n_splits_)


def test_the_comparison_table_writes_counts_as_the_metrics_above_it_do(digits_result):
    # The Train page's metrics write 1,227 splits; the table below them wrote 1227.
    import dataclasses

    large = {"splits": 1227, "leaves": 1228, "shared_nodes": 1015}
    r = dataclasses.replace(
        digits_result,
        tnt_metrics=digits_result.tnt_metrics | large,
        cart_metrics=digits_result.cart_metrics | large | {"shared_nodes": 0},
    )
    table = comparison_table(r)
    assert table.loc["splits"].tolist() == ["1,227", "1,227"]
    assert table.loc["leaves"].tolist() == ["1,228", "1,228"]
    assert table.loc["nodes with several parents"].tolist() == ["1,015", "0"]


def test_history_table_lists_models_by_c(digits_result):
    other = train(load_bundled("digits"), TrainParams(C=1e-2))
    table = history_table([digits_result, other])
    assert list(table["C"]) == ["1e-03", "1e-02"]
    assert list(table["splits"]) == [digits_result.tnt.n_splits_, other.tnt.n_splits_]
    assert history_table([]).empty


def test_smaller_c_gives_more_splits_and_progress_is_reported():
    data = load_bundled("digits")
    events = []
    big = train(data, TrainParams(C=1e-3), progress_callback=events.append)
    small = train(data, TrainParams(C=1e-2))
    assert big.tnt.n_splits_ > small.tnt.n_splits_
    assert [e.step for e in events] == list(range(1, 13)) and events[-1].total_steps == 12
    assert {e.kind for e in events} == {"grow", "merge"}


def test_the_progress_bar_moves_through_a_regressions_trial_growths_and_ends_full():
    """The app's default regressor grows two trial graphs (its refit rule chosen on held-out rows)
    before the one it keeps: the bar moves from their first step, never back, and the kept growth's
    last step fills it."""
    from ui.views import progress_text

    events = []
    model = train(load_bundled("california_housing"), TrainParams(C=1e-3), progress_callback=events.append).tnt
    shares = [e.fit_step / e.fit_steps for e in events]
    steps = model.n_steps_
    assert len(events) == 3 * steps and [e.kind for e in events[: 2 * steps]] == ["trial"] * (2 * steps)
    assert shares == sorted(shares) and shares[0] == 1 / (3 * steps) and shares[-1] == 1.0
    assert progress_text(events[0]).startswith(f"Training TnT: choosing on held-out rows, step 1 of {3 * steps} (")
    assert progress_text(events[-1]).startswith(f"Training TnT: merge {steps} of {steps} (")


def test_params_are_hashable_cache_keys():
    assert TrainParams(C=1e-3) == TrainParams(C=1e-3) and hash(TrainParams()) == hash(TrainParams())
    assert TrainParams(C=1e-3) != TrainParams(C=1e-3, seed=1)


GRAPH = DecisionGraph(
    children_left=[1, 3, 3, -1, -1, -1],
    children_right=[2, 4, 5, -1, -1, -1],
    feature=[0, 1, 1, -2, -2, -2],
    threshold=[0.5, 0.25, 0.75, -2, -2, -2],
    value=[[4, 4], [3, 1], [1, 3], [2, 2], [2, 0], [0, 2]],
    n_node_samples=[8, 4, 4, 4, 2, 2],
)


def test_node_info_of_a_shared_node():
    info = node_info(GRAPH, 3, feature_names=["width", "height"], class_names=["no", "yes"])
    assert info.is_leaf and info.rule == "leaf" and info.parents == [1, 2]
    assert info.distribution == {"no": 2.0, "yes": 2.0} and info.dominant == "mixed"
    top = node_info(GRAPH, 1, feature_names=["width", "height"], class_names=["no", "yes"])
    assert (top.rule, top.left, top.right, top.n_samples, top.dominant) == ("height <= 0.25", 3, 4, 4, "no")
    with pytest.raises(ValueError, match="Node 9 does not exist"):
        node_info(GRAPH, 9)


def test_sample_path_reports_each_test():
    steps = sample_path(GRAPH, [0.9, 0.5], ["width", "height"])
    assert [(s.node, s.rule, s.value, s.holds) for s in steps] == [
        (0, "width <= 0.5", 0.8999999761581421, False),
        (2, "height <= 0.75", 0.5, True),
        (3, "leaf", None, None),
    ]
    assert rule(GRAPH, 0) == "x[0] <= 0.5"


def test_the_path_table_and_the_drawing_show_one_threshold():
    """A pixel split at 127.5 reads 127.5 everywhere (the path table once said 128)."""
    from tnt.viz.export_dot import to_dot
    from tnt.viz.exporter import GraphText

    graph = DecisionGraph([1, -1, -1], [2, -1, -1], [0, -2, -2], [127.5, -2, -2], [[2, 2], [2, 0], [0, 2]])
    text = GraphText(graph, feature_names=["pixel"])
    (first, _) = sample_path(graph, [200.0], ["pixel"])
    assert first.rule == rule(graph, 0, ["pixel"]) == text.rule(0) == "pixel <= 127.5"
    assert path_table([first]).loc[0, "test"] == "pixel <= 127.5"
    assert 'label="pixel <= 127.5\\n' in str(to_dot(graph, feature_names=["pixel"]))


def test_drawing_mode_switches_to_the_server_then_to_the_interactive_view_for_big_graphs(digits_result):
    assert drawing_mode(GRAPH) == "browser"
    middle = digits_result.tnt.graph_
    assert LARGE_GRAPH_NODES < middle.node_count <= INTERACTIVE_GRAPH_NODES and drawing_mode(middle) == "server"
    big = load_bundled("pendigits")
    r = train(big, TrainParams(C=1e-4, N1=2, N2=2))
    assert r.tnt.graph_.node_count > INTERACTIVE_GRAPH_NODES and drawing_mode(r.tnt.graph_) == "interactive"


def test_a_held_out_size_reaches_the_estimator_and_cart_gets_its_splits():
    from tnt.services.compare import compare_models

    data = load_bundled("iris")
    params = TrainParams(C=1e-3, ccp_alpha="held_out_regrown")
    assert params.estimator().get_params()["ccp_alpha"] == "held_out_regrown"
    assert TrainParams().estimator(regression=True).get_params()["ccp_alpha"] == "auto"  # the library's default
    assert TrainParams(ccp_alpha=0.0).estimator(regression=True).get_params()["ccp_alpha"] == 0.0
    r = train(data, params)
    assert r.tnt.ccp_alpha == "held_out_regrown" and r.tnt.pruning_level_ >= 0
    assert r.tnt.n_splits_ == r.cart.n_splits_
    # Compare reuses it (same parameters), and trains its fine-tuned row rather than fine-tuning a pruned graph.
    fitted = {"TnT": (r.tnt, 1.0), "CART (best-first)": (r.cart, 1.0)}
    compared = compare_models(data, C=1e-3, ccp_alpha="held_out_regrown", fitted=fitted)
    assert compared["TnT"][0] is r.tnt
    assert compared["TnT fine-tuned"][0].get_params()["ccp_alpha"] == "held_out_regrown"
    with pytest.raises(ValueError, match="ccp_alpha='held_out_regrown' \\(not 'auto'\\)"):
        compare_models(data, C=1e-3, fitted=fitted)


def test_a_budget_search_keeps_the_held_out_size():
    from tnt.services.training import train_to_budget

    fitted = {}
    params = TrainParams(C=1e-2, ccp_alpha="held_out_regrown")
    result, found = train_to_budget(load_bundled("iris"), 4, params, fitted=fitted)
    assert result.params.ccp_alpha == "held_out_regrown" and result.params.C == found.C
    assert result.tnt.ccp_alpha == "held_out_regrown" and result.tnt.n_splits_ <= 4
    assert fitted and all(model.ccp_alpha == "held_out_regrown" for model in fitted.values())


def test_a_budget_search_from_the_default_size_fits_c_alone_and_says_so():
    from tnt.services.training import train_to_budget

    fitted = {}
    result, found = train_to_budget(load_bundled("iris"), 4, TrainParams(C=1e-2), fitted=fitted)
    assert TrainParams(C=1e-2).ccp_alpha == "auto"
    assert found.size_rule == 0.0 and result.params.ccp_alpha == 0.0 and result.tnt.ccp_alpha == 0.0
    assert fitted and all(model.ccp_alpha == 0.0 for model in fitted.values())
    assert result.tnt.n_splits_ <= 4 and result.cart.n_splits_ == result.tnt.n_splits_
