"""The app's training runs in a workspace store, and the data sources that rebuild their data."""

import hashlib
import json

import numpy as np
import pytest

from tnt.data.csv_loader import read_csv_bytes
from tnt.data.datasets import DataError, load_bundled
from tnt.data.sources import bundled_source, check_source, content_hash, dataset_from_source, upload_source
from tnt.services.training import TrainParams, train
from tnt.workspace import WorkspaceStore
from tnt.workspace.runs import _ADDED_LATER, check_params, find_result, history_frame, load_result, save_result

RAW = b"u;v;kind\n" + b"".join(b"%d;%d;%s\n" % (i, (7 * i) % 11, b"east" if i % 3 else b"west") for i in range(60))


def test_an_upload_is_rebuilt_exactly_from_its_source():
    table = read_csv_bytes(RAW, name="stripes.csv")
    source = upload_source(RAW, "stripes.csv", target="kind", features=["u", "v", "kind"], test_size=0.25, seed=3)
    first, again = (
        dataset_from_source(source, table),
        dataset_from_source(source, read_csv_bytes(RAW, name="stripes.csv")),
    )
    assert first.key == again.key and first.feature_names == ("u", "v")
    assert np.array_equal(first.X_test, again.X_test) and np.array_equal(first.y_train, again.y_train)
    assert content_hash(source) == hashlib.sha256(RAW).hexdigest()
    with pytest.raises(DataError, match="upload it again"):
        dataset_from_source(source)


@pytest.mark.parametrize(
    "source, message",
    [
        ("iris", "not valid"),
        ({"kind": "pickle"}, "not valid"),
        ({"kind": "bundled", "id": "iris", "test_size": "0.3", "seed": 0}, "'test_size'"),
        ({"kind": "bundled", "id": "iris", "test_size": 0.3, "seed": True}, "'seed'"),
        ({**upload_source(RAW, "f.csv", target="kind", features=["u"]), "sha256": "../x"}, "not valid"),
        ({**upload_source(RAW, "f.csv", target="kind", features=["u"]), "features": [1]}, "not valid"),
    ],
)
def test_a_malformed_source_gets_one_sentence(source, message):
    with pytest.raises(DataError, match=message):
        check_source(source)


def test_an_unknown_bundled_set_is_a_data_error():
    with pytest.raises(DataError, match="Unknown data set"):
        dataset_from_source(bundled_source("no-such-set"))
    with pytest.raises(DataError, match="Unknown data set"):
        content_hash(bundled_source("no-such-set"))


def test_a_result_is_saved_found_and_loaded_back(tmp_path):
    data = load_bundled("iris", test_size=0.3, seed=0)
    source = bundled_source("iris")
    result = train(data, TrainParams(C=1e-2))
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    run = save_result(store, ws, result, dataset_name=data.name, source=source)
    assert run.data_hash == content_hash(source) and run.dataset_key == data.key
    found = find_result(store, ws, data.key, TrainParams(C=1e-2))
    assert found.params == result.params and found.tnt_metrics == result.tnt_metrics
    for ours, theirs in ((found.tnt, result.tnt), (found.cart, result.cart)):
        assert np.array_equal(ours.predict(data.X_test), theirs.predict(data.X_test))
        assert np.array_equal(ours.decision_depth(data.X_test), theirs.decision_depth(data.X_test))
    assert find_result(store, ws, data.key, TrainParams(C=2e-2)) is None
    assert load_result(store, ws, run).cart.n_splits_ == result.cart.n_splits_
    frame = history_frame(store.runs(ws))
    row = frame.iloc[0]
    assert (row["dataset"], row["C"], row["splits"]) == ("Iris", 1e-2, result.tnt.n_splits_)
    assert row["tnt_test_accuracy"] == result.tnt_metrics["test_accuracy"]
    assert row["cart_test_accuracy"] == result.cart_metrics["test_accuracy"]
    assert row["data_hash"] == run.data_hash[:12] and row["test_size"] == 0.3
    assert list(history_frame([]).columns) == list(frame.columns)


def test_runs_saved_before_max_bins_are_found_and_read_as_exact(tmp_path):
    data = load_bundled("iris", test_size=0.3, seed=0)
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    result = train(data, TrainParams(C=1e-2, ccp_alpha=0.0))
    run = save_result(store, ws, result, dataset_name=data.name, source=bundled_source("iris"))
    # The same run as an earlier version saved it (C alone, the size of the time): its parameters without
    # max_bins (nor those added later: ccp_alpha, min_category_samples).
    older = {name: value for name, value in run.params.items() if name not in _ADDED_LATER}
    with store._write() as con:
        con.execute("UPDATE runs SET params = ? WHERE id = ?", (json.dumps(older, sort_keys=True), run.id))
    (saved,) = store.runs(ws)
    assert "max_bins" not in saved.params
    assert (
        check_params(saved.params) == TrainParams(C=1e-2, ccp_alpha=0.0)
        and check_params(saved.params).max_bins == 65535
    )
    found = find_result(store, ws, data.key, TrainParams(C=1e-2, ccp_alpha=0.0))
    assert found is not None and found.params == TrainParams(C=1e-2, ccp_alpha=0.0)
    assert find_result(store, ws, data.key, TrainParams(C=1e-2, max_bins=255, ccp_alpha=0.0)) is None
    assert history_frame(store.runs(ws)).iloc[0]["max_bins"] == 65535


def test_a_binned_run_is_saved_and_found_with_its_bins(tmp_path):
    data = load_bundled("iris", test_size=0.3, seed=0)
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    binned = train(data, TrainParams(C=1e-2, max_bins=4))
    assert binned.tnt.max_bins == 4
    save_result(store, ws, binned, dataset_name=data.name, source=bundled_source("iris"))
    assert find_result(store, ws, data.key, TrainParams(C=1e-2)) is None
    assert find_result(store, ws, data.key, TrainParams(C=1e-2, max_bins=4)).tnt.estimator_params_["max_bins"] == 4


def test_a_held_out_size_run_is_found_only_with_it_and_a_binned_run_saved_before_it_still_is(tmp_path):
    data = load_bundled("iris", test_size=0.3, seed=0)
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    held_out = TrainParams(C=1e-2, ccp_alpha="held_out_regrown")
    run = save_result(store, ws, train(data, held_out), dataset_name=data.name, source=bundled_source("iris"))
    assert run.params["ccp_alpha"] == "held_out_regrown"
    found = find_result(store, ws, data.key, held_out)
    assert found.params == held_out and found.tnt.estimator_params_["ccp_alpha"] == "held_out_regrown"
    assert find_result(store, ws, data.key, TrainParams(C=1e-2)) is None
    # A binned run saved after max_bins but before ccp_alpha (and min_category_samples) existed:
    # trained with C alone.
    binned = save_result(
        store,
        ws,
        train(data, TrainParams(C=1e-2, max_bins=4, ccp_alpha=0.0)),
        dataset_name=data.name,
        source=bundled_source("iris"),
    )
    older = {name: value for name, value in binned.params.items() if name not in ("ccp_alpha", "min_category_samples")}
    with store._write() as con:
        con.execute("UPDATE runs SET params = ? WHERE id = ?", (json.dumps(older, sort_keys=True), binned.id))
    found = find_result(store, ws, data.key, TrainParams(C=1e-2, max_bins=4, ccp_alpha=0.0))
    assert found is not None and found.params == TrainParams(C=1e-2, max_bins=4, ccp_alpha=0.0)
    assert find_result(store, ws, data.key, TrainParams(C=1e-2, max_bins=4)) is None  # not the default's size
    assert find_result(store, ws, data.key, TrainParams(C=1e-2, max_bins=4, ccp_alpha="held_out_regrown")) is None
    frame = history_frame(store.runs(ws))
    assert sorted(frame["ccp_alpha"], key=str) == [0.0, "held_out_regrown"]
    as_int = check_params({**older, "ccp_alpha": 0}).ccp_alpha
    assert as_int == 0.0 and isinstance(as_int, float)


@pytest.mark.parametrize(
    "params",
    [None, {"C": 0.01}, {"C": 0.01, "N1": 2.5, "N2": 5, "fine_tune": 0, "seed": 0},
     {"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0, "extra": 1},
     {"C": True, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0},
     {"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0, "max_bins": 2.5},
     {"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0, "ccp_alpha": "held_out"},
     {"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0, "ccp_alpha": 1e-3},
     {"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 0, "ccp_alpha": False}],
)  # fmt: skip
def test_saved_parameters_are_checked(params):
    with pytest.raises(ValueError, match="The saved parameter"):
        check_params(params)


def test_runs_saved_before_min_category_samples_are_found_and_read_as_no_pooling(tmp_path):
    data = load_bundled("iris", test_size=0.3, seed=0)
    store = WorkspaceStore(tmp_path)
    ws = store.new_workspace()
    run = save_result(
        store, ws, train(data, TrainParams(C=1e-2)), dataset_name=data.name, source=bundled_source("iris")
    )
    older = {name: value for name, value in run.params.items() if name != "min_category_samples"}
    with store._write() as con:
        con.execute("UPDATE runs SET params = ? WHERE id = ?", (json.dumps(older, sort_keys=True), run.id))
    (saved,) = store.runs(ws)
    assert "min_category_samples" not in saved.params
    assert check_params(saved.params).min_category_samples == 1
    assert find_result(store, ws, data.key, TrainParams(C=1e-2)) is not None
    assert find_result(store, ws, data.key, TrainParams(C=1e-2, min_category_samples=5)) is None
    assert history_frame(store.runs(ws)).iloc[0]["min_category_samples"] == 1
