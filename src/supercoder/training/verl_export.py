"""``supercoder train verl``: everything verl 0.9.x needs to train on a benchmark, in one folder.

- ``train.parquet`` / ``val.parquet``: one row per problem that fits the token limits, in
  verl's RL format, which is the SuperCoder schema (``data_source``, ``prompt`` chat
  list, ``ability``, ``reward_model{style, ground_truth}``, ``extra_info{split, index,
  c_code, question, answer, inputs, outputs, ...}``), written by ``records.py``;
- ``reward.py``: the custom reward function verl loads (imports our ``compute_score``);
- ``run_ppo.sh`` / ``run_grpo.sh``: ``python3 -m verl.trainer.main_ppo`` with the paper's
  settings and the measured token limits (``verl_scripts.py``);
- ``budget.json``: every problem's prompt and ``-O3`` answer length, the limits, who was
  left out and why;
- ``README.md``: single-node and multi-node (Ray cluster) use.

Before writing, every prompt and ``-O3`` answer is measured with the model's tokenizer
(``budget.py``): the limits cover them unless given, the problems that do not fit are
named and left out (verl would drop an overlong prompt silently), and the export refuses
when fewer training problems fit than one ``train_batch_size`` (zero training steps).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from supercoder.dataset.records import records_for, write_raw
from supercoder.errors import UserError
from supercoder.toolchain.baseline import baseline_asm
from supercoder.training import budget as budgets
from supercoder.training.configs import PromptConfig, VerlLimits
from supercoder.training.verl_scripts import (
    ALGOS,
    DEFAULT_MODEL,
    VERL_TESTED,
    VerlRunConfig,
    launch_script,
)
from supercoder.types import Problem
from supercoder.verify.reward import parse_reward

__all__ = ["ALGOS", "DEFAULT_MODEL", "VerlExportConfig", "export_verl", "launch_script"]

REWARD_MODULE = '''"""verl custom reward function for supercoder (verl 0.9.x:
reward.custom_reward_function.path = this file, .name = compute_score,
reward.reward_manager.name = naive).

compute_score returns a dict, never None: "score" (the reward) plus metrics verl logs.
Env: SUPERCODER_REWARD (a reward spec: gated, paper, log, binary[:threshold=T],
percentile[:pool=P]; default gated), SUPERCODER_TIMING_ROUNDS (the timing budget:
rounds of pairs per response; default adaptive), SUPERCODER_INFRA_RETRIES (default 2),
SUPERCODER_INFRA_SCORE (default 0.0: the score of a machine failure that persists,
flagged infra_failure=1), SUPERCODER_TARGET=native|x86-64|x86-64-v2|x86-64-v3|x86-64-v4
(default native: the CPUs answers must run on; the assembler refuses anything beyond).
"""

from supercoder.training.verl_reward import compute_score

__all__ = ["compute_score"]
'''


@dataclass(frozen=True)
class VerlExportConfig(PromptConfig, VerlLimits):
    """What ``supercoder train verl`` writes (one field per CLI option).

    Fields:
        out: the export folder (parquet files, reward.py, launch scripts, budget.json).
        algos: which launch scripts (``ppo``, ``grpo``).
        model: the model the scripts train (``MODEL=`` overrides it at launch).
        tokenizer: what measures the token limits; None: the model's (the offline
            Qwen2.5 files as fallback).
        max_prompt_length: verl's prompt limit; None: cover every prompt.
        max_response_length: verl's response limit; None: cover every -O3 answer.
        train_batch_size: prompts per step; fewer fitting problems are refused.
        context: the prompt's context (``full`` | ``hot``, see prompting/prompts.py).
        answer: the answer form the prompt asks for (``whole`` | ``diff``).
        reward: the reward spec the launch scripts set (``SUPERCODER_REWARD``: gated,
            paper, log, binary[:threshold=T], percentile[:pool=P]; checked now).
        timing_rounds: the timing budget the launch scripts set (rounds of pairs per
            response; None: the meter's adaptive 4-15).
    """

    out: Path
    algos: tuple[str, ...] = ALGOS
    model: str = DEFAULT_MODEL
    tokenizer: str | None = None


def export_verl(
    train: Sequence[Problem],
    val: Sequence[Problem],
    opts: VerlExportConfig | str | Path,
    algos: Sequence[str] | None = None,
    model: str | None = None,
    context: str = "full",
    answer: str = "whole",
    *,
    echo: Callable[[str], None] | None = print,
    tokenizer: Any = None,
) -> list[Path]:
    """Measure, choose limits, write the folder; returns the files written.

    ``opts`` may be just the output folder (then ``algos``/``model``/``context``/``answer``
    as given, the rest default; the reward accepts both answer forms); ``tokenizer``: an already loaded tokenizer to measure with (else
    ``opts.tokenizer`` or the model's)."""
    if not isinstance(opts, VerlExportConfig):
        opts = VerlExportConfig(
            Path(opts),
            tuple(algos or ALGOS),
            model or DEFAULT_MODEL,
            context=context,
            answer=answer,
        )
    for algo in opts.algos:
        if algo not in ALGOS:
            raise UserError(f"unknown algorithm {algo!r}: use one of {', '.join(ALGOS)}")
    if opts.train_batch_size < 1:
        raise UserError(f"--train-batch-size must be at least 1, got {opts.train_batch_size}")
    if not train:
        raise UserError("no training problems to export")
    records = {split: _records(ps, split, opts) for split, ps in (("train", train), ("val", val))}
    where = "the given tokenizer"
    if tokenizer is None:
        tokenizer, where = budgets.load_length_tokenizer(opts.tokenizer, opts.model, echo)
    sizes = {
        split: budgets.measure(budgets.record_items(rs), tokenizer) for split, rs in records.items()
    }
    limits = budgets.choose_limits(
        sizes["train"] + sizes["val"], opts.max_prompt_length, opts.max_response_length
    )
    plans = {split: budgets.fit(sizes[split], limits) for split in records}
    _say(echo, [budgets.limits_line(limits, where)])
    for split in records:
        _say(echo, budgets.report(plans[split], split))
    hint = "raise --max-prompt-length/--max-response-length or lower --train-batch-size"
    budgets.require_batch(len(plans["train"].fits), opts.train_batch_size, "train", hint)
    if records["val"] and not plans["val"].fits:
        raise UserError(f"val: none of {len(records['val'])} problems fit; {hint}")
    steps = len(plans["train"].fits) // opts.train_batch_size
    _say(echo, [f"verl will train {steps} steps per epoch (batch {opts.train_batch_size})"])
    kept = {split: _keep(records[split], sizes[split], plans[split]) for split in records}
    spec = parse_reward(opts.reward, rounds=opts.timing_rounds).spec  # a bad one: now
    settings = VerlRunConfig(
        max_prompt_length=limits.prompt,
        max_response_length=limits.response,
        train_batch_size=opts.train_batch_size,
        reward=spec,
        timing_rounds=opts.timing_rounds,
    )
    return _write(opts, kept, settings, _budget_json(where, limits, sizes, plans, opts))


def _records(
    problems: Sequence[Problem], split: str, opts: VerlExportConfig
) -> list[dict[str, Any]]:
    """Records for ``split`` in the prompt modes of ``opts``; baselines from the
    evaluator's cache (gcc -O3 -S once)."""
    with_asm = [replace(p, split=split, baseline_asm=baseline_asm(p)) for p in problems]
    return records_for(with_asm, opts.context, opts.answer)


def _keep(
    records: list[dict], sizes: list[budgets.Measured], plan: budgets.LengthPlan
) -> list[dict]:
    fit = {id(m) for m in plan.fits}
    return [r for r, m in zip(records, sizes, strict=True) if id(m) in fit]


def _say(echo: Callable[[str], None] | None, lines: list[str]) -> None:
    for line in lines if echo is not None else []:
        echo(line)


def _budget_json(
    where: str,
    limits: budgets.Limits,
    sizes: dict[str, list[budgets.Measured]],
    plans: dict[str, budgets.LengthPlan],
    opts: VerlExportConfig,
) -> dict[str, Any]:
    return {
        "tokenizer": where,
        "max_prompt_length": limits.prompt,
        "max_response_length": limits.response,
        "train_batch_size": opts.train_batch_size,
        "steps_per_epoch": len(plans["train"].fits) // opts.train_batch_size,
        **{
            split: {
                "fit": len(plans[split].fits),
                "total": len(sizes[split]),
                "dropped": [{"name": m.name, "why": why} for m, why in plans[split].dropped],
                "problems": [
                    {"name": m.name, "prompt_tokens": m.prompt, "answer_tokens": m.answer}
                    for m in sizes[split]
                ],
            }
            for split in plans
        },
    }


def _write(
    opts: VerlExportConfig,
    kept: dict[str, list[dict]],
    settings: VerlRunConfig,
    budget: dict[str, Any],
) -> list[Path]:
    folder = Path(opts.out)
    folder.mkdir(parents=True, exist_ok=True)
    written = [write_raw(kept[split], folder / f"{split}.parquet") for split in ("train", "val")]
    files = {
        "reward.py": REWARD_MODULE,
        "budget.json": json.dumps(budget, indent=2) + "\n",
        "README.md": _readme(len(kept["train"]), len(kept["val"]), opts.algos, settings),
    }
    for algo in opts.algos:
        files[f"run_{algo}.sh"] = launch_script(algo, opts.model, settings, budget["tokenizer"])
    for name, text in files.items():
        (folder / name).write_text(text)
        if name.endswith(".sh"):
            (folder / name).chmod(0o755)
        written.append(folder / name)
    return written


def _readme(n_train: int, n_val: int, algos: Sequence[str], settings: VerlRunConfig) -> str:
    scripts = ", ".join(f"`run_{a}.sh`" for a in algos)
    return f"""# verl training set written by `supercoder train verl` (tested with {VERL_TESTED})

- `train.parquet` ({n_train} problems), `val.parquet` ({n_val} problems): verl's RL
  format (SuperCoder schema); each row carries its C code and tests in `extra_info`,
  so reward workers need no other files.
- `reward.py`: the custom reward function (`compute_score`): 0 for a wrong program,
  about the speedup for a correct one; always a dict with `score`, never None.
- {scripts}: `python3 -m verl.trainer.main_ppo` with the paper's settings (actor lr
  1e-6, critic lr 1e-5 for PPO, batch {settings.train_batch_size}, rollout temperature 0.5,
  no KL loss, 1 epoch, 4 GPUs per node) and token limits measured on these problems:
  prompts up to {settings.max_prompt_length} tokens, responses up to
  {settings.max_response_length} (the paper used 2,000 and 2,000 with shorter prompts).
- `budget.json`: every problem's prompt and `-O3` answer length, and who was left out.

## One machine

    pip install '{VERL_TESTED.replace("verl", "verl[vllm]", 1)}' 'supercoder[verl]'
    apt-get install gcc bubblewrap
    N_GPUS=4 bash run_ppo.sh              # or run_grpo.sh; MODEL=... to change the model

## A Ray cluster

    # head node
    ray start --head --port=6379
    # every other node (same software, this folder at the same path)
    ray start --address=HEAD_IP:6379
    # on the head node
    NNODES=2 N_GPUS=8 bash run_ppo.sh

Any `key=value` argument is passed on to verl, e.g. `trainer.total_epochs=2`.
Rewards: `SUPERCODER_REWARD` (a spec: gated, paper, log, binary[:threshold=T],
percentile[:pool=P]; the launch scripts set the one exported, default gated) and
`SUPERCODER_TIMING_ROUNDS` (rounds of pairs per response); `SUPERCODER_TARGET=x86-64-v3`
(or another x86-64 level; default native) makes the reward refuse answers beyond that level. A machine failure (sandbox could not
start, runner lost) is retried `SUPERCODER_INFRA_RETRIES` times (default 2); if it
persists the response gets `SUPERCODER_INFRA_SCORE` (default 0.0) and `infra_failure: 1`,
which verl logs as a reward metric (verl cannot skip a response, and a None reward
crashes it).
"""
