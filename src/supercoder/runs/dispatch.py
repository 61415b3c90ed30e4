"""One entry point for every strategy: ``search(problem, models, settings)``.

``settings.strategy`` (``StrategyConfig``) picks it, and ``settings.sampling.n`` is the
number of model answers per problem for every strategy, so they compare at equal cost:

- ``best-of-n``: n independent answers to the baseline's prompt (``rounds`` > 1: n
  refinement chains, as before);
- ``refine``: one chain of n answers, each told what was wrong with the last;
- ``evolve``: the evolutionary search (``runs/evolve.py``), n answers in generations,
  over one or several models (a bandit shares the calls among them).

A build proposer (the ``compiler`` model) under ``best-of-n`` has its builds searched
(``runs/buildsearch.py``: n builds at most, each verified by the service); ``refine``
and ``evolve`` need a model that reads feedback, and refuse it in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from supercoder.errors import UserError
from supercoder.runs.buildsearch import build_search, searches_builds
from supercoder.runs.evolve import Archive, Progress, evolve
from supercoder.runs.strategies import (
    Journal,
    Outcome,
    Strategy,
    StrategyConfig,
    Verifier,
    solve,
)
from supercoder.types import Problem

if TYPE_CHECKING:
    from supercoder.models.base import Model


def for_strategy(settings: StrategyConfig) -> StrategyConfig:
    """The settings ``solve`` runs for a ``refine`` search: one chain of n rounds."""
    if settings.strategy is Strategy.REFINE:
        return replace(settings, sampling=replace(settings.sampling, n=1), rounds=settings.samples)
    return settings


def search(
    problem: Problem,
    models: Model | Sequence[Model],
    settings: StrategyConfig,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
    archive: Archive | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    **kw: Any,
) -> Outcome:
    """Run ``settings.strategy`` on one problem (see module docstring)."""
    several = list(models) if isinstance(models, list | tuple) else [models]
    check_strategy(several, settings)
    if settings.strategy is Strategy.EVOLVE:
        return evolve(
            problem,
            several,
            settings,
            verify=verify,
            journal=journal,
            archive=archive,
            on_progress=on_progress,
        )
    if len(several) != 1:
        raise ValueError("several models need the evolve strategy")
    if searches_builds(several[0]) and settings.rounds == 1:
        return build_search(problem, several[0], settings, verify=verify, journal=journal)
    return solve(problem, several[0], for_strategy(settings), verify=verify, journal=journal, **kw)


def check_strategy(models: Sequence[Model], settings: StrategyConfig) -> None:
    """A build proposer cannot improve a program it is shown: ``refine``, ``evolve``
    and ``--rounds`` need a model that reads its feedback (one line saying which)."""
    if settings.strategy is Strategy.BEST_OF_N and settings.rounds == 1:
        return
    proposer = next((m for m in models if searches_builds(m)), None)
    if proposer is None:
        return
    what = (
        "--rounds" if settings.strategy is Strategy.BEST_OF_N else f"--strategy {settings.strategy}"
    )
    raise UserError(
        f"{what} needs a model that reads feedback (--model openai:M, anthropic:M or "
        f"hf:PATH); {proposer.name} proposes builds: use --strategy best-of-n, or "
        "--start-from compiler to seed an LLM's evolve with its best build"
    )
