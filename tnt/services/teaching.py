"""Training replayed for a step-through: the graph after every grow pass and every merge, and in
words what each step did and why."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tnt._base import DTYPE, graph_from_flat
from tnt.baselines import CARTClassifier
from tnt.estimator import TnTClassifier
from tnt.experiments.toy import four_split_graph
from tnt.graph import DecisionGraph
from tnt.reduction import reduce_model
from tnt.wording import condition_text

__all__ = ["TrainingStep", "teaching_models", "training_accuracy", "training_snapshots", "training_steps"]

#: Micro trees and dead splits listed by name in a step's reasons; the rest are counted.
MAX_LISTED = 6


@dataclass(frozen=True)
class TrainingStep:
    """One step of Algorithm 2 replayed: the graph after it and what it did, in words.

    Attributes
    ----------
    label : str
        Where in training, such as ``"phase 1, grow pass 2 of 5: 6 splits"``.
    graph : DecisionGraph
        The graph after the step, with the training statistics.
    train_accuracy : float
        Its accuracy on the training data.
    reasons : list of str
        Sentences: which nodes got micro trees and on how many (sensitive) samples, which splits
        became dead and were removed, and how the splits and the training accuracy changed.
    """

    label: str
    graph: DecisionGraph
    train_accuracy: float
    reasons: list = field(default_factory=list)


def training_steps(X, y, feature_names=None, **params) -> list[TrainingStep]:
    """Train TnT and replay it step by step, each step with the reasons for what changed.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    feature_names : sequence of str, default=None
        Names for the rules of dead splits (``x[i]`` when omitted).
    **params
        Parameters of :class:`tnt.TnTClassifier`.

    Returns
    -------
    steps : list of TrainingStep
        One per grow pass, merge and fine-tuning round, in order; the last graph is the model's.
        Node ids in a grow pass's reasons are those of the graph at the start of its phase (the
        previous merge's graph; phase 1 starts from the single leaf #0).

    Examples
    --------
    >>> from tnt.services.teaching import training_steps
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> steps = training_steps(X, y, C=1e-2, N1=2, N2=2, random_state=0)
    >>> print(steps[0].reasons[0])
    Leaf #0 (2,000 samples) grew a micro tree of 6 splits on the class labels.
    """
    model = TnTClassifier(**params)
    events = []

    def keep(event) -> None:  # the steps of the graph the model keeps, not a held-out trial's
        if event.kind != "trial":
            events.append((event, event.snapshot()))

    model.fit(X, y, progress_callback=keep)
    Xv = np.ascontiguousarray(model._validate_X_predict(X), dtype=DTYPE)
    y_idx = np.searchsorted(model.classes_, np.asarray(y))
    n_features = Xv.shape[1]
    names = [f"x[{i}]" for i in range(n_features)] if feature_names is None else [str(f) for f in feature_names]
    per_phase = int(model.N2)
    before_splits, before_accuracy = 0, float(np.mean(y_idx == np.bincount(y_idx).argmax()))
    steps = []
    previous = None
    for event, flat in events:
        graph = graph_from_flat(
            flat, Xv, y_idx, None, model.n_classes_, missing_in_training=model.graph_.missing_in_training
        )
        accuracy = training_accuracy(graph, Xv, y_idx)
        if event.kind == "grow":
            where = f"phase {event.phase}, grow pass {(event.step - 1) % (per_phase + 1) + 1} of {per_phase}"
        elif event.kind == "merge":
            where = f"phase {event.phase}, merge"
        else:
            where = f"fine-tuning round {event.step - model.N1 * (per_phase + 1)}"
        same = bool(steps) and graph == steps[-1].graph
        reasons = _what_happened(event, names, previous, event.phase == model.N1, same)
        previous = event.details if event.kind == "grow" else None
        reasons.append(_change(before_splits, graph.n_splits, before_accuracy, accuracy))
        steps.append(TrainingStep(f"{where}: {graph.n_splits} splits", graph, accuracy, reasons))
        before_splits, before_accuracy = graph.n_splits, accuracy
    return steps


def _what_happened(event, names, previous, last_phase: bool, same_graph: bool) -> list[str]:
    """Sentences for one step, from its :attr:`GrowthEvent.details` (``previous``: the details of
    the grow pass before it in the same phase, or None; ``same_graph``: the graph is the previous step's)."""
    details = event.details or {}
    if event.kind == "grow":
        records = details.get("micro_trees", [])
        if same_graph and previous is not None and previous.get("micro_trees") == records:
            return [
                "Every node received as many samples as in the previous pass and got a micro tree of the "
                "same size: the graph is the same as after that pass."
            ]
        return _grow_reasons(records, details.get("dead", []))
    if event.kind == "merge":
        out = [
            "The phase ends: the micro trees become part of the graph, numbered anew"
            + ("." if last_phase else "; the next phase grows micro trees in all of its nodes.")
        ]
        dead = details.get("dead", [])
        if dead:
            listed = "; ".join(
                f"{_dead_test(names[f], t)} (all {n:,} samples go {'yes' if side == 'left' else 'no'})"
                for f, t, n, side in dead[:MAX_LISTED]
            )
            more = f", and {len(dead) - MAX_LISTED} more" if len(dead) > MAX_LISTED else ""
            out.append(f"Removed as dead, since every training sample reaching them goes the same way: {listed}{more}.")
        else:
            out.append("No split was dead: nothing removed.")
        return out
    return [
        "Each split is refitted as a single test on its sensitive samples (kept only if it misroutes no "
        "more of them) and each leaf takes its samples' majority class."
    ]


def _dead_test(name: str, threshold: float) -> str:
    """A dead split's test: its threshold, or for a categorical split (threshold NaN; the event
    does not carry its subset) the feature whose categories it tests."""
    return f"a test of {name}'s categories" if np.isnan(threshold) else condition_text(name, threshold)


def _grow_reasons(records, dead) -> list[str]:
    out = []
    grown = sorted((m for m in records if m[4] and (m[1] or m[3])), key=lambda m: (-m[4], m[0]))
    for node, was_leaf, samples, sensitive, splits in grown[:MAX_LISTED]:
        if was_leaf:
            out.append(
                f"Leaf #{node} ({samples:,} samples) grew a micro tree of {_count(splits, 'split')} on the "
                "class labels."
            )
        else:
            first = not any(line.startswith("Split #") for line in out)
            out.append(
                f"Split #{node} ({samples:,} samples) was refitted as a micro tree of {_count(splits, 'split')} "
                f"on its {sensitive:,} sensitive samples"
                + (" (those that only one of its two children classifies right)." if first else ".")
            )
    if len(grown) > MAX_LISTED:
        rest = grown[MAX_LISTED:]
        out.append(f"{len(rest)} more nodes got micro trees ({_count(sum(m[4] for m in rest), 'split')} in all).")
    leaves = [m[0] for m in records if m[1] and not m[4]]
    if leaves:
        out.append(
            f"{_count(len(leaves), 'leaf', 'leaves')} ({_ids(leaves)}) stayed as they were: no split of "
            "their samples pays for itself at this C."
        )
    bypassed = [m for m in records if not m[1] and m[3] and not m[4]]
    for node, _, samples, sensitive, _ in bypassed[:MAX_LISTED]:
        out.append(
            f"Split #{node}'s micro tree on its {_count(sensitive, 'sensitive sample')} kept no split: all "
            f"its {_count(samples, 'sample')} now go to one child, and the split is bypassed."
        )
    kept = [m[0] for m in records if not m[1] and m[3] == 0]
    if kept:
        out.append(
            f"{_count(len(kept), 'split')} ({_ids(kept)}) had no sensitive sample: both children "
            "classify their samples equally well, so they keep their test."
        )
    if dead:
        out.append(
            f"{_count(len(dead), 'split')} now send every training sample the same way (dead): they are "
            "not counted, and the merge removes them."
        )
    return out


def _change(splits_before, splits_after, accuracy_before, accuracy_after) -> str:
    if splits_after == splits_before:
        splits = f"Splits unchanged at {splits_after}"
    else:
        splits = f"Splits {splits_before} to {splits_after} ({splits_after - splits_before:+d})"
    if abs(accuracy_after - accuracy_before) < 5e-5:
        return f"{splits}; training accuracy unchanged at {accuracy_after:.4f}."
    return f"{splits}; training accuracy {accuracy_before:.4f} to {accuracy_after:.4f}."


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _ids(nodes, limit: int = 8) -> str:
    shown = ", ".join(f"#{n}" for n in nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


def training_snapshots(X, y, **params) -> list[tuple[str, DecisionGraph]]:
    """Train TnT and keep the graph after each step of Algorithm 2.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    **params
        Parameters of :class:`tnt.TnTClassifier` (``C``, ``N1``, ``N2``, ``fine_tune``,
        ``random_state``).

    Returns
    -------
    snapshots : list of (str, DecisionGraph)
        A label such as ``"phase 1, grow pass 2 of 5: 6 splits"`` and the graph at that moment,
        with the training statistics of ``(X, y)``; one per grow pass, merge and fine-tuning
        round, in order. The last one is the fitted model's graph.

    Examples
    --------
    >>> from tnt.services.teaching import training_snapshots
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> steps = training_snapshots(X, y, C=1e-2, N1=2, N2=2, random_state=0)
    >>> len(steps), steps[-1][0]
    (6, 'phase 2, merge: 6 splits')
    """
    return [(step.label, step.graph) for step in training_steps(X, y, **params)]


def teaching_models(X, y, *, C: float = 1e-2, seed: int = 0, corners: bool = True) -> dict:
    """The models of the Teach page on two-feature data: CART, TnT and TnT after graph reduction,
    and on the corners problem the paper's hand-built four-split graph (Fig. 2c).

    CART is grown best-first to TnT's number of splits.

    Returns
    -------
    models : dict
        ``{name: fitted classifier or DecisionGraph}``, in display order.

    Examples
    --------
    >>> from tnt.services.teaching import teaching_models, training_accuracy
    >>> from tnt.experiments.toy import corners
    >>> X, y = corners(seed=0)
    >>> models = teaching_models(X, y, C=1e-2, seed=0)
    >>> {name: (m.n_splits if hasattr(m, "n_splits") else m.n_splits_) for name, m in models.items()}
    {'CART': 6, 'TnT': 6, "The paper's graph (Fig. 2c)": 4, 'TnT after graph reduction': 4}
    >>> training_accuracy(models["The paper's graph (Fig. 2c)"], X, y)
    1.0
    """
    tnt = TnTClassifier(C=C, random_state=seed).fit(X, y)
    models = {
        "CART": CARTClassifier.with_splits(tnt.n_splits_, random_state=seed).fit(X, y),
        "TnT": tnt,
    }
    if corners:
        models["The paper's graph (Fig. 2c)"] = four_split_graph(X, y)
    models["TnT after graph reduction"] = reduce_model(tnt, X, y)
    return models


def training_accuracy(model, X, y) -> float:
    """Accuracy on ``(X, y)`` of a fitted classifier or of a bare DecisionGraph (classes 0..k-1).

    Examples
    --------
    >>> from tnt.services.teaching import training_accuracy
    >>> from tnt.experiments.toy import corners, four_split_graph
    >>> X, y = corners(seed=1)
    >>> training_accuracy(four_split_graph(X, y, low=0.5), X, y) < 1.0
    True
    """
    if isinstance(model, DecisionGraph):
        return float(np.mean(model.leaf_class()[model.apply(X)] == np.asarray(y)))
    return float(model.score(X, y))
