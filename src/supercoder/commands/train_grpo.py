"""`supercoder train grpo`: TRL's GRPOTrainer on the speedup reward."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated

import typer

from supercoder.commands.machine import current, with_engine
from supercoder.commands.options import TargetOpt, reward_config
from supercoder.commands.optionset import with_config
from supercoder.toolchain.isa import DEFAULT_TARGET
from supercoder.training.grpo import GrpoConfig
from supercoder.verify.reward import DEFAULT_REWARD, REWARD_KINDS


@with_engine(workers=2, skip=("requests",))
@with_config(GrpoConfig, "opts", skip=("reward", "workers"))
def grpo(
    reward: Annotated[
        str,
        typer.Option(
            help=f"Reward: {', '.join(REWARD_KINDS)}. {DEFAULT_REWARD.value}: the speedup only "
            "when significantly faster, else what a copy of the baseline earns (a copy padded "
            "with a nop reads ~1.0x: the paper's reward, 'paper', pays it ~1.0)."
        ),
    ] = DEFAULT_REWARD.value,
    baseline_copy: Annotated[
        float, typer.Option(min=0.0, help="Reward for a copy of the baseline.")
    ] = 0.0,
    unsafe_no_sandbox: Annotated[
        bool, typer.Option("--unsafe-no-sandbox", help="Run candidates WITHOUT isolation.")
    ] = False,
    isa_target: TargetOpt = DEFAULT_TARGET,
    *,
    opts: GrpoConfig,
) -> None:
    """GRPO with TRL on the benchmark's problems, then an eval of the result."""
    from supercoder.training.grpo import train_grpo

    opts = replace(
        opts,
        reward=reward_config(reward, baseline_copy, not unsafe_no_sandbox, isa_target),
        eval_split=None if opts.eval_split == "none" else opts.eval_split,
        workers=current().workers,  # --workers: the engine's option
    )
    typer.echo(json.dumps(train_grpo(opts), indent=2, default=str))
