"""Refinement episodes: the one definition every environment and multi-turn trainer uses.

An episode is ``--rounds`` refinement seen from a trainer: the model answers a problem's
prompt (``prompts.build_messages``, the -O3 assembly to start from); the verifier
checks the answer and the environment says back exactly what ``--rounds`` refinement
says (``prompts.feedback_for``: the assembler's error, the first failing *visible*
test, or the measured speedup; nothing of a hidden test); the model answers again in
the same conversation (``prompts.refinement_messages``), up to ``turns`` answers. It
ends early when an answer is correct and significantly faster (the refinement stop
rule, ``runs.strategies.significantly_faster``). The episode's reward is the reward of
its final answer (``verify.reward.score_verdict``); every turn keeps its own reward, so
trainers can log them per turn.

``train grpo --turns N`` (``training/multiturn.py``), the OpenEnv server
(``training/openenv_env.py``) and the ``verifiers`` taskset
(``training/verifiers_env.py``) all step episodes through ``judge``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from supercoder.codec import JsonObject, encode
from supercoder.errors import UserError
from supercoder.prompting.prompts import build_messages, feedback_for, refinement_messages
from supercoder.runs.strategies import significantly_faster
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Problem, Status, Verdict
from supercoder.verify.reward import RewardConfig, score_verdicts, verify_batch

if TYPE_CHECKING:
    from supercoder.verify.executors import Executor

MAX_TURNS = 16


@dataclass(frozen=True)
class Turn:
    """One answer of an episode and what the verifier made of it.

    Fields:
        index: the answer's turn, 1 for the first.
        verdict: the verifier's verdict on the answer.
        reward: its reward (``score_verdict``; None: an infrastructure failure).
        feedback: what the environment says back (``prompts.feedback_for``, the text
            ``--rounds`` refinement gives the model).
        done: the episode ends here (the last turn, or correct and significantly faster).
    """

    index: int
    verdict: Verdict
    reward: float | None
    feedback: str
    done: bool

    def view(self) -> TurnView:
        """What an environment may show of this turn (``TurnView``)."""
        return TurnView(
            turn=self.index,
            status=self.verdict.status,
            correct=self.verdict.correct,
            speedup=self.verdict.speedup.value if self.verdict.speedup else None,
            reward=self.reward,
            feedback=self.feedback,
            done=self.done,
        )

    def to_json(self) -> JsonObject:
        """``view()`` as the codec writes it (an environment's observation)."""
        return encode(self.view())  # type: ignore[return-value]


@dataclass(frozen=True)
class TurnView:
    """What an environment may show of a turn: the verdict's public part (no hidden
    data), the reward, the feedback and whether the episode ended; sent as the codec's
    JSON and read back with ``decode(TurnView, ...)``.

    Fields:
        turn: the answer's turn, 1 for the first.
        status: the verdict's status.
        correct: the answer passed every test.
        speedup: its measured speedup (None: not measured).
        reward: its reward (None: an infrastructure failure).
        feedback: what the environment says back.
        done: the episode ends here.
    """

    turn: int
    status: Status
    correct: bool
    speedup: float | None
    reward: float | None
    feedback: str
    done: bool


def check_turns(turns: int) -> int:
    """``turns`` if it is a usable episode length, else a one-line UserError."""
    if not 1 <= turns <= MAX_TURNS:
        raise UserError(f"turns must be between 1 and {MAX_TURNS}, not {turns}")
    return turns


def first_messages(
    problem: Problem, context: str = "full", answer: str = "whole"
) -> list[dict[str, str]]:
    """The episode's opening prompt: the paper's prompt with the -O3 assembly."""
    return build_messages(
        problem, variant="asm", baseline_asm=baseline_asm(problem), context=context, answer=answer
    )


def next_messages(
    messages: Sequence[dict[str, str]], answer: str, feedback: str
) -> list[dict[str, str]]:
    """The conversation after an answer and the verifier's feedback on it."""
    return refinement_messages(messages, answer, feedback)


def episode_done(verdict: Verdict) -> bool:
    """Refinement's stop rule: correct and significantly faster (or correct, untimed)."""
    return significantly_faster(verdict)


def turn_of(
    problem: Problem,
    verdict: Verdict,
    index: int,
    turns: int,
    config: RewardConfig,
    answer: str = "whole",
) -> Turn:
    """The ``index``-th answer's ``Turn`` (of at most ``turns``) from its verdict."""
    return Turn(
        index=index,
        verdict=verdict,
        reward=score_verdicts([problem], [verdict], config)[0],
        feedback=feedback_for(verdict, problem, answer),
        done=index >= turns or episode_done(verdict),
    )


def judge(
    problems: Sequence[Problem],
    answers: Sequence[str],
    indices: Sequence[int],
    turns: int,
    config: RewardConfig,
    executor: Executor | None = None,
    answer: str = "whole",
) -> list[Turn]:
    """``answers[i]`` (the ``indices[i]``-th answer of an episode on ``problems[i]``)
    verified together through the reward's batch path (``verify_batch``: one cascade,
    identical answers once, infrastructure failures retried), each made a ``Turn``."""
    verdicts = verify_batch(problems, list(answers), config, executor)
    return [
        turn_of(p, v, i, turns, config, answer)
        for p, v, i in zip(problems, verdicts, indices, strict=True)
    ]
