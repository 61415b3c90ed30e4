"""Core commands: `check`, `problem init`, `version`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    app.command("version", help="Print the supercoder version and toolchain context.")(version)


def version() -> None:
    from supercoder import __version__
    from supercoder.toolchain import machine_context

    typer.echo(f"supercoder {__version__}")
    for k, v in machine_context().items():
        typer.echo(f"  {k}: {v}")
