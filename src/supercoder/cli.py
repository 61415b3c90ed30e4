"""The ``supercoder`` command line: parses options and delegates to plain functions."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.text import Text

from supercoder.commands import analyze, bench, core, dataset, llm, train
from supercoder.errors import SupercoderError

app = typer.Typer(
    name="supercoder",
    help=(
        "Assembly superoptimization with LLMs, verified in a sandbox.\n\n"
        "Start with: supercoder check PROBLEM_DIR CANDIDATE.s  (is it correct? how much faster?)\n"
        "or: supercoder eval --benchmark val  (optimize every bundled val problem)."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

for module in (core, bench, dataset, llm, train, analyze):
    module.register(app)

err = Console(stderr=True)


def main() -> None:
    try:
        app()
    except SupercoderError as e:
        err.print(Text.assemble(("error: ", "bold red"), str(e)), highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":
    main()
