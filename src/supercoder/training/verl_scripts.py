"""verl 0.9.x launch scripts with the SuperCoder paper's settings.

``overrides(algo, settings)`` is the list of Hydra overrides handed to
``python3 -m verl.trainer.main_ppo`` (every key exists in verl 0.9.x's
``verl/trainer/config/ppo_trainer.yaml``; none of the legacy top-level keys that 0.9.x
only keeps as ignored placeholders: ``custom_reward_function.*``, ``reward_model.*``);
``launch_script`` wraps them in a bash script overridable by environment variables
(``MODEL``, ``N_GPUS``, ``NNODES``, ``PYTHON``) and extra ``key=value`` arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from supercoder.errors import UserError
from supercoder.training.configs import VerlLimits


class Algo(StrEnum):
    """verl's algorithms supercoder writes launch scripts for."""

    PPO = "ppo"
    GRPO = "grpo"


ALGOS = tuple(a.value for a in Algo)
DEFAULT_MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"
VERL_TESTED = "verl>=0.9.1,<0.10"
GRPO_SAMPLES = 8


@dataclass(frozen=True, kw_only=True)
class VerlRunConfig(VerlLimits):
    """What the launch scripts set besides the paper's fixed hyper-parameters.

    Fields:
        max_prompt_length: ``data.max_prompt_length`` (tokens).
        max_response_length: ``data.max_response_length`` (tokens).
        train_batch_size: ``data.train_batch_size`` (prompts per step).
        reward: the reward spec the reward module pays (``SUPERCODER_REWARD``, which a
            launch may override).
        timing_rounds: the timing budget (``SUPERCODER_TIMING_ROUNDS``; None: adaptive).
    """

    # A launch script needs concrete limits (the export measures them; None there means
    # "measure"), so these two alone default to a number here.
    max_prompt_length: int = 2000
    max_response_length: int = 2000

    def tokens_per_gpu(self, floor: int) -> int:
        """A dynamic-batch token budget that always holds one whole sequence."""
        return max(floor, self.max_prompt_length + self.max_response_length)


def overrides(algo: str, settings: VerlRunConfig = VerlRunConfig()) -> list[str]:
    """verl overrides (shell words: ``$HERE``, ``$MODEL``... are expanded by the script)."""
    if algo not in ALGOS:
        raise UserError(f"unknown algorithm {algo!r}: use one of {', '.join(ALGOS)}")
    ppo = algo == "ppo"
    words = [
        f"algorithm.adv_estimator={'gae' if ppo else 'grpo'}",
        "algorithm.use_kl_in_reward=False",
        'data.train_files="$HERE/train.parquet"',
        'data.val_files="$HERE/val.parquet"',
        f"data.train_batch_size={settings.train_batch_size}",
        f"data.max_prompt_length={settings.max_prompt_length}",
        f"data.max_response_length={settings.max_response_length}",
        "data.filter_overlong_prompts=True",
        "data.truncation=error",
        'actor_rollout_ref.model.path="$MODEL"',
        "actor_rollout_ref.actor.optim.lr=1e-6",
        f"actor_rollout_ref.actor.ppo_mini_batch_size={settings.train_batch_size}",
        "actor_rollout_ref.actor.use_dynamic_bsz=True",
        f"actor_rollout_ref.actor.ppo_max_token_len_per_gpu={settings.tokens_per_gpu(16384)}",
        "actor_rollout_ref.actor.use_kl_loss=False",
        "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.rollout.temperature=0.5",
        f"actor_rollout_ref.rollout.n={1 if ppo else GRPO_SAMPLES}",
        "actor_rollout_ref.rollout.gpu_memory_utilization=0.5",
    ]
    if ppo:
        words += [
            "critic.optim.lr=1e-5",
            'critic.model.path="$MODEL"',
            f"critic.ppo_max_token_len_per_gpu={settings.tokens_per_gpu(32768)}",
        ]
    return words + [
        'reward.custom_reward_function.path="$HERE/reward.py"',
        "reward.custom_reward_function.name=compute_score",
        "reward.reward_manager.name=naive",
        "trainer.logger='[\"console\"]'",
        "trainer.project_name=supercoder",
        f"trainer.experiment_name={algo}",
        f'trainer.default_local_dir="$HERE/checkpoints/{algo}"',
        'trainer.n_gpus_per_node="$N_GPUS"',
        'trainer.nnodes="$NNODES"',
        "trainer.save_freq=50",
        "trainer.test_freq=50",
        "trainer.total_epochs=1",
    ]


_SCRIPT = """#!/usr/bin/env bash
# supercoder x verl ({verl}): {title} with the SuperCoder paper's settings.
# Single node:  bash {name}            (N_GPUS GPUs on this machine, default 4)
# Multi-node:   on the head node   ray start --head --port=6379
#               on every other     ray start --address=HEAD_IP:6379
#               then on the head   NNODES=2 N_GPUS=4 bash {name}
#   (every node needs verl, supercoder, gcc and bubblewrap installed, and this folder
#    at the same path or on shared storage). Extra key=value arguments are passed on.
# Token limits: measured by `supercoder train verl` with {tokenizer}'s tokenizer;
#   another MODEL may count differently (see budget.json).
set -euo pipefail
HERE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
MODEL="${{MODEL:-{model}}}"
NNODES="${{NNODES:-1}}"
N_GPUS="${{N_GPUS:-4}}"
PYTHON="${{PYTHON:-python3}}"
# the reward (`supercoder reward study` compares the forms and budgets; docs/training.md)
export SUPERCODER_REWARD="${{SUPERCODER_REWARD:-{reward}}}"
export SUPERCODER_TIMING_ROUNDS="${{SUPERCODER_TIMING_ROUNDS:-{rounds}}}"
"$PYTHON" -m verl.trainer.main_ppo \\
{lines}
    "$@"
"""


def launch_script(
    algo: str,
    model: str = DEFAULT_MODEL,
    settings: VerlRunConfig = VerlRunConfig(),
    tokenizer: str | None = None,
) -> str:
    """The bash launch script for ``ppo`` (GAE, actor + critic) or ``grpo`` (8 samples)."""
    words = overrides(algo, settings)
    ppo = algo == "ppo"
    return _SCRIPT.format(
        verl=VERL_TESTED,
        title="PPO (GAE, actor and critic)"
        if ppo
        else f"GRPO ({GRPO_SAMPLES} responses per prompt)",
        name=f"run_{algo}.sh",
        model=model,
        tokenizer=tokenizer or model,
        lines="\n".join(f"    {word} \\" for word in words),
        reward=settings.reward,
        rounds="" if settings.timing_rounds is None else settings.timing_rounds,
    )
