"""``supercoder train grpo``: TRL's GRPOTrainer on the speedup reward (one machine).

Prompts are the paper's (``prompts.build_messages``) for the benchmark's problems; each
row also carries a ``problem`` column that the reward uses to find the problem. Every
step logs TRL's reward plus our ``supercoder/correct_rate``, ``compile_rate`` and
``mean_speedup`` (to ``OUTPUT/metrics.jsonl`` and the console); checkpoints go to
``OUTPUT/checkpoint-N``, the final model (LoRA merged) to ``OUTPUT/final``, which is then
evaluated on ``eval_split`` exactly like ``supercoder eval --model hf:OUTPUT/final``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError, require
from supercoder.prompting.prompts import build_messages, fence
from supercoder.toolchain.baseline import baseline_asm
from supercoder.training import budget, common, multiturn
from supercoder.training.configs import TrainerConfig
from supercoder.training.episode import check_turns
from supercoder.training.openenv_env import OpenEnvEpisodes
from supercoder.training.trace import read_rows
from supercoder.training.trl_reward import make_trl_reward
from supercoder.types import Problem
from supercoder.verify.client import ServiceClient
from supercoder.verify.executors import ExecutorKind, make_executor
from supercoder.verify.reward import RewardConfig


@dataclass(frozen=True, kw_only=True)
class GrpoConfig(TrainerConfig):
    """What ``supercoder train grpo`` trains (one field per CLI option).

    Fields:
        model: the policy, a Hugging Face repo or local path.
        benchmark: the problems to train on (a bundled split or a folder).
        output: where checkpoints, ``metrics.jsonl`` and ``final`` go.
        lora: train a LoRA adapter (merged into ``final``) instead of every weight.
        steps: optimizer steps.
        num_generations: completions per prompt (GRPO's group size).
        prompts_per_step: prompts per step (batch = num_generations * prompts_per_step).
        max_completion_length: tokens per completion; None: cover every -O3 answer.
        lr: learning rate.
        temperature: sampling temperature of the rollouts.
        save_steps: steps between checkpoints.
        seed: the trainer's seed.
        reward: which reward (``RewardConfig``) and how candidates are verified.
        executor: where rewards are verified (``local`` process pool or ``ray``).
        context: the prompt's context (``full`` | ``hot``, see prompting/prompts.py).
        answer: the answer form the prompt asks for (``whole`` | ``diff``).
        eval_split: evaluated after training like ``supercoder eval`` (None, or ``none``
            on the command line: not at all).
        db: the run store of that evaluation (None: the default store).
        prompts: a JSONL file of prompt rows with a ``problem`` column, e.g. from
            ``dataset export-trace`` (None: prompts from the benchmark's baselines).
        turns: answers per episode: 1 is single-turn GRPO; N > 1 trains on refinement
            episodes (the verifier's feedback between answers, the final answer's
            reward; ``training/multiturn.py``).
        env_url: an OpenEnv server of supercoder's environment (``supercoder env
            openenv``) whose sessions step the episodes instead of this process
            (None: verify here).
    """

    num_generations: int = field(default=8, metadata={"option": {"min": 2}})
    prompts_per_step: int = field(default=1, metadata={"option": {"min": 1}})
    max_completion_length: int | None = field(default=None, metadata={"option": {"min": 1}})
    temperature: float = field(default=0.5, metadata={"option": {"min": 0.0}})
    save_steps: int = field(default=50, metadata={"option": {"min": 1}})
    reward: RewardConfig = field(default_factory=RewardConfig)
    executor: ExecutorKind = ExecutorKind.LOCAL
    eval_split: str | None = "val"
    prompts: Path | None = None
    turns: int = field(default=1, metadata={"option": {"min": 1, "max": 16}})
    env_url: str | None = None


def prompt_rows(
    problems: Sequence[Problem], variant: str = "asm", context: str = "full", answer: str = "whole"
) -> list[dict[str, Any]]:
    """One conversational prompt per problem, with the ``problem`` column for the reward
    (``context``/``answer``: the prompt modes; the reward accepts both answer forms)."""
    return [
        {
            "prompt": build_messages(
                p, variant=variant, baseline_asm=baseline_asm(p), context=context, answer=answer
            ),
            "problem": p.name,
        }
        for p in problems
    ]


def train_rows(opts: GrpoConfig, problems: Sequence[Problem]) -> list[dict[str, Any]]:
    """The benchmark's -O3 prompts, or the rows of ``opts.prompts`` (each naming one of
    ``problems``: the reward verifies against it), keeping ``prompt`` and ``problem``."""
    if opts.prompts is None:
        return prompt_rows(problems, "asm", opts.context, opts.answer)

    known = {p.name for p in problems}
    rows = read_rows(opts.prompts, "GRPO prompts")
    missing = sorted({str(r.get("problem")) for r in rows} - known)
    if missing:
        raise UserError(
            f"{opts.prompts}: prompts for problems not in {opts.benchmark!r}: "
            f"{', '.join(missing[:5])} (pass the --benchmark they come from)"
        )
    return [{"prompt": r["prompt"], "problem": r["problem"]} for r in rows]


def completion_limit(
    problems: Sequence[Problem],
    tokenizer: Any,
    given: int | None = None,
    echo: Callable[[str], None] | None = print,
) -> int:
    """TRL's completion limit: covers every ``-O3`` answer (measured with the training
    tokenizer) unless ``given``; names the problems whose answer would be cut off (TRL
    truncates completions; it has no prompt limit)."""
    items = []
    for p in problems:
        asm = baseline_asm(p)
        items.append(
            (p.name, build_messages(p, variant="asm", baseline_asm=asm), fence(asm, "assembly"))
        )
    measured = budget.measure(items, tokenizer)
    limits = budget.choose_limits(measured, max_response=given)
    plan = budget.fit(measured, limits, prompts_limited=False)
    lines = [budget.limits_line(limits, "the model's tokenizer", prompts_limited=False)]
    for line in lines + budget.report(plan, "train", verb="truncated"):
        if echo is not None:
            echo(line)
    return limits.response


def grpo_config(opts: GrpoConfig) -> Any:
    trl = require("trl", "train")
    return trl.GRPOConfig(
        output_dir=str(opts.output),
        max_steps=opts.steps,
        learning_rate=opts.lr,
        num_generations=opts.num_generations,
        per_device_train_batch_size=opts.num_generations * opts.prompts_per_step,
        gradient_accumulation_steps=1,
        max_completion_length=opts.max_completion_length,
        temperature=opts.temperature,
        beta=0.0,  # no KL term, as in the paper
        logging_steps=1,
        save_strategy="steps",
        save_steps=opts.save_steps,
        report_to="none",
        seed=opts.seed,
        use_cpu=not _cuda(),
    )


def _episodes(
    opts: GrpoConfig, problems: Sequence[Problem], rows: Sequence[dict[str, Any]], executor: Any
) -> Any:
    """Where multi-turn episodes are stepped: here, or on the OpenEnv server ``env_url``."""
    by_prompt = {multiturn.prompt_key(r["prompt"]): str(r["problem"]) for r in rows}
    if opts.env_url:
        return OpenEnvEpisodes(opts.env_url, by_prompt, opts.answer)
    return multiturn.LocalEpisodes(
        {p.name: p for p in problems},
        by_prompt,
        opts.turns,
        opts.reward,
        executor,
        str(opts.answer),
    )


def _cuda() -> bool:
    torch = require("torch", "train")
    return bool(torch.cuda.is_available())


def _eval_run_name(opts: GrpoConfig) -> str:
    """A fresh run per training (a reused name would resume an old model's results)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"grpo-{opts.output.name}-{stamp}@{Path(opts.eval_split or 'val').name}"


def train_grpo(
    opts: GrpoConfig,
    problems: Sequence[Problem] | None = None,
    echo: Callable[[str], None] | None = print,
) -> dict[str, Any]:
    """Train, save ``OUTPUT/final``, evaluate it on ``eval_split``; returns a summary."""
    trl = require("trl", "train")
    datasets = require("datasets", "train")

    check_turns(opts.turns)
    problems = list(problems) if problems is not None else load_benchmark(opts.benchmark)
    if not problems:
        raise UserError(f"benchmark {opts.benchmark!r} has no problems to train on")
    problems = _server_baselines(problems)
    executor = make_executor(opts.executor)  # the engine's --workers
    episodes = None
    try:
        tokenizer = common.load_tokenizer(opts.model)
        limit = completion_limit(problems, tokenizer, opts.max_completion_length, echo)
        opts = replace(opts, max_completion_length=limit)
        rows = train_rows(opts, problems)
        rollout: dict[str, Any] = {}
        if opts.turns > 1 or opts.env_url:
            from supercoder.training import multiturn

            episodes = _episodes(opts, problems, rows, executor)
            rollout = {"rollout_func": multiturn.make_rollout(episodes, opts.turns)}
            rewards = [multiturn.episode_reward]
        else:
            rewards = [make_trl_reward(problems, opts.reward, executor)]
        trainer = trl.GRPOTrainer(
            model=opts.model,
            reward_funcs=rewards,
            args=grpo_config(opts),
            train_dataset=datasets.Dataset.from_list(rows),
            processing_class=tokenizer,
            peft_config=common.lora_config() if opts.lora else None,
            callbacks=[common.metrics_callback(opts.output / "metrics.jsonl", echo)],
            **rollout,
        )
        trainer.train()
        final = common.save_final(trainer, tokenizer, opts.output / "final", opts.lora)
    finally:
        if episodes is not None:
            episodes.close()
        executor.close()
    summary: dict[str, Any] = {"final": str(final), "steps": trainer.state.global_step}
    if opts.eval_split:
        summary["eval"] = common.evaluate_checkpoint(
            final, opts.eval_split, opts.db, _eval_run_name(opts), opts.executor
        )
    return summary


def _server_baselines(problems: list[Problem]) -> list[Problem]:
    """With ``SUPERCODER_SERVER``, the prompts' ``-O3`` assembly comes from that server
    (as the rewards do): this machine needs no gcc nor sandbox to build them."""
    remote = ServiceClient.from_env()
    if remote is None:
        return problems
    with remote:
        return remote.with_baselines(problems)
