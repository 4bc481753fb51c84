"""mkdocs hooks: pages generated from the code and the benchmark's output at every build.

Each placeholder stands on a line of its own:

- ``<!-- cli-reference -->`` becomes the ``tnt`` command's help, read from its argparse parser
  (:func:`cli_reference`), so the reference never drifts from the command.
- ``<!-- include: PATH -->`` becomes the file at ``PATH`` (relative to the repository), its headings
  one level down: the speed page quotes ``benchmarks/README.md``, which ``benchmarks/run.py`` writes.
- Sphinx roles left in numpydoc docstrings (``:class:`x```) are shown as code.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r"^<!-- include: (\S+) -->$", flags=re.M)
CLI_REFERENCE = re.compile(r"^<!-- cli-reference -->$", flags=re.M)
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj):(?=<code>)")


def cli_reference() -> str:
    """Markdown for the ``tnt`` command: its help, then each subcommand's, as argparse prints them."""
    from tnt.cli import _parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps its help to this width
    try:
        parser = _parser()
        parts = ["## tnt", "", "```text", parser.format_help().rstrip(), "```", ""]
        (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for name, command in commands.choices.items():
            parts += [f"## tnt {name}", "", "```text"]
            parts += [command.format_help().rstrip(), "```", ""]
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(parts)


def included(path: str) -> str:
    """The file at ``path`` (relative to the repository), its headings one level down."""
    parts = (ROOT / path).read_text().split("```")
    for i in range(0, len(parts), 2):  # outside code blocks
        parts[i] = re.sub(r"^(#+) ", r"#\1 ", parts[i], flags=re.M)
    return "```".join(parts)


def on_page_markdown(markdown, page, config, files):
    if CLI_REFERENCE.search(markdown):
        markdown = CLI_REFERENCE.sub(lambda _: cli_reference(), markdown)
    return INCLUDE.sub(lambda m: included(m.group(1)), markdown)


def on_page_content(html, page, config, files):
    return ROLE.sub("", html)
