"""The columns by which a graph being trained routes its categorical splits.

A categorical split (:mod:`tnt.categorical`) sends a subset of its feature's category codes left.
The routing kernels of training (:mod:`tnt.learn.routing`, :mod:`tnt.learn.wave_routing`,
:mod:`tnt.learn.graph_pruning`) read one value per node, ``x[feature] <= threshold``; so, as a
:class:`tnt.graph.DecisionGraph` does for prediction, every distinct categorical test (a feature and
a subset) of the graph being trained reads a column of its own, appended to the training matrix:
0 where the sample's category goes left, 1 where it goes right, NaN where its value is missing (the
split's direction for missing values then decides), and the split becomes the threshold 0.5 on that
column. Every walk of training then honours the subsets unchanged.

A categorical split is recognised by its threshold: NaN, which no numeric split has.
"""

from __future__ import annotations

import threading

import numpy as np

from tnt.categorical import read_codes, subset_table

__all__ = ["CategoryColumns", "routable"]

#: The threshold a categorical split has on its test's column (0 goes left, 1 right).
ROUTING_THRESHOLD = 0.5


class CategoryColumns:
    """The training matrix ``X`` widened by one column per categorical test, added as splits that
    need them are installed (:meth:`column`).

    Parameters
    ----------
    X : ndarray of float32, shape (n_samples, n_features)
        The training matrix, categorical columns holding category codes (NaN when missing).
    codes : dict, optional
        Where the integer codes of ``X``'s categorical columns are kept once read, shared by the
        columns of every phase of one fit (each phase makes its own :class:`CategoryColumns`).

    Attributes
    ----------
    matrix : ndarray of float32, shape (n_samples, n_features + capacity)
        ``X`` and the tests' columns (columns beyond the last test are unused). Columns are only
        appended, so a matrix read before a test was added routes every split made before it.
    """

    def __init__(self, X: np.ndarray, codes: dict | None = None):
        self.X = X
        self.n_features = int(X.shape[1])
        self.matrix = X
        self._keys: dict[tuple[int, bytes], int] = {}
        self._tests: list[tuple[int, np.ndarray]] = []
        # Per (feature, codes a subset holds), the feature's codes, a missing value that count.
        self._codes: dict[tuple[int, int], np.ndarray] = {} if codes is None else codes
        # Tests are added from the threads that install micro trees and check refits at once.
        self._lock = threading.Lock()

    @property
    def n_tests(self) -> int:
        return len(self._tests)

    def routed(self, X: np.ndarray) -> np.ndarray:
        """The matrix the walks read for the training matrix ``X`` (this object's own)."""
        if X is not self.X:
            raise ValueError("A graph with categorical splits is trained on one matrix: that of its categories.")
        return self.matrix

    def column(self, feature: int, bits: np.ndarray) -> int:
        """The column of the test "the code of ``feature`` is in the bitset ``bits``", added when new."""
        bits = np.ascontiguousarray(bits, dtype=np.uint64)
        key = (int(feature), bits.tobytes())
        found = self._keys.get(key)
        if found is not None:
            return found
        with self._lock:
            found = self._keys.get(key)  # another thread may have added it meanwhile
            return self._add(key, bits) if found is None else found

    def _add(self, key: tuple[int, bytes], bits: np.ndarray) -> int:
        """Append the column of a new test (under the lock): filled before the matrix holding it is
        published, so that no walk reads it unfilled."""
        feature = key[0]
        k = len(self._tests)
        at = self.n_features + k
        matrix = self.matrix
        if at >= matrix.shape[1]:
            # Unused columns are never read: only the new matrix's copy of the old one is written.
            matrix = np.empty((self.X.shape[0], self.n_features + max(8, 2 * k)), dtype=self.X.dtype)
            matrix[:, : self.matrix.shape[1]] = self.matrix
        n_codes = 64 * bits.shape[0]
        codes = self._codes.get((int(feature), n_codes))
        if codes is None:  # read once a feature: a missing value (or no code) looks up the last entry
            codes = read_codes(self.X[:, feature], n_codes)
            codes[codes < 0] = n_codes
            self._codes[(int(feature), n_codes)] = codes
        side = np.full(n_codes + 1, np.nan, dtype=self.X.dtype)
        side[:n_codes] = ~subset_table(bits, n_codes)  # 0 where the code goes left, 1 where right
        matrix[:, at] = side[codes]
        self.matrix = matrix
        self._tests.append((int(feature), bits.copy()))
        self._keys[key] = at
        return at

    def to_columns(self, feature: np.ndarray, threshold: np.ndarray, category_left) -> tuple[np.ndarray, np.ndarray]:
        """``feature`` and ``threshold`` of nodes (leaves: ``feature < 0``), each categorical split
        (threshold NaN, its subset the row of ``category_left``) made the threshold 0.5 on its test's
        column; copies when there is one."""
        categorical = np.flatnonzero((np.asarray(feature) >= 0) & np.isnan(threshold))
        if categorical.size == 0:
            return feature, threshold
        feature, threshold = np.array(feature, copy=True), np.array(threshold, dtype=np.float64, copy=True)
        for node in categorical.tolist():
            feature[node] = self.column(int(feature[node]), category_left[node])
            threshold[node] = ROUTING_THRESHOLD
        return feature, threshold

    def from_columns(self, feature: np.ndarray, threshold: np.ndarray, n_words: int):
        """The inverse of :meth:`to_columns`: ``(feature, threshold, category_left)``, a split on a
        test's column back on its feature with threshold NaN and its subset in ``category_left``
        (``n_words`` words a row; None when no split reads a test's column)."""
        on_tests = np.flatnonzero(np.asarray(feature) >= self.n_features)
        if on_tests.size == 0:
            return feature, threshold, None
        feature, threshold = np.array(feature, copy=True), np.array(threshold, dtype=np.float64, copy=True)
        category_left = np.zeros((feature.shape[0], n_words), dtype=np.uint64)
        for node in on_tests.tolist():
            f, bits = self._tests[int(feature[node]) - self.n_features]
            feature[node], threshold[node] = f, np.nan
            category_left[node, : bits.shape[0]] = bits[:n_words]
        return feature, threshold, category_left

    def original_feature(self, column: int) -> int:
        """The feature a column of the matrix tests (itself for a column of ``X``)."""
        return int(column) if column < self.n_features else self._tests[int(column) - self.n_features][0]


def routable(X: np.ndarray, codes: dict | None, feature, threshold, category_left):
    """``(matrix, feature, threshold)`` by which the routing kernels (``x[feature] <= threshold``)
    send the rows of ``X`` through nodes whose categorical splits (threshold NaN, subsets in
    ``category_left``) each read a test's column (:meth:`CategoryColumns.to_columns`); ``X`` and the
    arrays as given when ``category_left`` is None."""
    if category_left is None:
        return X, feature, threshold
    columns = CategoryColumns(X, codes)
    feature, threshold = columns.to_columns(feature, threshold, category_left)
    return columns.matrix, feature, threshold
