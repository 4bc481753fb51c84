"""A fitted graph model as a dependency-free Python module.

The graph is written as tables (one entry per split, one per leaf) walked by a loop, not as nested
``if`` statements: each node is written once however many parents it has, and a graph hundreds of
levels deep stays within Python's limit on nested blocks.
"""

from __future__ import annotations

import math

from tnt.codegen.walker import code_graph, wrap

__all__ = ["to_python"]


def to_python(estimator, *, feature_names=None) -> str:
    """The source of a Python module predicting as ``estimator`` does, one row at a time.

    The module defines ``FEATURES``, ``CLASSES`` (classifiers), ``predict(row)`` (the class label,
    or for a regressor the value) and, for a classifier, ``predict_proba(row)`` (the class
    probabilities in the order of ``CLASSES``). ``row`` is a sequence of the feature values in the
    order of ``FEATURES``, or a dict of them by name. A categorical feature's value is its category
    by name (``"red"``; ``CATEGORIES`` lists them); a category the model never saw goes as a
    missing value does. It imports nothing.

    Parameters
    ----------
    estimator : fitted graph classifier or regressor (TnT, CART, TAO, NDG or a loaded model file)
    feature_names : sequence of str, default=None
        Names written in ``FEATURES``; the estimator's ``feature_names_in_``, else ``x0``, ``x1``, ...

    Returns
    -------
    source : str

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import TnTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = TnTClassifier(C=1e-2, random_state=0).fit(X, y)
    >>> namespace = {}
    >>> exec(to_python(model), namespace)
    >>> [namespace["predict"](row) for row in X[:3].tolist()] == model.predict(X[:3]).tolist()
    True
    """
    g = code_graph(estimator, feature_names)
    kind = "value" if g.regression else "class label"
    lines = [
        f'"""{g.description}: a decision graph exported by TnT Explorer.',
        "",
        f"predict(row) gives the {kind} of one row"
        + ("." if g.regression else ", predict_proba(row) its class probabilities in the order"),
        *([] if g.regression else ["of CLASSES."]),
        f"row is a sequence of {g.n_features} values in the order of FEATURES, or a dict of them by name.",
        "A split sends a value left when value <= threshold, exactly as the model does (thresholds are",
        "written to round-trip, and where the model rounds inputs to float32 they are the bounds of that",
        "rounding); a missing value (NaN) goes left where _MISSING_LEFT says 1, else right; a threshold of",
        "inf tests missingness.",
        *(
            [
                "A categorical feature's value is its category by name (CATEGORIES); a split on it sends the",
                "categories of _CATEGORY_LEFT left, the others right, and a missing value (None or NaN, in any",
                "feature) or a category the model never saw where _MISSING_LEFT says.",
            ]
            if g.categories
            else []
        ),
        "No imports needed.",
        '"""',
        "",
        *_tuple("FEATURES", [python_literal(name) for name in g.feature_names]),
    ]
    if g.categories:
        lines += ["# Per categorical feature (by index), its categories by name and their codes."]
        lines += ["CATEGORIES = {"]
        for f, names in g.categories.items():
            lines += [
                f"    {f}: {{",
                *wrap([f"{python_literal(n)}: {code}" for code, n in enumerate(names)], "        "),
                "    },",
            ]
        lines += ["}"]
    if not g.regression:
        lines += _tuple("CLASSES", [python_literal(c) for c in g.classes])
    lines += [
        "",
        "# Split s sends a row to _LEFT[s] when row[_FEATURE[s]] <= _THRESHOLD[s] (or is NaN and",
        "# _MISSING_LEFT[s] is 1), else to _RIGHT[s]: another split's id, or leaf k written -1 - k.",
        *_tuple("_FEATURE", [str(f) for f in g.feature]),
        *_tuple("_THRESHOLD", [python_literal(float(t)) for t in g.threshold]),  # nan at a categorical split
        *_tuple("_MISSING_LEFT", [str(int(m)) for m in g.missing_left]),
        *(
            _tuple(
                "_CATEGORY_LEFT",
                ["None" if c is None else "frozenset({" + ", ".join(map(str, c)) + "})" for c in g.category_left],
            )
            if g.categories
            else []
        ),
        *_tuple("_LEFT", [str(c) for c in g.left]),
        *_tuple("_RIGHT", [str(c) for c in g.right]),
    ]
    if g.regression:
        lines += _tuple("_LEAF_VALUE", [python_literal(float(v)) for v in g.leaf_value])
    else:
        lines += _tuple("_LEAF_CLASS", [str(k) for k in g.leaf_class])
        rows = ["(" + ", ".join(python_literal(float(p)) for p in row) + ("," if len(row) == 1 else "") + ")"
                for row in g.leaf_proba]  # fmt: skip
        lines += _tuple("_LEAF_PROBA", rows, one_per_line=True)
    lines += [
        "",
        "",
        "def _leaf(row):",
        "    if isinstance(row, dict):",
        "        row = [row[name] for name in FEATURES]",
        f"    if len(row) != {g.n_features}:",
        f'        raise ValueError(f"row has {{len(row)}} values; the model reads {g.n_features} (see FEATURES).")',
        f"    node = {g.start}",
        "    while node >= 0:",
        "        value = row[_FEATURE[node]]",
        *(
            [
                "        if _CATEGORY_LEFT[node] is not None:",
                "            code = CATEGORIES[_FEATURE[node]].get(value)",
                "            goes_left = _MISSING_LEFT[node] if code is None else code in _CATEGORY_LEFT[node]",
                "        elif value is None or value != value:",
                "            goes_left = _MISSING_LEFT[node]",
                "        else:",
                "            goes_left = value <= _THRESHOLD[node]",
            ]
            if g.categories
            else ["        goes_left = value <= _THRESHOLD[node] or (value != value and _MISSING_LEFT[node])"]
        ),
        "        node = _LEFT[node] if goes_left else _RIGHT[node]",
        "    return -1 - node",
        "",
        "",
        "def predict(row):",
    ]
    if g.regression:
        lines += ['    """The predicted value of one row."""', "    return _LEAF_VALUE[_leaf(row)]"]
    else:
        lines += [
            '    """The predicted class label of one row."""',
            "    return CLASSES[_LEAF_CLASS[_leaf(row)]]",
            "",
            "",
            "def predict_proba(row):",
            '    """The class probabilities of one row, in the order of CLASSES."""',
            "    return list(_LEAF_PROBA[_leaf(row)])",
        ]
    return "\n".join(lines) + "\n"


def python_literal(value) -> str:
    r"""A Python expression for a label or number that evaluates to exactly ``value``; text in
    ASCII (escapes for anything else), so the module reads the same in any encoding.

    Examples
    --------
    >>> print(python_literal(0.1), python_literal(True), python_literal(-3), python_literal('a"\'é\n'))
    0.1 True -3 'a"\'\xe9\n'
    >>> python_literal(float("inf")), python_literal(float("nan"))
    ("float('inf')", "float('nan')")
    """
    if isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    return ascii(str(value))


def _tuple(name: str, items: list[str], one_per_line: bool = False) -> list[str]:
    if not items:
        return [f"{name} = ()"]
    body = ["    " + item + "," for item in items] if one_per_line else wrap(items)
    return [f"{name} = (", *body, ")"]
