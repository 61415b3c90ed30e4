"""`supercoder train sft`: LoRA fine-tuning on best-of-N winners."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import AnswerOpt, ContextOpt


def sft(
    from_run: Annotated[str, typer.Option("--from-run", help="The eval run to learn from.")],
    model: Annotated[str, typer.Option(help="Hugging Face model id or local path.")],
    lora: Annotated[
        bool, typer.Option("--lora/--full", help="LoRA adapters (default) or full.")
    ] = True,
    db: Annotated[
        Path | None, typer.Option(help="Run store (default runs/supercoder.sqlite).")
    ] = None,
    benchmark: Annotated[str, typer.Option(help="Problems whose answers are used.")] = "train",
    min_speedup: Annotated[
        float, typer.Option(help="Keep answers at least this fast (or CI > 1).")
    ] = 1.1,
    steps: Annotated[int, typer.Option(help="Optimizer steps (-1: --epochs passes).")] = -1,
    epochs: Annotated[float, typer.Option()] = 3.0,
    lr: Annotated[float, typer.Option()] = 1e-4,
    max_length: Annotated[int, typer.Option(help="Tokens per example (prompt + answer).")] = 4096,
    output: Annotated[Path, typer.Option()] = Path("runs/sft"),
    context: ContextOpt = "full",
    answer: AnswerOpt = "whole",
) -> None:
    """Supervised fine-tuning on a run's best verified, faster answers (--answer diff:
    the targets are SEARCH/REPLACE edits from the baseline to the answer)."""
    from supercoder.prompting.answers import check_modes
    from supercoder.training.sft import SftConfig, train_sft

    check_modes(context, answer)
    opts = SftConfig(
        model=model,
        run=from_run,
        db=db,
        benchmark=benchmark,
        output=output,
        lora=lora,
        steps=steps,
        epochs=epochs,
        lr=lr,
        max_length=max_length,
        min_speedup=min_speedup,
        context=context,
        answer=answer,
    )
    typer.echo(json.dumps(train_sft(opts), indent=2, default=str))
