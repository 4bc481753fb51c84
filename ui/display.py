"""How the app shows the library's results: display labels for snake_case measures, the C grid of
its sliders and C's labels, and the tables of the Train page. The library's tables carry snake_case
keys; this module is the one place they get words."""

from __future__ import annotations

import math
import numbers

import pandas as pd

from tnt.learn.binning import MAX_EXACT_BINS
from tnt.learn.refit_choice import chooses_refit_rule
from tnt.services.tasks import headline_measure, measure_decimals
from tnt.services.training import SIZE_CHOICES, TrainResult
from tnt.wording import format_value

__all__ = [
    "BIN_CHOICES",
    "C_GRID",
    "LABELS",
    "comparison_table",
    "counted",
    "format_bins",
    "format_C",
    "format_count",
    "format_size",
    "format_measure",
    "headline",
    "history_table",
    "labelled",
    "nearest_C",
    "size_note",
    "size_suffix",
    "run_label",
    "saved_runs_columns",
    "saved_runs_table",
    "shared_table",
    "table_height",
    "versus_cart",
]

#: C on a log scale, 1-2-5 steps from 1e-5 to 1e-1.
C_GRID = tuple(float(f"{m}e{e}") for e in range(-5, -1) for m in (1, 2, 5)) + (1e-1,)

#: Display label of each measure the library reports.
LABELS = {
    "train_accuracy": "train accuracy",
    "test_accuracy": "test accuracy",
    "train_r2": "train R²",
    "test_r2": "test R²",
    "train_rmse": "train RMSE",
    "test_rmse": "test RMSE",
    "splits": "splits",
    "leaves": "leaves",
    "shared_nodes": "nodes with several parents",
    "mean_depth": "mean decision depth (test)",
    "fit_time": "fit time (s)",
    "total_splits": "total splits",
    "mean_splits": "mean splits",
    "samples_from_other_parents": "samples from other parents",
    "paths": "paths to it (its copies in the tree)",
    "splits_below": "splits of the tree below it",
    "splits_saved": "splits its sharing saves",
}


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its snake_case columns shown as words.

    Examples
    --------
    >>> labelled(pd.DataFrame({"test_accuracy": [0.9], "seed": [0]})).columns.tolist()
    ['test accuracy', 'seed']
    """
    return frame.rename(columns=lambda c: LABELS.get(c, c))


def format_measure(name: str, value) -> str:
    """A measure as the app writes it: accuracies and R² to 3 decimals, an RMSE (in the target's
    units) as :func:`tnt.wording.format_value` writes target values, depths and times to 2 decimals.

    Examples
    --------
    >>> format_measure("test_r2", 0.71234), format_measure("test_rmse", 58234.6), format_measure("test_rmse", 0.01234)
    ('0.712', '58,235', '0.0123')
    >>> format_measure("fit_time", float("nan")), format_measure("splits", 12), format_measure("leaves", 1228)
    ('reused', '12', '1,228')
    """
    if name.endswith("_rmse"):  # in the target's units
        return format_value(value, 4)
    digits = measure_decimals(name)
    if digits is None:  # a count, written as the metrics above the tables write it
        return format_count(value) if isinstance(value, numbers.Integral) else str(value)
    if "time" in name and value != value:  # NaN: a fit a budget search reused
        return "reused"
    return f"{value:.{digits}f}"


def headline(metrics: dict) -> tuple[str, str]:
    """The headline measure of a model's metrics, as (key, label): test accuracy, or test R² for a
    regression.

    Examples
    --------
    >>> headline({"test_accuracy": 0.9}), headline({"test_r2": 0.7, "test_rmse": 3.0})
    (('test_accuracy', 'test accuracy'), ('test_r2', 'test R²'))
    """
    key = headline_measure(metrics)
    return key, LABELS[key]


def versus_cart(gain: float) -> dict:
    """``st.metric``'s delta arguments for TnT's headline measure minus CART's: the difference with
    its arrow and colour, or "same as CART" in grey and without an arrow when it rounds to zero.

    Examples
    --------
    >>> versus_cart(0.0123)["delta"], versus_cart(-0.02)["delta_arrow"]
    ('+0.012 vs CART', 'auto')
    >>> versus_cart(0.0002)
    {'delta': 'same as CART', 'delta_color': 'off', 'delta_arrow': 'off'}
    """
    if abs(gain) < 5e-4:
        return {"delta": "same as CART", "delta_color": "off", "delta_arrow": "off"}
    return {"delta": f"{gain:+.3f} vs CART", "delta_color": "normal", "delta_arrow": "auto"}


def comparison_table(result: TrainResult) -> pd.DataFrame:
    """The measurements of both models side by side, one row per measure, formatted for display."""
    rows = [
        [LABELS.get(name, name), *(format_measure(name, m[name]) for m in (result.tnt_metrics, result.cart_metrics))]
        for name in result.tnt_metrics
    ]
    return pd.DataFrame(rows, columns=["measure", "TnT", "CART (same splits)"]).set_index("measure")


def history_table(results) -> pd.DataFrame:
    """One row per trained model (settings, size, accuracies or R²), sorted by C then the other settings."""
    rows = [
        {
            "C": format_C(r.params.C),
            "N1": r.params.N1,
            "N2": r.params.N2,
            "fine-tune": r.params.fine_tune,
            "seed": r.params.seed,
            "thresholds": format_bins(r.params.max_bins),
            "size": format_size(r.params.ccp_alpha),
            "rare categories pooled below": r.params.min_category_samples,
            "splits": r.tnt_metrics["splits"],
            "shared nodes": r.tnt_metrics["shared_nodes"],
            **{f"{model} {headline(m)[1]}": round(m[headline(m)[0]], 3) for model, m in _pair(r)},
            "_order": (
                r.params.C,
                r.params.N1,
                r.params.N2,
                r.params.fine_tune,
                r.params.seed,
                -r.params.max_bins,
                SIZE_CHOICES.index(r.params.ccp_alpha),
                r.params.min_category_samples,
            ),
        }
        for r in results
    ]
    frame = pd.DataFrame(rows, columns=[*(rows[0] if rows else ["_order"])])
    if rows and all(r.params.min_category_samples == 1 for r in results):
        frame = frame.drop(columns="rare categories pooled below")  # a setting of categorical columns only
    return frame.sort_values("_order").drop(columns="_order").reset_index(drop=True)


def _pair(result: TrainResult):
    return (("TnT", result.tnt_metrics), ("CART", result.cart_metrics))


def format_C(C: float) -> str:
    """``1e-03`` style label for a value of C; three digits for a C off the grid (a budget search's).

    Examples
    --------
    >>> format_C(1e-3), format_C(3.1623e-4)
    ('1e-03', '3.16e-04')
    """
    text = f"{C:.0e}"
    return text if float(text) == C else f"{C:.2e}"


#: The Train page's choices of ``max_bins``: exact thresholds (the default), or one byte per value.
BIN_CHOICES = (MAX_EXACT_BINS, 255)


def format_bins(max_bins) -> str:
    """``exact`` for the default ``max_bins`` (CART's thresholds), else ``255 bins``.

    Examples
    --------
    >>> format_bins(65535), format_bins(255)
    ('exact', '255 bins')
    """
    return "exact" if max_bins == MAX_EXACT_BINS else f"{max_bins} bins"


#: Short words for the Train page's choices of ``ccp_alpha`` (:data:`tnt.services.training.SIZE_CHOICES`).
SIZE_LABELS = {"auto": "held-out choice", 0.0: "C alone", "held_out_regrown": "held-out graph"}
#: The Train page's Size box: each choice of ``ccp_alpha`` in words (short enough for the box at 1440 px).
SIZE_WORDS = {
    "auto": f"{SIZE_LABELS['auto']}, C its lower bound (default)",
    0.0: f"{SIZE_LABELS[0.0]} (the paper's)",
    "held_out_regrown": "chosen on a held-out graph (slower)",
}
#: What the Size box's choices do, with their measured effect (``docs/learner_options.md``).
SIZE_HELP = (
    "C is the lower bound of the cost per split. Chosen on held-out data (the default, ccp_alpha='auto'): "
    "a CART fitted on 80 % of the training rows is scored on the other 20 % at every pruning level from C up; "
    "a larger level is taken only where its graph is clearly better there (by more than one standard error), "
    "and TnT grows and prunes its graph at that level. C alone (ccp_alpha=0): the graph TnT grows at C, as in "
    "the paper; it over-fits at small C. Chosen on a held-out graph (ccp_alpha='held_out_regrown'): the level "
    "is read off a whole TnT graph grown on 80 % of the rows, which takes about 2.7 times as long. "
    "On the benchmark suite's 33 classification pairs TnT beat CART at the same splits on 29 with the default "
    "(mean +0.88 points) against 20 with C alone (+0.46), and its own test accuracy was +1.15 points above "
    "C alone's on average (docs/accuracy.md)."
)


def format_size(ccp_alpha) -> str:
    """How the graph's size was set: ``held-out choice`` (the default, ``ccp_alpha="auto"``),
    ``C alone`` (``ccp_alpha=0``) or ``held-out graph`` (``"held_out_regrown"``).

    Examples
    --------
    >>> format_size("auto"), format_size(0.0), format_size("held_out_regrown")
    ('held-out choice', 'C alone', 'held-out graph')
    """
    return SIZE_LABELS[ccp_alpha]


def size_suffix(ccp_alpha) -> str:
    """``, size: C alone`` after a model's settings when its size was not the default's; nothing for
    the default, the held-out choice (the default goes unsaid).

    Examples
    --------
    >>> size_suffix("held_out_regrown"), size_suffix(0.0), size_suffix("auto")
    (', size: held-out graph', ', size: C alone', '')
    """
    return "" if ccp_alpha == SIZE_CHOICES[0] else f", size: {format_size(ccp_alpha)}"


#: What each refit rule a regressor's held-out part can choose means, in the app's words.
REFIT_WORDS = {
    "always": "every refit taken (the paper's rule)",
    "improving": "refits taken only where they lower the training error (the paper's rule with missing values)",
    "cost_complexity": "refits taken only where they lower the training error by more than C per split they add",
}


def refit_note(model) -> str:
    """The refit rule a regressor at the default size chose on held-out data, in a sentence (empty
    for a classifier, another size, or a model that does not say).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> regressor = SimpleNamespace(ccp_alpha="auto", internal_refit="auto", refit_rule_="cost_complexity",
    ...                             graph_=SimpleNamespace(regression=True))
    >>> refit_note(regressor)
    'Refits chosen on the same held-out data: refits taken only where they lower the training error by more than C per split they add.'
    >>> refit_note(SimpleNamespace(ccp_alpha=0.0, internal_refit="auto", refit_rule_="always", graph_=regressor.graph_))
    ''
    """
    rule = getattr(model, "refit_rule_", None)
    regression = getattr(getattr(model, "graph_", None), "regression", False)
    chose = chooses_refit_rule(
        not regression, getattr(model, "internal_refit", None), getattr(model, "ccp_alpha", None)
    )
    if rule not in REFIT_WORDS or not chose:
        return ""
    return f"Refits chosen on the same held-out data: {REFIT_WORDS[rule]}."


def size_note(ccp_alpha, C: float, level: float | None) -> str:
    """The pruning level a held-out choice of size settled on, in a sentence (empty for C alone, or
    when the model does not say its level).

    Examples
    --------
    >>> size_note("held_out_regrown", 0.001, 0.004)
    'Size chosen on held-out data: pruning level 4e-03 per split; the graph was grown at C=4e-03 (the larger of C and that level) and pruned there.'
    >>> size_note("auto", 0.001, 0.0)
    'Size chosen on held-out data: no smaller graph was clearly better there, so the graph is the one C=1e-03 grows.'
    >>> size_note(0.0, 0.001, 0.0)
    ''
    """
    if ccp_alpha == 0.0 or level is None:
        return ""
    if level <= 0:
        return (
            f"Size chosen on held-out data: no smaller graph was clearly better there, so the graph is the one "
            f"C={format_C(C)} grows."
        )
    return (
        f"Size chosen on held-out data: pruning level {format_C(level) if level > 0 else '0'} per split; the graph "
        f"was grown at C={format_C(max(C, level))} (the larger of C and that level) and pruned there."
    )


def nearest_C(C: float) -> float:
    """The value of :data:`C_GRID` nearest to ``C`` on the log scale (for the sliders).

    Examples
    --------
    >>> nearest_C(3.1e-4), nearest_C(1e-9)
    (0.0002, 1e-05)
    """
    return min(C_GRID, key=lambda g: abs(math.log(g) - math.log(C)))


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word`` in the right number: "1 path", "2 paths", "1,019 splits".

    Examples
    --------
    >>> counted(1, "path"), counted(369, "path"), counted(1019, "split"), counted(2, "leaf", "leaves")
    ('1 path', '369 paths', '1,019 splits', '2 leaves')
    """
    n = int(n)
    return f"{format_count(n)} {word if n == 1 else (plural or word + 's')}"


def format_count(n: int) -> str:
    """An exact count with thousands separators, or rounded in scientific notation beyond 15 digits
    (the tree a graph stands for can have more splits than there are atoms).

    Examples
    --------
    >>> format_count(1234), format_count(3 * 10**40)
    ('1,234', 'about 3.00e+40')
    """
    n = int(n)
    return f"{n:,}" if abs(n) < 10**15 else f"about {float(n):.2e}"


#: Height in pixels of a row of ``st.dataframe`` (its default, 2.1875rem at Streamlit's 16 px font; the
#: header row is as tall), and the width of the table's border, drawn above and below.
TABLE_ROW_PX = 35
TABLE_BORDER_PX = 1


def table_height(n_rows: int, max_px: int | None = None, row_px: int = TABLE_ROW_PX) -> int:
    """The ``height`` of an ``st.dataframe`` of ``n_rows`` rows ``row_px`` tall (the default rows of one
    line, or taller ones that wrap): its header and rows exactly, no empty row below the last; at most
    ``max_px``, past which the table scrolls.

    Examples
    --------
    >>> table_height(1), table_height(6), table_height(500, max_px=360), table_height(2, row_px=56)
    (72, 247, 360, 149)
    """
    height = TABLE_ROW_PX + int(n_rows) * int(row_px) + 2 * TABLE_BORDER_PX
    return height if max_px is None else min(height, int(max_px))


def shared_table(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`tnt.services.sharing.shared_nodes_table` for display: node ids as ``#17``, the
    tree's counts (Python ints of any size) as text, columns in words."""
    shown = table.copy()
    shown["node"] = [f"#{n}" for n in shown["node"]]
    for column in ("paths", "splits_below", "splits_saved"):
        shown[column] = [format_count(v) for v in shown[column]]
    return labelled(shown)


#: Display labels of the columns of :func:`tnt.workspace.runs.history_frame`, besides :data:`LABELS`.
SAVED_RUN_LABELS = {
    "dataset": "data set",
    "edited": "edited by hand",
    "fine_tune": "fine-tune",
    "max_bins": "thresholds",
    "ccp_alpha": "size",
    "tnt_test_accuracy": "TnT test",
    "cart_test_accuracy": "CART test",
    "tnt_train_accuracy": "TnT train",
    "tnt_test_r2": "TnT test R²",
    "cart_test_r2": "CART test R²",
    "tnt_test_rmse": "TnT test RMSE",
    "test_size": "test share",
    "split_seed": "split seed",
    "data_hash": "data hash (SHA-256)",
}


def saved_runs_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The workspace's history (:func:`tnt.workspace.runs.history_frame`) with words and rounding;
    the accuracy columns, or the R² and RMSE columns, are left out when no run has them, and share
    one column per score when runs of both tasks are listed; N1, N2, fine-tuning, seed and the pooling
    of rare categories (when there is one) are one "settings" column.

    Examples
    --------
    >>> from tnt.workspace.runs import history_frame
    >>> saved_runs_table(history_frame([])).columns.tolist()[:6]
    ['run', 'saved', 'data set', 'edited by hand', 'C', 'settings']
    """
    shown = frame.copy()
    shown["C"] = shown["C"].map(lambda c: format_C(c) if isinstance(c, (int, float)) else c)
    scores = ("tnt_test_accuracy", "cart_test_accuracy", "tnt_train_accuracy", "tnt_test_r2", "cart_test_r2")
    for key in scores:
        shown[key] = shown[key].astype(float).round(3)
    shown["tnt_test_rmse"] = shown["tnt_test_rmse"].astype(float).map(lambda v: v if v != v else float(f"{v:.4g}"))
    if len(shown):
        shown = shown.drop(columns=[key for key in (*scores, "tnt_test_rmse", "edited") if shown[key].isna().all()])
    if len(shown) and {"tnt_test_accuracy", "tnt_test_r2"} <= set(shown.columns):
        # Classification and regression runs side by side: one column per score, each run's own
        # measure (accuracy, or R² for a regression), so that the table fits the page.
        for model in ("tnt", "cart"):
            shown[f"{model}_test_accuracy"] = shown[f"{model}_test_accuracy"].fillna(shown[f"{model}_test_r2"])
        shown = shown.drop(columns=["tnt_test_r2", "cart_test_r2"])
    shown["fit_time"] = shown["fit_time"].astype(float).round(2)
    shown["max_bins"] = shown["max_bins"].map(format_bins)
    shown["ccp_alpha"] = shown["ccp_alpha"].map(format_size)
    settings = [f"N1={a}, N2={b}, fine-tune {c}, seed {d}" + ("" if e == 1 else f", categories pooled below {e}")
                for a, b, c, d, e in zip(shown["N1"], shown["N2"], shown["fine_tune"], shown["seed"],
                                         shown["min_category_samples"])]  # fmt: skip
    shown.insert(shown.columns.get_loc("N1"), "settings", settings)
    shown = shown.drop(columns=["N1", "N2", "fine_tune", "seed", "min_category_samples"])
    return labelled(shown.rename(columns=SAVED_RUN_LABELS))


#: The History page's tables: the runs (settings, size, scores, fit time), and where each run's data
#: came from (:func:`saved_runs_columns`), columns of :func:`saved_runs_table`. Both fit the page's width
#: at 1,440 px beside the sidebar, where all the columns in one table would not.
RUN_COLUMNS = (
    "run", "data set", "edited by hand", "C", "settings", "thresholds", "size", "splits", "TnT test", "CART test",
    "TnT train", "TnT test R²", "CART test R²", "TnT test RMSE", "fit time (s)",
)  # fmt: skip
DATA_COLUMNS = ("run", "saved", "data set", "test share", "split seed", "data hash (SHA-256)")
#: Shorter headers of the History tables, each with a tooltip saying it in full.
_RUN_HEADERS = {
    "TnT test R²": ("TnT R²", "R² of the TnT model on the test rows"),
    "CART test R²": ("CART R²", "R² of CART (same splits) on the test rows"),
    "TnT test RMSE": ("TnT RMSE", "RMSE of the TnT model on the test rows, in the target's units"),
    "TnT test": (
        None,
        "Accuracy (R² for a regression) of the TnT model, or of the model edited by hand, on the test rows",
    ),
    "CART test": (None, "Accuracy (R² for a regression) of CART, grown to as many splits, on the test rows"),
    "settings": (None, "N1 (merge phases), N2 (grow passes per phase), fine-tuning rounds and seed"),
    "TnT train": (None, "Accuracy of the TnT model (or of the model edited by hand) on the training rows"),
    "edited by hand": (
        None,
        "The name a model edited on the Graph page was saved as; its settings are those of the "
        "model it was edited from",
    ),
    "fit time (s)": ("fit (s)", "TnT's fit time in seconds"),
    "data hash (SHA-256)": ("data hash", "The first 12 hex digits of the SHA-256 of the data set's file"),
    "saved": (None, "When the run was saved (UTC)"),
}


def saved_runs_columns(table: pd.DataFrame, which: str = "runs") -> tuple[list[str], dict]:
    """The columns of one of the History page's two tables of :func:`saved_runs_table`, in order, and
    the shorter headers of some with their tooltips (``{column: (label, help)}``, as
    :func:`ui.tables.show_table` takes them): ``"runs"`` (settings, size, scores) or ``"data"`` (when
    each run was saved, its data set's hash and the test share and seed of its split). Every column is
    in one of them.

    Examples
    --------
    >>> from tnt.workspace.runs import history_frame
    >>> table = saved_runs_table(history_frame([]))
    >>> order, labels = saved_runs_columns(table, "data")
    >>> order, labels["data hash (SHA-256)"][0]
    (['run', 'saved', 'data set', 'test share', 'split seed', 'data hash (SHA-256)'], 'data hash')
    """
    wanted = RUN_COLUMNS if which == "runs" else DATA_COLUMNS
    order = [c for c in wanted if c in table.columns]
    return order, {name: header for name, header in _RUN_HEADERS.items() if name in order}


def run_label(run) -> str:
    """``#3 Iris, C=1e-02, N1=2, N2=5, seed=0``: a saved run in a picker (``#4 Iris, edited by hand:
    no petal width`` for a model edited by hand)."""
    p = run.params
    if "edited" in p:
        return f"#{run.id} {run.dataset_name}, edited by hand: {p['edited']}"
    C = format_C(p["C"]) if isinstance(p.get("C"), (int, float)) else "?"
    binned = "" if p.get("max_bins", MAX_EXACT_BINS) == MAX_EXACT_BINS else f", {format_bins(p['max_bins'])}"
    sized = size_suffix(p.get("ccp_alpha", 0.0))  # runs saved before the choice existed grew at C alone
    return (
        f"#{run.id} {run.dataset_name}, C={C}, N1={p.get('N1')}, N2={p.get('N2')}, seed={p.get('seed')}{binned}{sized}"
    )
