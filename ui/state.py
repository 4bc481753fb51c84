"""The app's state, in ``st.session_state`` under namespaced keys, behind one small API.

Every getter creates what it needs on first use (the default data set, default parameters), so a
page opened directly works. Objects handed out are shared with the cache: treat them as read-only.

The data set's source, the parameters and every trained model are also saved in the session's
workspace (:mod:`ui.workspace`), so that a reload, a second tab with the same address or a server
restart brings them back: :func:`start_session` restores them, and a model not in this session's
memory is looked up among the workspace's runs before it is trained.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import streamlit as st

from tnt.data.csv_loader import UploadedTable, read_csv_bytes
from tnt.data.datasets import DataError, Dataset, default_dataset_id, load_bundled
from tnt.data.sources import bundled_source, check_source, dataset_from_source
from tnt.services.model_on_data import OpenedModel
from tnt.services.tasks import model_classes
from tnt.services.training import TrainParams, TrainResult
from tnt.workspace import runs as saved_runs
from ui.lru import LRUStore

from . import workspace

DATASET = "data/dataset"
SOURCE = "data/source"  # what the current data set came from, for the Data page's widgets
PARAMS = "train/params"
MODELS = "train/models"  # LRUStore: (dataset key, TrainParams) -> TrainResult
MAX_MODELS = 24  # trained models kept per session, least recently used dropped first
TEACH = "teach/choices"  # the Teach page's choices and drawn points (checked by ui.teaching)
ASKED = "widgets/asked"  # keys of widgets given a value through the session state in this run (ask)
ASKED_NEXT = "widgets/asked_next"  # the same, for the next run (ask before st.switch_page or st.rerun)


@st.cache_data(show_spinner="Loading the data set...", max_entries=32)
def bundled(dataset_id: str, test_size: float = 0.3, seed: int = 0) -> Dataset:
    """A bundled data set, split; cached on its small hashable arguments (a fresh copy per call)."""
    return load_bundled(dataset_id, test_size=test_size, seed=seed)


@st.cache_data(show_spinner="Reading the file...", max_entries=8)
def uploaded_table(file_id: str, name: str, _data: bytes) -> UploadedTable:
    """An uploaded CSV file, parsed once per upload (``file_id`` is new for every upload and
    stands for the bytes, which are not hashed)."""
    return read_csv_bytes(_data, name=name)


#: The CSV file last chosen in the Data page's uploader, as ``(file_id, name, bytes)``: streamlit
#: forgets a widget's file when the user leaves its page, this keeps it for when the user comes back.
CHOSEN_UPLOAD = "data/chosen_upload"


def chosen_upload(opened_now: bool, upload):
    """The CSV file the Data page works on, as ``(file_id, name, bytes)``, or None.

    ``upload`` is the uploader's file (None when empty); ``opened_now`` says whether the uploader
    widget is new in this run (the page was just opened, so its file was forgotten). A file chosen
    before is kept until another is chosen, the user removes it from the uploader, or
    :func:`forget_upload`.
    """
    if upload is not None:
        st.session_state[CHOSEN_UPLOAD] = (upload.file_id, upload.name, upload.getvalue())
    elif not opened_now and not st.session_state.get(CHOSEN_UPLOAD + "/restored"):
        st.session_state.pop(CHOSEN_UPLOAD, None)  # removed from the uploader by the user
    kept = st.session_state.get(CHOSEN_UPLOAD)
    st.session_state[CHOSEN_UPLOAD + "/restored"] = upload is None and kept is not None
    return kept


def forget_upload() -> None:
    """Forget the CSV file kept by :func:`chosen_upload`."""
    st.session_state.pop(CHOSEN_UPLOAD, None)
    st.session_state.pop(CHOSEN_UPLOAD + "/restored", None)


def dataset() -> Dataset:
    """The data set in use (the catalog's default until the user picks another)."""
    if DATASET not in st.session_state:
        st.session_state[DATASET] = bundled(default_dataset_id())
        st.session_state[SOURCE] = bundled_source(default_dataset_id())
    return st.session_state[DATASET]


def source() -> dict:
    """Where the data set in use comes from (:mod:`tnt.data.sources`)."""
    dataset()
    return st.session_state[SOURCE]


def set_dataset(data: Dataset, source: dict, raw: bytes | None = None) -> None:
    """Use ``data`` (built from ``source``), and save the choice, with the uploaded bytes ``raw``, in the workspace."""
    st.session_state[DATASET] = data
    st.session_state[SOURCE] = dict(source)
    if raw is not None:
        workspace.write(lambda s, ws: s.put_data(ws, raw, source.get("name", "upload.csv")))
    _save_choices()


def params() -> TrainParams:
    """The hyperparameters last chosen on the Train page (defaults at first)."""
    return st.session_state.setdefault(PARAMS, TrainParams())


def set_params(value: TrainParams) -> None:
    changed = st.session_state.get(PARAMS) != value
    st.session_state[PARAMS] = value
    if changed:
        _save_choices()


def teach_choices() -> dict:
    """The Teach page's saved choices (``{}`` at first); :mod:`ui.teaching` checks them."""
    return st.session_state.get(TEACH, {})


def set_teach_choices(value: dict) -> None:
    """Keep the Teach page's choices (JSON-able) for this session and save them with the workspace when they change."""
    if st.session_state.get(TEACH) != value:
        st.session_state[TEACH] = value
        _save_choices(teach=value)


def _save_choices(**more) -> None:
    """Save the data set's source, the parameters and ``more`` (other keys of the saved state are kept)."""
    choices = {"source": source(), "params": dataclasses.asdict(params()), **more}
    workspace.write(lambda s, ws: s.set_state(ws, {**s.state(ws), **choices}))


def dataset_from(s, ws: str, source: dict) -> Dataset:
    """The data set of a saved source: a bundled one from the cache, one of the paper's from the data
    folder, an upload from the workspace's files.

    Raises
    ------
    DataError
        When it cannot be rebuilt (the source is not valid, the file is gone or damaged).
    """
    check_source(source)
    if source["kind"] == "bundled":
        try:
            return bundled(source["id"], float(source["test_size"]), int(source["seed"]))
        except KeyError as error:
            raise DataError(str(error.args[0])) from None
    if source["kind"] == "paper":  # read again from the data folder (MissingDataError: its sentence)
        return dataset_from_source(source)
    try:
        raw = s.get_data(ws, source["sha256"])
    except (KeyError, ValueError):  # gone (forgotten, evicted) or damaged
        raise DataError(
            "The uploaded file of this data set could not be read back from the workspace; upload it again on the "
            "Data page."
        ) from None
    return dataset_from_source(source, uploaded_table(source["sha256"], source["name"], raw))


def _restore(s, ws: str) -> None:
    """Put the workspace's saved data set and parameters into this new session."""
    choices = s.state(ws)
    try:
        st.session_state[PARAMS] = saved_runs.check_params(choices.get("params"))
    except ValueError:
        pass
    if isinstance(choices.get("teach"), dict):
        st.session_state[TEACH] = choices["teach"]
    if "source" in choices:
        try:
            st.session_state[DATASET] = dataset_from(s, ws, choices["source"])
            st.session_state[SOURCE] = dict(choices["source"])
        except DataError as error:
            workspace.set_notice(f"The saved data set could not be restored: {error}")


def start_session() -> None:
    """Give this browser session its workspace, restoring the saved state on its first run (called at
    the start of every script run)."""
    # Asked for in this run only (a widget not drawn after ask forgets it), or by the run before for this one.
    st.session_state[ASKED] = st.session_state.pop(ASKED_NEXT, set())
    workspace.start(_restore)


def held(key: str, default, *, fit=None, options=None) -> tuple[Any, dict]:
    """The value of the widget keyed ``key``, and the keyword arguments to draw it with: the value it
    holds (``default`` when it is made afresh) as its own default, unless that value is set through
    the session state in this script run.

    A browser shows a widget's own default until it holds a value of its own, and learns a value set
    through the session state only from the script run that sets it: one that missed that run (a busy
    server), or mounts the widget afresh, would show the literal default, and submit it at the next
    interaction (``app_pages/train.py``'s form showed C=1e-05, N1=1, N2=1). So the value goes in the
    widget's default. The session state is written only where it must be: where the value held is
    not one the widget takes (``fit`` or ``options`` change it; a smaller graph than last time would
    make Streamlit raise), or the page asked for a value in this run (:func:`ask`). The widget then
    gets no default of its own, as Streamlit wants of a widget whose value is set through the session
    state (it warns otherwise).

    Parameters
    ----------
    key : str
        The widget's key.
    default
        Its value when the session holds none: the widget's first value.
    fit : callable, optional
        Moves a value held into one the widget takes (into its range: :func:`clamp`; with ``options``,
        applied first).
    options : sequence, optional
        The options of a radio or select box, drawn with ``index=``: a value held that is not among
        them gives way to ``default`` (to the first option when ``default`` is not among them either).
        None, with a ``default`` of None, is a select box with nothing chosen (``index=None``).

    Returns
    -------
    value
        The widget's value in this run, before it is drawn.
    kwargs : dict
        ``{"value": value}`` (``{"index": i}`` with ``options``), or ``{}`` where the value is set
        through the session state in this run.

    See Also
    --------
    keyed : these keyword arguments with ``key=``, for a widget whose value the page does not need first.

    Examples
    --------
    >>> n, kwargs = held("ensembles/n", 5)  # doctest: +SKIP
    >>> st.slider("Base estimators", 2, 20, key="ensembles/n", **kwargs)  # doctest: +SKIP
    """
    if options is not None:
        options, moved = list(options), fit

        def fit(v):
            v = v if moved is None else moved(v)
            if v in options or (v is None and default is None):
                return v
            return default if default in options else options[0]

    asked = key in st.session_state.setdefault(ASKED, set())
    st.session_state[ASKED].discard(key)
    kept = st.session_state.get(key, default)
    value = kept if fit is None else fit(kept)
    if asked or (key in st.session_state and value != kept):
        st.session_state[key] = value
        return value, {}
    if options is None:
        return value, {"value": value}
    return value, {"index": None if value is None else options.index(value)}


def keyed(key: str, default, *, fit=None, options=None) -> dict:
    """The keyword arguments that draw the widget keyed ``key`` as :func:`held` says: ``key=`` and its
    default, so that the key is written once (a widget given one key and another's default would read
    one and write the other).

    Parameters
    ----------
    key : str
        The widget's key.
    default, fit, options
        As in :func:`held`.

    Returns
    -------
    dict
        ``{"key": key}`` and :func:`held`'s keyword arguments: ``"value"`` (``"index"`` with
        ``options``), or neither where the value is set through the session state in this run.

    Examples
    --------
    >>> st.slider("Base estimators", 2, 20, **keyed("ensembles/n", 5))  # doctest: +SKIP
    >>> st.radio("Task", ["a", "b"], **keyed("data/task", "a", options=["a", "b"]))  # doctest: +SKIP
    """
    return {"key": key, **held(key, default, fit=fit, options=options)[1]}


def in_range(low, high):
    """A ``fit`` for :func:`held` and :func:`keyed`: a number moved into [low, high]."""
    return lambda v: min(max(v, low), high)


def clamp(key: str, low, high, default=0) -> tuple[Any, dict]:
    """:func:`held` for a number widget in [low, high]: the value it holds (``default`` when it is made
    afresh) moved into the range, and the keyword arguments to draw it with."""
    return held(key, default, fit=in_range(low, high))


def ask(key: str, value, *, next_run: bool = False) -> None:
    """Give the widget keyed ``key`` ``value`` in this script run, before it is drawn (a node clicked in
    the graph becomes the node number's value, a saved choice comes back), through the session state;
    :func:`held` then gives the widget no default of its own in this run. With ``next_run``, in the
    next run instead: that of the page ``st.switch_page`` or ``st.rerun`` starts after this call."""
    st.session_state[key] = value
    st.session_state.setdefault(ASKED_NEXT if next_run else ASKED, set()).add(key)


def _models() -> LRUStore:
    return st.session_state.setdefault(MODELS, LRUStore(MAX_MODELS))


def cached_result(data: Dataset, value: TrainParams) -> TrainResult | None:
    """The model trained on ``data`` with ``value``, if this session or its workspace has trained it."""
    found = _models().get((data.key, value))
    if found is None:
        found = workspace.read(lambda s, ws: saved_runs.find_result(s, ws, data.key, value))
        if found is not None:
            _models().put(found.key, found)
    return found


def comparable_models(data: Dataset, value: TrainParams) -> dict | None:
    """The TnT and CART this session trained on ``data`` at ``value``'s settings without fine-tuning,
    with their fit times, as :func:`tnt.services.compare.compare_models` takes them (``fitted``),
    or None. The Compare table's TnT is never fine-tuned, so a model trained with ``value.fine_tune``
    rounds is not it; a run read back from the workspace holds model files (which cannot be
    fine-tuned), and a budget search's reused fit has no fit time: those are fitted again."""
    result = cached_result(data, dataclasses.replace(value, fine_tune=0))
    if result is None or not isinstance(result.tnt, model_classes(data.is_regression)[0]):
        return None
    tnt_time, cart_time = result.tnt_metrics["fit_time"], result.cart_metrics["fit_time"]
    if not (math.isfinite(tnt_time) and math.isfinite(cart_time)):
        return None
    return {"TnT": (result.tnt, tnt_time), "CART (best-first)": (result.cart, cart_time)}


def store_result(result: TrainResult) -> None:
    """Keep a newly trained model in this session and save it as a run of the workspace."""
    _models().put(result.key, result)
    data = dataset()
    if result.dataset_key == data.key:
        workspace.write(lambda s, ws: saved_runs.save_result(s, ws, result, dataset_name=data.name, source=source()))


def current_result() -> TrainResult | None:
    """The model for the current data set and parameters, or None if not trained yet."""
    return cached_result(dataset(), params())


def results_for(data: Dataset) -> list[TrainResult]:
    """The models this session has trained on ``data``."""
    return [r for r in _models().values() if r.dataset_key == data.key]


# ---------------------------------------------------------------------- the workspace's saved runs
def saved_runs_list():
    """The workspace's runs, newest first, or None when work is not being saved."""
    return workspace.read(lambda s, ws: s.runs(ws))


def open_run(run) -> str | None:
    """Make a saved run the data set, parameters and model in use (a model edited by hand: the opened
    model of every page); None, or a sentence saying why not."""
    if saved_runs.is_edited(run):
        return _open_edited_run(run)

    def load(s, ws):
        try:
            return dataset_from(s, ws, run.source), saved_runs.load_result(s, ws, run), None
        except DataError as error:
            return None, None, str(error)
        except (KeyError, ValueError) as error:
            return None, None, f"This run could not be read from the workspace ({error.args[0]})."

    data, result, problem = workspace.read(load, default=(None, None, "This workspace is no longer stored."))
    if problem is None and data.key != result.dataset_key:
        problem = "The data of this run no longer gives the same data set; upload the file again."
    if problem is not None:
        return problem
    set_dataset(data, run.source)
    set_params(result.params)
    _models().put(result.key, result)
    return None


def _open_edited_run(run) -> str | None:
    def load(s, ws):
        try:
            return dataset_from(s, ws, run.source), s.load_model(ws, run.id, saved_runs.EDITED), None
        except DataError as error:
            return None, None, str(error)
        except (KeyError, ValueError) as error:
            return None, None, f"This run could not be read from the workspace ({error.args[0]})."

    data, model, problem = workspace.read(load, default=(None, None, "This workspace is no longer stored."))
    if problem is not None:
        return problem
    set_dataset(data, run.source)
    base = saved_runs.edited_from_params(run)
    if base is not None:
        set_params(base)
    set_opened_model(OpenedModel(name=f"run {run.id}, {run.params['edited']}", model=model))
    return None


def save_edited(model, name: str, metrics: dict, base_params: TrainParams | None):
    """Save a model edited by hand, with its measurements, as a run of the workspace (None when work is not saved)."""
    data = dataset()
    kept = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    return workspace.write(
        lambda s, ws: saved_runs.save_edited(
            s, ws, model, name=name, dataset_name=data.name, dataset_key=data.key, source=source(),
            params=base_params, metrics=kept,
        )
    )  # fmt: skip


EDITOR = "editor"  # the key of the editor's history in the workspace's saved state


def saved_editor() -> dict | None:
    """The editor's history saved in the workspace (:func:`save_editor`), or None."""
    value = workspace.read(lambda s, ws: s.state(ws).get(EDITOR))
    return value if isinstance(value, dict) else None


def save_editor(value: dict | None) -> None:
    """Save the editor's history (a small JSON-able dict) in the workspace, so that a reload brings it back."""
    _save_choices(**{EDITOR: value})


def saved_model_json(run, name: str) -> str | None:
    """A model of a saved run as the text of a model file, or None if it cannot be read."""
    return workspace.read(lambda s, ws: s.model_json(ws, run.id, name))


def delete_run(run) -> None:
    workspace.write(lambda s, ws: s.delete_run(ws, run.id))


def forget_workspace() -> None:
    """Delete the workspace (runs, models, uploaded files) and empty this session; a new one starts."""
    workspace.forget()


# ---------------------------------------------------------------- a model file opened by the user
OPENED = "opened/model"  # tnt.services.model_on_data.OpenedModel, the file opened on Graph, Compare or Paths


def opened_model():
    """The model file the user opened (an :class:`~tnt.services.model_on_data.OpenedModel`), or None."""
    return st.session_state.get(OPENED)


def set_opened_model(value) -> None:
    """Keep ``value`` as the opened model (None closes it)."""
    if value is None:
        st.session_state.pop(OPENED, None)
    else:
        st.session_state[OPENED] = value
