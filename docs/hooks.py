"""MkDocs hooks: what the code makes, put into the pages when the site is built.

- ``<!-- gridmarket-output: run profit/default -->`` on a line of its own becomes a code block
  of what ``gridmarket run profit/default`` prints now (on 100 columns), so a page shows real
  output, never a copy that goes stale (a command that reads a trace the machine building the
  site does not have shows a line saying so instead: the site builds without the traces);
- the API pages show the docstrings' Sphinx roles (``:class:`X```) as plain code: mkdocstrings
  renders docstrings as Markdown, where a role would stay as text before its code span.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = re.compile(r"^<!-- gridmarket-output: (.+?) -->$", re.M)
ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj|const):(<code>)~?")
RUN = "import sys; from market.cli.main import main; sys.exit(main(sys.argv[1:]))"
NO_TRACE = re.compile(r"^gridmarket: error: .*?(trace '[^']+' not found)", re.M)


def command_output(args: str) -> str:
    """What ``gridmarket ARGS`` prints, run from the project's top folder."""
    proc = subprocess.run(
        [sys.executable, "-c", RUN, *shlex.split(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "100"},  # the tables as a 100-column terminal shows them
    )
    if proc.returncode != 0 and (missing := NO_TRACE.search(proc.stderr)):
        return f"({missing.group(1)} where this site was built: see Traces to get it)"
    if proc.returncode != 0:
        raise RuntimeError(f"gridmarket {args}: {proc.stderr.strip()}")
    return proc.stdout.rstrip("\n")


def with_outputs(markdown: str) -> str:
    """``markdown`` with every output marker replaced by its command's output."""

    def block(match: re.Match) -> str:
        return f"```text\n$ gridmarket {match.group(1)}\n{command_output(match.group(1))}\n```"

    return OUTPUT.sub(block, markdown)


def on_page_markdown(markdown, page, config, files):
    return with_outputs(markdown)


def on_page_content(html, page, config, files):
    return ROLE.sub(r"\1", html)
