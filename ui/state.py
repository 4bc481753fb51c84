"""The app's state, in ``st.session_state`` under namespaced keys, behind one small API.

Every getter creates what it needs on first use (the default data set, default parameters), so a
page opened directly, or after a reload, works. Objects handed out are shared with the cache:
treat them as read-only.
"""

from __future__ import annotations

import streamlit as st

from tnt.data.csv_loader import UploadedTable, read_csv_bytes
from tnt.data.datasets import Dataset, default_dataset_id, load_bundled
from tnt.experiments.training import TrainParams, TrainResult
from ui.lru import LRUStore

DATASET = "data/dataset"
SOURCE = "data/source"  # what the current data set came from, for the Data page's widgets
PARAMS = "train/params"
MODELS = "train/models"  # LRUStore: (dataset key, TrainParams) -> TrainResult
MAX_MODELS = 24  # trained models kept per session, least recently used dropped first


@st.cache_data(show_spinner="Loading the data set...", max_entries=32)
def bundled(dataset_id: str, test_size: float = 0.3, seed: int = 0) -> Dataset:
    """A bundled data set, split; cached on its small hashable arguments (a fresh copy per call)."""
    return load_bundled(dataset_id, test_size=test_size, seed=seed)


@st.cache_data(show_spinner="Reading the file...", max_entries=8)
def uploaded_table(file_id: str, name: str, _data: bytes) -> UploadedTable:
    """An uploaded CSV file, parsed once per upload (``file_id`` is new for every upload and
    stands for the bytes, which are not hashed)."""
    return read_csv_bytes(_data, name=name)


def dataset() -> Dataset:
    """The data set in use (the catalog's default until the user picks another)."""
    if DATASET not in st.session_state:
        set_dataset(bundled(default_dataset_id()), {"kind": "bundled", "id": default_dataset_id()})
    return st.session_state[DATASET]


def source() -> dict:
    dataset()
    return st.session_state[SOURCE]


def set_dataset(data: Dataset, source: dict) -> None:
    st.session_state[DATASET] = data
    st.session_state[SOURCE] = dict(source)


def params() -> TrainParams:
    """The hyperparameters last chosen on the Train page (defaults at first)."""
    return st.session_state.setdefault(PARAMS, TrainParams())


def set_params(value: TrainParams) -> None:
    st.session_state[PARAMS] = value


def clamp(key: str, low: int, high: int, default: int = 0) -> None:
    """Give a number widget its value in [low, high] through its key, before the widget is drawn
    (a smaller graph or test set than last time would otherwise make Streamlit raise). The widget
    then takes no default of its own."""
    value = st.session_state.get(key, default)
    if not low <= value <= high or key not in st.session_state:
        st.session_state[key] = min(max(value, low), high)


def _models() -> LRUStore:
    return st.session_state.setdefault(MODELS, LRUStore(MAX_MODELS))


def cached_result(data: Dataset, value: TrainParams) -> TrainResult | None:
    """The model trained on ``data`` with ``value``, if this session has trained it."""
    return _models().get((data.key, value))


def store_result(result: TrainResult) -> None:
    _models().put(result.key, result)


def current_result() -> TrainResult | None:
    """The model for the current data set and parameters, or None if not trained yet."""
    return cached_result(dataset(), params())


def results_for(data: Dataset) -> list[TrainResult]:
    """The models this session has trained on ``data``."""
    return [r for r in _models().values() if r.dataset_key == data.key]
