"""Static images (SVG, PNG) of plotly figures through kaleido (the ``paper`` extra), which drives a
local Chrome, or Debian's chromium when no Chrome is set."""

from __future__ import annotations

import os
import shutil

__all__ = ["figure_image", "use_local_chromium"]


def use_local_chromium() -> None:
    """Point kaleido at Debian's chromium when no browser is set (``BROWSER_PATH``) and one is installed."""
    if "BROWSER_PATH" not in os.environ and shutil.which("chromium"):
        os.environ["BROWSER_PATH"] = shutil.which("chromium")


def figure_image(figure, fmt: str = "svg", width: int | None = None, height: int | None = None) -> bytes:
    """A plotly figure as an SVG or PNG image, through kaleido (the ``paper`` extra), which drives a
    local Chrome, or Debian's chromium when no Chrome is set.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
    fmt : {"svg", "png"}, default="svg"
    width, height : int, optional
        Pixels; the figure's own size by default.

    Returns
    -------
    image : bytes
    """
    if fmt not in ("svg", "png"):
        raise ValueError(f"fmt must be 'svg' or 'png', got {fmt!r}.")
    import plotly.io as pio

    use_local_chromium()
    return pio.to_image(figure, format=fmt, width=width or figure.layout.width, height=height or figure.layout.height)
