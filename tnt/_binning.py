"""Feature binning done once per fit, so that micro trees are grown from small integer codes.

Every feature's distinct training values are numbered in increasing order. When a feature has at
most ``MAX_EXACT_BINS`` distinct values (pixels, counts, most tabular data) the codes are exact and
the micro trees choose exactly the thresholds scikit-learn's CART would: the midpoint of two
consecutive values present in the node. Only a feature with more distinct values than that is
quantised into ``MAX_EXACT_BINS`` quantile bins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_EXACT_BINS = 65535


@dataclass(frozen=True)
class BinnedData:
    """Codes of a float32 training matrix and, per bin, the smallest and largest value in it.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_features), uint8 or uint16
        Sample-major, so a micro tree gathers each of its samples' codes from one contiguous row.
    bin_min, bin_max : ndarray of shape (n_features, max_bins), float32
        Smallest and largest training value falling in each bin.
    n_bins : ndarray of shape (n_features,)
    """

    codes: np.ndarray
    bin_min: np.ndarray
    bin_max: np.ndarray
    n_bins: np.ndarray


def bin_features(X: np.ndarray, max_bins: int = MAX_EXACT_BINS) -> BinnedData:
    """Number the distinct values of each column of ``X`` (float32, shape (n_samples, n_features))."""
    columns = np.ascontiguousarray(X.T)
    ordered = np.sort(columns, axis=1)
    n_features, n_samples = columns.shape
    distinct = []
    for f in range(n_features):
        s = ordered[f]
        keep = np.empty(n_samples, dtype=bool)
        keep[:1] = True
        np.not_equal(s[1:], s[:-1], out=keep[1:])
        distinct.append(s[keep])
    widest = max((min(d.size, max_bins) for d in distinct), default=1)
    dtype = np.uint8 if widest <= 256 else np.uint16
    codes = np.empty((n_samples, n_features), dtype=dtype)
    bin_min = np.zeros((n_features, max(widest, 1)), dtype=np.float32)
    bin_max = np.zeros_like(bin_min)
    n_bins = np.empty(n_features, dtype=np.intp)
    for f, values in enumerate(distinct):
        if values.size <= max_bins:
            codes[:, f] = np.searchsorted(values, columns[f])
            bin_min[f, : values.size] = values
            bin_max[f, : values.size] = values
            n_bins[f] = values.size
        else:
            # Quantile bins over the sorted column; each bin's upper edge is a value it contains.
            positions = np.linspace(0, n_samples - 1, max_bins + 1)[1:].astype(np.intp)
            upper = np.unique(ordered[f][positions])
            code = np.searchsorted(upper, columns[f], side="left")
            codes[:, f] = code
            n = upper.size
            lows = np.full(n, np.inf, dtype=np.float32)
            np.minimum.at(lows, code, columns[f])
            bin_min[f, :n] = lows
            bin_max[f, :n] = upper
            n_bins[f] = n
    return BinnedData(codes=codes, bin_min=bin_min, bin_max=bin_max, n_bins=n_bins)
