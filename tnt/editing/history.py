"""An undo/redo history: a list of states and the position of the one in use."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["History"]

State = TypeVar("State")


class History(Generic[State]):
    """States in the order they were made; undo and redo move along them, and a new state after an
    undo replaces the states that were undone (as in every editor).

    Examples
    --------
    >>> from tnt.editing.history import History
    >>> h = History("start")
    >>> h.push("a"); h.push("b"); h.undo()
    'a'
    >>> h.push("c"); h.can_redo, h.states
    (False, ['start', 'a', 'c'])
    """

    def __init__(self, first: State):
        self.states: list[State] = [first]
        self.position = 0

    @property
    def current(self) -> State:
        return self.states[self.position]

    @property
    def can_undo(self) -> bool:
        return self.position > 0

    @property
    def can_redo(self) -> bool:
        return self.position < len(self.states) - 1

    def push(self, state: State) -> None:
        """Make ``state`` the current one, dropping the states undone before it."""
        del self.states[self.position + 1 :]
        self.states.append(state)
        self.position += 1

    def undo(self) -> State:
        """Step back; the first state stays when there is nothing to undo."""
        self.position = max(self.position - 1, 0)
        return self.current

    def redo(self) -> State:
        """Step forward again after an undo; the last state stays when there is nothing to redo."""
        self.position = min(self.position + 1, len(self.states) - 1)
        return self.current
