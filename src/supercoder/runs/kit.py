"""The strategy kit: everything a search strategy needs, from one public module.

A strategy (a plugin, ``docs/eval.md`` "A strategy is a plugin") is a class with
``name``, ``Config``, ``models`` and ``search(problem, ask, verify, journal) -> Outcome``
(``Strategy``). From here it takes:

- the values: ``Problem``, ``Candidate``, ``Origin``, ``Verdict``, ``Completion``,
  ``Sampling``, ``Attempt`` (one answer and its verdict), ``Outcome`` and ``OutcomeMeta``
  (what a search returns), ``Checked`` (one verified candidate: index, verdict, seconds,
  tries);
- the protocols it is given: ``Ask`` (``ask(messages, sampling, problem) ->
  list[Completion]``), ``Verifier`` (``verify(problem, candidates)`` yields ``Checked``),
  ``Journal`` (``stored(problem)``, ``record(problem, attempt)``; ``NoJournal`` when
  nothing is kept: a library call's ``search()``), and ``check(verify, problem,
  candidates) -> list[Checked]`` (every candidate verified, in order);
- its provenance: subclass ``StrategyProvenance`` and register it with
  ``register_provenance("kind")``: it is stored with each answer and read back as that
  class;
- the conversation, without assembling prompts: ``Conversation(problem, settings)``:
  ``first()`` the first prompt, ``after(messages, attempt)`` the next prompt after this
  verdict, ``resolve(completion, origin)`` this answer as a candidate (a whole program or
  edits against the baseline, as the run's ``--answer`` says), ``baseline`` the -O3
  assembly to beat; ``outcome(problem, attempts, baseline)`` what it returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from supercoder.models.base import Completion, Sampling
from supercoder.prompting.answers import resolve_answer
from supercoder.prompting.diffedit import elided_in
from supercoder.prompting.prompts import build_messages, feedback_for, refinement_messages
from supercoder.runs.strategies import (
    Ask,
    Attempt,
    Journal,
    Outcome,
    OutcomeMeta,
    Strategy,
    StrategyConfig,
    Verifier,
)
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import (
    Candidate,
    Origin,
    Problem,
    StrategyProvenance,
    Verdict,
    register_provenance,
)
from supercoder.verify.service import Checked

__all__ = [
    "Ask",
    "Attempt",
    "Candidate",
    "Checked",
    "Completion",
    "Conversation",
    "Journal",
    "NoJournal",
    "Origin",
    "Outcome",
    "OutcomeMeta",
    "Problem",
    "Sampling",
    "Strategy",
    "StrategyConfig",
    "StrategyProvenance",
    "Verdict",
    "Verifier",
    "check",
    "outcome",
    "register_provenance",
]

Messages = list[dict[str, str]]


class NoJournal:
    """A journal that keeps nothing: no attempt stored, none given back (what a search
    gets when its caller keeps no run: ``supercoder.search()``)."""

    def stored(self, problem: str) -> dict[tuple[int, int], Attempt]:
        return {}

    def record(self, problem: str, attempt: Attempt) -> None:
        return None


def check(verify: Verifier, problem: Problem, candidates: Sequence[Candidate]) -> list[Checked]:
    """Every candidate verified (``verify``: the run's verifier), in the given order."""
    found = [Checked(*item) for item in verify(problem, list(candidates))]
    return sorted(found, key=lambda c: c.index)


@dataclass
class Conversation:
    """The prompts of one problem under the run's settings (prompt variant, listing shown,
    answer form, ISA target): a strategy asks for them instead of assembling them."""

    problem: Problem
    settings: StrategyConfig = field(default_factory=StrategyConfig)
    baseline: str = ""

    def __post_init__(self) -> None:
        self.baseline = self.baseline or baseline_asm(self.problem)

    def first(self) -> Messages:
        """The first prompt: the problem and its -O3 baseline to beat."""
        s = self.settings
        return build_messages(
            self.problem,
            variant=s.variant,
            baseline_asm=self.baseline,
            show_inputs=s.show_inputs,
            context=s.context,
            answer=s.answer,
            target=s.target,
        )

    def after(self, messages: Messages, attempt: Attempt) -> Messages:
        """The next prompt after ``attempt``'s verdict: its answer, then what was wrong
        with it (or how fast it was), asking for a better one."""
        if attempt.verdict is None:
            raise ValueError("the attempt is not verified yet: check it first")
        feedback = feedback_for(attempt.verdict, self.problem, self.settings.answer)
        return refinement_messages(messages, attempt.completion or "", feedback)

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


def outcome(problem: Problem, attempts: Iterable[Attempt], baseline: str = "") -> Outcome:
    """What a search returns: its attempts (the best is chosen from them)."""
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=baseline or None))
