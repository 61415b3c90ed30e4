"""`supercoder dataset build --codenet DIR`: the benchmark from a Project CodeNet download."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.display import progress_bar
from supercoder.commands.machine import current, with_engine
from supercoder.commands.options import OUT, SEED, TIMEOUT
from supercoder.dataset.build import DatasetBuildConfig, finish, plan, run_jobs
from supercoder.engine import every_cpu_but_one
from supercoder.errors import printable


@with_engine(workers=every_cpu_but_one(), skip=("requests", "timing_slots"))
def build(
    codenet: Annotated[
        Path, typer.Option("--codenet", help="Project CodeNet folder (metadata/, data/).")
    ],
    out: Annotated[Path, OUT],
    threshold: Annotated[
        float, typer.Option(min=1.0, help="Minimum -O0 -> -O3 speedup to keep.")
    ] = 3.0,
    per_problem: Annotated[
        int, typer.Option(min=1, help="At most this many submissions per problem.")
    ] = 10,
    max_tokens: Annotated[
        int, typer.Option(min=1, help="Cap on prompt + answer tokens (approximate).")
    ] = 4000,
    max_tests: Annotated[
        int, typer.Option(min=1, help="At most this many inputs per problem.")
    ] = 10,
    val_fraction: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Fraction of problems in the val split.")
    ] = 0.025,
    seed: Annotated[int, SEED] = 0,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Only the first N problems (by id).")
    ] = None,
    timeout: Annotated[float, TIMEOUT] = 10.0,
    dedup: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Near-duplicate similarity (token 4-gram Jaccard)."),
    ] = 0.9,
) -> None:
    workers = current().workers
    opts = DatasetBuildConfig(
        threshold,
        per_problem,
        max_tokens,
        max_tests,
        val_fraction,
        seed,
        workers,
        limit,
        timeout,
        dedup,
    )
    codenet, out = codenet.expanduser(), out.expanduser()
    notes: list[str] = []
    jobs, pre = plan(codenet, out, opts, notes)
    for line in notes[:10]:  # each names its file and line; the build goes on without it
        typer.echo(f"skipped {printable(line, newlines=False)}", err=True)
    if len(notes) > 10:
        typer.echo(f"... and {len(notes) - 10} more unreadable metadata rows skipped", err=True)
    typer.echo(
        f"{len(jobs)} submission(s) to build, run and time on {workers} process(es): about a "
        "second each, so this can take hours; Ctrl-C stops, a rerun continues",
        err=True,
    )
    with progress_bar("submissions", len(jobs)) as advance:
        results = run_jobs(jobs, workers, advance)
    summary = finish(out, jobs, results, pre, opts)
    typer.echo(
        f"kept {summary['kept']} programs {summary['kept_per_split']} from "
        f"{summary['submissions_considered']} submissions "
        f"({summary['submissions_run']} run, {summary['reused_from_cache']} reused from cache)"
    )
    for reason, n in summary["dropped"].items():
        typer.echo(f"  dropped {n:6d}  {reason}")
    typer.echo(f"wrote {out}/problems/, train/val .parquet and .jsonl, summary.json")
