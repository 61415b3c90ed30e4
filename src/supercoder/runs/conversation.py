"""The prompts of one problem as a strategy asks for them (``Conversation``): the first
prompt, the next one after a verdict, and an answer resolved into a candidate. A
strategy never assembles prompts nor parses answers itself; best-of-N, refine and the
plugins' strategies (``runs/kit.py``) all go through this one place."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from supercoder.prompting.answers import Resolved, resolve_answer
from supercoder.prompting.diffedit import elided_in
from supercoder.prompting.parent_prompts import Parent, evolve_messages
from supercoder.prompting.prompts import build_messages, feedback_for, refinement_messages
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Candidate, Origin, Problem, Verdict

if TYPE_CHECKING:
    from supercoder.models.base import Completion

Messages = list[dict[str, str]]


class PromptSettings(Protocol):
    """What the prompts read of a run's settings (``StrategyConfig`` has them)."""

    variant: str
    show_inputs: int
    context: str
    answer: str
    target: str


class Verified(Protocol):
    """An answer and its verdict (``Attempt``)."""

    verdict: Verdict | None
    completion: str | None


@dataclass
class Conversation:
    """The prompts of one problem under the run's settings (prompt variant, listing shown,
    answer form, ISA target): a strategy asks for them instead of assembling them.

    Fields:
        problem: the problem asked about.
        settings: the run's ``StrategyConfig`` (its prompt options).
        baseline: the -O3 assembly to beat ('': built here).
        fewshot: solved examples shown before the problem (problem, its answer).
    """

    problem: Problem
    settings: PromptSettings
    baseline: str = ""
    fewshot: Sequence[tuple[Problem, str]] = ()

    def __post_init__(self) -> None:
        self.baseline = self.baseline or baseline_asm(self.problem)

    def first(self) -> Messages:
        """The first prompt: the problem and its -O3 baseline to beat."""
        s = self.settings
        return build_messages(
            self.problem,
            variant=s.variant,
            fewshot=self.fewshot,
            baseline_asm=self.baseline,
            show_inputs=s.show_inputs,
            context=s.context,
            answer=s.answer,
            target=s.target,
        )

    def after(self, messages: Messages, attempt: Verified) -> Messages:
        """The next prompt after ``attempt``'s verdict: its answer, then what was wrong
        with it (or how fast it was), asking for a better one."""
        if attempt.verdict is None:
            raise ValueError("the attempt is not verified yet: check it first")
        feedback = feedback_for(attempt.verdict, self.problem, self.settings.answer)
        return refinement_messages(messages, attempt.completion or "", feedback)

    def improve(self, parents: Sequence[Parent], tried: Sequence[str] = (), diff: bool = False):
        """The prompt asking to improve earlier programs (``Parent``: its assembly and
        measured speedup, the first the one to edit; ``tried``: what was asked of it
        before), as the evolutionary search asks (``diff``: SEARCH/REPLACE edits)."""
        s = self.settings
        return evolve_messages(
            self.problem,
            parents,
            tried,
            context=str(s.context),
            answer="diff" if diff else "whole",
            show_inputs=s.show_inputs,
            target=s.target,
        )

    def read(self, text: str | None, against: str | None = None) -> Resolved:
        """An answer's text as a program (``Resolved``: its assembly, or why its edits did
        not apply); edits apply to ``against`` (None: the baseline)."""
        return resolve_answer(text, self.baseline if against is None else against)

    def resolve(
        self, completion: Completion, origin: Origin, messages: Iterable[dict[str, str]] = ()
    ) -> Candidate:
        """``completion`` as a candidate: its program (a whole one, or its edit blocks
        applied to the baseline; ``messages``: the prompt it answered, for edits of
        functions the prompt elided), ``origin`` stamped with the model's usage and the
        answer's form (an edit that did not apply: ``origin.answer_error``)."""
        resolved = resolve_answer(completion.text, self.baseline, elided_in(list(messages)))
        stamped = replace(
            completion.stamp(origin), answer=resolved.kind, answer_error=resolved.error
        )
        return Candidate(resolved.asm, stamped)
