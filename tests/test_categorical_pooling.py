"""``min_category_samples``: at a node where a categorical feature has five categories or more, those
with fewer training samples there are ranked as one, so every split sends them the same way. Checked
by a one-sample walker in pure Python that finds each node's training samples, not by the learner."""

import numpy as np
import pytest

from tnt import TnTClassifier, TnTRegressor
from tnt.categorical import subset_codes

#: Categories of very different frequencies: a few common, many rare.
SHARES = np.array([30, 20, 12, 8, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1], dtype=float)


def table(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    colour = rng.choice(SHARES.size, size=n, p=SHARES / SHARES.sum()).astype(float)
    size = rng.normal(size=n)
    size[rng.random(n) < 0.05] = np.nan
    # Each category its own chance of class 1, so that Breiman's ordering tells the rare ones apart.
    chance = rng.random(SHARES.size)
    y = (rng.random(n) < chance[colour.astype(int)]).astype(int) ^ (size > 1.0)
    return np.column_stack([colour, size]), y


def rows_at_nodes(graph, X) -> list[list[int]]:
    """Per node, the training rows that reach it (a one-sample walk each, in pure Python)."""
    reach = [[] for _ in range(graph.node_count)]
    for i, x in enumerate(X.tolist()):
        node = 0
        while True:
            reach[node].append(i)
            if graph.children_left[node] < 0:
                break
            value = x[int(graph.feature[node])]
            if np.isnan(value):
                left = bool(graph.missing_go_to_left[node])
            elif graph.is_categorical[node]:
                left = int(value) in set(subset_codes(graph.category_left[node]).tolist())
            else:
                left = value <= graph.threshold[node]
            node = int(graph.children_left[node] if left else graph.children_right[node])
    return reach


def rare_categories_split_apart(graph, X, fewest: int) -> tuple[int, int]:
    """(categorical splits checked, those that send two categories of fewer than ``fewest`` samples at
    the node different ways, at a node where the feature has five categories or more)."""
    checked = apart = 0
    for node, rows in enumerate(rows_at_nodes(graph, X)):
        if graph.children_left[node] < 0 or not graph.is_categorical[node]:
            continue
        codes, counts = np.unique(X[rows, int(graph.feature[node])], return_counts=True)
        present = ~np.isnan(codes)
        codes, counts = codes[present].astype(int), counts[present]
        rare = codes[counts < fewest]
        if codes.size < 5 or rare.size < 2:
            continue
        checked += 1
        left = set(subset_codes(graph.category_left[node]).tolist())
        apart += len({c in left for c in rare.tolist()}) > 1
    return checked, apart


def test_categories_of_few_samples_go_one_way():
    """With ``N1=1`` and ``C=0`` the graph is one tree, each node fitted on the samples that reach it
    (in later phases a node's micro tree is fitted on its sensitive samples only, which no walk of
    the final graph gives back)."""
    checked = apart_by_breiman = 0
    for seed in range(6):
        X, y = table(seed)
        settings = {"C": 0.0, "ccp_alpha": 0.0, "N1": 1, "random_state": seed, "categorical_features": [0]}
        pooled = TnTClassifier(min_category_samples=8, **settings).fit(X, y)
        n, apart = rare_categories_split_apart(pooled.graph_, X, 8)
        assert apart == 0, f"seed {seed}: a split sends categories of fewer than 8 samples different ways"
        checked += n
        breiman = TnTClassifier(**settings).fit(X, y)
        apart_by_breiman += rare_categories_split_apart(breiman.graph_, X, 8)[1]
    assert checked >= 12  # splits where rare categories were present and the rule could fail
    assert apart_by_breiman >= 20  # Breiman's ordering does split them apart on the same tables


def test_the_regressor_pools_them_too():
    X, y = table(0)
    target = y + np.random.default_rng(0).normal(scale=0.1, size=y.size)
    model = TnTRegressor(C=0.0, ccp_alpha=0.0, N1=1, categorical_features=[0], min_category_samples=8)
    n, apart = rare_categories_split_apart(model.fit(X, target).graph_, X, 8)
    assert n >= 1 and apart == 0


def test_min_category_samples_is_checked_in_one_sentence():
    X, y = table(0, 40)
    with pytest.raises(ValueError, match="min_category_samples"):
        TnTClassifier(categorical_features=[0], min_category_samples=0).fit(X, y)
    with pytest.raises(ValueError, match="min_category_samples"):
        TnTClassifier(categorical_features=[0], min_category_samples=256).fit(X, y)


@pytest.mark.parametrize("name", ["CARTClassifier", "TAOClassifier", "NDGClassifier", "CARTRegressor"])
def test_the_baselines_pool_them_too(name):
    """The baselines that split categories with the project's learner take ``min_category_samples``:
    their tree (NDG's splits of leaves, TAO's tree before fine-tuning rounds that refit it) keeps rare
    categories together where their default, Breiman's ordering, splits them apart."""
    import tnt.baselines
    import tnt.ndg

    estimator = getattr(tnt.baselines, name, None) or getattr(tnt.ndg, name)
    settings = {"random_state": 0, "categorical_features": [0]}
    if name == "TAOClassifier":
        settings["fine_tune"] = 0  # the grown tree; fine-tuning refits splits on sensitive samples
    if name == "NDGClassifier":
        settings.update(C=0.0, merge=False)  # best-first CART: each leaf split on all its samples
    checked = apart = apart_by_breiman = 0
    for seed in range(4):
        X, y = table(seed)
        target = y + np.random.default_rng(seed).normal(scale=0.1, size=y.size) if name == "CARTRegressor" else y
        pooled = estimator(min_category_samples=8, **settings).fit(X, target)
        assert pooled.get_params()["min_category_samples"] == 8
        n, a = rare_categories_split_apart(pooled.graph_, X, 8)
        checked, apart = checked + n, apart + a
        apart_by_breiman += rare_categories_split_apart(estimator(**settings).fit(X, target).graph_, X, 8)[1]
    assert apart == 0
    assert checked >= 4
    assert apart_by_breiman >= 4


def test_cart_fine_tuned_keeps_the_pooling():
    X, y = table(1)
    cart = tnt_baselines().CARTClassifier(random_state=0, categorical_features=[0], min_category_samples=8).fit(X, y)
    assert cart.fine_tuned(X, y, rounds=1).get_params()["min_category_samples"] == 8


def tnt_baselines():
    import tnt.baselines

    return tnt.baselines
