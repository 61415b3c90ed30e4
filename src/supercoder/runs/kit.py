"""The strategy kit: everything a search strategy needs, from one public module.

A strategy (a plugin, ``docs/eval.md`` "A strategy is a plugin"; it imports this module as
``supercoder.kit``) is a class with
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
- its flags: every field of its ``Config`` is an ``eval``/``optimize`` flag
  (``--field-name``, its help the field's docstring line); ``flag("--other", min=1)`` as
  the field's metadata names another flag or a range;
- its own tables in the run store, if it keeps more than its attempts: declare them as
  ``Tables(owner, tables, migrations)``; ``journal.tables(schema)`` (a journal that
  ``KeepsTables``: the run store's) applies them and gives the run's ``RunTables``
  (``read``/``write``); evolve's program database is kept so (``runs/archive.py``);
- its provenance: subclass ``StrategyProvenance`` and register it with
  ``register_provenance("kind")``: it is stored with each answer and read back as that
  class; what it overrides of ``StrategyProvenance`` the run's readers show (``ancestry``:
  the report's lineage; ``budget_note``/``note_header``: what the budget left undone;
  ``tried``: ``optimize``'s table of what was tried, a ``Tried`` of ``TriedRow``s);
- to seed another strategy's search (evolve's ``--start-from NAME``): a ``propose``
  class method (``Proposes``);
- the conversation, without assembling prompts: ``Conversation(problem, settings)``:
  ``first()`` the first prompt, ``after(messages, attempt)`` the next prompt after this
  verdict, ``resolve(completion, origin)`` this answer as a candidate (a whole program or
  edits against the baseline, as the run's ``--answer`` says), ``baseline`` the -O3
  assembly to beat; ``outcome(problem, attempts, baseline)`` what it returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from supercoder.models.base import Completion, Sampling
from supercoder.origin import Origin, StrategyProvenance, Tried, TriedRow, register_provenance
from supercoder.plugins import flag
from supercoder.runs.conversation import Conversation
from supercoder.runs.strategies import (
    Ask,
    Attempt,
    Journal,
    Outcome,
    OutcomeMeta,
    ProgressStep,
    Proposes,
    Strategy,
    StrategyConfig,
    Verifier,
)
from supercoder.runs.tables import KeepsTables, RunTables, Tables
from supercoder.types import Candidate, Problem, Verdict
from supercoder.verify.service import Checked

__all__ = [
    "Ask",
    "Attempt",
    "Candidate",
    "Checked",
    "Completion",
    "Conversation",
    "Journal",
    "KeepsTables",
    "NoJournal",
    "Origin",
    "Outcome",
    "OutcomeMeta",
    "Problem",
    "ProgressStep",
    "Proposes",
    "RunTables",
    "Sampling",
    "Strategy",
    "StrategyConfig",
    "StrategyProvenance",
    "Tables",
    "Tried",
    "TriedRow",
    "Verdict",
    "Verifier",
    "check",
    "flag",
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


def outcome(problem: Problem, attempts: Iterable[Attempt], baseline: str = "") -> Outcome:
    """What a search returns: its attempts (the best is chosen from them)."""
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=baseline or None))
