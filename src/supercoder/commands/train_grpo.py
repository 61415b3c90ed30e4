"""`supercoder train grpo`: TRL's GRPOTrainer on the speedup reward."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.build.isa import DEFAULT_TARGET
from supercoder.commands.options import AnswerOpt, ContextOpt, TargetOpt, reward_config
from supercoder.verify.reward import DEFAULT_REWARD, REWARD_KINDS


def grpo(
    model: Annotated[str, typer.Option(help="Hugging Face model id or local path.")],
    benchmark: Annotated[
        str, typer.Option(help="train, val, a folder or a records file.")
    ] = "train",
    lora: Annotated[
        bool, typer.Option("--lora", help="Train LoRA adapters (merged at the end).")
    ] = False,
    steps: Annotated[int, typer.Option(help="Optimizer steps.")] = 100,
    num_generations: Annotated[
        int, typer.Option(help="Completions per prompt (the GRPO group).")
    ] = 8,
    prompts_per_step: Annotated[int, typer.Option(help="Prompts per optimizer step.")] = 1,
    max_completion_length: Annotated[
        int | None,
        typer.Option(help="Tokens per completion (default: cover every -O3 answer)."),
    ] = None,
    lr: Annotated[float, typer.Option(help="Learning rate (the paper's actor lr).")] = 1e-6,
    temperature: Annotated[float, typer.Option(help="Sampling temperature (the paper's).")] = 0.5,
    reward: Annotated[
        str,
        typer.Option(
            help=f"Reward: {', '.join(REWARD_KINDS)}. Default {DEFAULT_REWARD.value}: the "
            "speedup only when significantly faster, else what a copy of the baseline earns "
            "(a copy padded with a nop reads ~1.0x: the paper's reward, 'paper', pays it ~1.0)."
        ),
    ] = DEFAULT_REWARD.value,
    baseline_copy: Annotated[float, typer.Option(help="Reward for a copy of the baseline.")] = 0.0,
    output: Annotated[Path, typer.Option(help="Checkpoints, metrics.jsonl, final/.")] = Path(
        "runs/grpo"
    ),
    eval_split: Annotated[
        str, typer.Option(help="Evaluate the final model here; 'none' to skip.")
    ] = "val",
    executor: Annotated[str, typer.Option(help="Where verification runs: local or ray.")] = "local",
    workers: Annotated[int, typer.Option(help="Parallel correctness checks.")] = 2,
    db: Annotated[
        Path | None, typer.Option(help="Run store for the evaluation (default runs/).")
    ] = None,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox")] = False,
    context: ContextOpt = "full",
    answer: AnswerOpt = "whole",
    prompts: Annotated[
        Path | None,
        typer.Option(
            "--prompts",
            help="JSONL prompt rows with a problem column (dataset export-trace's grpo.jsonl) "
            "instead of the benchmark's -O3 prompts.",
        ),
    ] = None,
    isa_target: TargetOpt = DEFAULT_TARGET,
) -> None:
    """GRPO with TRL on the benchmark's problems, then an eval of the result."""
    from supercoder.prompting.answers import check_modes
    from supercoder.training.grpo import GrpoConfig, train_grpo

    check_modes(context, answer)
    opts = GrpoConfig(
        model=model,
        benchmark=benchmark,
        output=output,
        lora=lora,
        steps=steps,
        num_generations=num_generations,
        prompts_per_step=prompts_per_step,
        max_completion_length=max_completion_length,
        lr=lr,
        temperature=temperature,
        reward=reward_config(reward, baseline_copy, not unsafe_no_sandbox, isa_target),
        executor=executor,
        workers=workers,
        eval_split=None if eval_split == "none" else eval_split,
        db=db,
        context=context,
        answer=answer,
        prompts=prompts,
    )
    typer.echo(json.dumps(train_grpo(opts), indent=2, default=str))
