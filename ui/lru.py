"""A least-recently-used store: the one rule for how many finished things a session keeps."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class LRUStore(OrderedDict):
    """At most ``limit`` values by key; :meth:`get` and :meth:`put` make a key the most recent, and
    the least recently used value is dropped when a new one does not fit. Otherwise an ordinary
    ordered dictionary, oldest first.

    Examples
    --------
    >>> store = LRUStore(limit=2)
    >>> store.put("a", 1); store.put("b", 2); store.get("a"); store.put("c", 3)
    1
    >>> list(store), store.latest()
    (['a', 'c'], 3)
    """

    def __init__(self, limit: int, items=()):
        super().__init__(items)
        self.limit = int(limit)

    def copy(self) -> LRUStore:
        return LRUStore(self.limit, self)

    def get(self, key: Hashable, default=None):
        """The value of ``key`` (now the most recent), or ``default``."""
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def put(self, key: Hashable, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]):
        """The value of ``key``, computed by ``compute()`` and kept if it is not there yet."""
        if key not in self:
            self.put(key, compute())
        return self.get(key)

    def latest(self):
        """The most recently used value, or None if the store is empty."""
        return next(reversed(self.values())) if self else None
