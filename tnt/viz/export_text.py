"""The rules of a decision graph as indented text, in the style of scikit-learn's ``export_text``.

A tree printer would repeat a shared node's whole sub-graph under each of its parents, which for a
TnT can be exponentially long. Here a shared node is printed once, labelled with its id, and every
later arrival at it is a one-line reference (``-> see node #17``).
"""

from __future__ import annotations

from tnt.viz.exporter import GraphText

__all__ = ["DEEPEST_INDENT", "export_text"]

_INDENT = "|   "
#: Deeper lines start with their depth instead of one indent per level, so that a chain of 50,000
#: splits gives 50,000 short lines rather than billions of characters of indentation.
DEEPEST_INDENT = 40
_BRANCH = "|--- "


def export_text(graph, *, feature_names=None, class_names=None, precision: int = 3, show_missing=None) -> str:
    """Text listing of a decision graph's rules, each shared sub-graph printed once.

    Parameters
    ----------
    graph : DecisionGraph
    feature_names, class_names : sequence of str, default=None
        Names of the features and of the classes (columns of ``graph.value``).
    precision : int, default=3
        Decimals of the thresholds.
    show_missing : bool, default=None
        Say where missing values go at every threshold split (True) or at none (False); by default
        only in a graph that learned them from training data with missing values
        (:func:`tnt.wording.shows_missing`). A test of missingness is always written as one.

    Returns
    -------
    text : str
        One line per branch; lines of a shared node start with ``node #id:``. Below
        :data:`DEEPEST_INDENT` levels a line starts with ``[depth N]`` instead of N indents.

    Examples
    --------
    >>> from tnt import DecisionGraph
    >>> from tnt.viz.export_text import export_text
    >>> g = DecisionGraph([1, 3, 3, -1, -1], [2, 4, 4, -1, -1], [0, 1, 1, -2, -2],
    ...                   [0.5, 1.5, 2.5, -2, -2], [[3, 3], [2, 1], [1, 2], [3, 0], [0, 3]])
    >>> print(export_text(g, feature_names=["a", "b"], class_names=["no", "yes"]))
    |--- a <= 0.5
    |   |--- b <= 1.5
    |   |   |--- node #3: class: no
    |   |--- b > 1.5
    |   |   |--- node #4: class: yes
    |--- a > 0.5
    |   |--- b <= 2.5
    |   |   |--- -> see node #3 (class: no)
    |   |--- b > 2.5
    |   |   |--- -> see node #4 (class: yes)
    <BLANKLINE>
    """
    text = GraphText(graph, feature_names, class_names, precision, show_missing)
    is_leaf = text.is_leaf
    lines: list[str] = []
    printed: set[int] = set()
    # An explicit stack rather than recursion: TnT graphs can be hundreds of levels deep.
    stack: list[tuple[int, int] | str] = [(0, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node, level = item
        prefix = (_INDENT * level if level <= DEEPEST_INDENT else f"[depth {level}] ") + _BRANCH
        shared = text.is_shared(node)
        if shared and node in printed:
            leaf_note = f" ({text.leaf_text(node)})" if is_leaf[node] else ""
            lines.append(f"{prefix}-> see node #{node}{leaf_note}")
            continue
        printed.add(node)
        label = f"node #{node}: " if shared else ""
        if is_leaf[node]:
            lines.append(f"{prefix}{label}{text.leaf_text(node)}")
            continue
        # A split at `level` shows as two condition lines, each followed by its branch one level deeper.
        left, right = int(graph.children_left[node]), int(graph.children_right[node])
        stack.append((right, level + 1))
        stack.append(f"{prefix}{label}{text.condition(node, 'right')}")
        stack.append((left, level + 1))
        lines.append(f"{prefix}{label}{text.condition(node, 'left')}")
    return "\n".join(lines) + "\n"
