"""`supercoder train sft`: LoRA fine-tuning on best-of-N winners."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands import options  # noqa: F401  (declares the shared flags it reuses)
from supercoder.commands.optionset import with_config
from supercoder.errors import UserError
from supercoder.training.sft import SftConfig, check_examples, train_sft
from supercoder.training.trace import read_rows


@with_config(SftConfig, "opts", skip=("run",))
def sft(
    from_run: Annotated[
        str | None, typer.Option("--from-run", help="The eval run to learn from.")
    ] = None,
    examples: Annotated[
        Path | None,
        typer.Option(
            "--examples", help="JSONL prompt/completion rows (dataset export-trace's sft.jsonl)."
        ),
    ] = None,
    *,
    opts: SftConfig,
) -> None:
    """Supervised fine-tuning on a run's best verified, faster answers (--answer diff:
    the targets are SEARCH/REPLACE edits from the baseline to the answer), or on the
    rows of --examples (an evolve run's parent -> improved-child steps)."""
    if (from_run is None) == (examples is None):
        raise UserError("give one of --from-run RUN or --examples FILE.jsonl")
    rows = read_rows(examples, "SFT examples") if examples is not None else None
    if rows is not None:
        check_examples(rows, str(examples))
    opts = replace(opts, run=from_run or str(examples))
    typer.echo(json.dumps(train_sft(opts, rows), indent=2, default=str))
