"""`supercoder train verl`: everything verl 0.9.x needs, written to one folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import AnswerOpt, ContextOpt


def verl(
    out: Annotated[Path, typer.Option(help="Folder to write (Parquet, reward.py, scripts).")],
    algo: Annotated[str, typer.Option(help="ppo, grpo or both.")] = "ppo",
    benchmark: Annotated[str, typer.Option(help="Training problems.")] = "train",
    val: Annotated[str, typer.Option(help="Validation problems.")] = "val",
    model: Annotated[str, typer.Option(help="Default MODEL.")] = "Qwen/Qwen2.5-Coder-7B-Instruct",
    tokenizer: Annotated[
        str | None,
        typer.Option(
            help="Tokenizer that measures prompts and -O3 answers (default: the model's; "
            "the offline Qwen2.5 tokenizer when that cannot be loaded)."
        ),
    ] = None,
    max_prompt_length: Annotated[
        int | None, typer.Option(help="Prompt token limit (default: cover every prompt).")
    ] = None,
    max_response_length: Annotated[
        int | None,
        typer.Option(help="Response token limit (default: cover every -O3 answer)."),
    ] = None,
    train_batch_size: Annotated[int, typer.Option(help="Prompts per step (the paper's).")] = 16,
    context: ContextOpt = "full",
    answer: AnswerOpt = "whole",
) -> None:
    """Write verl's train/val Parquet, the reward module and launch scripts (verl 0.9.x).

    Every prompt and -O3 answer is measured with the model's tokenizer; the token limits
    cover them unless given, problems that do not fit are named and left out, and the
    export refuses when fewer than one batch of training problems fit.
    """
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.prompting.answers import check_modes
    from supercoder.training.verl_export import ALGOS, VerlExportConfig, export_verl

    check_modes(context, answer)
    if algo not in (*ALGOS, "both"):
        raise typer.BadParameter(f"use one of {', '.join(ALGOS)} or both", param_hint="--algo")
    opts = VerlExportConfig(
        out=out,
        algos=ALGOS if algo == "both" else (algo,),
        model=model,
        tokenizer=tokenizer,
        max_prompt_length=max_prompt_length,
        max_response_length=max_response_length,
        train_batch_size=train_batch_size,
        context=context,
        answer=answer,
    )
    for path in export_verl(load_benchmark(benchmark), load_benchmark(val), opts, echo=typer.echo):
        typer.echo(str(path))
