"""supercoder as a ``verifiers`` environment (``pip install 'supercoder[verifiers]'``).

verifiers 0.4 (``verifiers.v1``) loads an environment from an installed package named
by its id: ``vf-eval supercoder-env`` imports the top-level package ``supercoder_env``
(this module's re-export) and takes from its ``__all__`` the ``Taskset`` subclass (the
tasks), the ``Env`` subclass (how a task becomes an episode) and the ``Harness``
subclass (the program that talks to the model). ``load_environment(benchmark=...,
turns=..., reward=...)`` builds the same from Python through ``vf.load_environment``.

- ``SupercoderTaskset``: one task per problem of ``benchmark``, the paper's prompt with
  the -O3 assembly (``episode.first_messages``); the task's rubric is one reward,
  ``speedup``: the reward of ``--reward`` (``verify.reward``) of the final answer,
  verified in this machine's sandbox. An infrastructure failure raises (the rollout is
  an error, never scored 0).
- ``turns=1``: verifiers' own single-agent environment (``SingleAgentEnv``): one answer.
- ``turns=N``: ``SupercoderEnv``, the multi-turn environment: after each answer the
  environment verifies it and, unless it is correct and significantly faster, answers
  with the feedback ``--rounds`` refinement gives (``prompts.feedback_for``), up to N
  answers (``training/episode.py``). Each turn's reward is recorded as the metric
  ``turn_K_reward`` and the turns as ``trace.info["supercoder_turns"]``; the episode's
  reward is the final answer's.
- ``LocalChatHarness``: verifiers' own tool-less chat program (the ``null`` harness's),
  run with this Python instead of a ``uv`` environment built at run time, so an
  evaluation needs no download.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.envs.single_agent import SingleAgentEnvConfig
from verifiers.v1.harnesses.null.harness import NullHarness, NullHarnessConfig
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE, launch_chat_program

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import InfraError
from supercoder.training import episode
from supercoder.types import Problem
from supercoder.verify.evaluate import check_config
from supercoder.verify.reward import RewardConfig, parse_reward

TASKSET_ID = "supercoder-env"


class SupercoderConfig(vf.TasksetConfig):
    """The taskset's settings (``--env.taskset.*``)."""

    benchmark: str = "val"
    """The problems: a bundled split, a folder, or a JSONL/Parquet file."""
    turns: int = 1
    """Answers per episode (feedback between them)."""
    reward: str = "gated"
    """The reward spec: gated, paper, log, binary[:threshold=T], percentile[:pool=P]."""
    baseline_copy: float = 0.0
    """The reward of a copy of the baseline."""
    timing_rounds: int | None = None
    """The timing budget: rounds of pairs per answer (None: the meter's adaptive 4-15)."""
    answer: str = "whole"
    """The answer form the prompt asks for: whole or diff."""
    time: bool = True
    """Time correct answers (off: correctness only, a correct answer is untimed)."""


class SupercoderData(vf.TaskData):
    info: dict
    """The problem's name and the episode's settings (no test data)."""


class SupercoderTask(vf.Task[SupercoderData, vf.State, vf.TaskConfig]):
    """One problem; its rubric is the final answer's reward."""

    @vf.reward
    async def speedup(self, trace: vf.Trace) -> float:
        turns = trace.info.get("supercoder_turns")
        if turns:  # the multi-turn environment verified every answer already
            reward = turns[-1]["reward"]
        else:
            info = self.data.info
            turn = (await asyncio.to_thread(_judge, info, trace.last_reply, 1))[0]
            trace.info["supercoder_turns"] = [turn.to_json()]
            reward = turn.reward
        if reward is None:
            raise InfraError("the answer could not be verified (infrastructure failure)")
        return float(reward)


class SupercoderTaskset(vf.Taskset[SupercoderTask, SupercoderConfig]):
    """One task per problem of ``benchmark``."""

    def load(self) -> Iterator[SupercoderTask]:
        c = self.config
        episode.check_turns(c.turns)
        parse_reward(c.reward)  # a bad spec: one line now, not at the first answer
        settings = {
            "benchmark": c.benchmark,
            "turns": c.turns,
            "reward": c.reward,
            "baseline_copy": c.baseline_copy,
            "timing_rounds": c.timing_rounds,
            "answer": c.answer,
            "time": c.time,
        }
        for problem in _problems(c.benchmark):
            messages = episode.first_messages(problem, answer=c.answer)
            system = [m["content"] for m in messages if m["role"] == "system"]
            user = [m for m in messages if m["role"] != "system"]
            yield SupercoderTask(
                SupercoderData(
                    name=problem.name,
                    id=problem.name,
                    prompt=user[0]["content"] if len(user) == 1 else user,
                    system_prompt=system[0] if system else None,
                    info={"problem": problem.name, **settings},
                ),
                c.task,
            )


class SupercoderEnvConfig(vf.EnvConfig):
    """The multi-turn environment's config: one ``agent`` seat."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy under evaluation or training (its chat program runs here: the
    harness executes no code, the answers run in supercoder's sandbox)."""


class SupercoderEnv(vf.Env[SupercoderEnvConfig]):
    """Refinement episodes: answer, verifier feedback, answer again (module docstring)."""

    async def run(self, task: SupercoderTask, agents: Any) -> None:
        info = task.data.info
        turns = int(info["turns"])
        seen: list[dict[str, Any]] = []
        async with agents.agent.interaction(task) as interaction:
            segment = await interaction.turn()
            while True:
                index = len(seen) + 1
                turn = (await asyncio.to_thread(_judge, info, segment.last_reply, index))[0]
                seen.append(turn.to_json())
                interaction.trace.record_metric(
                    f"turn_{index}_reward", float("nan") if turn.reward is None else turn.reward
                )
                interaction.trace.info["supercoder_turns"] = list(seen)
                if turn.done or index >= turns or segment.terminated:
                    break
                segment = await interaction.turn(turn.feedback)


class LocalChatHarnessConfig(NullHarnessConfig):
    """verifiers' chat program, run with this Python."""


class LocalChatHarness(NullHarness):
    """The ``null`` harness's chat program (verifiers' own code) run with this
    interpreter, whose packages (verifiers' dependencies) it needs, instead of a
    ``uv`` environment resolved at run time."""

    async def setup(self, runtime: Any) -> None:
        return None

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> Any:
        system_prompt, prompt = self.resolve_prompt(data)
        return await launch_chat_program(
            CHAT_PROGRAM_SOURCE,
            self.config,
            ctx,
            trace,
            _ThisPython(runtime, f".vf-supercoder-chat-{trace.id}.py"),
            endpoint,
            secret,
            mcp_urls,
            system_prompt,
            prompt,
            extra_args=[f"--tool-interception-url={tool_interception_url}"]
            if tool_interception_url
            else (),
        )


class _ThisPython:
    """A runtime whose PEP 723 scripts run with this interpreter (everything else is
    the runtime's own)."""

    def __init__(self, runtime: Any, path: str) -> None:
        self._runtime = runtime
        self._path = path

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str | bytes, env: Any = None, **_: Any) -> list[str]:
        data = script.encode() if isinstance(script, str) else script
        await self._runtime.write(self._path, data)
        return [sys.executable, self._path]


@functools.cache
def _problems(benchmark: str) -> tuple[Problem, ...]:
    return tuple(load_benchmark(benchmark))


def _reward(info: dict[str, Any]) -> RewardConfig:
    return parse_reward(
        info["reward"],
        check_config(time=bool(info["time"])),
        baseline_copy=float(info["baseline_copy"]) or None,
        rounds=info.get("timing_rounds"),
    )


def _judge(info: dict[str, Any], reply: str, index: int) -> list[episode.Turn]:
    problem = {p.name: p for p in _problems(info["benchmark"])}[info["problem"]]
    return episode.judge(
        [problem], [reply or ""], [index], int(info["turns"]), _reward(info), None, info["answer"]
    )


def load_environment(
    benchmark: str = "val",
    turns: int = 1,
    reward: str = "gated",
    baseline_copy: float = 0.0,
    answer: str = "whole",
    time: bool = True,
    timing_rounds: int | None = None,
    **env: Any,
) -> vf.Env:
    """The environment through verifiers' own loader: ``SingleAgentEnv`` for one turn,
    ``SupercoderEnv`` (refinement episodes with the verifier's feedback) for more."""
    episode.check_turns(turns)
    taskset = {
        "id": TASKSET_ID,
        "benchmark": benchmark,
        "turns": turns,
        "reward": reward,
        "baseline_copy": baseline_copy,
        "timing_rounds": timing_rounds,
        "answer": answer,
        "time": time,
    }
    env.setdefault("agent", {"runtime": {"type": "subprocess"}})
    if turns == 1:
        config: vf.EnvConfig = SingleAgentEnvConfig(id="single-agent", taskset=taskset, **env)
    else:
        config = SupercoderEnvConfig(taskset=taskset, **env)
    return vf.load_environment(config)


__all__ = [
    "LocalChatHarness",
    "LocalChatHarnessConfig",
    "SupercoderConfig",
    "SupercoderData",
    "SupercoderEnv",
    "SupercoderEnvConfig",
    "SupercoderTask",
    "SupercoderTaskset",
    "load_environment",
]
