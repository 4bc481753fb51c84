"""A fitted graph model as code: a Python module, a C99 function or an SQL query.

Each writer walks the same :class:`~tnt.codegen.walker.CodeGraph`: every node is written once
however many parents it has, so the code grows linearly with the number of nodes.
"""

from tnt._messages import shown
from tnt.codegen.c import to_c
from tnt.codegen.python import to_python
from tnt.codegen.sql import to_sql

__all__ = ["LANGUAGES", "export_code", "to_c", "to_python", "to_sql"]

#: Language -> (writer, usual file suffix).
LANGUAGES = {"python": (to_python, "py"), "c": (to_c, "c"), "sql": (to_sql, "sql")}


def export_code(estimator, language: str, **options) -> str:
    """The code of ``estimator`` in ``language`` ("python", "c" or "sql"); ``options`` go to the
    writer (:func:`to_python`, :func:`to_c`, :func:`to_sql`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from tnt import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> code = export_code(CARTClassifier(max_leaf_nodes=3).fit(X, y), "c")
    >>> "int tnt_predict(const double *x)" in code
    True
    """
    if language not in LANGUAGES:
        raise ValueError(f"Unknown language {shown(language)!r}: choose one of {', '.join(LANGUAGES)}.")
    return LANGUAGES[language][0](estimator, **options)
