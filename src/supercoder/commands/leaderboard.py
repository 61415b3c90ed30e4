"""`supercoder leaderboard`: stored runs side by side (terminal or HTML)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from supercoder.commands.display import fmt_figure
from supercoder.commands.options import (
    DbOpt,
    err,
)
from supercoder.errors import UserError, printable
from supercoder.paths import atomic_write_text, default_store
from supercoder.report.html import speedup_plot
from supercoder.runs.store import leaderboard_rows

if TYPE_CHECKING:
    from supercoder.runs.store import LeaderboardRow
    from supercoder.runs.summary import RunSummary


# a run's name and model, then ``_board_cells``: the columns the terminal table and the
# HTML board share
COLUMNS = (
    "run",
    "model",
    "problems",
    "compile",
    "accuracy",
    "avg",
    "median",
    "geomean",
    "fast_1.1",
    "runs on",
)


def leaderboard(
    db: DbOpt = None,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Also write an HTML page.")
    ] = None,
) -> None:
    """Every stored eval run side by side (figures recomputed from the stored answers).

    Example: supercoder leaderboard --html leaderboard.html
    """
    db = db or default_store()
    if not db.is_file():
        raise UserError(f"{db}: no eval runs yet (run supercoder eval first, or pass --db)")
    rows = leaderboard_rows(db)
    table = Table(title=Text(printable(f"leaderboard ({db})")))
    cols = (*COLUMNS, "paper avg", "cost", "done")
    for col in cols:
        table.add_column(col)
    for r in rows:
        s = r.summary
        table.add_row(
            printable(r.run.name, newlines=False),
            printable(r.run.model, newlines=False),
            *_board_cells(s),
            fmt_figure("x", s.paper.speedups.avg),
            f"${s.cost_usd:.2f}",
            "yes" if r.run.finished is not None else "no",
        )
    console = Console(markup=False, highlight=False)
    if not console.is_terminal:
        console = Console(width=160, markup=False, highlight=False)
    console.print(table)
    if html_out:
        atomic_write_text(html_out, leaderboard_html(rows))
        err.print(f"wrote {html_out}")


def _board_cells(s: RunSummary) -> tuple[str, ...]:
    """A run's problems, compile, accuracy, avg, median, geomean and fast_1.1 cells,
    and the lowest x86-64 level every correct answer of the run runs on."""
    return (
        str(s.problems),
        fmt_figure("compilation_rate", s.compilation_rate),
        fmt_figure("accuracy", s.accuracy),
        fmt_figure("x", s.speedups.avg),
        fmt_figure("x", s.speedups.median),
        fmt_figure("x", s.speedups.geomean),
        fmt_figure("fast_1.1", s.fast_1_1) if s.timed_share else "not measured",
        s.level_needed() or "-",
    )


def leaderboard_html(rows: list[LeaderboardRow]) -> str:
    """A self-contained page: the table, then a histogram of log2 speedups per run."""
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr>"
    body, plots = [], []
    for r in rows:
        s = r.summary
        cells = (r.run.name, r.run.model, *_board_cells(s))
        body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        speeds = [
            p.speedup for p in s.per_problem.values() if p.speedup is not None and not p.memorizable
        ]
        plots.append(f"<h2>{html.escape(r.run.name)}</h2>{speedup_plot(speeds)}")
    style = "body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>supercoder leaderboard</title>"
        f"<style>{style}</style></head><body><h1>supercoder leaderboard</h1>"
        f"<table>{head}{''.join(body)}</table>{''.join(plots)}</body></html>\n"
    )
