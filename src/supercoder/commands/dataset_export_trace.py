"""`supercoder dataset export-trace RUN`: an evolve run's improving steps as training data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import BENCHMARK, OUT, DbOpt
from supercoder.commands.optionset import but
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError, check_writable
from supercoder.runs.store import Store
from supercoder.training.trace import grpo_prompts, sft_records, trace_pairs, write_rows


def export_trace(
    run: Annotated[str, typer.Argument(help="A stored --strategy evolve eval run.")],
    out: Annotated[Path, OUT],
    db: DbOpt = None,
    benchmark: Annotated[str | None, but(BENCHMARK, show_default="its own")] = None,
) -> None:
    """Parent -> improved-child pairs of an evolve run (the child significantly faster
    than its parent): OUT/sft.jsonl (prompt showing the parent, completion the model's
    answer) for `train sft --examples`, OUT/grpo.jsonl (prompts with their parents and
    problem column) for `train grpo --prompts`."""
    pairs = trace_pairs(db, run)
    if benchmark is None:
        store = Store(db or None, read_only=True)
        try:
            benchmark = next(r.benchmark for r in store.runs() if r.name == run)
        finally:
            store.close()
    problems = {p.name: p for p in load_benchmark(benchmark)}
    sft, grpo = sft_records(pairs, problems), grpo_prompts(pairs, problems)
    if not sft:
        raise UserError(f"run {run!r} has no child significantly faster than its parent")
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("sft.jsonl", sft), ("grpo.jsonl", grpo)):
        check_writable(out / name, "--out")
        write_rows(out / name, rows)
    typer.echo(
        f"wrote {len(sft)} parent -> child pairs to {out / 'sft.jsonl'} and {len(grpo)} "
        f"prompts with their parents to {out / 'grpo.jsonl'}"
    )
