"""Uploads at the loader's limits, and the memory a session keeps as its user trains model after model.

The bound: a session keeps at most ``ui.state.MAX_MODELS`` (24) trained results, least recently used
dropped first, and a result holds two graphs (TnT and CART), never the training data; so a session
holds its data set once plus 24 pairs of graphs. Timings at the limits are measured by
``benchmarks/limits.py``, not here.
"""

from __future__ import annotations

import numpy as np
import pytest

from tnt.data.csv_loader import Limits, read_csv_bytes
from tnt.data.datasets import DataError, load_bundled, make_dataset
from tnt.services.training import TrainParams, train

ROWS = Limits().max_rows


def csv_bytes(rows: int) -> bytes:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 2))
    y = np.where(X[:, 0] > 0.3, "p", "q")
    lines = "\n".join(f"{a:.5f},{b:.5f},{label}" for (a, b), label in zip(X, y))
    return f"a,b,label\n{lines}\n".encode()


def test_a_csv_of_the_most_rows_loads_and_trains():
    table = read_csv_bytes(csv_bytes(ROWS), "large.csv")
    data = make_dataset(table.frame, target="label", features=["a", "b"], name="large.csv")
    assert len(data.y_train) + len(data.y_test) == ROWS
    result = train(data, TrainParams(C=1e-2))
    assert result.tnt.n_splits_ >= 1 and result.tnt_metrics["test_accuracy"] > 0.95


def test_one_row_more_is_refused_in_one_sentence():
    with pytest.raises(DataError, match=f"The file has {ROWS + 1:,} rows; TnT Explorer takes at most {ROWS:,}"):
        read_csv_bytes(csv_bytes(ROWS + 1))


def graph_bytes(result) -> int:
    return sum(
        array.nbytes for model in (result.tnt, result.cart) for array in vars(model.graph_).values()
        if isinstance(array, np.ndarray)
    )  # fmt: skip


def model_arrays(result) -> int:
    """Bytes of every array a result's models hold (graphs and fitted attributes)."""
    total = 0
    for model in (result.tnt, result.cart):
        for value in vars(model).values():
            total += value.nbytes if isinstance(value, np.ndarray) else 0
    return total + graph_bytes(result)


def test_a_kept_result_holds_graphs_not_training_data():
    # The same rows repeated ten times give the same trees: a result that kept its training data
    # would grow tenfold.
    small = load_bundled("iris", seed=0)
    frame = small.test_frame()
    big_frame = frame.loc[frame.index.repeat(10)].reset_index(drop=True)
    features = list(small.feature_names)
    once = make_dataset(frame, target=small.target_name, features=features, name="once")
    tenfold = make_dataset(big_frame, target=small.target_name, features=features, name="tenfold")
    a, b = train(once, TrainParams(C=1e-2)), train(tenfold, TrainParams(C=1e-2))
    assert tenfold.X_train.nbytes >= 9 * once.X_train.nbytes
    assert model_arrays(b) <= 2 * model_arrays(a)


def test_a_session_keeps_at_most_max_models_results():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from tnt.services.training import TrainParams, TrainResult
        from ui import state

        for i in range(state.MAX_MODELS + 6):
            result = TrainResult("data", TrainParams(C=10.0**-i), None, None, {}, {})
            state.store_result(result)
        st.session_state["kept"] = [r.params.C for r in st.session_state[state.MODELS].values()]

    at = AppTest.from_function(script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    from ui.state import MAX_MODELS

    assert at.session_state["kept"] == [10.0**-i for i in range(6, MAX_MODELS + 6)]  # the oldest 6 dropped
