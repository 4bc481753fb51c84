"""A fitted graph model as one C99 source file: no allocation, no library, each node written once.

The walk is one function whose splits are labelled statements: a split jumps to the split it sends
a sample to with ``goto``, so a split with several parents is written once and reached from each,
and a branch into a leaf returns the leaf's number. Tables of the leaves' classes, probabilities or
values turn that number into the prediction.
"""

from __future__ import annotations

import math

from tnt._messages import shown
from tnt.codegen.walker import code_graph, wrap

__all__ = ["to_c"]


def to_c(estimator, *, feature_names=None) -> str:
    """The source of a C99 file predicting as ``estimator`` does, one row at a time.

    A classifier's file defines ``int tnt_predict(const double *x)``, the index of the predicted
    class in ``const char *const tnt_classes[]``, and ``void tnt_predict_proba(const double *x,
    double *out)``, writing ``TNT_N_CLASSES`` probabilities to ``out``; a regressor's defines
    ``double tnt_predict(const double *x)``. ``x`` holds ``TNT_N_FEATURES`` values in the order of
    ``tnt_features[]``. A missing value (NaN) goes where the model's direction sends it at each
    split; compile without ``-ffast-math``, which lets the compiler assume there is no NaN.

    A categorical feature's value in ``x`` is its category's **code**: the category's position in
    the feature's part of the table ``tnt_category_names[]`` (from ``tnt_category_start[f]``,
    ``tnt_category_start[f + 1] - tnt_category_start[f]`` names; none for a numeric feature).
    ``int tnt_category_code(int feature, const char *name)`` gives it, or -1 for a name the model
    never saw, which goes, as any value that is no code does, where missing values go.

    Parameters
    ----------
    estimator : fitted graph classifier or regressor (TnT, CART, TAO, NDG or a loaded model file)
    feature_names : sequence of str, default=None
        Names written in ``tnt_features[]``; the estimator's ``feature_names_in_``, else ``x0``, ...

    Returns
    -------
    source : str

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> source = to_c(CARTClassifier(max_leaf_nodes=3, random_state=0).fit(X, y))
    >>> print(source[source.index("static int tnt_leaf"):source.index("\\nint tnt_predict(")].strip())
    static int tnt_leaf(const double *x)
    {
        if (x[3] <= 0x1.99999afffffffp-1) return 0;
        goto s1;
    s1: if (x[3] <= 0x1.c000010000000p+0 || x[3] != x[3]) return 1;
        return 2;
    }
    """
    g = code_graph(estimator, feature_names)
    out = [
        f"/* {_comment(g.description)}: a decision graph exported by TnT Explorer.",
        " *",
    ]
    if g.regression:
        out.append(" * double tnt_predict(const double *x): the predicted value.")
    else:
        out += [
            " * int tnt_predict(const double *x): the index of the predicted class in tnt_classes[].",
            " * void tnt_predict_proba(const double *x, double *out): the TNT_N_CLASSES class probabilities.",
        ]
    out += [
        " * x holds TNT_N_FEATURES values in the order of tnt_features[]. A split sends a value left when",
        " * value <= threshold, exactly as the model does (thresholds are exact hexadecimal numbers, and where",
        " * the model rounds inputs to float32 they are the bounds of that rounding); a missing value (NaN)",
        " * goes where the model sends it (x != x tests for it; x == x holds for a present value).",
        " * C99, no allocation, no library; compile without -ffast-math (it assumes there is no NaN). */",
        "",
        f"#define TNT_N_FEATURES {g.n_features}",
        *_array("const char *const tnt_features[TNT_N_FEATURES]", [c_string(n) for n in g.feature_names]),
    ]
    if g.categories:
        out += _category_table(g)
    if g.regression:
        out += _array(f"static const double tnt_leaf_value[{g.n_leaves}]", [c_double(v) for v in g.leaf_value])
    else:
        out += [
            f"#define TNT_N_CLASSES {len(g.classes)}",
            *_array("const char *const tnt_classes[TNT_N_CLASSES]", [c_string(str(c)) for c in g.classes]),
            *_array(f"static const int tnt_leaf_class[{g.n_leaves}]", [str(k) for k in g.leaf_class]),
            f"static const double tnt_leaf_proba[{g.n_leaves}][TNT_N_CLASSES] = {{",
            *["    {" + ", ".join(c_double(p) for p in row) + "}," for row in g.leaf_proba],
            "};",
            "",
        ]
    out += ["/* The number of the leaf x reaches. */", "static int tnt_leaf(const double *x)", "{"]
    out += _walk(g)
    out += ["}", ""]
    if g.regression:
        out += ["double tnt_predict(const double *x)", "{", "    return tnt_leaf_value[tnt_leaf(x)];", "}"]
    else:
        out += [
            "int tnt_predict(const double *x)",
            "{",
            "    return tnt_leaf_class[tnt_leaf(x)];",
            "}",
            "",
            "void tnt_predict_proba(const double *x, double *out)",
            "{",
            "    const double *proba = tnt_leaf_proba[tnt_leaf(x)];",
            "    int k;",
            "    for (k = 0; k < TNT_N_CLASSES; k++)",
            "        out[k] = proba[k];",
            "}",
        ]
    return "\n".join(out) + "\n"


def _walk(g) -> list[str]:
    """The body of ``tnt_leaf``: one labelled statement per split, a return per branch into a leaf."""

    def branch(target: int) -> str:
        return f"return {-1 - target};" if target < 0 else f"goto s{target};"

    if g.start < 0:  # the root is a leaf
        return ["    (void)x;", f"    {branch(g.start)}"]
    lines = []
    for s in range(g.n_splits):
        label = "    " if s == 0 else f"s{s}:".ljust(4)  # every split but the root is a jump's target
        x = f"x[{g.feature[s]}]"
        if g.category_left[s] is not None:
            test = f"tnt_goes_left(tnt_left_{s}, {len(g.categories[int(g.feature[s])])}, {x}, {int(g.missing_left[s])})"
        elif g.tests_missing[s]:
            test = f"{x} == {x}"  # present (not NaN): left
        else:
            test = f"{x} <= {c_double(g.threshold[s])}" + (f" || {x} != {x}" if g.missing_left[s] else "")
        lines += [f"{label}if ({test}) {branch(g.left[s])}", f"    {branch(g.right[s])}"]
    return lines


def _category_table(g) -> list[str]:
    """The categories by name, feature by feature, the code a name has, and per categorical split the
    flags of the codes it sends left, read by ``tnt_goes_left``."""
    names, start = [], []
    for f in range(g.n_features):
        start.append(len(names))
        names += [str(n) for n in g.categories.get(f, [])]
    start.append(len(names))
    out = [
        "/* Categorical features: the names of feature f's categories are tnt_category_names[tnt_category_start[f]]",
        " * to tnt_category_names[tnt_category_start[f + 1] - 1]; a category's code, its value in x, is its",
        " * position among them (tnt_category_code). A numeric feature has none. */",
        *_array("const char *const tnt_category_names[]", [c_string(n) for n in names]),
        *_array("const int tnt_category_start[TNT_N_FEATURES + 1]", [str(i) for i in start]),
        "/* The code of category `name` of feature `feature`, or -1 for a name the model never saw",
        " * (routed as a missing value). */",
        "int tnt_category_code(int feature, const char *name)",
        "{",
        "    int k;",
        "    if (feature < 0 || feature >= TNT_N_FEATURES)",
        "        return -1;",
        "    for (k = tnt_category_start[feature]; k < tnt_category_start[feature + 1]; k++) {",
        "        const char *a = tnt_category_names[k], *b = name;",
        "        while (*a && *a == *b) {",
        "            a++;",
        "            b++;",
        "        }",
        "        if (*a == *b)",
        "            return k - tnt_category_start[feature];",
        "    }",
        "    return -1;",
        "}",
        "",
        "/* Whether code v goes left at a categorical split whose flags are left[0..n-1]; a value that is no",
        " * code (NaN, -1, a fraction, out of range) goes left when missing_left is 1. */",
        "static int tnt_goes_left(const unsigned char *left, int n, double v, int missing_left)",
        "{",
        "    if (v >= 0 && v < n && v == (double)(int)v)",
        "        return left[(int)v];",
        "    return missing_left;",
        "}",
        "",
    ]
    for s, subset in enumerate(g.category_left):
        if subset is not None:
            flags = ["1" if c in set(subset) else "0" for c in range(len(g.categories[int(g.feature[s])]))]
            out += _array(f"static const unsigned char tnt_left_{s}[{len(flags)}]", flags)
    return out


def c_double(x) -> str:
    """A C99 literal of exactly the float64 ``x`` (hexadecimal: no decimal rounding on the way).

    Examples
    --------
    >>> c_double(0.1), c_double(-2.0)
    ('0x1.999999999999ap-4', '-0x1.0000000000000p+1')
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"{x} has no C literal here; thresholds and values must be finite.")
    return x.hex()


def c_string(text: str) -> str:
    r"""A C string literal of ``text`` in UTF-8: printable ASCII as it is (``"``, ``\\`` and ``?``
    escaped, the last against trigraphs), every other byte as a three-digit octal escape.

    Examples
    --------
    >>> print(c_string('a"b\\c?? é\n'))
    "a\"b\\c\?\? \303\251\012"
    """
    if "\0" in str(text):
        raise ValueError(f"{shown(text)!r} holds a NUL character, which a C string cannot carry; rename it.")
    parts = []
    for byte in str(text).encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?':
            parts.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            parts.append(ch)
        else:
            parts.append(f"\\{byte:03o}")
    return '"' + "".join(parts) + '"'


def _comment(text: str) -> str:
    """``text`` safe inside a C block comment (no ``*/``, no line break)."""
    return "".join(ch if 0x20 <= ord(ch) < 0x7F else "?" for ch in text).replace("*/", "* /")


def _array(declaration: str, items: list[str]) -> list[str]:
    return [f"{declaration} = {{", *wrap(items), "};", ""]
