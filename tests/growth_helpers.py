"""Grow passes written out node by node, for the tests that check the compiled, wave-batched passes
against the definition, the small phase-start graph the install tests write micro trees into, and
the comparison of two fitted estimators' graphs."""

import numpy as np

from tnt.learn.growth import _waves
from tnt.learn.working_graph import FlatGraph


def one_split_graph(missing_go_to_left=None) -> FlatGraph:
    """A phase-start graph of one split (``x[0] <= 0.5``) and two leaves labelled 0 and 1, with
    ``missing_go_to_left`` (a list of three 0s and 1s) or no directions."""
    directions = None if missing_go_to_left is None else np.array(missing_go_to_left, dtype=np.uint8)
    return FlatGraph(
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([0, -2, -2]),
        np.array([0.5, -2, -2.0]),
        np.array([-1, 0, 1]),
        missing_go_to_left=directions,
    )


def same_fitted_graph(a, b) -> bool:
    """Whether two fitted estimators grew the same graph: the same children, features, thresholds
    and missing-value directions at every node (directions None in both, or equal)."""
    arrays = [(m.graph_.children_left, m.graph_.children_right, m.graph_.feature, m.graph_.threshold,
               m.graph_.missing_go_to_left) for m in (a, b)]  # fmt: skip
    return all((x is None and y is None) or np.array_equal(x, y) for x, y in zip(*arrays, strict=True))


def nodes_with_their_rows(graph, problem):
    """The phase-start nodes of ``graph`` (a :class:`tnt.learn.working_graph.WorkingGraph`) in a grow
    pass's order (wave by wave, the largest first within a wave), each with the rows reaching it, in
    increasing order. A node no row reaches is reset and skipped. After the caller has installed a
    node's micro tree, the node's rows go on through it to its phase-start children."""
    start = graph.start
    incoming = [[] for _ in range(graph.n_orig)]
    incoming[0].append(np.arange(problem.X.shape[0]))
    for wave in _waves(start):
        size = np.array([sum(part.size for part in incoming[node]) for node in wave])
        for node in wave[np.argsort(-size, kind="stable")]:
            rows = np.sort(np.concatenate(incoming[node])) if incoming[node] else np.empty(0, dtype=np.intp)
            if rows.size == 0:
                graph.reset(node)
                continue
            yield node, rows
            if start.children_left[node] >= 0:
                to_left = graph.goes_left(node, problem.X, rows)
                incoming[start.children_left[node]].append(rows[to_left])
                incoming[start.children_right[node]].append(rows[~to_left])
