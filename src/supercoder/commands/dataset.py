"""``supercoder dataset``: build from Project CodeNet, import the SuperCoder dataset, export."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from supercoder.errors import UserError

WORKERS = max(1, (os.cpu_count() or 2) - 1)


def register(app: typer.Typer) -> None:
    sub = typer.Typer(
        help="Datasets in the SuperCoder schema: build from CodeNet, import, export.",
        no_args_is_help=True,
    )
    sub.command("build", help="Build the benchmark from a Project CodeNet download.")(build)
    sub.command("import", help="Import the published SuperCoder dataset as problem folders.")(
        import_
    )
    sub.command("export", help="Write a benchmark as SuperCoder-schema Parquet or JSONL.")(export)
    app.add_typer(sub, name="dataset")


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[], None]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def build(
    codenet: Annotated[
        Path, typer.Option("--codenet", help="Project CodeNet folder (metadata/, data/).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Output folder.")],
    threshold: Annotated[float, typer.Option(help="Minimum -O0 -> -O3 speedup to keep.")] = 3.0,
    per_problem: Annotated[
        int, typer.Option(help="At most this many submissions per problem.")
    ] = 10,
    max_tokens: Annotated[
        int, typer.Option(help="Cap on prompt + answer tokens (approximate).")
    ] = 4000,
    max_tests: Annotated[int, typer.Option(help="At most this many inputs per problem.")] = 10,
    val_fraction: Annotated[
        float, typer.Option(help="Fraction of problems in the val split.")
    ] = 0.025,
    seed: Annotated[int, typer.Option(help="Seed of the train/val split.")] = 0,
    workers: Annotated[int, typer.Option(help="Parallel processes.")] = WORKERS,
    limit: Annotated[int | None, typer.Option(help="Only the first N problems (by id).")] = None,
    timeout: Annotated[float, typer.Option(help="CPU seconds per run.")] = 10.0,
    dedup: Annotated[
        float, typer.Option(help="Near-duplicate similarity (token 4-gram Jaccard).")
    ] = 0.9,
) -> None:
    from supercoder.dataset.build import DatasetBuildConfig, finish, plan, run_jobs

    if not 0 <= val_fraction <= 1:
        raise UserError("--val-fraction must be between 0 and 1")
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
    jobs, pre = plan(codenet, out, opts)
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


def import_(
    source: Annotated[str, typer.Argument(help="A .parquet/.jsonl file or a hub name.")],
    out: Annotated[Path, typer.Option("--out", help="Output folder (one folder per split).")],
    workers: Annotated[int, typer.Option(min=1, help="Parallel processes.")] = WORKERS,
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
    is written outside OUT.
    """
    from supercoder.dataset.importer import import_records, read_source
    from supercoder.errors import check_writable

    bad: list[tuple[str, str]] = []
    records = read_source(source, bad)
    if not records and not bad:
        raise UserError(f"{source}: no records")
    out = out.expanduser()
    check_writable(out / "import_report.json", "--out")
    with progress_bar("rebuilding baselines", len(records)) as advance:
        report = import_records(
            records, out, workers, advance, bad=bad, check_outputs=check_outputs
        )
    for line in report.lines():
        typer.echo(line)
    (out / "import_report.json").write_text(json.dumps(report.__dict__, indent=2) + "\n")


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
