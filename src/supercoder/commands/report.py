"""`supercoder report RUN`: a stored run as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import DB_HELP, STORE_DEFAULT


def report(
    run: Annotated[str, typer.Argument(help="run name")],
    out: Annotated[Path, typer.Option("-o", "--out", help="HTML file to write")] = Path(
        "report.html"
    ),
    db: Annotated[
        Path | None, typer.Option("--db", help=DB_HELP, show_default=STORE_DEFAULT)
    ] = None,
) -> None:
    from supercoder.report.page import write_report

    path = write_report(db, run, out)
    from supercoder.errors import printable

    typer.echo(printable(f"wrote {path} ({path.stat().st_size // 1024} KiB)", newlines=False))
