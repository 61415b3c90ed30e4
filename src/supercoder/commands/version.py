"""`supercoder version`: the version and the toolchain context."""

from __future__ import annotations

import typer

from supercoder import __version__
from supercoder.sandbox.box import isolation_status
from supercoder.toolchain.gcc import machine_context


def version() -> None:
    typer.echo(f"supercoder {__version__}")
    for k, v in machine_context().items():
        typer.echo(f"  {k}: {v}")
    typer.echo(f"  sandbox: {isolation_status()[1]}")
