"""The Compare page's models: TnT, TnT fine-tuned, best-first CART, TAO and NDG at the same split
count, measured alike (the paper's Fig. 4 at one value of C). For a regression data set, the models
that exist for regression: TnT, TnT fine-tuned and best-first CART (TAO and NDG are classifiers).
Models already trained exactly so (the Train page's TnT and CART) are taken instead of fitted again.
Every model reads a data set's categorical features by name and splits them by subsets."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from tnt.baselines import TAOClassifier
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.ndg import NDGClassifier
from tnt.services.tasks import measure_decimals, model_classes
from tnt.services.training import categorical_features, metrics

__all__ = ["MODELS", "REGRESSION_MODELS", "compare_models", "comparison_frame"]

#: The compared models, in table order.
MODELS = ("TnT", "TnT fine-tuned", "CART (best-first)", "TAO", "NDG")
#: Those compared on a regression data set.
REGRESSION_MODELS = MODELS[:3]


def _timed_fit(name, model, X, y, fitted: dict):
    """``model`` fitted on ``(X, y)`` and the seconds it took; or, when ``fitted`` holds ``name``, the
    model given there with its time, after checking that it is ``model`` fitted (same class and
    parameters, fitted on as many features)."""
    if name not in fitted:
        start = time.perf_counter()
        model.fit(X, y)
        return model, time.perf_counter() - start
    given, seconds = fitted[name]
    if type(given) is not type(model):
        raise ValueError(
            f"fitted[{name!r}] is a {type(given).__name__}; compare_models fits {name} as a {type(model).__name__}."
        )
    theirs = given.get_params()
    differ = [f"{k}={theirs[k]!r} (not {v!r})" for k, v in model.get_params().items() if theirs[k] != v]
    if differ:
        raise ValueError(
            f"fitted[{name!r}] is not the model compare_models fits as {name} at these settings: its {', '.join(differ)}."
        )
    check_is_fitted(given)
    if given.n_features_in_ != X.shape[1]:
        raise ValueError(
            f"fitted[{name!r}] was fitted on {given.n_features_in_} features; the data set has {X.shape[1]}."
        )
    return given, float(seconds)


def _fine_tuned(timed, X, y, rounds):
    """A fitted row of the table, ``(model, seconds)``, fine-tuned for ``rounds`` rounds: TnT
    fine-tuned from TnT, TAO from CART, the same models as trained from scratch; the time counts the
    growing of the model it starts from."""
    model, seconds = timed
    start = time.perf_counter()
    return model.fine_tuned(X, y, rounds=rounds), seconds + time.perf_counter() - start


def compare_models(
    data,
    *,
    C=1e-3,
    N1=2,
    N2=5,
    seed=0,
    fine_tune=5,
    max_bins=MAX_EXACT_BINS,
    ccp_alpha="auto",
    fitted: dict | None = None,
) -> dict:
    """Fit the five models of :data:`MODELS` on ``data``'s training part.

    TnT is trained at ``C``; CART best-first and TAO get ``max_leaf_nodes`` = TnT's splits + 1,
    and TnT fine-tuned and TAO ``fine_tune`` rounds of alternating optimisation. NDG (the paper's
    Algorithm 1, at its C=3e-4) may make at most TnT's number of splits.

    Parameters
    ----------
    data : tnt.data.datasets.Dataset
    C, N1, N2 : TnT's hyperparameters.
    seed : int
    fine_tune : int, default=5
        Fine-tuning rounds (the paper uses 5).
    max_bins : int, default=65535
        TnT's and TnT fine-tuned's ``max_bins`` (the baselines always split exactly).
    ccp_alpha : float or str, default="auto"
        TnT's and TnT fine-tuned's ``ccp_alpha`` (as :class:`tnt.TnTClassifier`'s: "auto" the size
        a held-out part chooses, C its lower bound; 0.0 the graph C alone grows); the baselines get
        TnT's number of splits either way.
    fitted : dict, default=None
        ``{name: (fitted model, fit seconds)}``: models of the table already trained on ``data``'s
        training part exactly as this function trains them, used with their fit times instead of
        being fitted again; typically ``"TnT"`` and ``"CART (best-first)"`` of
        :func:`tnt.services.training.train` at these settings with ``fine_tune=0`` (its
        ``tnt``, ``cart`` and their metrics' ``fit_time``). Unless given too, TnT fine-tuned of a
        classification at ``ccp_alpha=0`` (or "auto" where it kept C) is still the TnT used, fine-tuned, its
        time that TnT's plus the fine-tuning (with a graph pruned, TnT fine-tuned is trained with
        ``fine_tune`` rounds).
        The results are those of a call without ``fitted`` but for the fit times.

    Returns
    -------
    results : dict
        ``{name: (fitted model, metrics dict)}`` in the order of :data:`MODELS` (of
        :data:`REGRESSION_MODELS` for a regression data set); the metrics are those of
        :func:`tnt.services.training.metrics`.

    Raises
    ------
    ValueError
        If ``fitted`` names a model not in the table, or holds a model that is not the one this
        function would fit under its name (another class or other parameters: a TnT trained with
        ``fine_tune`` rounds is not the TnT row), or one fitted on another number of features.

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> from tnt.services.compare import compare_models
    >>> results = compare_models(load_bundled("iris"), C=1e-2)
    >>> results["CART (best-first)"][1]["splits"] <= results["TnT"][1]["splits"]
    True

    The TnT and CART of the Train page's :func:`~tnt.services.training.train`, reused:

    >>> from tnt.services.training import TrainParams, train
    >>> trained = train(load_bundled("iris"), TrainParams(C=1e-2))
    >>> again = compare_models(
    ...     load_bundled("iris"),
    ...     C=1e-2,
    ...     fitted={
    ...         "TnT": (trained.tnt, trained.tnt_metrics["fit_time"]),
    ...         "CART (best-first)": (trained.cart, trained.cart_metrics["fit_time"]),
    ...     },
    ... )
    >>> again["TnT"][0] is trained.tnt, again["TnT"][1]["fit_time"] == trained.tnt_metrics["fit_time"]
    (True, True)
    """
    Xa, ya = data.model_input(data.X_train), data.y_train
    marked = categorical_features(data)
    names = REGRESSION_MODELS if data.is_regression else MODELS
    fitted = {} if fitted is None else dict(fitted)
    unknown = sorted(set(fitted) - set(names))
    if unknown:
        raise ValueError(f"fitted names models that are not compared here: {unknown}; the models are {list(names)}.")
    tnt_class, cart_class = model_classes(data.is_regression)
    settings = dict(C=C, N1=N1, N2=N2, random_state=seed, max_bins=max_bins, ccp_alpha=ccp_alpha, **marked)
    tnt = _timed_fit("TnT", tnt_class(**settings), Xa, ya, fitted)
    # A graph pruned after training (ccp_alpha) is not fine-tuned afterwards: training prunes after
    # fine-tuning, so TnT fine-tuned is trained with its rounds instead.
    if data.is_regression or tnt[0]._pruned_after_growth() or "TnT fine-tuned" in fitted:
        tuned = _timed_fit("TnT fine-tuned", tnt_class(**settings, fine_tune=fine_tune), Xa, ya, fitted)
    else:
        tuned = _fine_tuned(tnt, Xa, ya, fine_tune)
    splits = tnt[0].n_splits_
    cart = _timed_fit("CART (best-first)", cart_class.with_splits(splits, random_state=seed, **marked), Xa, ya, fitted)
    models = [tnt, tuned, cart]
    if not data.is_regression:
        tao = TAOClassifier.with_splits(splits, fine_tune=fine_tune, random_state=seed, **marked)
        models.append(
            _timed_fit("TAO", tao, Xa, ya, fitted) if "TAO" in fitted else _fine_tuned(cart, Xa, ya, fine_tune)
        )
        ndg = NDGClassifier.with_splits(splits, random_state=seed, **marked)
        models.append(_timed_fit("NDG", ndg, Xa, ya, fitted))
    return {name: (model, metrics(model, data, seconds)) for name, (model, seconds) in zip(names, models)}


def comparison_frame(results: dict) -> pd.DataFrame:
    """One row per model, one column per measure (accuracies and depths rounded for display, an RMSE
    to about four significant digits).

    Examples
    --------
    >>> from tnt.services.compare import comparison_frame
    >>> row = {"train_accuracy": 0.91234, "test_accuracy": 0.9, "splits": 3, "leaves": 4,
    ...        "shared_nodes": 0, "mean_depth": 2.456, "fit_time": 0.01}
    >>> float(comparison_frame({"CART": (None, row)}).loc["CART", "train_accuracy"])
    0.912
    """
    frame = pd.DataFrame({name: m for name, (_, m) in results.items()}).T
    frame.index.name = "model"
    for col in frame.columns:
        if col in ("splits", "leaves", "shared_nodes"):
            frame[col] = frame[col].astype(int)
        elif col.endswith("_rmse"):  # in the target's units: about 4 significant digits
            largest = float(frame[col].abs().max())
            digits = 3 - int(np.floor(np.log10(largest))) if largest > 0 else 3
            frame[col] = frame[col].astype(float).round(max(digits, 0))
        else:
            frame[col] = frame[col].astype(float).round(measure_decimals(col) or 3)
    return frame
