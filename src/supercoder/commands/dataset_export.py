"""`supercoder dataset export BENCH`: a benchmark as SuperCoder-schema Parquet or JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.errors import UserError


def export(
    bench: Annotated[
        str, typer.Argument(help="train, val, all, a benchmark folder or a record file.")
    ],
    out: Annotated[Path, typer.Option("--out", help="FILE.parquet or FILE.jsonl")],
) -> None:
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.dataset.records import write_records

    if out.suffix not in (".parquet", ".jsonl"):
        raise UserError(f"{out}: --out must end in .parquet or .jsonl")
    problems = load_benchmark(bench)
    write_records(problems, out)
    hidden = sum(len(p.tests) - len(p.visible_tests) for p in problems)
    typer.echo(
        f"wrote {len(problems)} records to {out} ({hidden} hidden tests in extra_info.hidden_*)"
    )
