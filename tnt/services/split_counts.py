"""Splits measured on a two-feature problem for the Teach page's sentences: TnT's, the reduced
graph's, and how many splits CART grown best-first needs to classify the training data as well."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnt.baselines import CARTClassifier
from tnt.estimator import TnTClassifier
from tnt.reduction import reduce_model

__all__ = ["SplitCounts", "measure_splits", "splits_sentence"]


@dataclass(frozen=True)
class SplitCounts:
    """What :func:`measure_splits` measured on one data set.

    Attributes
    ----------
    tnt_splits, reduced_splits : int
        Splits of TnT and of TnT after graph reduction (same predictions, so same accuracy).
    tnt_accuracy : float
        TnT's training accuracy.
    cart_splits : int
        Fewest splits with which CART, grown best-first, is right on at least as many training
        samples as TnT (0 when TnT has none).
    cart_accuracy : float
        That CART's training accuracy.
    C : float
        TnT's C.
    """

    tnt_splits: int
    reduced_splits: int
    tnt_accuracy: float
    cart_splits: int
    cart_accuracy: float
    C: float


def measure_splits(X, y, *, C: float = 1e-2, seed: int = 0) -> SplitCounts:
    """Train TnT, reduce its graph, and grow CART best-first until it classifies the training data as well.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    C : float, default=1e-2
        TnT's regularisation (cost of a split).
    seed : int, default=0
        ``random_state`` of both learners.

    Returns
    -------
    counts : SplitCounts

    Examples
    --------
    >>> from tnt.experiments.toy import corners
    >>> from tnt.services.split_counts import measure_splits
    >>> X, y = corners(seed=0)
    >>> m = measure_splits(X, y, C=1e-2, seed=0)
    >>> m.tnt_splits, m.reduced_splits, m.cart_splits, m.tnt_accuracy
    (6, 4, 6, 1.0)
    """
    y = np.asarray(y)
    tnt = TnTClassifier(C=C, random_state=seed).fit(X, y)
    reduced = reduce_model(tnt, X, y)
    right = int(np.sum(tnt.predict(X) == y))
    cart_splits, cart_right = 0, right
    if tnt.n_splits_:
        # Counts are tried in order, so the first that reaches TnT's is the fewest; a tree with fewer
        # splits than asked for has stopped growing (pure leaves) and cannot do better.
        for splits in range(1, len(y)):
            cart = CARTClassifier.with_splits(splits, random_state=seed).fit(X, y)
            cart_splits, cart_right = cart.n_splits_, int(np.sum(cart.predict(X) == y))
            if cart_right >= right or cart.n_splits_ < splits:
                break
    return SplitCounts(
        tnt_splits=int(tnt.n_splits_),
        reduced_splits=int(reduced.n_splits_),
        tnt_accuracy=right / len(y),
        cart_splits=int(cart_splits),
        cart_accuracy=cart_right / len(y),
        C=float(C),
    )


def splits_sentence(counts: SplitCounts) -> str:
    """The measured splits in one or two sentences, saying so when TnT finds nothing.

    Examples
    --------
    >>> from tnt.services.split_counts import SplitCounts, splits_sentence
    >>> print(splits_sentence(SplitCounts(6, 4, 1.0, 8, 1.0, 0.01)))
    Measured at C=0.01: TnT uses 6 splits (training accuracy 1.000), 4 after graph reduction; CART needs 8 splits to do as well (1.000).
    >>> print(splits_sentence(SplitCounts(0, 0, 0.52, 0, 0.52, 0.01)))
    Measured at C=0.01: TnT finds nothing: it keeps no split and predicts one class everywhere (training accuracy 0.520), so there is no graph to compare with a tree.
    """
    at = f"Measured at C={counts.C:g}: "
    if counts.tnt_splits == 0:
        return (
            at + "TnT finds nothing: it keeps no split and predicts one class everywhere "
            f"(training accuracy {counts.tnt_accuracy:.3f}), so there is no graph to compare with a tree."
        )
    if counts.reduced_splits < counts.tnt_splits:
        reduced = f"{counts.reduced_splits} after graph reduction"
    else:
        reduced = "graph reduction saves no split"
    if counts.cart_accuracy + 1e-12 < counts.tnt_accuracy:
        cart = f"CART reaches only {counts.cart_accuracy:.3f} even with {counts.cart_splits} splits"
    else:
        cart = f"CART needs {_splits(counts.cart_splits)} to do as well ({counts.cart_accuracy:.3f})"
    return (
        at + f"TnT uses {_splits(counts.tnt_splits)} (training accuracy {counts.tnt_accuracy:.3f}), {reduced}; {cart}."
    )


def _splits(n: int) -> str:
    return f"{n} split" if n == 1 else f"{n} splits"
