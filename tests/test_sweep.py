"""Sweeps over C: the table, its summary, parallel and Dask runs giving the same table, and figures."""

import sys
import types

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier
from tnt.experiments.sweep import COLUMNS, EXTRA_MODELS, NDG_C, TIMING_COLUMNS, log_grid, summarize, sweep
from tnt.viz.figures import MODEL_COLORS, accuracy_vs_splits, depth_distribution, depth_vs_splits, splits_vs_C

CS = [1e-3, 1e-2, 1e-1]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@pytest.fixture(scope="module")
def table(wine):
    Xa, Xb, ya, yb = wine
    return sweep(Xa, ya, Xb, yb, CS, seeds=[0, 1])


def without_timing(t):
    return t.drop(columns=TIMING_COLUMNS)


def test_table_rows_match_the_estimators(wine, table):
    Xa, Xb, ya, yb = wine
    assert list(table.columns) == COLUMNS
    assert list(zip(table["C"], table["seed"])) == [(c, s) for c in CS for s in (0, 1)]
    row = table.iloc[3]  # C=1e-2, seed 1
    tnt = TnTClassifier(C=1e-2, random_state=1).fit(Xa, ya)
    cart = CARTClassifier(max_leaf_nodes=tnt.n_splits_ + 1, random_state=1).fit(Xa, ya)
    assert row["tnt_splits"] == tnt.n_splits_ and row["tnt_leaves"] == tnt.n_leaves_
    assert row["tnt_test_acc"] == tnt.score(Xb, yb) and row["cart_test_acc"] == cart.score(Xb, yb)
    assert row["tnt_mean_depth"] == np.mean(tnt.decision_depth(Xb))
    assert row["cart_splits"] == cart.n_splits_
    assert (table["reduced_splits"] <= table["tnt_splits"]).all()
    assert (table["tnt_fit_time"] > 0).all()


def test_split_counts_fall_as_C_rises(table):
    means = summarize(table)["tnt_splits_mean"]
    assert means.is_monotonic_decreasing and means.iloc[0] > means.iloc[-1]


def test_n_jobs_2_gives_the_same_table(wine, table):
    Xa, Xb, ya, yb = wine
    calls = []
    parallel = sweep(
        Xa, ya, Xb, yb, CS, seeds=[0, 1], n_jobs=2, progress=lambda done, total: calls.append((done, total))
    )
    pd.testing.assert_frame_equal(without_timing(parallel), without_timing(table))
    assert calls == [(i, 6) for i in range(1, 7)]


@pytest.mark.parametrize("processes", [False, True])
def test_a_dask_local_cluster_gives_the_same_table(wine, table, processes, monkeypatch):
    from dask.distributed import Client, LocalCluster

    # Worker processes are spawned, and spawn re-runs the parent's __main__ from its file; Streamlit's
    # AppTest (earlier in the suite) leaves its own script there. A bare __main__ has nothing to re-run.
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))

    Xa, Xb, ya, yb = wine
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None) as cluster:
        with Client(cluster) as client, joblib.parallel_backend("dask"):
            result = sweep(Xa, ya, Xb, yb, CS, seeds=[0, 1], n_jobs=2)
            assert len(client.scheduler_info()["workers"]) == 2
    pd.testing.assert_frame_equal(without_timing(result), without_timing(table))


def test_summary_mean_and_std_per_C(table):
    s = summarize(table)
    assert list(s.index) == CS and (s["n_seeds"] == 2).all()
    group = table[table["C"] == 1e-3]["tnt_test_acc"]
    assert s.loc[1e-3, "tnt_test_acc_mean"] == pytest.approx(group.mean())
    assert s.loc[1e-3, "tnt_test_acc_std"] == pytest.approx(group.std(ddof=0))


def test_log_grid_and_its_errors():
    grid = log_grid(1e-5, 1e-1, 30)
    assert len(grid) == 30 and grid[0] == 1e-5 and grid[-1] == 1e-1
    assert np.allclose(np.diff(np.log10(grid)), 4 / 29, atol=1e-4)
    with pytest.raises(ValueError, match="0 < low <= high"):
        log_grid(0, 1, 3)
    with pytest.raises(ValueError, match="at least one value"):
        log_grid(1e-3, 1e-2, 0)


def test_sweep_needs_values(wine):
    Xa, Xb, ya, yb = wine
    with pytest.raises(ValueError, match="at least one value of C and one seed"):
        sweep(Xa, ya, Xb, yb, [], [0])


def test_figures_have_bands_and_model_colours(table):
    s = summarize(table)
    fig = accuracy_vs_splits(s, part="train")
    names = [t.name for t in fig.data]
    assert names == ["TnT ±1 std", "TnT", "CART ±1 std", "CART"]
    band, line = fig.data[0], fig.data[1]
    assert band.fill == "toself" and band.mode == "lines"  # no markers: plotly would colour them blue
    assert line.line.color == MODEL_COLORS["TnT"]
    assert fig.data[3].line.color == MODEL_COLORS["CART"]
    # The band is mean + std forward then mean - std backward, over the same x.
    order = np.argsort(s["tnt_splits_mean"].to_numpy(), kind="stable")
    upper = (s["tnt_train_acc_mean"] + s["tnt_train_acc_std"]).to_numpy()[order]
    np.testing.assert_allclose(band.y[: len(s)], upper)
    assert fig.layout.xaxis.type == "log"
    with pytest.raises(ValueError, match="'test' or 'train'"):
        accuracy_vs_splits(s, part="validation")
    assert [t.name for t in splits_vs_C(s).data][1::2] == ["TnT", "TnT reduced"]
    depth = depth_vs_splits(s)
    np.testing.assert_allclose(sorted(depth.data[1].y), sorted(s["tnt_mean_depth_mean"]))
    single_leaf = pd.DataFrame(
        {
            "C": [1.0, 0.1],
            "seed": [0, 0],
            "tnt_splits": [0, 5],
            "cart_splits": [1, 5],
            "tnt_test_acc": [0.3, 0.8],
            "cart_test_acc": [0.5, 0.7],
        }
    )
    fig = accuracy_vs_splits(summarize(single_leaf))
    assert list(fig.data[1].x) == [5] and list(fig.data[3].x) == [1, 5]  # no 0 on a log axis
    bars = depth_distribution({"TnT (test samples)": ([1, 2], [0.25, 0.75]), "CART (paths)": ([1], [1.0])})
    assert [b.type for b in bars.data] == ["bar", "bar"] and list(bars.data[0].y) == [0.25, 0.75]
    opened = depth_distribution({"TnT (test samples)": ([1], [1.0]), "CART (test samples)": ([1], [1.0]),
                                 "Opened: m.json (test samples)": ([1], [1.0])})  # fmt: skip
    assert len({b.marker.color for b in opened.data}) == 3  # a model opened from a file has its own colour
    # The legend goes under the plot, where its rows cannot run into the title.
    assert opened.layout.legend.y < 0 and opened.layout.legend.yanchor == "top"


def test_the_five_models_of_fig_4(wine):
    Xa, Xb, ya, yb = wine
    table = sweep(Xa, ya, Xb, yb, [1e-2, 1e-1], seeds=[0], models=EXTRA_MODELS, reduce=False)
    assert "reduced_splits" not in table
    assert list(table.columns[-12:]) == [
        f"{m}_{k}" for m in EXTRA_MODELS for k in ("splits", "train_acc", "test_acc", "mean_depth")
    ]
    row = table.iloc[0]
    tuned = TnTClassifier(C=1e-2, fine_tune=5, random_state=0).fit(Xa, ya)
    tao = TAOClassifier.with_splits(int(row["tnt_splits"]), random_state=0).fit(Xa, ya)
    ndg = NDGClassifier(C=NDG_C, max_splits=int(row["tnt_splits"]), random_state=0).fit(Xa, ya)
    assert row["tnt_ft_test_acc"] == tuned.score(Xb, yb) and row["tnt_ft_splits"] == tuned.n_splits_
    assert row["tao_train_acc"] == tao.score(Xa, ya) and row["tao_splits"] == tao.n_splits_
    assert row["ndg_test_acc"] == ndg.score(Xb, yb) and row["ndg_splits"] == ndg.n_splits_
    assert (table["ndg_splits"] <= table["tnt_splits"]).all() and (table["tao_splits"] <= table["tnt_splits"]).all()
    fig = accuracy_vs_splits(summarize(table), title="wine")
    assert [t.name for t in fig.data][1::2] == ["TnT", "TnT fine-tuned", "TAO", "CART", "NDG"]
    assert len({t.line.color for t in fig.data[1::2]}) == 5 and fig.layout.title.text == "wine"
    with pytest.raises(ValueError, match="Unknown model 'forest'"):
        sweep(Xa, ya, Xb, yb, [1e-2], seeds=[0], models=["forest"])
