"""Where an arrow and its label pointing at one node of a plotly figure go: the first of a few offsets
around the node at which the arrow crosses no edge and no other node, and its label covers no edge, node,
label or earlier callout, all measured in px of the figure as drawn (its axes' ranges, margins and size).
"""

from __future__ import annotations

import numpy as np

__all__ = ["OFFSETS", "FreeSpace"]

#: Offsets (px) from the node to the centre of its callout's label (plotly's ``ax``, ``ay``: y grows
#: downward), tried in this order: nearest first, at each distance up and to the left first (as before),
#: then round the node in steps of 22.5 degrees.
OFFSETS = tuple(
    (round(r * np.cos(np.radians(a))), round(-r * np.sin(np.radians(a))))
    for r in (42, 60, 80, 105)
    for a in (135, 45, 180, 0, 90, 157.5, 22.5, 112.5, 67.5, 202.5, 337.5, 225, 315, 247.5, 292.5, 270)
)
#: A callout label's size: px a character (plotly's 12 px annotation font, bold), padding, height.
_CHAR_PX, _PAD_PX, _LABEL_H = 8.0, 8.0, 20.0
#: A line of node text: this high for each px of font size (plotly's line spacing).
_LINE_SPACING = 1.3


class FreeSpace:
    """The edges, nodes and labels of ``fig`` in px (``width_px``: the figure's width; its height,
    margins and axes' ranges are the figure's), and :meth:`place`, which finds a callout free of them.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        With its axes' ranges set. Line traces are edges (each pair of points a segment, ``None``
        between lines); marker traces are nodes (a box of the marker's size), with their text a label
        box beside them (by ``textposition``), ``char_px`` a character of it.
    width_px : int
    char_px : float
        px a character of the nodes' labels.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = go.Figure([go.Scatter(x=[0, 1], y=[1, 0], mode="lines"), go.Scatter(x=[0, 1], y=[1, 0], mode="markers")])
    >>> _ = fig.update_layout(height=220, margin=dict(l=10, r=10, t=10, b=10), xaxis_range=[-1, 2], yaxis_range=[-1, 2])
    >>> FreeSpace(fig, 320, 7.0).place(1.0, 0.0, "#1")  # the edge comes from the upper left: upper right
    (30, -30)
    >>> OFFSETS[:2]
    ((-30, -30), (30, -30))
    """

    def __init__(self, fig, width_px: int, char_px: float) -> None:
        layout = fig.layout
        (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
        margin = layout.margin
        self.width = width_px - margin.l - margin.r
        self.height = layout.height - margin.t - margin.b
        self._x0, self._y1 = float(x0), float(y1)
        self._sx, self._sy = self.width / (x1 - x0), self.height / (y1 - y0)
        segments, boxes = [np.zeros((0, 4))], [np.zeros((0, 4))]
        for trace in fig.data:
            if trace.x is None or trace.y is None or not trace.mode:
                continue
            px, py = self.px(_floats(trace.x), _floats(trace.y))
            if trace.mode == "lines":
                segment = np.column_stack([px[:-1], py[:-1], px[1:], py[1:]])
                segments.append(segment[np.isfinite(segment).all(axis=1)])
                continue
            if "markers" not in trace.mode:
                continue
            size = np.broadcast_to(
                np.asarray(trace.marker.size if trace.marker.size is not None else 6, float), px.shape
            )
            half = size / 2
            boxes.append(np.column_stack([px - half, py - half, px + half, py + half]))
            if "text" in trace.mode and trace.text is not None:
                boxes.append(_text_boxes(trace, px, py, half, char_px))
        self.segments = np.concatenate(segments)
        self.boxes = np.concatenate(boxes)
        self.boxes = self.boxes[np.isfinite(self.boxes).all(axis=1)]

    def px(self, x, y):
        """Figure coordinates to px of the plot area (from its top left, y down)."""
        return (np.asarray(x, float) - self._x0) * self._sx, (self._y1 - np.asarray(y, float)) * self._sy

    def place(self, x: float, y: float, text: str, bold: bool = False) -> tuple[int, int]:
        """The offset (``ax``, ``ay``, px) of a callout to the node at (``x``, ``y``) labelled ``text``:
        the first of :data:`OFFSETS` whose arrow and label are free (the label inside the plot area);
        else the one with the fewest things in the way. Its label is then in the way of the next."""
        hx, hy = (float(v) for v in self.px(x, y))
        w, h = len(text) * _CHAR_PX * (1.1 if bold else 1.0) + _PAD_PX, _LABEL_H
        own = (self.boxes[:, 0] <= hx) & (hx <= self.boxes[:, 2]) & (self.boxes[:, 1] <= hy) & (hy <= self.boxes[:, 3])
        others = self.boxes[~own]
        best, fewest = OFFSETS[0], None
        for ax, ay in OFFSETS:
            tx, ty = hx + ax, hy + ay
            label = np.array([tx - w / 2, ty - h / 2, tx + w / 2, ty + h / 2])
            outside = label[0] < 0 or label[1] < 0 or label[2] > self.width or label[3] > self.height
            in_way = (
                int(np.count_nonzero(_crossing((hx, hy), (tx, ty), self.segments)))
                + int(np.count_nonzero(_rect_meets_segments(label, self.segments)))
                + int(np.count_nonzero(_rects_meet(label, self.boxes)))
                + int(np.count_nonzero(_segment_meets_rects((hx, hy), (tx, ty), others)))
                + (1_000 if outside else 0)
            )
            if fewest is None or in_way < fewest:
                best, fewest = (ax, ay), in_way
            if in_way == 0:
                break
        tx, ty = hx + best[0], hy + best[1]
        self.boxes = np.vstack([self.boxes, [tx - w / 2, ty - h / 2, tx + w / 2, ty + h / 2]])
        return best


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _text_boxes(trace, px, py, half, char_px: float) -> np.ndarray:
    """The box of each point's text (lines split at ``<br>``), placed by the trace's ``textposition``."""
    import html

    size = trace.textfont.size or 12
    texts = list(trace.text) if not isinstance(trace.text, str) else [trace.text] * px.size
    width = np.array([max(len(html.unescape(t)) for t in str(s).split("<br>")) * char_px for s in texts])
    height = np.array([(str(s).count("<br>") + 1) * _LINE_SPACING * size for s in texts])
    where = trace.textposition or "middle center"
    if where.startswith("bottom"):
        return np.column_stack([px - width / 2, py + half, px + width / 2, py + half + height])
    if where.startswith("top"):
        return np.column_stack([px - width / 2, py - half - height, px + width / 2, py - half])
    return np.column_stack([px + half, py - height / 2, px + half + width, py + height / 2])


def _cross(o, a, b):
    """z of (a - o) x (b - o), for arrays of points."""
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0])


def _crossing(p, q, segments) -> np.ndarray:
    """Which ``segments`` (n, 4) cross the segment p-q properly (touching at an end does not count: the
    edges of the node the callout points at all end where its arrow starts)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    a, b = segments[:, :2], segments[:, 2:]
    d1, d2 = _cross(a, b, np.broadcast_to(p, a.shape)), _cross(a, b, np.broadcast_to(q, a.shape))
    d3, d4 = (
        _cross(np.broadcast_to(p, a.shape), np.broadcast_to(q, a.shape), a),
        _cross(np.broadcast_to(p, a.shape), np.broadcast_to(q, a.shape), b),
    )
    return (d1 * d2 < 0) & (d3 * d4 < 0)


def _rect_meets_segments(rect, segments) -> np.ndarray:
    """Which ``segments`` pass through the rectangle (left, top, right, bottom)."""
    left, top, right, bottom = rect
    inside = np.zeros(len(segments), dtype=bool)
    for end in (segments[:, :2], segments[:, 2:]):
        inside |= (left <= end[:, 0]) & (end[:, 0] <= right) & (top <= end[:, 1]) & (end[:, 1] <= bottom)
    for p, q in (((left, top), (right, top)), ((right, top), (right, bottom)), ((right, bottom), (left, bottom)),
                 ((left, bottom), (left, top))):  # fmt: skip
        inside |= _crossing(p, q, segments)
    return inside


def _segment_meets_rects(p, q, rects) -> np.ndarray:
    """Which rectangles (n, 4) the segment p-q passes through."""
    hit = np.zeros(len(rects), dtype=bool)
    for x, y in (p, q):
        hit |= (rects[:, 0] <= x) & (x <= rects[:, 2]) & (rects[:, 1] <= y) & (y <= rects[:, 3])
    corners = [rects[:, [0, 1]], rects[:, [2, 1]], rects[:, [2, 3]], rects[:, [0, 3]]]
    for k in range(4):
        hit |= _crossing(p, q, np.column_stack([corners[k], corners[(k + 1) % 4]]))
    return hit


def _rects_meet(rect, rects) -> np.ndarray:
    """Which rectangles (n, 4) overlap ``rect``."""
    left, top, right, bottom = rect
    return (rects[:, 0] < right) & (left < rects[:, 2]) & (rects[:, 1] < bottom) & (top < rects[:, 3])
