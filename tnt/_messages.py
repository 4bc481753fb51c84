"""Text from outside (names, labels, values read from a file) as it may appear in a message.

Every error a user sees is one plain sentence; a column name with a line break or a million
characters, or a terminal escape sequence, must not turn it into something else.
"""

from __future__ import annotations

__all__ = ["printable", "shown"]

#: Longest piece of outside text quoted in a message, in characters.
SHOWN_CHARS = 60


def printable(text: str) -> str:
    r"""``text`` with every non-printable character (escape sequences, line breaks) escaped.

    Examples
    --------
    >>> print(printable("cat\x1b[2J\rdog é"))
    cat\x1b[2J\rdog é
    """
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """Outside text (or a value's ``str``) for a message: printable and at most ``limit`` characters.

    A value that is not a string, a number or ``None`` is named by its type, so a message never
    prints a whole nested structure.

    Examples
    --------
    >>> shown("petal width"), shown("a\\nb"), shown("x" * 100, limit=10), shown([[1]])
    ('petal width', 'a\\\\nb', 'xxxxxxx...', 'a list')
    """
    if value is None or isinstance(value, (bool, float)):
        text = str(value)
    elif isinstance(value, int):
        text = str(value) if abs(value) < 10**limit else "a very large number"
    elif isinstance(value, str):
        text = value
    else:
        return f"a {type(value).__name__}"
    text = printable(text[: limit * 4])
    return text if len(text) <= limit else text[: limit - 3] + "..."
