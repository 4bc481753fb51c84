"""Training as the app does it: TnT at the chosen C, N1, N2, and CART best-first with the same number of
splits beside it, each measured the same way (snake_case measures; display labels are the app's).
A regression data set (``data.task == "regression"``) trains :class:`tnt.TnTRegressor` and CART
for regression, measured by R² and RMSE instead of accuracy (:mod:`tnt.services.tasks`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from tnt.baselines import CARTClassifier
from tnt.data.datasets import Dataset
from tnt.estimator import TnTClassifier
from tnt.learn.binning import MAX_EXACT_BINS
from tnt.services.budget import BudgetResult, budget_size, fit_to_budget
from tnt.services.tasks import model_classes, scores

__all__ = [
    "SIZE_CHOICES",
    "TrainParams",
    "TrainResult",
    "categorical_features",
    "categorical_settings",
    "train",
    "train_to_budget",
    "metrics",
]


#: The app's choices of ``ccp_alpha``: the size a held-out 20 % of the training data chooses on one
#: CART, C its lower bound (the library's default, "auto"); the graph C alone grows (0.0, the paper's);
#: or the level a held-out part chooses on a graph grown on the rest ("held_out_regrown", slower).
SIZE_CHOICES = ("auto", 0.0, "held_out_regrown")


@dataclass(frozen=True)
class TrainParams:
    """The hyperparameters the app exposes (see :class:`tnt.TnTClassifier` and :class:`tnt.TnTRegressor`)."""

    C: float = 1e-3
    N1: int = 2
    N2: int = 5
    fine_tune: int = 0
    seed: int = 0
    max_bins: int = MAX_EXACT_BINS
    ccp_alpha: float | str = SIZE_CHOICES[0]  # one of SIZE_CHOICES
    #: Pooling of rare categories in the subset splits of categorical columns (1: none); see
    #: :data:`tnt.categorical.MIN_CATEGORY_SAMPLES_HELP`.
    min_category_samples: int = 1

    def tnt_params(self) -> dict:
        """These settings as parameters of :class:`tnt.TnTClassifier` (and :class:`tnt.TnTRegressor`).

        Examples
        --------
        >>> TrainParams(seed=3, ccp_alpha="held_out_regrown").tnt_params()["random_state"]
        3
        """
        return {
            "C": self.C,
            "N1": self.N1,
            "N2": self.N2,
            "fine_tune": self.fine_tune,
            "random_state": self.seed,
            "max_bins": self.max_bins,
            "ccp_alpha": self.ccp_alpha,
            "min_category_samples": self.min_category_samples,
        }

    def estimator(self, regression: bool = False) -> TnTClassifier:
        """The unfitted TnT classifier (or regressor) of these settings."""
        return model_classes(regression)[0](**self.tnt_params())


@dataclass(frozen=True, eq=False)
class TrainResult:
    """A trained TnT model, the CART tree with as many splits, and their measurements (classifiers, or
    regressors for a regression data set)."""

    dataset_key: str
    params: TrainParams
    tnt: TnTClassifier
    cart: CARTClassifier
    tnt_metrics: dict
    cart_metrics: dict

    @property
    def key(self) -> tuple:
        return (self.dataset_key, self.params)


def metrics(model, data: Dataset, fit_time: float) -> dict:
    """Accuracy (R² and RMSE for a regressor), size and decision depth of a fitted graph model on a data set.

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> result = train(load_bundled("california_housing"), TrainParams(C=1e-2))
    >>> list(result.tnt_metrics)[:4]
    ['train_r2', 'test_r2', 'train_rmse', 'test_rmse']
    """
    X_train, X_test = data.model_input(data.X_train, model), data.model_input(data.X_test, model)
    train_scores = scores(model, X_train, data.y_train, "train")
    test_scores = scores(model, X_test, data.y_test, "test")
    ordered = [pair for both in zip(train_scores.items(), test_scores.items()) for pair in both]
    return {
        **dict(ordered),
        "splits": int(model.n_splits_),
        "leaves": int(model.n_leaves_),
        "shared_nodes": int(model.n_shared_nodes_),
        "mean_depth": float(np.mean(model.decision_depth(X_test))),
        "fit_time": float(fit_time),
    }


def categorical_features(data: Dataset) -> dict:
    """``categorical_features`` of the learners for ``data``, by name (nothing without any): what
    every model fitted on :meth:`Dataset.model_input` is given, so that its parameters say it."""
    return {"categorical_features": list(data.categorical)} if data.categorical else {}


def categorical_settings(data: Dataset, params: TrainParams) -> dict:
    """:func:`categorical_features` and, with categorical features, ``params``' pooling of rare
    categories (``min_category_samples``): what the CART baseline beside TnT is given."""
    marked = categorical_features(data)
    return {**marked, "min_category_samples": params.min_category_samples} if marked else {}


def train(data: Dataset, params: TrainParams, progress_callback=None) -> TrainResult:
    """Fit TnT with ``params`` on the training part, then CART with ``max_leaf_nodes = splits + 1``.

    ``progress_callback`` receives every :class:`tnt.GrowthEvent` of the TnT fit. Both read the
    data's categorical features by name (:meth:`tnt.data.datasets.Dataset.model_input`), so both
    split them by subsets of categories.

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> result = train(load_bundled("iris"), TrainParams(C=1e-2))
    >>> result.cart.n_splits_ <= result.tnt.n_splits_
    True
    """
    X_train, marked = data.model_input(data.X_train), categorical_features(data)
    start = time.perf_counter()
    tnt = params.estimator(data.is_regression).set_params(**marked)
    tnt.fit(X_train, data.y_train, progress_callback=progress_callback)
    tnt_time = time.perf_counter() - start
    start = time.perf_counter()
    cart = model_classes(data.is_regression)[1].with_splits(
        tnt.n_splits_, random_state=params.seed, **categorical_settings(data, params)
    )
    cart.fit(X_train, data.y_train)
    cart_time = time.perf_counter() - start
    return TrainResult(
        dataset_key=data.key,
        params=params,
        tnt=tnt,
        cart=cart,
        tnt_metrics=metrics(tnt, data, tnt_time),
        cart_metrics=metrics(cart, data, cart_time),
    )


def train_to_budget(
    data: Dataset, max_splits: int, params: TrainParams, fitted: dict | None = None, on_fit=None
) -> tuple[TrainResult, BudgetResult]:
    """The TnT with the most splits not above ``max_splits`` (:func:`tnt.services.budget.fit_to_budget`,
    starting from ``params.C``, with ``params``' other settings), and CART with as many splits.

    ``fitted`` (``{C: TnTClassifier}`` of earlier fits with the same data and other settings) is
    reused and filled. The result's ``params`` carry the C found and the size rule searched with
    (:func:`tnt.services.budget.budget_size`: the default held-out choice becomes C alone, as the
    budget sets the size); its fit time is the time of that C's fit (NaN when the fit was reused).

    Examples
    --------
    >>> from tnt.data.datasets import load_bundled
    >>> result, found = train_to_budget(load_bundled("iris"), 4, TrainParams(C=1e-2))
    >>> result.tnt_metrics["splits"] <= 4, result.params.C == found.C
    (True, True)
    """
    others = {name: value for name, value in params.tnt_params().items() if name != "C"}
    others["ccp_alpha"] = budget_size(params.ccp_alpha)
    others.update(categorical_features(data))  # the CART baseline reads them from the pandas categories
    found = fit_to_budget(
        data.model_input(data.X_train),
        data.y_train,
        max_splits,
        C_start=params.C,
        fitted=fitted,
        on_fit=on_fit,
        regression=data.is_regression,
        **others,
    )
    result = TrainResult(
        dataset_key=data.key,
        params=replace(params, C=found.C, ccp_alpha=found.size_rule),
        tnt=found.model,
        cart=found.cart,
        tnt_metrics=metrics(found.model, data, found.fit_times.get(found.C, float("nan"))),
        cart_metrics=metrics(found.cart, data, found.cart_time),
    )
    return result, found
