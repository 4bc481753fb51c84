"""Training runs of the app (:class:`~tnt.services.training.TrainResult`) saved to and read from a
workspace store, and the history table of a workspace."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pandas as pd

from tnt.data.sources import check_source, content_hash
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.services.training import SIZE_CHOICES, TrainParams, TrainResult
from tnt.workspace.store import Run, WorkspaceStore

__all__ = [
    "EDITED",
    "MODEL_NAMES",
    "save_result",
    "save_edited",
    "is_edited",
    "edited_from_params",
    "run_model_names",
    "find_result",
    "load_result",
    "check_params",
    "history_frame",
]

#: The names under which a run's two models are stored.
MODEL_NAMES = {"tnt": "TnT", "cart": "CART"}
#: The name under which the run of a model edited by hand (:mod:`tnt.editing`) stores it.
EDITED = "Edited"
#: Parameters that take one of a few values (numbers or words), and the values each may take.
_PARAM_CHOICES = {"ccp_alpha": SIZE_CHOICES}
_PARAM_NAMES = [f.name for f in dataclasses.fields(TrainParams)]
_PARAM_TYPES = {
    f.name: (float if f.type in (float, "float") else int)
    for f in dataclasses.fields(TrainParams)
    if f.name not in _PARAM_CHOICES
}
#: Parameters added after runs were first saved, in the order they were added, with the value the
#: runs saved before them used.
_ADDED_LATER = {"max_bins": MAX_EXACT_BINS, "ccp_alpha": 0.0, "min_category_samples": 1}


def save_result(store: WorkspaceStore, workspace: str, result: TrainResult, *, dataset_name: str, source: dict) -> Run:
    """Save a trained result (its TnT and CART models as model files) as a run of the workspace."""
    check_source(source)
    return store.save_run(
        workspace,
        dataset_name=dataset_name,
        data_hash=content_hash(source),
        dataset_key=result.dataset_key,
        source=source,
        params=dataclasses.asdict(result.params),
        metrics={MODEL_NAMES["tnt"]: result.tnt_metrics, MODEL_NAMES["cart"]: result.cart_metrics},
        models={MODEL_NAMES["tnt"]: result.tnt, MODEL_NAMES["cart"]: result.cart},
    )


def save_edited(
    store: WorkspaceStore, workspace: str, model, *, name: str, dataset_name: str, dataset_key: str, source: dict,
    params: TrainParams | None, metrics: dict,
) -> Run:  # fmt: skip
    """Save a model edited by hand as a run of its own (one model, stored as :data:`EDITED`).

    Its parameters are those of the trained model it was edited from (when it was one of the app's)
    and ``"edited"``, the name given to it, so looking up a trained run never finds it.
    """
    check_source(source)
    saved = {**({} if params is None else dataclasses.asdict(params)), "edited": str(name)}
    return store.save_run(
        workspace,
        dataset_name=dataset_name,
        data_hash=content_hash(source),
        dataset_key=dataset_key,
        source=source,
        params=saved,
        metrics={EDITED: metrics},
        models={EDITED: model},
    )


def is_edited(run: Run) -> bool:
    """Whether the run holds a model edited by hand (saved with :func:`save_edited`)."""
    return "edited" in run.params


def edited_from_params(run: Run) -> TrainParams | None:
    """The training parameters of the model an edited run was edited from, or None when it was not
    trained in the app (an opened model file)."""
    try:
        return check_params({k: v for k, v in run.params.items() if k != "edited"})
    except ValueError:
        return None


def run_model_names(run: Run) -> list[str]:
    """The names of the models a run stores."""
    return [EDITED] if is_edited(run) else list(MODEL_NAMES.values())


def check_params(params) -> TrainParams:
    """Saved training parameters (a dict) as :class:`~tnt.services.training.TrainParams`, checked.

    Raises
    ------
    ValueError
        When they are not exactly the fields of ``TrainParams`` with numbers of the right kind, or
        a ``ccp_alpha`` the app does not offer (a run saved before ``max_bins``, ``ccp_alpha`` or
        ``min_category_samples`` existed has it at its default, as it was trained).

    Examples
    --------
    >>> old = check_params({"C": 0.01, "N1": 2, "N2": 5, "fine_tune": 0, "seed": 3})
    >>> old.max_bins, old.ccp_alpha, old.min_category_samples
    (65535, 0.0, 1)
    >>> check_params({"C": "0.01", "N1": 2, "N2": 5, "fine_tune": 0, "seed": 3})
    Traceback (most recent call last):
    ...
    ValueError: The saved parameter C is not valid.
    """
    if not isinstance(params, dict):
        raise ValueError("The saved parameters are not valid.")
    params = {**_ADDED_LATER, **params}
    if set(params) != set(_PARAM_NAMES):
        raise ValueError("The saved parameters are not valid.")
    values = {}
    for name, choices in _PARAM_CHOICES.items():
        value = params[name]
        if isinstance(value, bool) or value not in choices:
            raise ValueError(f"The saved parameter {name} is not valid.")
        values[name] = choices[choices.index(value)]
    for name, kind in _PARAM_TYPES.items():
        value = params[name]
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (kind is int and not isinstance(value, int))
        ):
            raise ValueError(f"The saved parameter {name} is not valid.")
        values[name] = kind(value)
    return TrainParams(**values)


def load_result(store: WorkspaceStore, workspace: str, run: Run) -> TrainResult:
    """A run as a :class:`~tnt.services.training.TrainResult` (its models read as model files)."""
    metrics = run.metrics
    tnt, cart = MODEL_NAMES["tnt"], MODEL_NAMES["cart"]
    if not isinstance(metrics, dict) or not all(isinstance(metrics.get(k), dict) for k in (tnt, cart)):
        raise ValueError("The run's measurements are not valid.")
    return TrainResult(
        dataset_key=run.dataset_key,
        params=check_params(run.params),
        tnt=store.load_model(workspace, run.id, tnt),
        cart=store.load_model(workspace, run.id, cart),
        tnt_metrics=metrics[tnt],
        cart_metrics=metrics[cart],
    )


def find_result(store: WorkspaceStore, workspace: str, dataset_key: str, params: TrainParams) -> TrainResult | None:
    """The workspace's newest run on ``dataset_key`` with ``params``, as a result, or None."""
    saved, later = dataclasses.asdict(params), list(_ADDED_LATER)
    run = None
    for first_missing in range(len(later), -1, -1):  # as saved today, then as saved before each addition
        missing = later[first_missing:]
        if any(saved[name] != _ADDED_LATER[name] for name in missing):
            break  # a run saved before that parameter existed was trained with its default, not this value
        run = store.find_run(workspace, dataset_key, {k: v for k, v in saved.items() if k not in missing})
        if run is not None:
            break
    return None if run is None else load_result(store, workspace, run)


def history_frame(runs) -> pd.DataFrame:
    """One row per run, in the order given: when, data set, the name of a model edited by hand (empty
    for a trained run), parameters, size, accuracies (R² and RMSE for a regression run, empty
    otherwise; an edited run's under TnT's), fit time, the split and the data's hash.

    Keys are snake_case; the app names the columns for display.
    """
    tnt, cart = MODEL_NAMES["tnt"], MODEL_NAMES["cart"]
    rows = []
    for run in runs:
        m, c = run.metrics.get(tnt) or run.metrics.get(EDITED, {}), run.metrics.get(cart, {})
        params = {**_ADDED_LATER, **run.params}
        rows.append(
            {
                "run": run.id,
                "saved": datetime.fromtimestamp(run.created, UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "dataset": run.dataset_name,
                "edited": run.params.get("edited"),
                **{name: params.get(name) for name in _PARAM_NAMES},
                "splits": m.get("splits"),
                "tnt_test_accuracy": m.get("test_accuracy"),
                "cart_test_accuracy": c.get("test_accuracy"),
                "tnt_train_accuracy": m.get("train_accuracy"),
                "tnt_test_r2": m.get("test_r2"),
                "cart_test_r2": c.get("test_r2"),
                "tnt_test_rmse": m.get("test_rmse"),
                "fit_time": m.get("fit_time"),
                "test_size": run.source.get("test_size"),
                "split_seed": run.source.get("seed"),
                "data_hash": run.data_hash[:12],
            }
        )
    columns = ["run", "saved", "dataset", "edited", *_PARAM_NAMES, "splits", "tnt_test_accuracy", "cart_test_accuracy",
               "tnt_train_accuracy", "tnt_test_r2", "cart_test_r2", "tnt_test_rmse", "fit_time", "test_size", "split_seed", "data_hash"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)
