"""What the model commands share: their typer options, the stderr console, and the
compiler model's budget and sample defaults."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from supercoder.errors import UserError
from supercoder.verify.reward import REWARD_KINDS, RewardConfig

err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)

ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="compiler | openai:M | anthropic:M | hf:PATH.")
]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI/Anthropic-compatible server URL.")
]
SamplesOpt = Annotated[
    int | None,
    typer.Option(
        "--samples",
        "-n",
        min=1,
        help="Samples per problem [default: 1; compiler: at most 64 builds tried].",
    ),
]
RoundsOpt = Annotated[
    int, typer.Option("--rounds", "-k", min=1, help="Answers per sample chain (1: no refinement).")
]
TempOpt = Annotated[float, typer.Option("--temperature", "-t", help="Sampling temperature.")]
NoTimeOpt = Annotated[bool, typer.Option("--no-time", help="Check correctness only; no timing.")]
UnsafeOpt = Annotated[
    bool, typer.Option("--unsafe-no-sandbox", help="Run candidates WITHOUT isolation (dangerous).")
]
DbOpt = Annotated[Path, typer.Option("--db", help="SQLite file of eval runs.")]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        help="Seconds to wait for the model server per request (a request that times out "
        "twice is given up: the problem stays unfinished, a rerun retries it).",
    ),
]
DeadlineOpt = Annotated[
    float,
    typer.Option(
        "--deadline", min=1.0, help="Seconds of model time per problem at most (all requests)."
    ),
]
ContextOpt = Annotated[
    str,
    typer.Option(
        "--context",
        help="full: the -O3 assembly (the paper's prompt); hot: profile-annotated "
        "(# NN.N% per hot line), cold functions elided.",
    ),
]
AnswerOpt = Annotated[
    str,
    typer.Option(
        "--answer",
        help="whole: the model writes the whole program; diff: SEARCH/REPLACE "
        "edit blocks against the shown assembly.",
    ),
]
BudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--budget",
        min=0.1,
        help="compiler model: CPU seconds of build search per problem [default: 60].",
    ),
]


def with_budget(model: str, budget: float | None) -> str:
    """The model spec with ``--budget`` folded in (``compiler:budget=S``)."""
    if budget is None:
        return model
    provider, _, target = model.partition(":")
    if provider != "compiler":
        raise UserError("--budget applies to the compiler model only")
    return f"compiler:{','.join(filter(None, (target, f'budget={budget:g}')))}"


def default_samples(model: str, samples: int | None) -> int:
    """1 for a model; every build for the offline ``compiler`` (the evaluator picks)."""
    if samples is not None:
        return samples
    if model.split(":", 1)[0] == "compiler":
        from supercoder.models.compiler import default_samples as compiler_samples

        return compiler_samples(model.partition(":")[2] or None)
    return 1


DB_HELP = "run store: the eval SQLite file, or a JSON file of verdict records"
DEFAULT_DB = "runs/supercoder.sqlite"
WORKERS = max(1, (os.cpu_count() or 2) - 1)


def reward_config(kind: str, baseline_copy: float, sandbox: bool) -> RewardConfig:
    from supercoder.verify.evaluate import EvalConfig

    if kind not in REWARD_KINDS:
        raise typer.BadParameter(f"use one of {', '.join(REWARD_KINDS)}", param_hint="--reward")
    return RewardConfig(kind, baseline_copy=baseline_copy, eval_config=EvalConfig(sandbox=sandbox))
