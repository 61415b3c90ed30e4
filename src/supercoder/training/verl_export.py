"""``supercoder train verl``: everything verl needs to train on a benchmark, in one folder.

- ``train.parquet`` / ``val.parquet``: one row per problem in verl's RL format, which is
  the SuperCoder schema (``data_source``, ``prompt`` chat list, ``ability``,
  ``reward_model{style, ground_truth}``, ``extra_info{split, index, c_code, question,
  answer, inputs, outputs, ...}``), written by ``records.py``;
- ``reward.py``: the custom reward function verl loads (imports our ``compute_score``);
- ``run_ppo.sh`` / ``run_grpo.sh``: ``python3 -m verl.trainer.main_ppo`` with the paper's
  settings, overridable by environment variables and extra ``key=value`` arguments;
- ``README.md``: single-node and multi-node (Ray cluster) use.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from supercoder.errors import UserError
from supercoder.types import Problem

ALGOS = ("ppo", "grpo")
DEFAULT_MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"

REWARD_MODULE = '''"""verl custom reward function for supercoder
(custom_reward_function.path = this file).

compute_score: one response (reward_model.reward_manager=naive, the default);
compute_score_batch: a batch, correctness checks in parallel (reward_manager=batch).
Env: SUPERCODER_REWARD=paper|log|gated, SUPERCODER_INFRA_RETRIES, SUPERCODER_INFRA_SCORE.
"""

from supercoder.training.verl_reward import compute_score, compute_score_batch

__all__ = ["compute_score", "compute_score_batch"]
'''

_COMMON = """#!/usr/bin/env bash
# supercoder x verl: {title} with the SuperCoder paper's settings.
# Single node:  bash {name}            (N_GPUS GPUs on this machine, default 4)
# Multi-node:   on the head node   ray start --head --port=6379
#               on every other     ray start --address=HEAD_IP:6379
#               then on the head   NNODES=2 N_GPUS=4 bash {name}
#   (every node needs verl, supercoder, gcc and bubblewrap installed, and this folder
#    at the same path or on shared storage). Extra key=value arguments are passed on.
set -euo pipefail
HERE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
MODEL="${{MODEL:-{model}}}"
NNODES="${{NNODES:-1}}"
N_GPUS="${{N_GPUS:-4}}"
python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator={estimator} \\
    algorithm.use_kl_in_reward=False \\
    data.train_files="$HERE/train.parquet" \\
    data.val_files="$HERE/val.parquet" \\
    data.train_batch_size=16 \\
    data.max_prompt_length=2000 \\
    data.max_response_length=2000 \\
    data.filter_overlong_prompts=True \\
    data.truncation=error \\
    actor_rollout_ref.model.path="$MODEL" \\
    actor_rollout_ref.actor.optim.lr=1e-6 \\
    actor_rollout_ref.actor.ppo_mini_batch_size=16 \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\
    actor_rollout_ref.actor.use_kl_loss=False \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.temperature=0.5 \\
    actor_rollout_ref.rollout.n={n} \\
    actor_rollout_ref.rollout.gpu_memory_utilization=0.5 \\
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 \\
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4 \\
{critic}    custom_reward_function.path="$HERE/reward.py" \\
    custom_reward_function.name=compute_score \\
    trainer.logger='["console"]' \\
    trainer.project_name=supercoder \\
    trainer.experiment_name={algo} \\
    trainer.default_local_dir="$HERE/checkpoints/{algo}" \\
    trainer.n_gpus_per_node="$N_GPUS" \\
    trainer.nnodes="$NNODES" \\
    trainer.save_freq=50 \\
    trainer.test_freq=50 \\
    trainer.total_epochs=1 \\
    "$@"
"""

_CRITIC = """    critic.optim.lr=1e-5 \\
    critic.model.path="$MODEL" \\
    critic.ppo_micro_batch_size_per_gpu=2 \\
"""


def launch_script(algo: str, model: str = DEFAULT_MODEL) -> str:
    """The verl launch script for ``ppo`` (GAE, actor + critic) or ``grpo`` (8 samples)."""
    if algo not in ALGOS:
        raise UserError(f"unknown algorithm {algo!r}: use one of {', '.join(ALGOS)}")
    ppo = algo == "ppo"
    return _COMMON.format(
        title="PPO (GAE, actor and critic)" if ppo else "GRPO (8 responses per prompt)",
        name=f"run_{algo}.sh",
        model=model,
        estimator="gae" if ppo else "grpo",
        n=1 if ppo else 8,
        critic=_CRITIC if ppo else "",
        algo=algo,
    )


def export_verl(
    train: Sequence[Problem],
    val: Sequence[Problem],
    out: str | Path,
    algos: Sequence[str] = ALGOS,
    model: str = DEFAULT_MODEL,
    context: str = "full",
    answer: str = "whole",
) -> list[Path]:
    """Write the Parquet files, reward module, launch scripts and README into ``out``
    (``context``/``answer``: the prompt modes; the reward accepts both answer forms)."""
    from supercoder.records import records_for, write_raw

    if not train:
        raise UserError("no training problems to export")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = [
        write_raw(
            records_for([_with_split(p, "train") for p in train], context, answer),
            folder / "train.parquet",
        ),
        write_raw(
            records_for([_with_split(p, "val") for p in val], context, answer),
            folder / "val.parquet",
        ),
    ]
    (folder / "reward.py").write_text(REWARD_MODULE)
    written.append(folder / "reward.py")
    for algo in algos:
        script = folder / f"run_{algo}.sh"
        script.write_text(launch_script(algo, model))
        script.chmod(0o755)
        written.append(script)
    (folder / "README.md").write_text(_readme(len(train), len(val), algos))
    written.append(folder / "README.md")
    return written


def _with_split(problem: Problem, split: str) -> Problem:
    from dataclasses import replace

    return problem if problem.split == split else replace(problem, split=split)


def _readme(n_train: int, n_val: int, algos: Sequence[str]) -> str:
    scripts = ", ".join(f"`run_{a}.sh`" for a in algos)
    return f"""# verl training set written by `supercoder train verl`

- `train.parquet` ({n_train} problems), `val.parquet` ({n_val} problems): verl's RL
  format (SuperCoder schema); each row carries its C code and tests in `extra_info`,
  so reward workers need no other files.
- `reward.py`: the custom reward function (`compute_score`): 0 for a wrong program,
  about the speedup for a correct one, no reward (None) for a machine failure.
- {scripts}: `python3 -m verl.trainer.main_ppo` with the paper's settings (actor lr
  1e-6, critic lr 1e-5 for PPO, batch 16, 2,000-token prompt and response, rollout
  temperature 0.5, no KL loss, 1 epoch, 4 GPUs per node).

## One machine

    pip install verl 'supercoder[verl]'   # plus gcc and bubblewrap (apt-get install gcc bubblewrap)
    N_GPUS=4 bash run_ppo.sh              # or run_grpo.sh; MODEL=... to change the model

## A Ray cluster

    # head node
    ray start --head --port=6379
    # every other node (same software, this folder at the same path)
    ray start --address=HEAD_IP:6379
    # on the head node
    NNODES=2 N_GPUS=8 bash run_ppo.sh

Any `key=value` argument is passed on to verl, e.g. `trainer.total_epochs=2`.
Rewards: `SUPERCODER_REWARD=paper|log|gated`. To verify a whole batch in parallel, add
`reward_model.reward_manager=batch custom_reward_function.name=compute_score_batch`.
verl cannot skip a response: a machine failure that persists after
`SUPERCODER_INFRA_RETRIES` (default 2) retries stops the step, unless
`SUPERCODER_INFRA_SCORE` gives a neutral score to use instead (reported as
`infra_failure` in verl's reward metrics).
"""
