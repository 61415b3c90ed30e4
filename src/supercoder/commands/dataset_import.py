"""`supercoder dataset import FILE`: SuperCoder-schema records as problem folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.display import progress_bar
from supercoder.commands.machine import current, with_engine
from supercoder.commands.options import OUT, note
from supercoder.dataset.importer import import_records, read_source
from supercoder.engine import cpu_count
from supercoder.errors import UserError, check_writable
from supercoder.paths import atomic_write_text


@with_engine(workers=cpu_count(), skip=("requests", "timing_slots"))
def import_(
    source: Annotated[str, typer.Argument(help="A .parquet/.jsonl file or a hub name.")],
    out: Annotated[Path, OUT],
    check_outputs: Annotated[
        bool,
        typer.Option(
            "--check-outputs/--no-check-outputs",
            help="Run each reference build once (sandboxed) and skip records whose expected "
            "outputs differ from what it prints.",
        ),
    ] = True,
) -> None:
    """Import the published SuperCoder dataset as problem folders under OUT/SPLIT/NAME.

    Bad records (malformed, unsafe or duplicate names, C that does not compile, expected
    outputs the reference does not reproduce) are skipped, each with its reason; nothing
    is written outside OUT. Exits 0 when at least one problem was written, 2 when none
    was.
    """
    bad: list[tuple[str, str]] = []
    records = read_source(source, bad)
    if not records and not bad:
        raise UserError(f"{source}: no records")
    out = out.expanduser()
    check_writable(out / "import_report.json", "--out")
    workers = current().workers
    if len(records) > 50:
        note(
            f"importing {len(records)} records on {workers} core(s): each is built twice and "
            "its reference run (about 0.3 s of CPU a record)"
        )
    with progress_bar("rebuilding baselines", len(records)) as advance:
        report = import_records(
            records, out, workers, advance, bad=bad, check_outputs=check_outputs
        )
    for line in report.lines():
        typer.echo(line)
    written = sorted(
        d for d in out.iterdir() if d.is_dir() and not d.name.startswith(".") and any(d.iterdir())
    )
    for split in written:  # what to run next
        typer.echo(f"evaluate them: supercoder eval --benchmark {split} --no-time")

    atomic_write_text(out / "import_report.json", json.dumps(report.__dict__, indent=2) + "\n")
    if report.records and not report.written:  # some written is a success: each skip says why
        raise UserError(
            f"none of the {report.records} records was imported (each one's reason is above, "
            f"and in {out / 'import_report.json'})"
        )
