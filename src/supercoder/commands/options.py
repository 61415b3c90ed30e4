"""What the model commands share: their typer options, the stderr console, and the
compiler model's budget and sample defaults."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from supercoder.build.isa import Target
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
STORE_HELP = "[default: $SUPERCODER_DB, else ~/.local/share/supercoder/runs.sqlite]"
DbOpt = Annotated[Path | None, typer.Option("--db", help=f"SQLite file of eval runs {STORE_HELP}.")]
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


TargetOpt = Annotated[
    Target,
    typer.Option(
        "--target",
        help="CPUs the answer must run on: native (this CPU) or an x86-64 level; the "
        "assembler refuses instructions beyond it and the compiler model builds for it.",
    ),
]


def with_target(model: str, target: Target) -> str:
    """The model spec with ``--target`` folded in (``compiler:target=LEVEL``); other
    models are told nothing: the assembler refuses what the target does not allow."""
    provider, _, spec = model.partition(":")
    if provider != "compiler" or target is Target.NATIVE or "target=" in spec:
        return model
    return f"compiler:{','.join(filter(None, (spec, f'target={target.value}')))}"


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


DB_HELP = f"run store: the eval SQLite file, or a JSON file of verdict records {STORE_HELP}"
WORKERS = max(1, (os.cpu_count() or 2) - 1)


def reward_config(
    kind: str, baseline_copy: float, sandbox: bool, target: Target = Target.NATIVE
) -> RewardConfig:
    from supercoder.verify.evaluate import EvalConfig

    if kind not in REWARD_KINDS:
        raise typer.BadParameter(f"use one of {', '.join(REWARD_KINDS)}", param_hint="--reward")
    config = EvalConfig(sandbox=sandbox, target=target)
    return RewardConfig(kind, baseline_copy=baseline_copy, eval_config=config)


ModelsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        "-m",
        help="compiler | openai:M | anthropic:M | hf:PATH; repeat with --strategy evolve "
        "for several models (a bandit gives calls to the one that improves most per cost) "
        "[default: compiler].",
    ),
]
StrategyOpt = Annotated[
    str,
    typer.Option(
        "--strategy",
        help="best-of-n: independent answers to the -O3 prompt; refine: one chain of "
        "--samples answers, each told what was wrong; evolve: generations of answers "
        "improving the best verified programs (--samples answers in all).",
    ),
]
StartFromOpt = Annotated[
    str,
    typer.Option(
        "--start-from",
        help="evolve: baseline (gcc -O3), or compiler (also the compiler model's best "
        "build); speedups stay relative to gcc -O3.",
    ),
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option("--max-cost", min=0.0, help="evolve: stop asking once a problem cost this USD."),
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option("--max-tokens-per-problem", min=1, help="evolve: token cap per problem."),
]
GenerationOpt = Annotated[
    int, typer.Option("--generation", min=1, help="evolve: answers per generation.")
]
IslandsOpt = Annotated[int, typer.Option("--islands", min=1, help="evolve: populations.")]


def model_specs(models: list[str] | None, strategy: str, budget: float | None) -> list[str]:
    """The ``--model`` specs (``compiler`` when none); several only for evolve."""
    specs = [with_budget(m, budget) for m in (models or ["compiler"])]
    if len(specs) > 1 and strategy != "evolve":
        raise UserError("several --model need --strategy evolve")
    if len(set(specs)) != len(specs):
        raise UserError("each --model may be given once")
    return specs


def strategy_config(
    specs: list[str],
    *,
    strategy: str,
    samples: int | None,
    rounds: int,
    temperature: float,
    context: str,
    answer: str,
    start_from: str = "baseline",
    max_cost: float | None = None,
    max_tokens: int | None = None,
    generation: int = 2,
    islands: int = 2,
):
    """The ``StrategyConfig`` of the model commands' options (bad choices: one line)."""
    from supercoder.models.base import Sampling
    from supercoder.runs.strategies import EvolveConfig, StartFrom, Strategy, StrategyConfig

    choices = {s.value for s in Strategy}
    if strategy not in choices:
        raise UserError(f"unknown --strategy {strategy!r}: use one of {', '.join(sorted(choices))}")
    starts = {s.value for s in StartFrom}
    if start_from not in starts:
        raise UserError(f"unknown --start-from {start_from!r}: use one of {', '.join(starts)}")
    if strategy != "evolve" and (start_from != "baseline" or max_cost or max_tokens):
        raise UserError(
            "--start-from, --max-cost and --max-tokens-per-problem need --strategy evolve"
        )
    if strategy != "best-of-n" and rounds != 1:
        raise UserError("--rounds applies to --strategy best-of-n (refine: --samples answers)")
    n = default_samples(specs[0], samples) if len(specs) == 1 else (samples or 1)
    evolve = EvolveConfig(
        generation=generation,
        islands=islands,
        start_from=StartFrom(start_from),
        max_cost_usd=max_cost,
        max_tokens=max_tokens,
    )
    settings = StrategyConfig(
        Sampling(n, temperature),
        rounds,
        context=context,
        answer=answer,
        strategy=Strategy(strategy),
        evolve=evolve,
    )
    _check_proposers(specs, settings)
    return settings


def _check_proposers(specs: list[str], settings) -> None:
    """Refuse ``--strategy evolve``/``refine`` with the ``compiler`` model before any
    work starts (``runs.search.check_strategy``: one line naming the model to use)."""
    from supercoder.models.compiler import CompilerModel
    from supercoder.runs.search import check_strategy

    proposers = [
        CompilerModel(s.partition(":")[2] or None)
        for s in specs
        if s.partition(":")[0] == "compiler"
    ]
    check_strategy(proposers, settings)
