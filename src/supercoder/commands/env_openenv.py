"""`supercoder env openenv`: refinement episodes served as an OpenEnv environment."""

from __future__ import annotations

from typing import Annotated

import typer

from supercoder.commands.options import (
    BENCHMARK,
    TURNS,
    AnswerOpt,
    BaselineCopyOpt,
    ListenOptions,
    RewardOpt,
    TargetOpt,
    TimingRoundsOpt,
    reward_config,
)
from supercoder.commands.optionset import use, with_groups
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError
from supercoder.prompting.answers import AnswerForm
from supercoder.toolchain.isa import DEFAULT_TARGET
from supercoder.training.episode import check_turns
from supercoder.training.openenv_env import EnvSettings, serve
from supercoder.verify.reward import DEFAULT_REWARD

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@with_groups(listen=use(ListenOptions, port=8000))
def openenv(
    benchmark: Annotated[str, BENCHMARK] = "train",
    turns: Annotated[int, TURNS] = 1,
    reward: RewardOpt = DEFAULT_REWARD.value,
    baseline_copy: BaselineCopyOpt = 0.0,
    timing_rounds: TimingRoundsOpt = None,
    answer: AnswerOpt = AnswerForm.WHOLE,
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
    *,
    listen: ListenOptions,
) -> None:
    """Serve refinement episodes over OpenEnv's HTTP/WebSocket API (pip install
    'supercoder[openenv]'): reset gives a problem's prompt, step verifies an answer and
    returns the verdict, its reward, the --rounds feedback and done. --benchmark: the
    problems episodes reset to; --host: a loopback address unless --public."""
    host, port = listen.host, listen.port
    if port < 1:
        raise UserError("--port 0: env openenv needs a fixed port (1-65535) its clients can reach")
    if host not in _LOOPBACK and not public:
        raise UserError(f"--host {host}: not a loopback address; add --public to bind it")
    settings = EnvSettings(
        problems=tuple(load_benchmark(benchmark)),
        turns=check_turns(turns),
        reward=reward_config(reward, baseline_copy, True, isa_target, timing_rounds),
        answer=answer,
    )
    serve(settings, host, port, sessions, echo=lambda line: typer.echo(line, err=True))
