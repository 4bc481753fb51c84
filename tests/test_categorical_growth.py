"""TnT with categorical features beyond ``N1=1`` (issue 52): the internal nodes' micro trees, the
merges, fine-tuning, the held-out options and pruning all route and learn subsets of categories; so
do the naive decision graph (NDG) and TAO (CART fine-tuned).

References, none of them the learner: a graph trained on a column of two categories is the graph
trained on the same column as the numbers 0 and 1 (the only subset split of two categories is the
threshold 0.5, so every phase must make the same choices, up to the side each split calls left);
a one-sample walker in pure Python, by the graph's definition, gives ``predict`` on rows with
missing values and categories never seen in training; and the learner's routing of its training
samples (by which merges remove the splits that send every sample one way) is the walker's: no
split of a fitted graph sends all the training samples that reach it one way.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt import CARTClassifier, NDGClassifier, TAOClassifier, TnTClassifier, TnTRegressor
from tnt.categorical import subset_codes

SETTINGS = [
    {"N1": 2},
    {"N1": 3, "N2": 3},
    {"N1": 2, "fine_tune": 3},
    {"N1": 2, "internal_refit": "improving"},
    {"N1": 2, "ccp_alpha": 0.004},
    {"N1": 2, "ccp_alpha": "held_out"},
    {"N1": 2, "ccp_alpha": "held_out_regrown"},
    {"N1": 3, "validation_fraction": 0.25},
]
SETTING_IDS = ["N1=2", "N1=3", "fine_tune", "guarded", "ccp_alpha", "held_out", "held_out_regrown", "validation"]


def walk_step(graph, row, node) -> int:
    """The child of internal ``node`` one sample goes to, by the graph's definition, in plain Python."""
    f = int(graph.feature[node])
    value = float(row[f])
    if graph.categories is not None and f in graph.categories:
        known = not np.isnan(value) and value == int(value) and 0 <= value < len(graph.categories[f])
        left = int(value) in set(subset_codes(graph.category_left[node]).tolist()) if known else None
    else:
        left = None if np.isnan(value) else np.float32(value) <= graph.threshold[node]
    if left is None:
        left = graph.missing_go_to_left[node] == 1
    return int(graph.children_left[node] if left else graph.children_right[node])


def walk(graph, row) -> int:
    """The leaf one sample reaches."""
    node = 0
    while graph.children_left[node] >= 0:
        node = walk_step(graph, row, node)
    return node


def edge_counts(graph, X) -> np.ndarray:
    """Per node, the training rows the walker sends left and right."""
    counts = np.zeros((graph.node_count, 2), dtype=np.int64)
    for row in X:
        node = 0
        while graph.children_left[node] >= 0:
            child = walk_step(graph, row, node)
            counts[node, int(child != graph.children_left[node])] += 1
            node = child
    return counts


def coded_table(seed: int, n: int, n_categories: int, n_classes, missing: float):
    """Two columns of category codes and a numeric one, a share ``missing`` of values missing (none
    in the categorical columns when ``missing`` is negative: then in the numeric one only), classes
    or targets that depend on the categories by subsets, and weights all different."""
    rng = np.random.default_rng(seed)
    colour = rng.integers(0, n_categories, n).astype(np.float64)
    shape = rng.integers(0, 3, n).astype(np.float64)
    size = rng.normal(size=n).round(2)
    X = np.column_stack([colour, size, shape])
    if missing > 0:
        X[rng.random(X.shape) < missing] = np.nan
    elif missing < 0:
        X[rng.random(n) < -missing, 1] = np.nan
    chosen = rng.random(n_categories) < 0.5
    signal = chosen[colour.astype(int)] ^ ((size > 0.3) & (shape == 1))
    noisy = signal ^ (rng.random(n) < 0.1)
    if n_classes is None:
        y = noisy + rng.normal(scale=0.3, size=n)
    elif n_classes == 2:
        y = noisy.astype(int)
    else:
        y = np.where(rng.random(n) < 0.2, rng.integers(0, n_classes, n), noisy.astype(int) + (shape == 2))
    return X, y, rng.uniform(0.5, 2.0, n)


def new_rows(seed: int, n_categories: int, n: int = 150):
    """Rows with categories never seen in training (codes beyond the last), missing values, and
    numbers between and beyond the training ones."""
    rng = np.random.default_rng(10_000 + seed)
    Z = np.column_stack([rng.integers(0, n_categories + 2, n), rng.normal(size=n).round(3), rng.integers(0, 4, n)])
    Z = Z.astype(np.float64)
    Z[rng.random(Z.shape) < 0.15] = np.nan
    return Z


@pytest.mark.parametrize("setting", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("task", ["two-classes", "three-classes", "squared"])
def test_a_graph_predicts_as_the_walker_and_has_no_dead_split(setting, task):
    """Every setting of TnT on two categorical columns with missing values: ``predict`` is the
    walker's leaf on training rows and on rows with unseen categories and NaN, the graph splits
    categorical features by subsets, and every split sends training samples both ways."""
    n_classes = {"two-classes": 2, "three-classes": 3, "squared": None}[task]
    checked = 0
    for seed in range(3):
        X, y, w = coded_table(seed, 240, 7, n_classes, missing=0.08)
        estimator = TnTRegressor if n_classes is None else TnTClassifier
        model = estimator(C=2e-3, random_state=seed, categorical_features=[0, 2], **setting)
        model.fit(X, y, sample_weight=w)
        graph = model.graph_
        assert graph.is_categorical.any()
        rows = np.vstack([X, new_rows(seed, 7)])
        leaves = [walk(graph, row) for row in rows]
        if n_classes is None:
            np.testing.assert_allclose(model.predict(rows), graph.value[leaves].ravel(), rtol=1e-12)
        else:
            np.testing.assert_array_equal(model.predict(rows), model.classes_[np.argmax(graph.value[leaves], axis=1)])
        counts = edge_counts(graph, X)
        internal = graph.children_left >= 0
        assert np.all(counts[internal] > 0), "a split sends every training sample one way"
        checked += 1
    assert checked == 3


OTHER_LEARNERS = {
    "NDG": lambda cat: NDGClassifier(C=2e-3, random_state=0, categorical_features=cat),
    "NDG-tree": lambda cat: NDGClassifier(C=2e-3, merge=False, random_state=0, categorical_features=cat),
    "TAO": lambda cat: TAOClassifier(max_leaf_nodes=25, fine_tune=3, random_state=0, categorical_features=cat),
}


def flat_walk(graph, row) -> int:
    """The leaf one sample reaches in a learner's graph (a categorical split: threshold NaN, its
    subset in ``category_left``), in plain Python."""
    node = 0
    while graph.children_left[node] >= 0:
        value = float(row[int(graph.feature[node])])
        if np.isnan(value):
            left = graph.missing_go_to_left[node] == 1
        elif np.isnan(graph.threshold[node]):
            left = int(value) in set(subset_codes(graph.category_left[node]).tolist())
        else:
            left = np.float32(value) <= graph.threshold[node]
        node = int(graph.children_left[node] if left else graph.children_right[node])
    return node


@pytest.mark.parametrize("n_classes", [2, None], ids=["two-classes", "squared"])
def test_the_held_out_part_is_grown_and_scored_with_subset_splits(n_classes):
    """The held-out sizes grow a graph on a part of the rows (a problem made from the whole, whose
    codes its growth computes itself) and score it on the rest: the part's categorical features are
    split by subsets, as when its codes were read before the growth, and the score routes the
    held-out rows as the one-sample walker does."""
    from tnt.learn.growth import grow_graph
    from tnt.learn.selection import _subset, held_out_rows, held_out_score

    X, y, w = coded_table(0, 400, 7, n_classes, missing=0.08)
    estimator = TnTRegressor if n_classes is None else TnTClassifier
    model = estimator(C=2e-3, random_state=0, categorical_features=[0, 2], N1=2).fit(X, y, sample_weight=w)
    targets = y if n_classes is None else np.searchsorted(model.classes_, y)
    problem = model._training_problem(X, targets, w, model._max_bins())
    fit_rows, held_rows = held_out_rows(problem, 0.2, n_classes is not None)
    grown = grow_graph(_subset(problem, fit_rows), 2e-3, 2, 3)
    read_first = _subset(problem, fit_rows)
    assert read_first.binned.categorical is not None
    reference = grow_graph(read_first, 2e-3, 2, 3)
    for name in ("children_left", "children_right", "feature", "threshold", "missing_go_to_left", "category_left"):
        np.testing.assert_array_equal(getattr(grown, name), getattr(reference, name), err_msg=name)
    categorical_splits = (grown.feature >= 0) & np.isnan(grown.threshold)
    assert categorical_splits.sum() >= 2 and grown.n_splits > categorical_splits.sum()
    fit, held = _subset(problem, fit_rows), _subset(problem, held_rows)
    held_leaves = np.array([flat_walk(grown, row) for row in held.X])
    if n_classes is not None:
        expected = np.average(grown.label[held_leaves] == held.y, weights=held.w)
    else:
        fit_leaves = np.array([flat_walk(grown, row) for row in fit.X])
        mean = {
            leaf: np.average(fit.y[fit_leaves == leaf], weights=fit.w[fit_leaves == leaf]) for leaf in set(fit_leaves)
        }
        overall = np.average(fit.y, weights=fit.w)
        predicted = np.array([mean.get(leaf, overall) for leaf in held_leaves])
        expected = -np.average((predicted - held.y) ** 2, weights=held.w)
    assert held_out_score(grown, fit, held, n_classes is not None) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("learner", list(OTHER_LEARNERS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_ndg_and_tao_predict_as_the_walker_and_have_no_dead_split(learner, n_classes):
    """NDG (merges of leaves, splits by subsets) and TAO (a CART with subsets, fine-tuned): as TnT above."""
    checked = 0
    for seed in range(3):
        X, y, w = coded_table(seed, 240, 7, n_classes, missing=0.08)
        model = OTHER_LEARNERS[learner]([0, 2]).fit(X, y, sample_weight=w)
        graph = model.graph_
        assert graph.is_categorical.any()
        rows = np.vstack([X, new_rows(seed, 7)])
        leaves = [walk(graph, row) for row in rows]
        np.testing.assert_array_equal(model.predict(rows), model.classes_[np.argmax(graph.value[leaves], axis=1)])
        internal = graph.children_left >= 0
        assert np.all(edge_counts(graph, X)[internal] > 0), "a split sends every training sample one way"
        checked += 1
    assert checked == 3


@pytest.mark.parametrize("seed", range(4))
def test_ndg_without_merges_is_best_first_cart_with_subsets(seed):
    """NDG without merges at C=0 grows, split by split, the tree best-first CART keeps (the project's
    CART learner grown depth-first, its best-first splits taken afterwards): the same predictions on
    training rows and on rows with unseen categories and NaN, at every number of splits tried."""
    X, y, w = coded_table(seed, 200, 7, 2, missing=0.08)
    rows = np.vstack([X, new_rows(seed, 7)])
    for n_splits in (1, 3, 8, 15):
        ndg = NDGClassifier(C=0.0, merge=False, max_splits=n_splits, random_state=seed, categorical_features=[0, 2])
        cart = CARTClassifier.with_splits(n_splits, random_state=seed, categorical_features=[0, 2])
        ndg.fit(X, y, sample_weight=w)
        cart.fit(X, y, sample_weight=w)
        assert ndg.n_splits_ == cart.n_splits_ == n_splits
        np.testing.assert_array_equal(ndg.predict(rows), cart.predict(rows))


def test_a_subset_rule_is_one_split_in_every_phase():
    """Classes given by a subset of seven categories, without noise: the root's micro tree is that
    one split, and no later phase or fine-tuning round replaces it by splits on the codes."""
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 7, 300)
    table = pd.DataFrame({"colour": np.array(list("abcdefg"))[colour], "size": rng.normal(size=300)})
    y = np.isin(colour, [1, 3, 4]).astype(int)
    for setting in ({"N1": 2}, {"N1": 3, "fine_tune": 2}):
        model = TnTClassifier(C=1e-3, random_state=0, categorical_features=["colour"], **setting).fit(table, y)
        assert model.n_splits_ == 1
        assert sorted(model.graph_.left_categories(0).tolist()) in ([0, 2, 5, 6], [1, 3, 4])
        assert model.score(table, y) == 1.0


@st.composite
def two_category_tables(draw):
    """A column of two categories (codes 0 and 1, both present), a numeric column with missing
    values or without, two or three classes, and weights ``1 + 2**-k`` for distinct ``k``.

    The weights make every sum of some of them exact and different from the sum of any other set:
    two splits that part a node's samples alike then have the same gain to the last bit under
    either coding (so the first feature wins under both: summed in another order, the two codings'
    gains would differ by rounding and break such a tie each its own way), and no leaf holds as
    much weight of one class as of another (a tie the codings would break by the side they call
    left). A regression is left out: its standardised targets make no exact sums."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(12, 40))
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, n)
    codes[:2] = [0, 1]
    numbers = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], n)
    if draw(st.booleans()):
        numbers[rng.random(n) < 0.2] = np.nan
    n_classes = draw(st.sampled_from([2, 3]))
    y = (rng.random(n) < np.where(codes == 1, 0.7, 0.3)).astype(int) + (rng.random(n) < 0.2) * (n_classes - 2)
    weights = 1.0 + np.ldexp(1.0, -1 - rng.permutation(n))
    setting = draw(st.sampled_from(SETTINGS[:5] + ["NDG"]))
    C = draw(st.sampled_from([0.0, 1e-3, 1e-2]))
    return np.column_stack([codes, numbers]), y, weights, setting, C


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=two_category_tables())
def test_two_categories_are_the_threshold_half(case):
    """A column of two categories learned as categories predicts as the same column learned as the
    numbers 0 and 1, through every phase, refit, fine-tuning round and pruning of TnT and NDG's
    splits and merges, on rows of either category with any number, missing included. (TAO is left
    out: on numbers its CART is scikit-learn's tree, which breaks ties between features by a
    permutation of its own.)"""
    X, y, w, setting, C = case
    if np.unique(y).size < 2:
        y[0] = 1 - y[0] if y[0] < 2 else 0
    if setting == "NDG":
        estimator, common = NDGClassifier, {"C": C, "random_state": 0}
    else:
        estimator, common = TnTClassifier, {"C": C, "random_state": 0, **setting}
    as_categories = estimator(categorical_features=[0], **common).fit(X, y, sample_weight=w)
    as_numbers = estimator(categorical_features=None, **common).fit(X, y, sample_weight=w)
    grid = np.array([[c, v] for c in (0.0, 1.0) for v in (-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, np.nan)])
    rows = np.vstack([X, grid])
    assert as_categories.n_splits_ == as_numbers.n_splits_
    np.testing.assert_array_equal(as_categories.predict(rows), as_numbers.predict(rows))


def test_threads_give_the_graph_of_one_thread():
    """Data large enough that the waves' nodes are fitted, and their refits checked (missing
    values: the guard is on), on two threads at once, each adding its tests' columns: the graph is
    the one thread's, node for node."""
    from tnt.learn.growth import THREADED_WORK

    rng = np.random.default_rng(5)
    n, n_numbers = THREADED_WORK // 10 + 1, 8
    colour, shape = rng.integers(0, 12, n), rng.integers(0, 5, n)
    numbers = rng.normal(size=(n, n_numbers)).round(1)
    X = np.column_stack([colour, shape, numbers]).astype(np.float64)
    X[rng.random(X.shape) < 0.05] = np.nan
    chosen = rng.random(12) < 0.5
    y = (chosen[colour] ^ (numbers[:, 0] > 0.5) ^ (shape == 2) ^ (rng.random(n) < 0.1)).astype(int)
    graphs = [
        TnTClassifier(C=3e-4, random_state=0, n_jobs=jobs, categorical_features=[0, 1]).fit(X, y).graph_
        for jobs in (1, 2)
    ]
    assert graphs[0].is_categorical.sum() >= 5
    assert graphs[0] == graphs[1]


@pytest.mark.parametrize("missing", [False, True])
def test_a_classification_pass_fits_categorical_micro_trees_in_batches_as_one_by_one(missing, monkeypatch):
    """Once the warm-up has compiled the batches of categorical codes (``tnt.warmup._categorical_fits``),
    a classification pass fits its micro trees in batches: the graph one call per micro tree gives."""
    from tnt import warmup
    from tnt.learn import growth, micro_tree

    warmup._categorical_fits(4)
    rng = np.random.default_rng(3)
    n = 3000
    colour, size = rng.integers(0, 9, n), rng.integers(0, 40, n)
    X = np.column_stack([colour, size, rng.normal(size=n).round(2)]).astype(np.float64)
    if missing:
        X[rng.random(X.shape) < 0.05] = np.nan
    chosen = rng.random(9) < 0.5
    y = (chosen[colour] ^ (size > 20) ^ (rng.random(n) < 0.1)).astype(int) + (X[:, 2] > 1)
    batches = []
    fit_trees = micro_tree.fit_trees
    monkeypatch.setattr(growth, "fit_trees", lambda *args: batches.append(args[2].size) or fit_trees(*args))
    options = dict(C=3e-4, random_state=0, n_jobs=1, categorical_features=[0], ccp_alpha=0.0)
    batched = TnTClassifier(**options).fit(X, y).graph_
    assert len(batches) >= 10  # the passes fitted in batches
    with growth.one_call_per_micro_tree():
        one_by_one = TnTClassifier(**options).fit(X, y).graph_
    assert batched.is_categorical.sum() >= 3
    assert batched == one_by_one
