"""`supercoder train grpo`: TRL's GRPOTrainer on the speedup reward."""

from __future__ import annotations

import json
from dataclasses import replace

import typer

from supercoder.commands.machine import engine_options, installs_engine
from supercoder.commands.options import (
    BaselineCopyOpt,
    RewardOpt,
    SandboxOpt,
    TargetOpt,
    TimingRoundsOpt,
    reward_config,
)
from supercoder.commands.optionset import with_config
from supercoder.toolchain.isa import DEFAULT_TARGET
from supercoder.training.grpo import GrpoConfig, train_grpo
from supercoder.verify.reward import DEFAULT_REWARD


@with_config(
    GrpoConfig,
    "opts",
    skip=("reward", "workers"),
    machine=engine_options(workers=2, skip=("requests",)),
)
@installs_engine
def grpo(
    reward: RewardOpt = DEFAULT_REWARD.value,
    baseline_copy: BaselineCopyOpt = 0.0,
    timing_rounds: TimingRoundsOpt = None,
    unsafe_no_sandbox: SandboxOpt = False,
    isa_target: TargetOpt = DEFAULT_TARGET,
    *,
    opts: GrpoConfig,
) -> None:
    """GRPO with TRL on the benchmark's problems, then an eval of the result."""
    opts = replace(
        opts,
        reward=reward_config(
            reward, baseline_copy, not unsafe_no_sandbox, isa_target, timing_rounds
        ),
        eval_split=None if opts.eval_split == "none" else opts.eval_split,
    )
    typer.echo(json.dumps(train_grpo(opts), indent=2, default=str))
