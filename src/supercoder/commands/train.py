"""``supercoder train grpo|sft|verl``: fine-tuning on the speedup reward."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.verify.reward import REWARD_KINDS, RewardConfig

train_app = typer.Typer(
    help="Fine-tune a model on the speedup reward: TRL (GRPO, SFT) on one machine, verl on Ray.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")


ContextOpt = Annotated[
    str, typer.Option("--context", help="Prompt: full (the paper's) or hot (profile-annotated).")
]
AnswerOpt = Annotated[
    str, typer.Option("--answer", help="Answers: whole programs, or diff (SEARCH/REPLACE).")
]


def _reward(kind: str, baseline_copy: float, sandbox: bool) -> RewardConfig:
    from supercoder.verify.evaluate import EvalConfig

    if kind not in REWARD_KINDS:
        raise typer.BadParameter(f"use one of {', '.join(REWARD_KINDS)}", param_hint="--reward")
    return RewardConfig(kind, baseline_copy=baseline_copy, eval_config=EvalConfig(sandbox=sandbox))


@train_app.command("grpo")
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
    reward: Annotated[str, typer.Option(help=f"Reward: {', '.join(REWARD_KINDS)}.")] = "paper",
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
        reward=_reward(reward, baseline_copy, not unsafe_no_sandbox),
        executor=executor,
        workers=workers,
        eval_split=None if eval_split == "none" else eval_split,
        db=db,
        context=context,
        answer=answer,
    )
    typer.echo(json.dumps(train_grpo(opts), indent=2, default=str))


@train_app.command("sft")
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


@train_app.command("verl")
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
