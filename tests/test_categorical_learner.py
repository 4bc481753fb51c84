"""The categorical learner (issue 52): the micro-tree learner splits a categorical feature into two
subsets of its categories, and TnT with ``N1=1`` is the pure-Python CART of
``tests/categorical_reference.py`` with exact subset splits: the same tree for two classes, for the
squared error, and for more classes with the documented ordering; missing values and categories
never seen in training routed as missing. The estimators read categorical columns by name."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from categorical_reference import _best_split, _node_proxy, cart_leaves, cart_predict, exact_cart
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from tnt import CARTClassifier, CARTRegressor, TAOClassifier, TnTClassifier, TnTRegressor
from tnt.categorical import subset_codes
from tnt.graph import DecisionGraph
from tnt.learn.binning import MAX_EXACT_BINS, bin_features
from tnt.learn.micro_tree import fit_micro_tree, fit_regression_tree

#: Categories of the columns of :func:`_table` (0: numeric).
N_CATEGORIES = [5, 0, 4]
CATEGORICAL = np.array([True, False, True])


def _table(seed: int, n: int = 60, n_classes=2, missing: float = 0.1):
    """Two categorical columns of codes and a numeric one, a share ``missing`` of values missing;
    classes (``n_classes``) or small whole targets (``n_classes`` None: sums are exact)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 5, n), rng.normal(size=n).round(1), rng.integers(0, 4, n)]).astype(np.float32)
    X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, 7, n).astype(np.float64) if n_classes is None else rng.integers(0, n_classes, n)
    return X, y


def _new_rows(seed: int, n: int = 200):
    """Rows with categories never seen in training (codes 5, 6 and 4 of the third column), missing
    values, and numbers between and beyond the training ones."""
    rng = np.random.default_rng(1000 + seed)
    Z = np.column_stack([rng.integers(0, 7, n), rng.normal(size=n).round(2), rng.integers(0, 6, n)]).astype(np.float64)
    Z[rng.random(Z.shape) < 0.15] = np.nan
    return Z.astype(np.float32).astype(np.float64)  # as the models read numbers: float32


def _walk(tree, Z):
    """The leaf of each row in a fitted micro tree, one sample at a time in Python."""
    leaves = []
    for row in Z:
        i = 0
        while tree.children_left[i] >= 0:
            f, v = tree.feature[i], row[tree.feature[i]]
            if CATEGORICAL[f]:
                unseen = np.isnan(v) or not 0 <= v < N_CATEGORIES[f]
                left = tree.missing_left[i] == 1 if unseen else int(v) in subset_codes(tree.category_left[i])
            else:
                left = tree.missing_left[i] == 1 if np.isnan(v) else v <= tree.threshold[i]
            i = tree.children_left[i] if left else tree.children_right[i]
        leaves.append(i)
    return np.array(leaves)


def _fit(X, y, n_classes, alpha=0.0):
    binned = dataclasses.replace(bin_features(X), categorical=CATEGORICAL.astype(np.uint8))
    rows, w = np.arange(X.shape[0]), np.ones(X.shape[0])
    if n_classes is None:
        return fit_regression_tree(binned, np.arange(3), rows, y, w, alpha)
    return fit_micro_tree(binned, np.arange(3), rows, y, w, alpha, n_classes)


@pytest.mark.parametrize("n_classes", [2, 3, 4, None], ids=["two-classes", "three-classes", "four-classes", "squared"])
@pytest.mark.parametrize("seed", range(6))
# A pruning level no split's improvement equals exactly (with 60 unit weights they are multiples of
# simple fractions of 1/60), so that rounding does not decide between equal costs.
@pytest.mark.parametrize("alpha", [0.0, 0.0107])
def test_the_micro_tree_is_the_reference_cart(n_classes, seed, alpha):
    """The learner's tree equals the pure-Python CART scanning the same ordering, node for node:
    the same splits, subsets, directions of missing values and predictions, on the training rows
    and on rows with missing values and unseen categories."""
    X, y = _table(seed, n_classes=n_classes)
    tree = _fit(X, y, n_classes, alpha)
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, n_classes, alpha, search="ordered")
    assert int(np.sum(tree.children_left >= 0)) == sum("left" in node for node in reference)
    # Both number their nodes depth-first, left child first.
    for i, node in enumerate(reference):
        assert (tree.children_left[i] >= 0) == ("left" in node)
        if "left" not in node:
            continue
        assert tree.feature[i] == node["feature"]
        assert bool(tree.missing_left[i]) == node["missing_left"]
        if node["subset"] is None:
            assert tree.threshold[i] == pytest.approx(node["threshold"])
        else:
            assert np.isnan(tree.threshold[i])
            assert set(subset_codes(tree.category_left[i]).tolist()) == set(node["subset"])
    Z = np.vstack([X.astype(np.float64), _new_rows(seed)])
    got = tree.value[_walk(tree, Z)] if n_classes is None else tree.label[_walk(tree, Z)]
    np.testing.assert_allclose(got, cart_predict(reference, Z, N_CATEGORIES))


@pytest.mark.parametrize("n_classes", [2, None], ids=["two-classes", "squared"])
@pytest.mark.parametrize("seed", range(6))
def test_the_ordering_loses_nothing_against_every_subset(n_classes, seed):
    """For two classes and the squared error, at every node of the learner's tree, no subset of
    any categorical feature's categories (searched exhaustively, missing values on either side)
    splits the node's samples better than the split the learner chose (Breiman's ordering is exact)."""
    X, y = _table(seed, n_classes=n_classes)
    tree = _fit(X, y, n_classes)
    leaves_and_paths = {}
    for r, row in enumerate(X.astype(np.float64)):  # the training rows reaching each node
        node = 0
        while True:
            leaves_and_paths.setdefault(node, []).append(r)
            if tree.children_left[node] < 0:
                break
            node = _walk_one(tree, row, node)
    w = np.ones(len(y))
    for node, rows in leaves_and_paths.items():
        if tree.children_left[node] < 0:
            continue
        rows = np.array(rows)
        goes = np.array([_walk_one(tree, X[r].astype(np.float64), node) == tree.children_left[node] for r in rows])
        total = _statistics(y[rows], w[rows], n_classes)
        chosen = _node_proxy(_statistics(y[rows[goes]], w[rows[goes]], n_classes), total, n_classes is None)
        best = _best_split(X[rows], y[rows], w[rows], CATEGORICAL, N_CATEGORIES, n_classes, np.arange(3), "exhaustive")
        assert chosen == pytest.approx(best[0], rel=1e-12)


def _walk_one(tree, row, node):
    """The child of ``node`` that ``row`` goes to in a fitted micro tree."""
    f, v = tree.feature[node], row[tree.feature[node]]
    if np.isnan(v):
        left = tree.missing_left[node] == 1
    elif CATEGORICAL[f]:
        left = int(v) in subset_codes(tree.category_left[node])
    else:
        left = v <= tree.threshold[node]
    return tree.children_left[node] if left else tree.children_right[node]


def _statistics(y, w, n_classes):
    if n_classes is None:
        return np.array([np.sum(w), np.sum(w * y)])
    return np.bincount(y, w, minlength=n_classes).astype(np.float64)


COLOURS = np.array(["blue", "green", "red", "teal", "violet"], dtype=object)
SHAPES = np.array(["disc", "ring", "square", "star"], dtype=object)


def _named(X):
    """The table of :func:`_table` with its categorical columns by name (None where missing)."""

    def names(column, table):
        return [None if np.isnan(v) else table[int(v)] for v in column]

    return pd.DataFrame({"colour": names(X[:, 0], COLOURS), "size": X[:, 1], "shape": names(X[:, 2], SHAPES)})


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_tnt_n1_is_the_reference_cart_by_name(n_classes, seed):
    """TnT with N1=1 on a table of names: the reference CART (on the codes, categories in sorted
    order) predicts as it does, on training rows and on rows with missing values and names never
    seen in training ('indigo', 'hexagon')."""
    X, y = _table(seed, n_classes=n_classes)
    C = 0.0043
    model = TnTClassifier(N1=1, ccp_alpha=0.0, C=C, random_state=0, categorical_features=["colour", "shape"])
    model.fit(_named(X), y)
    order = np.random.RandomState(0).permutation(3)  # the learner's order of features
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, n_classes, C, order, search="ordered")
    assert model.n_splits_ == sum("left" in node for node in reference)
    assert model.categories_[0].tolist() == COLOURS.tolist() and model.categories_[1] is None
    assert model.categories_[2].tolist() == SHAPES.tolist()
    Z = _new_rows(seed)
    table = pd.DataFrame(
        {
            "colour": [None if np.isnan(v) else np.append(COLOURS, ["indigo", "olive"])[int(v)] for v in Z[:, 0]],
            "size": Z[:, 1],
            "shape": [None if np.isnan(v) else np.append(SHAPES, ["hexagon", "oval"])[int(v)] for v in Z[:, 2]],
        }
    )
    np.testing.assert_array_equal(model.predict(_named(X)), cart_predict(reference, X, N_CATEGORIES))
    np.testing.assert_array_equal(model.predict(table), cart_predict(reference, Z, N_CATEGORIES))


@pytest.mark.parametrize("seed", range(4))
def test_tnt_regressor_n1_is_the_reference_cart(seed):
    """TnTRegressor with N1=1 grows the reference CART on the standardised targets (here the
    targets themselves); its leaves predict the mean training target of the reference's leaves."""
    X, _ = _table(seed, n_classes=None)
    # Whole targets of mean 0 and variance 1: standardising leaves them as they are, and every sum
    # is exact, so that equal splits tie exactly in both.
    y = np.random.default_rng(seed).permutation(np.repeat([-2.0, -1.0, 0.0, 1.0, 2.0], [5, 10, 30, 10, 5]))
    model = TnTRegressor(N1=1, ccp_alpha=0.0, C=0.0021, random_state=0, categorical_features=[0, 2]).fit(X, y)
    order = np.random.RandomState(0).permutation(3)
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, None, 0.0021, order, "ordered")
    assert model.n_splits_ == sum("left" in node for node in reference)
    Z = np.vstack([X.astype(np.float64), _new_rows(seed)])
    expected = [y[reference[i]["rows"]].mean() for i in cart_leaves(reference, Z, N_CATEGORIES)]
    np.testing.assert_allclose(model.predict(Z), expected)


def test_pandas_categories_are_categorical_by_default():
    """ "from_dtype": a pandas category column is split by subsets and keeps its own categories'
    order; a model fitted on it reads names, whatever the coding of the table predicted."""
    X, y = _table(0)
    table = _named(X).drop(columns="shape")
    table["colour"] = pd.Categorical(table["colour"], categories=["violet", "teal", "red", "green", "blue"])
    events = []
    model = TnTClassifier(N1=1, ccp_alpha=0.0, C=0.0, random_state=0).fit(table, y, progress_callback=events.append)
    # N2=5 grow passes and a merge, each snapshot the graph as it stands (one micro tree at the root).
    assert [(e.kind, e.step, e.total_steps) for e in events] == [("grow", s, 6) for s in range(1, 6)] + [
        ("merge", 6, 6)
    ]
    assert [e.snapshot().n_splits for e in events] == [model.n_splits_] * 6
    assert events[-1].snapshot().category_left is not None
    assert model.categories_[0].tolist() == ["violet", "teal", "red", "green", "blue"]
    assert model.categories_[1] is None
    assert model.graph_.is_categorical.any()
    as_text = table.assign(colour=table["colour"].astype(object))
    np.testing.assert_array_equal(model.predict(as_text), model.predict(table))


def test_numeric_data_is_learned_as_before():
    """Without a categorical column the parameter changes nothing: the same graph, no categories_."""
    X, y = _table(1, missing=0.0)
    plain = TnTClassifier(N1=2, random_state=0, categorical_features=None).fit(X, y)
    default = TnTClassifier(N1=2, random_state=0).fit(X, y)
    assert plain.graph_ == default.graph_
    assert not hasattr(default, "categories_") and default.graph_.categories is None


def test_a_categorical_column_without_a_value_is_refused():
    table = pd.DataFrame({"colour": [None] * 6, "size": np.arange(6.0)})
    with pytest.raises(ValueError, match="Categorical column 'colour' has no value in the training data"):
        TnTClassifier(N1=1, categorical_features=["colour"]).fit(table, [0, 1] * 3)


def test_too_few_bins_for_the_categories_is_refused():
    X, y = _table(0)
    with pytest.raises(ValueError, match="Categorical feature 0 has more categories than max_bins=3"):
        TnTClassifier(N1=1, max_bins=3, categorical_features=[0]).fit(X, y)


@st.composite
def coded_tables(draw):
    """Random category codes (2-6 categories, some never present), NaN among them, a numeric
    column, two or three classes, and rows to predict with unseen codes."""
    n = draw(st.integers(4, 40))
    k = draw(st.integers(2, 6))
    codes = draw(st.lists(st.one_of(st.integers(0, k - 1), st.none()), min_size=n, max_size=n))
    if all(c is None for c in codes):  # a column of missing values only is refused (tested above)
        codes[0] = draw(st.integers(0, k - 1))
    numbers = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, np.nan]), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, draw(st.integers(1, 2))), min_size=n, max_size=n))
    new = draw(st.lists(st.one_of(st.integers(0, k + 2), st.none()), min_size=5, max_size=5))
    column = np.array([np.nan if c is None else c for c in codes], dtype=np.float64)
    return k, np.column_stack([column, numbers]), np.array(y), np.array([np.nan if c is None else c for c in new])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=coded_tables())
def test_random_codes_predict_as_the_reference_and_a_walker(case):
    """Random codes with NaN and unseen categories: TnT with N1=1 predicts as the reference CART
    and as a walk of its own graph, one sample at a time."""
    k, X, y, new = case
    if np.unique(y).size < 2:
        y[0] = 0 if y[0] else 1
    y = np.unique(y, return_inverse=True)[1]  # classes 0..n-1, as the model numbers them
    n_classes = int(y.max()) + 1
    # Codes given as integers: the model's categories are the codes present, in order.
    model = TnTClassifier(N1=1, ccp_alpha=0.0, C=0.0, random_state=0, categorical_features=[0]).fit(X, y)
    present = model.categories_[0].astype(np.float64)
    recoded = X.copy()
    recoded[:, 0] = [np.nan if np.isnan(v) else float(np.searchsorted(present, v)) for v in X[:, 0]]
    order = np.random.RandomState(0).permutation(2)
    reference = exact_cart(
        recoded, y, np.ones(len(y)), [True, False], [present.size, 0], n_classes, 0.0, order, "ordered"
    )
    rows = np.vstack([X, np.column_stack([new, np.linspace(-1, 3, new.size)])])
    rows_recoded = rows.copy()
    rows_recoded[:, 0] = [
        np.searchsorted(present, v) if not np.isnan(v) and v in present else np.nan for v in rows[:, 0]
    ]
    predicted = model.predict(rows)
    np.testing.assert_array_equal(predicted, model.classes_[cart_predict(reference, rows_recoded, [present.size, 0])])
    graph = model.graph_
    for coded, label in zip(rows_recoded, predicted):
        node = 0
        while graph.children_left[node] >= 0:
            f = graph.feature[node]
            v = coded[f]
            if np.isnan(v):
                left = bool(graph.missing_go_to_left[node])
            elif graph.tests_categories(node):
                left = int(v) in graph.left_categories(node)
            else:
                left = v <= graph.threshold[node]
            node = graph.children_left[node] if left else graph.children_right[node]
        assert model.classes_[np.argmax(graph.value[node])] == label


@pytest.mark.parametrize("seed", range(3))
def test_cart_baselines_learn_subsets_on_the_projects_learner(seed):
    """CARTClassifier and CARTRegressor with a categorical column grow the reference CART (pruned
    at ``ccp_alpha``), on the project's own learner, and read names at prediction."""
    X, y = _table(seed, n_classes=2)
    table = _named(X)
    order = np.random.RandomState(0).permutation(3)
    cart = CARTClassifier(ccp_alpha=0.0041, random_state=0, categorical_features=["colour", "shape"]).fit(table, y)
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, 2, 0.0041, order, "ordered")
    assert cart.n_splits_ == sum("left" in node for node in reference)
    assert cart.graph_.is_categorical.any()
    np.testing.assert_array_equal(cart.predict(table), cart_predict(reference, X, N_CATEGORIES))
    X, y = _table(seed, n_classes=None)
    regressor = CARTRegressor(ccp_alpha=0.0517, random_state=0, categorical_features=[0, 2]).fit(X, y)
    reference = exact_cart(X, y, np.ones(len(y)), CATEGORICAL, N_CATEGORIES, None, 0.0517, order, "ordered")
    Z = np.vstack([X.astype(np.float64), _new_rows(seed)])
    np.testing.assert_allclose(regressor.predict(Z), cart_predict(reference, Z, N_CATEGORIES))


@pytest.mark.parametrize("n_splits", [1, 3, 6, 10])
def test_best_first_on_the_projects_learner_is_scikit_learns(n_splits):
    """The best-first tree the CART baselines take from the project's learner (for categorical
    data) is scikit-learn's ``max_leaf_nodes`` tree: checked on iris, without categories."""
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    model = CARTClassifier.with_splits(n_splits, random_state=0)
    problem = dataclasses.replace(
        model._training_problem(X, y, None, MAX_EXACT_BINS), categorical=np.zeros(4, dtype=bool)
    )
    model._category_coding = None
    flat = model._own_tree(problem, problem.y, 3)
    sklearn_tree = DecisionTreeClassifier(max_leaf_nodes=n_splits + 1, random_state=0).fit(X, y)
    assert flat.n_splits == sklearn_tree.tree_.node_count // 2
    graph = DecisionGraph(
        flat.children_left, flat.children_right, flat.feature, flat.threshold, np.zeros((flat.node_count, 1)),
        missing_go_to_left=flat.missing_go_to_left,
    )  # fmt: skip
    np.testing.assert_array_equal(flat.label[graph.apply(X.astype(np.float32))], sklearn_tree.predict(X))


def test_cart_with_splits_and_tao_with_categories():
    X, y = _table(0, n=120, n_classes=2)
    cart = CARTClassifier.with_splits(5, random_state=0, categorical_features=[0, 2]).fit(X, y)
    assert cart.n_splits_ == 5
    cart = CARTClassifier.with_splits(7, random_state=0, categorical_features=[0, 2]).fit(X, y)
    tao = TAOClassifier(max_leaf_nodes=8, fine_tune=3, random_state=0, categorical_features=[0, 2]).fit(X, y)
    # Fine-tuning keeps the tree's structure and misclassifies no more training samples.
    assert tao.n_splits_ <= cart.n_splits_ and tao.score(X, y) >= cart.score(X, y)


@pytest.mark.skipif(
    "categorical_features" not in DecisionTreeClassifier().get_params(),
    reason="the installed scikit-learn's DecisionTreeClassifier has no categorical_features (PR #33354)",
)
@pytest.mark.parametrize("seed", range(3))
def test_same_as_scikit_learns_categorical_trees(seed):
    """Where scikit-learn's trees split categories (two classes, squared error, no missing value in
    a categorical column), TnT with N1=1 and CART predict as they do."""
    from sklearn.tree import DecisionTreeRegressor

    X, y = _table(seed, n_classes=2, missing=0.0)
    mask = CATEGORICAL.tolist()
    ours = TnTClassifier(N1=1, ccp_alpha=0.0, C=0.0, random_state=0, categorical_features=mask).fit(X, y)
    theirs = DecisionTreeClassifier(random_state=0, categorical_features=mask).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.n_splits_ == theirs.tree_.node_count // 2
    X, y = _table(seed, n_classes=None, missing=0.0)
    ours = CARTRegressor(random_state=0, categorical_features=mask).fit(X, y)
    theirs = DecisionTreeRegressor(random_state=0, categorical_features=mask).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X))


def test_a_learned_model_saves_and_exports_by_name(tmp_path):
    """A model that learned subsets is saved in a version 3 file that predicts the same by name,
    and its Python module and SQL query predict as it does, unseen names and missing values too."""
    from test_codegen import run_python, run_sql

    from tnt.codegen import to_python, to_sql
    from tnt.model_io import model_from_json, model_to_json

    X, y = _table(2, n=120, n_classes=3)
    table = _named(X)
    model = TnTClassifier(N1=1, ccp_alpha=0.0, C=0.002, random_state=0, categorical_features=["colour", "shape"]).fit(
        table, y
    )
    assert model.graph_.is_categorical.sum() >= 2
    new = _named(_new_rows(2, 60).clip(max=[4, np.inf, 3]))
    new.loc[::7, "colour"] = "indigo"
    expected = model.predict(new)
    loaded = model_from_json(model_to_json(model))
    assert [None if c is None else c.tolist() for c in loaded.categories_] == [
        None if c is None else c.tolist() for c in model.categories_
    ]
    np.testing.assert_array_equal(loaded.predict(new), expected)
    values = new.astype(object).where(new.notna(), None).to_numpy(dtype=object)
    predicted, _, _ = run_python(to_python(model), values, tmp_path)
    np.testing.assert_array_equal(np.asarray(predicted, dtype=expected.dtype), expected)
    sql = run_sql(to_sql(model), values, list(new.columns))
    np.testing.assert_array_equal(np.asarray(sql, dtype=expected.dtype), expected)
