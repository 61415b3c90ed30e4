"""One entry point for every strategy: ``search(problem, models, settings)``.

``settings.strategy`` (``StrategyConfig``) picks it, and ``settings.sampling.n`` is the
number of model answers per problem for every strategy, so they compare at equal cost:

- ``best-of-n``: n independent answers to the baseline's prompt (``rounds`` > 1: n
  refinement chains, as before);
- ``refine``: one chain of n answers, each told what was wrong with the last;
- ``evolve``: the evolutionary search (``runs/evolve.py``), n answers in generations,
  over one or several models (a bandit shares the calls among them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

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
    return solve(problem, several[0], for_strategy(settings), verify=verify, journal=journal, **kw)
