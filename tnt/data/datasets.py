"""Data sets for the app: the bundled catalog, the checks a table goes through before training,
and the seeded, stratified train/test split.

Every problem a user can cause raises :class:`DataError` with one plain sentence that says what is
wrong and what to do; the app shows that sentence as it is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from tnt._messages import shown
from tnt.categorical import MAX_CATEGORIES

__all__ = [
    "DataError",
    "Dataset",
    "catalog",
    "default_dataset_id",
    "load_bundled",
    "make_dataset",
    "missing_per_column",
    "prepare_table",
    "split",
    "target_task",
    "SAMPLE_DATA",
    "TASKS",
]

SAMPLE_DATA = Path(__file__).resolve().parent / "bundled"
#: Most values a coded feature may have: a text column (categorical or coded as numbers) or a numeric
#: column marked categorical (the learners' limit, :data:`tnt.categorical.MAX_CATEGORIES`).
MAX_TEXT_CATEGORIES = MAX_CATEGORIES
CONTINUOUS_TARGET_VALUES = 50  # a numeric target with more distinct values looks continuous
TASKS = ("auto", "classification", "regression")  # what a target can be used for ("auto": target_task decides)


class DataError(ValueError):
    """A problem with the user's data, described in one sentence that says what to do."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set split into a training and a test part, for classification or regression.

    ``key`` identifies the data and every choice made on it (columns, split, task), so models
    trained on it can be cached by key. ``y_*`` hold the original labels (the numeric targets of a
    regression); ``classes`` is their sorted set, the column order of every model trained on the
    data (empty for a regression). ``task`` is ``"classification"`` or ``"regression"``.
    ``categories`` maps each coded feature (a text column, or a column marked categorical) to its
    categories: code ``i`` of the feature stands for ``categories[name][i]``, and ``X_*`` hold the
    codes. ``categorical`` names the features the learners split by subsets of categories
    (``categorical_features``); a text feature not among them is coded as numbers in alphabetical
    order and split by thresholds. Models read categorical features by name:
    :meth:`model_input` gives them ``X_*`` that way.
    """

    key: str
    name: str
    description: str
    feature_names: tuple[str, ...]
    target_name: str
    classes: np.ndarray
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    notes: tuple[str, ...] = field(default=())
    task: str = "classification"
    categories: dict[str, tuple] = field(default_factory=dict)
    categorical: tuple[str, ...] = field(default=())

    @property
    def is_regression(self) -> bool:
        return self.task == "regression"

    @property
    def class_names(self) -> list[str]:
        return [str(c) for c in self.classes]

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def class_balance(self) -> pd.DataFrame:
        """Samples of each class in the training and the test part (one row per class)."""
        counts = {
            part: pd.Series(y).value_counts().reindex(self.classes, fill_value=0).to_numpy()
            for part, y in (("train", self.y_train), ("test", self.y_test))
        }
        return pd.DataFrame(counts, index=pd.Index(self.class_names, name=self.target_name))

    def target_histogram(self, bins: int = 20) -> pd.DataFrame:
        """Samples of a regression target in ``bins`` equal-width bins, training and test part (one
        row per bin, indexed by the bin's lower edge, so that a chart keeps the bins in order).

        Examples
        --------
        >>> data = load_bundled("california_housing", test_size=0.3, seed=0)
        >>> hist = data.target_histogram(bins=4)
        >>> hist.shape, int(hist.to_numpy().sum()) == len(data.y_train) + len(data.y_test)
        ((4, 2), True)
        """
        edges = np.histogram_bin_edges(np.concatenate([self.y_train, self.y_test]), bins=bins)
        counts = {part: np.histogram(y, bins=edges)[0] for part, y in (("train", self.y_train), ("test", self.y_test))}
        return pd.DataFrame(counts, index=pd.Index(edges[:-1], name=f"{self.target_name} (bin from)"))

    def missing_counts(self) -> pd.DataFrame:
        """Missing values (NaN) of each feature that has any, in the training and the test part
        (one row per feature, most missing first; no rows when nothing is missing).

        Examples
        --------
        >>> frame = pd.DataFrame({"a": [1.0, None, 3.0, 4.0] * 3, "b": range(12), "y": ["u", "v"] * 6})
        >>> counts = make_dataset(frame, target="y", features=["a", "b"], name="t", test_size=0.5).missing_counts()
        >>> counts.index.tolist(), counts.loc["a"].tolist()
        (['a'], [1.0, 2.0, 0.25])
        """
        counts = pd.DataFrame(
            {"train": np.isnan(self.X_train).sum(axis=0), "test": np.isnan(self.X_test).sum(axis=0)},
            index=pd.Index(list(self.feature_names), name="feature"),
        )
        counts["share"] = (counts["train"] + counts["test"]) / max(len(self.y_train) + len(self.y_test), 1)
        counts = counts[(counts["train"] + counts["test"]) > 0]
        return counts.sort_values("share", ascending=False, kind="stable")

    def model_input(self, X, model=None):
        """Rows of ``X_train`` or ``X_test`` (codes) as a model of this data reads them: a table whose
        categorical features hold their categories by name (pandas categories, in this data's
        order, so that a model fitted on it codes them as the data does); ``X`` itself when no
        feature is categorical, unless ``model``, the model the rows are for, was fitted with
        feature names (``feature_names_in_``: a model file that names its columns, a model fitted
        on a table): a table with those names then, as scikit-learn wants (it warns otherwise).

        Examples
        --------
        >>> frame = pd.DataFrame({"colour": ["red", "blue", None, "red"] * 3, "y": ["u", "v"] * 6})
        >>> data = make_dataset(frame, target="y", features=["colour"], name="t", test_size=0.5)
        >>> data.categorical, data.categories["colour"]
        (('colour',), ('blue', 'red'))
        >>> data.model_input(np.array([[1.0], [np.nan], [0.0]]))["colour"].tolist()
        ['red', nan, 'blue']
        """
        if not self.categorical:
            names = getattr(model, "feature_names_in_", None)
            if names is None:
                return X
            return pd.DataFrame(np.asarray(X).reshape(-1, len(names)), columns=list(names))
        X = np.asarray(X, dtype=np.float64).reshape(-1, self.n_features)
        columns = {}
        for f, name in enumerate(self.feature_names):
            if name in self.categorical:
                codes = np.where(np.isnan(X[:, f]), -1, X[:, f]).astype(np.int64)
                columns[name] = pd.Categorical.from_codes(codes, categories=list(self.categories[name]))
            else:
                columns[name] = X[:, f]
        return pd.DataFrame(columns)

    def test_frame(self) -> pd.DataFrame:
        """The test samples as a table, with their class, for display (coded features by name)."""
        df = pd.DataFrame(self.X_test, columns=list(self.feature_names))
        for name, categories in self.categories.items():
            codes = df[name].to_numpy()
            names = np.asarray(categories, dtype=object)
            df[name] = np.where(np.isnan(codes), np.nan, names[np.nan_to_num(codes).astype(np.int64)])  # as read
        df[self.target_name] = self.y_test
        return df


# ---------------------------------------------------------------------------------------------- catalog
@lru_cache(maxsize=1)
def _catalog_file() -> dict:
    return json.loads((SAMPLE_DATA / "catalog.json").read_text(encoding="utf-8"))


def catalog() -> list[dict]:
    """The bundled data sets: dicts with ``id``, ``name``, ``file``, ``target``, ``description``,
    ``source`` and optionally ``split_column`` (a column of ``train``/``test`` giving a fixed split)
    and ``task`` (``"regression"``; classification when absent)."""
    return [dict(entry) for entry in _catalog_file()["datasets"]]


def default_dataset_id() -> str:
    """The data set the app loads when nothing else is chosen."""
    return _catalog_file()["default"]


def _entry(dataset_id: str) -> dict:
    for entry in catalog():
        if entry["id"] == dataset_id:
            return entry
    known = ", ".join(e["id"] for e in catalog())
    raise KeyError(f"Unknown data set {dataset_id!r}; the bundled ones are {known}.")


def load_bundled(dataset_id: str, *, test_size: float = 0.3, seed: int = 0) -> Dataset:
    """Load a bundled data set and split it (data sets with a ``split_column`` keep their own split).

    Examples
    --------
    >>> ds = load_bundled("iris", test_size=0.2, seed=0)
    >>> len(ds.y_train), len(ds.y_test), ds.class_names
    (120, 30, ['setosa', 'versicolor', 'virginica'])
    """
    entry = _entry(dataset_id)
    frame = pd.read_csv(SAMPLE_DATA / entry["file"])
    split_column = entry.get("split_column")
    features = [c for c in frame.columns if c not in (entry["target"], split_column)]
    return make_dataset(
        frame,
        target=entry["target"],
        features=features,
        name=entry["name"],
        description=entry["description"],
        test_size=test_size,
        seed=seed,
        split_column=split_column,
        reject_constant=False,  # e.g. the digits' border pixels are always 0: keep the 8x8 grid
        source_key=f"bundled:{dataset_id}",
        task=entry.get("task", "classification"),
    )


def load_paper_set(name: str, *, seed: int = 0) -> Dataset:
    """One of the paper's six data sets (``mnist``, ...), found where :func:`tnt.data.external.find_data`
    looks, with its own train / test split (or the paper's split, seeded by ``seed``, for a set that has
    none: :func:`tnt.experiments.paper.load_paper_data`); the features are named ``x0``, ``x1``, ...
    and columns of one value are kept (MNIST's border pixels: a model trained on the arrays reads them).

    Raises
    ------
    tnt.data.external.MissingDataError
        When the set is not on this machine; its one sentence says how to get it.
    """
    from tnt.experiments.paper import PAPER_DATASETS, TEST_SHARE, load_paper_data

    if name not in PAPER_DATASETS:
        raise DataError(f"No data set of the paper is called {name!r}; choose from {', '.join(PAPER_DATASETS)}.")
    X_train, y_train, X_test, y_test = load_paper_data(name, seed=seed)
    columns = [f"x{i}" for i in range(X_train.shape[1])]
    frame = pd.DataFrame(np.vstack([X_train, X_test]), columns=columns)
    frame["label"] = np.concatenate([y_train, y_test])
    frame["split"] = np.repeat(["train", "test"], [len(y_train), len(y_test)])
    return make_dataset(
        frame,
        target="label",
        features=columns,
        name=f"{name} (the paper's data set)",
        description=f"{len(y_train):,} training and {len(y_test):,} test rows of {name}, as the paper splits them.",
        test_size=TEST_SHARE,
        seed=seed,
        split_column="split",
        reject_constant=False,
        source_key=f"paper:{name}:{seed}",
        task="classification",
    )


# ---------------------------------------------------------------------------------------------- checks
def make_dataset(
    frame: pd.DataFrame,
    *,
    target: str,
    features,
    name: str,
    description: str = "",
    test_size: float = 0.3,
    seed: int = 0,
    split_column: str | None = None,
    drop_missing: bool = False,
    reject_constant: bool = True,
    source_key: str | None = None,
    task: str = "auto",
    categorical=None,
) -> Dataset:
    """Check a table, encode its text features and split it: the one path every data set takes.

    Parameters
    ----------
    frame : DataFrame
        The table, one row per sample.
    target : str
        Column holding the class labels (the numeric target of a regression).
    features : sequence of str
        Columns to learn from.
    name, description : str
        Shown in the app.
    test_size : float
        Share of rows held out for testing (seeded by ``seed``; stratified by class for a
        classification).
    split_column : str, optional
        A column of ``train``/``test`` giving a fixed split instead of a random one.
    drop_missing : bool
        Drop rows with a missing value in the chosen columns instead of refusing the table.
    reject_constant : bool
        Refuse feature columns holding a single value.
    source_key : str, optional
        Identifies the source (file hash, bundled id) in :attr:`Dataset.key`.
    task : {"auto", "classification", "regression"}, default="auto"
        What the target is for: ``"auto"`` follows :func:`target_task` (regression for a numeric
        column with many distinct values); either of the others overrides it, so that a numeric
        column of few values can be a regression target, and one of many values class labels.
    categorical : sequence of str, optional
        The features split by subsets of their categories (:attr:`Dataset.categorical`): text
        columns, or numeric columns of at most ``MAX_TEXT_CATEGORIES`` values. ``None`` (the
        default) marks every text feature; a text feature left out is coded as numbers in
        alphabetical order.

    Raises
    ------
    DataError
        With one sentence saying what is wrong and what to do.
    """
    features = [str(f) for f in features]
    _check_columns(frame, target, features)
    if categorical is None:
        categorical = [f for f in features if is_text_column(frame[f])]
    categorical = [str(f) for f in categorical if str(f) in features]
    if task not in TASKS:
        raise DataError(f"The task must be one of {', '.join(TASKS)}, got '{shown(str(task))}'.")
    resolved = target_task(frame[target]) if task == "auto" else task
    columns = [*features, target] + ([split_column] if split_column else [])
    X, y, notes, kept = prepare_table(
        frame[columns],
        target=target,
        features=features,
        drop_missing=drop_missing,
        reject_constant=reject_constant,
        task=resolved,
        check_continuous=task == "auto",  # a classification chosen by the user takes any column
        categorical=categorical,
    )
    frame = frame.loc[kept, columns]
    if split_column:
        is_test = frame[split_column].astype(str).str.strip().str.lower().eq("test").to_numpy()
        X_train, X_test, y_train, y_test = X[~is_test], X[is_test], y[~is_test], y[is_test]
        notes.append(
            f"The data keeps its own train/test split (column '{shown(split_column)}'); the test share does not apply."
        )
    else:
        X_train, X_test, y_train, y_test = split(
            X, y, test_size=test_size, seed=seed, stratify=resolved != "regression"
        )
    classes = np.unique(y) if resolved != "regression" else np.array([])
    key_parts = [source_key or _frame_hash(frame), target, features, test_size, seed, split_column, drop_missing]
    if resolved == "regression":  # keys of classification data sets stay those saved before regression came
        key_parts.append(resolved)
    if categorical:  # and those of data sets without categorical features those saved before they came
        key_parts.append(["categorical", categorical])
    key = hashlib.sha256(json.dumps(key_parts, default=str).encode()).hexdigest()[:16]
    return Dataset(
        key=key,
        name=name,
        description=description,
        feature_names=tuple(features),
        target_name=str(target),
        classes=classes,
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        notes=tuple(notes),
        task=resolved,
        categories={f: tuple(column_categories(frame[f])) for f in features if is_coded(frame[f], f in categorical)},
        categorical=tuple(categorical),
    )


def prepare_table(
    frame: pd.DataFrame,
    *,
    target: str | None,
    features,
    drop_missing: bool = False,
    reject_constant: bool = True,
    encode_text: bool = True,
    task: str = "classification",
    check_continuous: bool = True,
    categorical=(),
) -> tuple[np.ndarray, np.ndarray | None, list[str], pd.Index]:
    """The checks every table goes through before training or prediction, in the app and the CLI.

    In order: rows without a target (dropped), missing feature values (kept as NaN, or their rows
    dropped on request), the class column (at least two classes, not continuous), then each
    feature: infinite values, text (encoded as categories or refused; an empty cell is missing, not
    a category), constant or empty columns. The columns must exist (the caller says how to pick them).

    Parameters
    ----------
    frame : DataFrame
        The table; only the ``features`` and ``target`` columns are looked at.
    target : str or None
        Column of class labels; ``None`` for features only (prediction).
    features : sequence of str
    drop_missing : bool, default=False
        Drop rows with a missing feature value instead of keeping them with NaN.
    reject_constant : bool, default=True
        Refuse feature columns holding a single value (or no value at all).
    encode_text : bool, default=True
        Encode a text feature (up to ``MAX_TEXT_CATEGORIES`` values) as the codes of its categories
        in alphabetical order, with a note; when ``False`` text is refused.
    task : {"classification", "regression", "auto"}, default="classification"
        What the target is for: class labels (a continuous-looking column is refused), numeric
        targets of a regression (returned as float64), or whichever :func:`target_task` says.
    check_continuous : bool, default=True
        Refuse class labels that look continuous (:func:`target_task`); False when the user chose
        classification for that column.
    categorical : sequence of str, default=()
        Features coded as categories (:func:`column_categories`) and said to be categorical in the
        notes: text columns, or numeric columns of at most ``MAX_TEXT_CATEGORIES`` values.

    Returns
    -------
    X : ndarray of float64, shape (n_rows, n_features)
    y : ndarray of shape (n_rows,) or None
        Numeric labels as they are, any other labels as strings.
    notes : list of str
        What was done to the data (dropped rows, encoded columns), for the user.
    rows : pandas.Index
        The labels of the rows of ``frame`` that were kept.

    Raises
    ------
    DataError
        With one sentence saying what is wrong and what to do.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1.0, None, 3.0, 4.0], "y": ["u", "v", "u", "v"]})
    >>> X, y, notes, rows = prepare_table(frame, target="y", features=["a"], drop_missing=True)
    >>> X.ravel().tolist(), y.tolist(), notes
    ([1.0, 3.0, 4.0], ['u', 'u', 'v'], ['Dropped 1 rows with missing values.'])
    >>> X, y, notes, rows = prepare_table(frame, target="y", features=["a"])
    >>> X.ravel().tolist(), notes
    ([1.0, nan, 3.0, 4.0], ['1 feature values are missing, in 1 of the columns; they are kept as missing values, not filled in.'])
    """
    features = [str(f) for f in features]
    frame = frame[features + ([target] if target is not None else [])]
    notes = []
    if target is not None and frame[target].isna().any():
        no_target = frame[target].isna()
        if no_target.all():
            raise DataError(f"The column '{shown(target)}' is empty in every row; pick the column to predict.")
        frame = frame[~no_target]
        notes.append(
            f"Dropped {int(no_target.sum()):,} rows whose '{shown(target)}' is missing (nothing to learn or test)."
        )
    missing = frame[features].isna()
    if drop_missing and missing.to_numpy().any():
        rows = missing.any(axis=1)
        frame = frame[~rows]
        notes.append(f"Dropped {int(rows.sum())} rows with missing values.")
        if frame.empty:
            raise DataError("Every row has a missing value; keep them, or choose other columns.")
    elif missing.to_numpy().any():
        counts = missing.sum()
        notes.append(
            f"{int(counts.sum()):,} feature values are missing, in {int((counts > 0).sum())} of the columns; "
            "they are kept as missing values, not filled in."
        )
    if target is None:
        y = None
    elif task == "regression" or (task == "auto" and target_task(frame[target]) == "regression"):
        y = _check_regression_target(frame[target], target)
    else:
        y = _check_target(frame[target], target, check_continuous)
    X, encoded = _feature_matrix(frame[features], reject_constant, encode_text, set(map(str, categorical)))
    return X, y, notes + encoded, frame.index


def _check_columns(frame: pd.DataFrame, target: str, features: list[str]) -> None:
    if target not in frame.columns:
        raise DataError(f"There is no column named '{shown(target)}'; pick the class column from the list.")
    if not features:
        raise DataError("No feature columns are chosen; tick at least one column to learn from.")
    unknown = [f for f in features if f not in frame.columns]
    if unknown:
        raise DataError(f"There is no column named '{shown(unknown[0])}'; pick feature columns from the list.")
    if target in features:
        raise DataError(
            f"Column '{shown(target)}' is the class and cannot also be a feature; untick it in the features."
        )


def target_task(column) -> str:
    """``"regression"`` for a numeric target that looks continuous (more than
    ``CONTINUOUS_TARGET_VALUES`` distinct numbers, or more than 10 that are not all whole),
    ``"classification"`` otherwise.

    Examples
    --------
    >>> target_task(pd.Series([0.5, 1.25, 2.0] * 5)), target_task(pd.Series(range(100)) / 7)
    ('classification', 'regression')
    """
    column = pd.Series(column)
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return "classification"
    values = column.dropna().to_numpy(dtype=float)
    distinct = np.unique(values).size
    non_integer = bool(np.any(values % 1 != 0))
    continuous = distinct > CONTINUOUS_TARGET_VALUES or (non_integer and distinct > 10)
    return "regression" if continuous else "classification"


def _check_target(column: pd.Series, target: str, check_continuous: bool = True) -> np.ndarray:
    values = column.to_numpy()
    distinct = pd.unique(column)
    if len(distinct) < 2:
        raise DataError(
            f"The class column '{shown(target)}' has only one value ('{shown(_plain(distinct[0]))}'); a classifier needs at "
            "least two classes, so pick another class column."
        )
    if check_continuous and target_task(column) == "regression":
        raise DataError(
            f"The class column '{shown(target)}' has {len(distinct)} different numbers, so it looks "
            "continuous; pick a column of class labels, or train a regression (the task 'regression' in the "
            "app, --task regression for tnt train)."
        )
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return values
    return column.astype(str).to_numpy()


def _check_regression_target(column: pd.Series, target: str) -> np.ndarray:
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        raise DataError(f"The target column '{target}' holds text, not numbers; a regression needs a numeric target.")
    values = column.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise DataError(f"The target column '{target}' has infinite values; a regression needs finite numbers.")
    if np.unique(values).size < 2:
        raise DataError(f"The target column '{target}' holds one value only; there is nothing to predict.")
    return values


def missing_per_column(frame: pd.DataFrame) -> pd.DataFrame:
    """Missing (empty) cells of each column of a table that has any: their number and share of the
    rows, most missing first; no rows when the table is full.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": [1.0, None, 3.0, None], "b": ["x", "y", None, "z"], "c": [1, 2, 3, 4]})
    >>> missing_per_column(frame).to_dict("index")
    {'a': {'missing': 2, 'share': 0.5}, 'b': {'missing': 1, 'share': 0.25}}
    """
    counts = frame.isna().sum()
    table = pd.DataFrame(
        {"missing": counts.astype(int).tolist(), "share": (counts / max(len(frame), 1)).tolist()},
        index=pd.Index([str(c) for c in frame.columns], name="column"),
    )
    return table[table["missing"] > 0].sort_values("missing", ascending=False, kind="stable")


def is_text_column(column: pd.Series) -> bool:
    """Whether a feature column is text, which a data set encodes as category codes.

    Examples
    --------
    >>> is_text_column(pd.Series(["red", "blue"])), is_text_column(pd.Series([True, False]))
    (True, False)
    """
    return not (pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column))


def text_categories(column: pd.Series) -> np.ndarray:
    """The categories of a text feature in code order: code ``i`` stands for the ``i``-th.

    Examples
    --------
    >>> text_categories(pd.Series(["red", "blue", "red", None])).tolist()  # an empty cell is missing
    ['blue', 'red']
    """
    return np.sort(column.dropna().astype(str).unique())


def is_coded(column: pd.Series, categorical: bool) -> bool:
    """Whether a feature column is held as the codes of its categories: a text column, or any
    column marked ``categorical``."""
    return categorical or is_text_column(column)


def column_categories(column: pd.Series) -> np.ndarray:
    """The categories of a coded feature in code order: a text column's values as text, sorted; a
    numeric column's distinct numbers, increasing (whole numbers as integers).

    Examples
    --------
    >>> column_categories(pd.Series([8, 4, None, 6, 4])).tolist()
    [4, 6, 8]
    """
    if is_text_column(column):
        return text_categories(column)
    values = np.unique(column.dropna().to_numpy(dtype=np.float64))
    if values.size and np.all(values == np.floor(values)) and np.all(np.abs(values) < 2**53):
        return np.asarray([int(v) for v in values], dtype=object)
    return values.astype(object)


def _feature_matrix(
    features: pd.DataFrame, reject_constant: bool, encode_text: bool, categorical: set = frozenset()
) -> tuple[np.ndarray, list[str]]:
    notes, columns = [], []
    for name in features.columns:
        column = features[name]
        if pd.api.types.is_bool_dtype(column):
            column = column.astype(int)
        if name in categorical:
            values = _category_codes(column, name)
        elif not is_text_column(column):
            values = column.to_numpy(dtype=np.float64)
            if np.isinf(values).any():
                raise DataError(
                    f"Column '{shown(name)}' has infinite values; replace them with finite numbers or leave the column out."
                )
        else:
            present = column.notna().to_numpy()
            text = column.astype(str)
            if not encode_text:
                raise DataError(
                    f"Column '{shown(name)}' holds text (such as '{shown(text[present].iloc[0])}') where numbers are "
                    f"expected; to learn from its values by name, train with --categorical '{shown(name)}', else "
                    "convert the column to numbers or leave it out."
                )
            values = _category_codes(column, name)
            categories = text_categories(column)
            listed = ", ".join(f"{shown(c, 20)}={i}" for i, c in enumerate(categories[:5]))
            more = ", ..." if len(categories) > 5 else ""
            notes.append(
                f"Column '{shown(name)}' holds text; it is encoded as numbers in alphabetical order ({listed}{more})."
            )
        if reject_constant and np.isnan(values).all():
            raise DataError(f"Column '{shown(name)}' is empty (every value is missing); leave it out of the features.")
        if reject_constant and np.unique(values).size == 1:
            raise DataError(
                f"Column '{shown(name)}' has the same value in every row, so it cannot help; leave it out of the features."
            )
        columns.append(values)
    marked = [name for name in features.columns if name in categorical]
    if marked:
        listed = ", ".join(f"'{shown(name, 30)}'" for name in marked[:5]) + (", ..." if len(marked) > 5 else "")
        notes.append(
            f"{'Columns' if len(marked) > 1 else 'Column'} {listed} {'are' if len(marked) > 1 else 'is'} "
            "categorical: a split sends a subset of the categories one way."
        )
    return np.column_stack(columns), notes


def can_be_categorical(column: pd.Series) -> bool:
    """Whether a column can be a categorical feature: text, or whole numbers 0 or more (codes, counts),
    of at most ``MAX_TEXT_CATEGORIES`` distinct values either way.

    Examples
    --------
    >>> [can_be_categorical(pd.Series(v)) for v in (["red", None], [2, 4, None], [0.5, 1.0], [-1, 1])]
    [True, True, False, False]
    """
    if column.nunique() > MAX_TEXT_CATEGORIES:
        return False
    if is_text_column(column):
        return True
    values = column.dropna().to_numpy(dtype=np.float64)
    return bool(np.all(values == np.floor(values)) and np.all(values >= 0))


def check_categorical_numbers(column: pd.Series, name: str) -> None:
    """Refuse, in one sentence, a numeric column marked categorical whose values are not whole numbers
    0 or more (a model file keeps categories as text or integer codes)."""
    if is_text_column(column):
        return
    values = column.dropna().to_numpy(dtype=np.float64)
    if np.any(values != np.floor(values)) or np.any(values < 0):
        raise DataError(
            f"Column '{shown(name)}' holds numbers that are not whole numbers 0 or more, so it cannot be "
            "categorical; only text and integer codes can, so treat it as numeric."
        )


def _category_codes(column: pd.Series, name: str) -> np.ndarray:
    """A coded feature's codes (:func:`column_categories`), NaN where a value is missing; more than
    ``MAX_TEXT_CATEGORIES`` categories, or numbers that are no codes, are refused in one sentence."""
    check_categorical_numbers(column, name)
    categories = column_categories(column)
    if len(categories) > MAX_TEXT_CATEGORIES:
        kind = "text" if is_text_column(column) else "numbers"
        raise DataError(
            f"Column '{shown(name)}' holds {kind} with {len(categories):,} different values, more than the "
            f"{MAX_TEXT_CATEGORIES} categories a feature may have; leave it out"
            + (", or convert it to numbers." if kind == "text" else ", or treat it as numeric.")
        )
    present = column.notna().to_numpy()
    keys = column.astype(str) if is_text_column(column) else column.astype(np.float64)
    lookup = np.asarray(categories.tolist(), dtype=str if is_text_column(column) else np.float64)
    codes = np.searchsorted(lookup, keys.where(present, lookup[0] if lookup.size else 0).to_numpy())
    return np.where(present, codes, np.nan)


def split(X, y, *, test_size: float, seed: int, stratify: bool = True):
    """Seeded train/test split, stratified by class (``stratify``, for a classification), with a
    plain message when the classes or the rows are too few.

    Returns
    -------
    X_train, X_test, y_train, y_test
    """
    if not 0.0 < test_size < 1.0:
        raise DataError(f"The test share must be between 0 and 1, got {test_size}.")
    if not stratify:
        n_test = int(np.ceil(test_size * len(y)))
        if n_test < 1 or len(y) - n_test < 2:
            raise DataError(f"With {len(y)} rows a test share of {test_size:.0%} leaves a part too small; add rows.")
        return train_test_split(X, y, test_size=test_size, random_state=seed)
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        small = classes[np.argmin(counts)]
        raise DataError(
            f"Class '{shown(_plain(small))}' has only one row; a stratified split needs at least two rows of every "
            "class, so add rows or remove that class."
        )
    n = len(y)
    n_test = int(np.ceil(test_size * n))
    if n_test < len(classes) or n - n_test < len(classes):
        raise DataError(
            f"With {n} rows and {len(classes)} classes a test share of {test_size:.0%} leaves a part "
            "without every class; move the test share towards 30% or add rows."
        )
    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)


def _plain(value):
    """A numpy scalar as the Python value it holds (so that a message shows ``0``, not ``np.int64(0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _frame_hash(frame: pd.DataFrame) -> str:
    return hashlib.sha256(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()).hexdigest()[:16]
