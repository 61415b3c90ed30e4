"""`supercoder env openenv`: refinement episodes served as an OpenEnv environment."""

from __future__ import annotations

from typing import Annotated

import typer

from supercoder.commands.options import TargetOpt, reward_config
from supercoder.toolchain.isa import DEFAULT_TARGET
from supercoder.verify.reward import DEFAULT_REWARD, REWARD_KINDS

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def openenv(
    benchmark: Annotated[str, typer.Option(help="The problems episodes reset to.")] = "train",
    turns: Annotated[
        int, typer.Option(min=1, max=16, help="Answers per episode (feedback between them).")
    ] = 1,
    reward: Annotated[
        str, typer.Option(help=f"Reward: {', '.join(REWARD_KINDS)}.")
    ] = DEFAULT_REWARD.value,
    baseline_copy: Annotated[
        float, typer.Option(min=0.0, help="Reward for a copy of the baseline.")
    ] = 0.0,
    answer: Annotated[
        str, typer.Option(help="The answer form asked for: whole or diff.")
    ] = "whole",
    host: Annotated[str, typer.Option(help="Address to bind (loopback unless --public).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to bind.")] = 8000,
    sessions: Annotated[
        int, typer.Option(min=1, max=256, help="Concurrent WebSocket sessions.")
    ] = 8,
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="Bind a non-loopback address: OpenEnv has no authentication, so anyone "
            "who reaches the port runs code in this machine's sandbox.",
        ),
    ] = False,
    isa_target: TargetOpt = DEFAULT_TARGET,
) -> None:
    """Serve refinement episodes over OpenEnv's HTTP/WebSocket API (pip install
    'supercoder[openenv]'): reset gives a problem's prompt, step verifies an answer and
    returns the verdict, its reward, the --rounds feedback and done."""
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.errors import UserError
    from supercoder.training.episode import check_turns
    from supercoder.training.openenv_env import EnvSettings, serve

    if host not in _LOOPBACK and not public:
        raise UserError(f"--host {host}: not a loopback address; add --public to bind it")
    if answer not in ("whole", "diff"):
        raise typer.BadParameter("use whole or diff", param_hint="--answer")
    settings = EnvSettings(
        problems=tuple(load_benchmark(benchmark)),
        turns=check_turns(turns),
        reward=reward_config(reward, baseline_copy, True, isa_target),
        answer=answer,
    )
    serve(settings, host, port, sessions, echo=lambda line: typer.echo(line, err=True))
