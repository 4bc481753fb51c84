"""SVG, PNG and PDF images of DOT source, rendered in-process.

The ``pygraphviz`` wheel on PyPI bundles Graphviz's libraries (layout engines and the cairo
renderer), so images render after a plain ``pip install``; no ``dot`` program is needed on the
``PATH``, and none is called even when one is installed.
"""

from __future__ import annotations

__all__ = ["FORMATS", "render"]

FORMATS = ("svg", "png", "pdf")
# Graphviz's name for each format: "png" and "pdf" through cairo, for anti-aliased text.
_DEVICES = {"svg": "svg", "png": "png:cairo", "pdf": "pdf:cairo"}


def render(dot_source: str, fmt: str = "svg") -> bytes:
    """Lay out DOT source with Graphviz's ``dot`` engine and render it.

    Parameters
    ----------
    dot_source : str
        A DOT graph, e.g. from :func:`tnt.viz.export_dot.to_dot`.
    fmt : {"svg", "png", "pdf"}, default="svg"

    Returns
    -------
    image : bytes

    Examples
    --------
    >>> from tnt.viz.render import render
    >>> render("digraph { a -> b }", "png")[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, got {fmt!r}.")
    import pygraphviz

    try:
        graph = pygraphviz.AGraph(string=dot_source)
    except (ValueError, pygraphviz.DotError) as error:
        raise ValueError(f"The DOT source could not be read: {str(error).strip() or 'syntax error'}.") from None
    graph.layout(prog="dot")
    return graph.draw(format=_DEVICES[fmt])
