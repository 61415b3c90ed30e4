"""supercoder as an OpenEnv environment: a server (``supercoder env openenv``) and its client.

OpenEnv (the ``openenv`` package, ``pip install 'supercoder[openenv]'``) serves an
``Environment`` over HTTP and WebSocket (``openenv.core.env_server.create_app``: one
environment instance per WebSocket session) and talks to it with a typed ``EnvClient``.
Ours steps refinement episodes (``training/episode.py``):

- ``reset(problem=NAME)`` (or ``seed=N``: the N-th problem, modulo their number; neither:
  the first) opens an episode and returns the problem's prompt as chat messages
  (``CodeObservation.prompt``, the paper's prompt with the -O3 assembly);
- ``step(CodeAction(answer=TEXT))`` verifies the answer in this server's sandbox and
  returns the verdict as the observation (``verdict``: status, correct, speedup; never
  a hidden test's data), its ``reward`` (the reward of ``--reward``), the ``feedback``
  ``--rounds`` refinement would give (``prompts.feedback_for``) and ``done`` (the last
  turn, or correct and significantly faster). A step after ``done`` is refused.
  OpenEnv's plain HTTP ``/reset`` and ``/step`` keep no session (a fresh environment per
  request): there ``CodeAction(answer=TEXT, problem=NAME)`` is the first answer of an
  episode on that problem.

``OpenEnvEpisodes`` steps a batch of episodes through a server, one session per
rollout, for ``train grpo --env-url URL`` (TRL's ``rollout_func``,
``training/multiturn.py``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from supercoder.codec import decode
from supercoder.engine import current
from supercoder.errors import UserError, require
from supercoder.training.episode import TurnView, check_turns, first_messages
from supercoder.training.multiturn import Step, prompt_key
from supercoder.types import Problem
from supercoder.verify.reward import RewardConfig

MESSAGE_TIMEOUT_S = 900.0  # one verification (build, tests, timing) per message


@dataclass(frozen=True)
class EnvSettings:
    """What every session of the server plays.

    Fields:
        problems: the problems an episode may be reset to (by name or seed).
        turns: answers per episode.
        reward: the reward and how answers are verified.
        answer: the answer form the prompt asks for (``whole`` | ``diff``).
        context: the prompt's context (``full`` | ``hot``).
    """

    problems: tuple[Problem, ...]
    turns: int = 1
    reward: RewardConfig = field(default_factory=RewardConfig)
    answer: str = "whole"
    context: str = "full"


@functools.cache
def classes() -> _Classes:
    """The OpenEnv types (built on first use: ``openenv`` is an optional extra): what
    travels (an action, an observation, a state), the environment a session steps, the
    client."""
    require("openenv", "openenv")
    action, observation, state = _wire_types()
    return _Classes(
        action,
        observation,
        state,
        _environment(action, observation, state),
        _client(action, observation, state),
    )


def _wire_types() -> tuple[Any, Any, Any]:
    """``CodeAction``, ``CodeObservation``, ``CodeState``: what travels between the
    client and a session (pydantic models of OpenEnv's bases)."""
    from openenv.core.env_server.types import Action, Observation, State
    from pydantic import Field

    class CodeAction(Action):
        """The model's answer: its reply text (an ```assembly block, or edit blocks)."""

        answer: str = Field(..., max_length=1_000_000, description="the model's reply")
        problem: str | None = Field(
            default=None,
            max_length=1000,
            description="the problem, for a step outside a session (HTTP /step): the "
            "first answer of an episode on it; in a session, the open episode's or none",
        )

    class CodeObservation(Observation):
        """A problem's prompt (reset) or the verdict on the last answer (step)."""

        problem: str = Field(default="", description="the problem's name")
        prompt: list[dict[str, str]] = Field(default_factory=list, description="chat messages")
        turn: int = Field(default=0, description="answers given so far")
        turns: int = Field(default=1, description="answers the episode allows")
        feedback: str = Field(default="", description="what --rounds refinement says")
        verdict: dict[str, Any] = Field(default_factory=dict, description="the verdict")

    class CodeState(State):
        problem: str = ""
        turns: int = 1
        done: bool = False

    return CodeAction, CodeObservation, CodeState


def _environment(CodeAction: Any, CodeObservation: Any, CodeState: Any) -> Any:
    """``CodeEnvironment``: one session's episodes on the server's problems (the module
    docstring)."""
    from openenv.core.env_server.interfaces import Environment

    class CodeEnvironment(Environment):
        """One session: episodes on the server's problems (see the module docstring)."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self, settings: EnvSettings) -> None:
            super().__init__()
            self.settings = settings
            self._by_name = {p.name: p for p in settings.problems}
            self._problem: Problem | None = None
            self._state = CodeState(turns=settings.turns)

        def reset(
            self,
            seed: int | None = None,
            episode_id: str | None = None,
            problem: str | None = None,
            **kwargs: Any,
        ) -> CodeObservation:
            chosen = self._choose(problem, seed)
            self._problem = chosen
            self._state = CodeState(
                episode_id=episode_id, problem=chosen.name, turns=self.settings.turns
            )
            prompt = first_messages(chosen, self.settings.context, self.settings.answer)
            return CodeObservation(
                problem=chosen.name, prompt=prompt, turns=self.settings.turns, done=False
            )

        def _choose(self, name: str | None, seed: int | None) -> Problem:
            if name is not None:
                if name not in self._by_name:
                    raise ValueError(f"unknown problem {name!r}")
                return self._by_name[name]
            problems = self.settings.problems
            return problems[(seed or 0) % len(problems)]

        def step(
            self, action: CodeAction, timeout_s: float | None = None, **kwargs: Any
        ) -> CodeObservation:
            from supercoder.training.episode import judge

            if action.problem is not None and self._problem is None:
                self.reset(problem=action.problem)  # a stateless step: its own episode
            elif action.problem is not None and action.problem != self._state.problem:
                raise ValueError(f"the open episode is on {self._state.problem!r}")
            if self._problem is None or self._state.done:
                raise ValueError("no open episode: reset first")
            self._state.step_count += 1
            turn = judge(
                [self._problem],
                [action.answer],
                [self._state.step_count],
                self.settings.turns,
                self.settings.reward,
                None,
                self.settings.answer,
            )[0]
            self._state.done = turn.done
            return CodeObservation(
                problem=self._problem.name,
                turn=turn.index,
                turns=self.settings.turns,
                feedback=turn.feedback,
                verdict=turn.to_json(),
                done=turn.done,
                reward=turn.reward,
            )

        @property
        def state(self) -> CodeState:
            return self._state

    return CodeEnvironment


def _client(CodeAction: Any, CodeObservation: Any, CodeState: Any) -> Any:
    """``CodeEnv``: the client of a server, one session."""
    from openenv.core import EnvClient
    from openenv.core.client_types import StepResult
    from openenv.core.env_server.types import State

    class CodeEnv(EnvClient[CodeAction, CodeObservation, State]):
        """The client: ``CodeEnv(base_url=URL).sync()``, then ``reset(problem=...)`` and
        ``step(CodeAction(answer=...))``."""

        def _step_payload(self, action: CodeAction) -> dict[str, Any]:
            payload = {"answer": action.answer}
            if action.problem is not None:
                payload["problem"] = action.problem
            return payload

        def _parse_result(self, payload: dict[str, Any]) -> Any:
            obs = dict(payload.get("observation") or {})
            obs.pop("done", None)
            obs.pop("reward", None)
            observation = CodeObservation(
                **obs, done=payload.get("done", False), reward=payload.get("reward")
            )
            return StepResult(
                observation=observation,
                reward=payload.get("reward"),
                done=payload.get("done", False),
            )

        def _parse_state(self, payload: dict[str, Any]) -> Any:
            return CodeState(**payload)

    return CodeEnv


@dataclass(frozen=True)
class _Classes:
    CodeAction: Any
    CodeObservation: Any
    CodeState: Any
    CodeEnvironment: Any
    CodeEnv: Any


def make_app(settings: EnvSettings, max_sessions: int = 8) -> Any:
    """The OpenEnv FastAPI app over ``settings`` (one environment per session)."""
    if not settings.problems:
        raise UserError("the environment has no problems to serve")

    check_turns(settings.turns)
    c = classes()
    from openenv.core.env_server.http_server import create_fastapi_app

    return create_fastapi_app(
        lambda: c.CodeEnvironment(settings),
        c.CodeAction,
        c.CodeObservation,
        max_concurrent_envs=max_sessions,
        env_name="supercoder",
        state_cls=c.CodeState,
    )


def client(url: str) -> Any:
    """A connected synchronous client of the server at ``url`` (one session)."""
    c = classes()
    return c.CodeEnv(base_url=url, message_timeout_s=MESSAGE_TIMEOUT_S).sync()


@dataclass
class OpenEnvEpisodes:
    """``multiturn.Episodes`` on an OpenEnv server: one session per rollout."""

    url: str
    by_prompt: dict[str, str]
    answer: str = "whole"
    _sessions: list[Any] = field(default_factory=list)

    def start(self, prompts: Sequence[Any]) -> list[list[dict[str, str]]]:
        self.close()
        names = []
        for p in prompts:
            name = self.by_prompt.get(prompt_key(p))
            if name is None:
                raise UserError("OpenEnv rollout: a prompt that is not one of the dataset's")
            names.append(name)
        self._sessions = [client(self.url) for _ in names]
        for s in self._sessions:
            s.connect()
        pairs = list(zip(self._sessions, names, strict=True))  # every session at once
        results = current().thread_map(lambda sn: sn[0].reset(problem=sn[1]), pairs, len(pairs))
        return [list(r.observation.prompt) for r in results]

    def step(self, which: Sequence[int], answers: Sequence[str]) -> list[Any]:
        action = classes().CodeAction

        def one(pair: tuple[int, str]) -> Any:
            result = self._sessions[pair[0]].step(action(answer=pair[1]))
            obs = result.observation
            seen = decode(TurnView, obs.verdict)
            return Step(result.reward, obs.feedback, bool(result.done), seen.correct, seen.speedup)

        pairs = list(zip(which, answers, strict=True))
        return current().thread_map(one, pairs, len(pairs))

    def close(self) -> None:
        for s in self._sessions:
            with contextlib.suppress(Exception):  # a session already gone is closed
                s.close()
        self._sessions = []


def serve(
    settings: EnvSettings,
    host: str,
    port: int,
    max_sessions: int = 8,
    echo: Callable[[str], None] | None = None,
) -> None:
    """Run the server until interrupted (uvicorn); ``echo`` says where it listens."""
    app = make_app(settings, max_sessions)
    uvicorn = require("uvicorn", "openenv")
    if echo is not None:
        echo(
            f"OpenEnv environment: {len(settings.problems)} problems, {settings.turns} "
            f"turn(s) per episode, on http://{host}:{port} (WebSocket /ws)"
        )
    uvicorn.run(app, host=host, port=port, log_level="warning")
