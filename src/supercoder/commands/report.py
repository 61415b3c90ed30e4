"""`supercoder report RUN`: a stored run as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import OUT, DbOpt
from supercoder.errors import printable
from supercoder.report.page import write_report


def report(
    run: Annotated[str, typer.Argument(help="run name")],
    out: Annotated[Path, OUT] = Path("report.html"),
    db: DbOpt = None,
) -> None:
    path = write_report(db, run, out)

    typer.echo(printable(f"wrote {path} ({path.stat().st_size // 1024} KiB)", newlines=False))
