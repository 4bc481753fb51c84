"""Plotly figures of sweeps and path lengths: TnT against CART with the spread across seeds as a band.

TnT is drawn in the first class colour of :mod:`tnt.viz.colors` and CART in the second, so the two
models keep their colours on every page; blue stays reserved for mixed nodes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tnt.viz.colors import class_palette, fill_color

__all__ = [
    "MODEL_COLORS",
    "accuracy_vs_splits",
    "depth_distribution",
    "depth_vs_splits",
    "splits_vs_C",
    "train_and_test_vs_splits",
]

_TNT, _CART, _TAO, _NDG, _TUNED = class_palette(5)
_OTHER = class_palette(7)[6]  # another model, such as one opened from a file: unlike CART's green
#: Line colour of each model.
MODEL_COLORS = {"TnT": _TNT, "CART": _CART, "TAO": _TAO, "NDG": _NDG, "TnT fine-tuned": _TUNED}
# Column prefix of each model in a sweep table, in drawing order (tnt.experiments.sweep.MODEL_NAMES).
_PREFIXES = (("TnT", "tnt"), ("TnT fine-tuned", "tnt_ft"), ("TAO", "tao"), ("CART", "cart"), ("NDG", "ndg"))


def _go():
    import plotly.graph_objects as go

    return go


def _band(fig, x, mean, std, name, color, dash=None, legendgroup=None):
    """A line with a shaded band of ±1 std around it."""
    go = _go()
    order = np.argsort(x, kind="stable")
    x, mean, std = np.asarray(x)[order], np.asarray(mean)[order], np.asarray(std)[order]
    group = legendgroup or name
    fig.add_trace(
        go.Scatter(
            x=np.r_[x, x[::-1]],
            y=np.r_[mean + std, (mean - std)[::-1]],
            mode="lines",
            fill="toself",
            fillcolor=fill_color(color, 0.6),
            opacity=0.5,
            line={"width": 0},
            hoverinfo="skip",
            showlegend=False,
            legendgroup=group,
            name=f"{name} ±1 std",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=mean,
            mode="lines+markers",
            name=name,
            legendgroup=group,
            line={"color": color, "dash": dash},
            marker={"size": 6},
        )
    )


def _against_splits(summary, measure):
    """A line (with a band) of ``<model>_<measure>`` against the model's split count for every
    model of the summary (TnT and CART, and TnT fine-tuned, TAO and NDG when swept).

    Models of fewer than one split on average (a single leaf) have no place on the log axis and are
    left out.
    """
    fig = _go().Figure()
    for model, prefix in _PREFIXES:
        if f"{prefix}_splits_mean" not in summary or f"{prefix}_{measure}_mean" not in summary:
            continue
        rows = summary[summary[f"{prefix}_splits_mean"] >= 1]
        x = rows[f"{prefix}_splits_mean"]
        mean, std = rows[f"{prefix}_{measure}_mean"], rows[f"{prefix}_{measure}_std"]
        _band(fig, x, mean, std, model, MODEL_COLORS[model])
    return fig


def _layout(fig, title, xaxis, yaxis, log_x=False):
    fig.update_layout(
        title={"text": title, "y": 0.98, "yanchor": "top"},
        xaxis_title=xaxis,
        yaxis_title=yaxis,
        template="plotly_white",
        # Below the axis title: a legend of several rows above the plot would run into the title.
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0},
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        height=420,
    )
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def accuracy_vs_splits(summary: pd.DataFrame, part: str = "test", title: str | None = None):
    """Accuracy against number of splits for TnT and CART (the paper's Fig. 4), bands of ±1 std,
    and for TnT fine-tuned, TAO and NDG when the sweep trained them; R² for a regression sweep
    (columns ``<model>_<part>_r2``).

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`tnt.experiments.sweep.summarize`.
    part : {"test", "train"}
    title : str, default=None
        The figure's title (default: "<Part> accuracy against model size").

    Returns
    -------
    figure : plotly.graph_objects.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.viz.figures import accuracy_vs_splits
    >>> from tnt.experiments.sweep import summarize
    >>> t = pd.DataFrame({"C": [0.1, 0.01], "seed": [0, 0], "tnt_splits": [4, 20], "cart_splits": [4, 20],
    ...                   "tnt_test_acc": [0.7, 0.9], "cart_test_acc": [0.6, 0.8]})
    >>> [trace.name for trace in accuracy_vs_splits(summarize(t)).data]
    ['TnT ±1 std', 'TnT', 'CART ±1 std', 'CART']
    """
    if part not in ("test", "train"):
        raise ValueError(f"part must be 'test' or 'train', got {part!r}.")
    measure, words = (f"{part}_r2", "R²") if f"tnt_{part}_r2_mean" in summary else (f"{part}_acc", "accuracy")
    fig = _against_splits(summary, measure)
    title = title or f"{part.capitalize()} {words} against model size"
    return _layout(fig, title, "splits (log scale)", f"{part} {words}", log_x=True)


def splits_vs_C(summary: pd.DataFrame):
    """Number of splits against C (the paper's Fig. 3b), with TnT after graph reduction dashed.

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.viz.figures import splits_vs_C
    >>> from tnt.experiments.sweep import summarize
    >>> t = pd.DataFrame({"C": [0.1, 0.01], "seed": [0, 0], "tnt_splits": [4, 20], "reduced_splits": [4, 19]})
    >>> [trace.name for trace in splits_vs_C(summarize(t)).data]
    ['TnT ±1 std', 'TnT', 'TnT reduced ±1 std', 'TnT reduced']
    """
    fig = _go().Figure()
    C = summary.index.to_numpy(dtype=float)
    _band(fig, C, summary["tnt_splits_mean"], summary["tnt_splits_std"], "TnT", MODEL_COLORS["TnT"])
    if "reduced_splits_mean" in summary:
        _band(
            fig, C, summary["reduced_splits_mean"], summary["reduced_splits_std"], "TnT reduced", "#555555", dash="dash"
        )
    fig = _layout(fig, "Number of splits against C", "C (log scale)", "splits (log scale)", log_x=True)
    fig.update_yaxes(type="log")
    return fig


def depth_vs_splits(summary: pd.DataFrame):
    """Mean decision depth of the test samples against number of splits (the paper's Fig. 3a).

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.viz.figures import depth_vs_splits
    >>> from tnt.experiments.sweep import summarize
    >>> t = pd.DataFrame({"C": [0.1, 0.01], "seed": [0, 0], "tnt_splits": [4, 20], "cart_splits": [4, 20],
    ...                   "tnt_mean_depth": [3.0, 6.0], "cart_mean_depth": [2.0, 4.5]})
    >>> depth_vs_splits(summarize(t)).layout.yaxis.title.text
    'mean decision depth (test samples)'
    """
    fig = _against_splits(summary, "mean_depth")
    return _layout(
        fig, "Decision depth against model size", "splits (log scale)", "mean decision depth (test samples)", log_x=True
    )


def depth_distribution(distributions: dict):
    """Bar chart of path-length distributions, one group of bars per model and kind.

    Parameters
    ----------
    distributions : dict
        ``{name: (lengths, shares)}``, for example from :func:`tnt.experiments.path_lengths.depth_distributions`.

    Examples
    --------
    >>> from tnt.viz.figures import depth_distribution
    >>> fig = depth_distribution({"TnT (test samples)": ([1, 2], [0.5, 0.5])})
    >>> fig.data[0].name
    'TnT (test samples)'
    """
    go = _go()
    fig = go.Figure()
    for name, (lengths, shares) in distributions.items():
        color = next((MODEL_COLORS[m] for m in ("CART", "TnT") if name.startswith(m)), _OTHER)
        structural = "path" in name
        fig.add_trace(
            go.Bar(
                x=list(lengths),
                y=list(shares),
                name=name,
                marker={"color": fill_color(color, 0.45) if structural else color},
                marker_pattern_shape="/" if structural else "",
            )
        )
    fig.update_layout(barmode="group")
    return _layout(fig, "Root-to-leaf decision depth", "depth (splits on the path)", "share")


def train_and_test_vs_splits(summary: pd.DataFrame, title: str):
    """Train (left) and test (right) accuracy against splits side by side: one panel of the paper's
    Fig. 4, with every model of the summary (see :func:`accuracy_vs_splits`).

    Examples
    --------
    >>> import pandas as pd
    >>> from tnt.viz.figures import train_and_test_vs_splits
    >>> from tnt.experiments.sweep import summarize
    >>> t = pd.DataFrame({"C": [0.1, 0.01], "seed": [0, 0], "tnt_splits": [4, 20], "cart_splits": [4, 20],
    ...                   "tnt_train_acc": [0.7, 0.9], "cart_train_acc": [0.6, 0.8],
    ...                   "tnt_test_acc": [0.7, 0.9], "cart_test_acc": [0.6, 0.8]})
    >>> fig = train_and_test_vs_splits(summarize(t), "toy")
    >>> [trace.name for trace in fig.data if trace.showlegend is not False]
    ['TnT', 'CART']
    """
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("train accuracy", "test accuracy"), horizontal_spacing=0.08)
    for col, part in ((1, "train"), (2, "test")):
        for trace in accuracy_vs_splits(summary, part).data:
            if col == 2:
                trace.showlegend = False
            fig.add_trace(trace, row=1, col=col)
    fig = _layout(fig, title, None, "accuracy", log_x=True)
    fig.update_xaxes(title_text="splits (log scale)")
    fig.update_layout(width=1100, height=520, legend={"y": -0.18, "yanchor": "top"}, margin={"t": 80, "b": 120})
    return fig
