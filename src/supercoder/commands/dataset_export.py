"""`supercoder dataset export --benchmark BENCH --out FILE`: a benchmark as SuperCoder-schema Parquet or JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import OUT, BenchmarkArg, BenchmarkOpt, pick_benchmark
from supercoder.commands.optionset import but
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.records import write_records
from supercoder.errors import UserError


def export(
    bench: BenchmarkArg = None,
    out: Annotated[Path | None, but(OUT, show_default="required")] = None,
    benchmark: BenchmarkOpt = None,
) -> None:
    """Write a benchmark as SuperCoder-schema records.

    Example: supercoder dataset export --benchmark val --out val.jsonl
    """
    bench = pick_benchmark(benchmark, bench, None)
    if out is None:
        raise UserError("give --out FILE.parquet or --out FILE.jsonl (where to write the records)")
    if out.suffix not in (".parquet", ".jsonl"):
        raise UserError(f"{out}: --out must end in .parquet or .jsonl")
    problems = load_benchmark(bench)
    write_records(problems, out)
    hidden = sum(len(p.tests) - len(p.visible_tests) for p in problems)
    typer.echo(
        f"wrote {len(problems)} records to {out} ({hidden} hidden tests in extra_info.hidden_*)"
    )
