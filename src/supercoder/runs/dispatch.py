"""One entry point for every strategy: ``search(problem, models, settings)``.

``settings.strategy`` names a registered strategy (``runs/registry.py``: the
``supercoder.strategies`` entry points: ``best-of-n``, ``refine``, ``evolve``, ``builds``
and any plugin's); its class is built with ``settings`` and asked to
``search(problem, Ask(models), verify, journal)``. ``settings.sampling.n`` is the number
of model answers per problem for every strategy, so they compare at equal cost (the
build search: builds tried at most).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from supercoder.errors import UserError
from supercoder.runs.kit import NoJournal
from supercoder.runs.strategies import (
    Ask,
    Journal,
    Outcome,
    StrategyConfig,
    Verifier,
    make_verifier,
)
from supercoder.types import Problem

if TYPE_CHECKING:
    from supercoder.models.base import Model
    from supercoder.runs.strategies import ProgressStep


def search(
    problem: Problem,
    models: Model | Sequence[Model],
    settings: StrategyConfig,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
    on_progress: Callable[[ProgressStep], None] | None = None,
    **kw: object,
) -> Outcome:
    """Run ``settings.strategy`` on one problem (see module docstring); ``on_progress``
    gets the strategy's progress lines (evolve: one per generation); ``kw``: further
    keywords of the built-in strategies (best-of-n: ``fewshot``, ``stop``)."""
    several = tuple(models) if isinstance(models, list | tuple) else (models,)
    cls = settings.strategy_class
    check_models(settings.strategy, cls, len(several))
    strategy = cls(settings, on_progress, **kw)
    kept = journal if journal is not None else NoJournal()  # the strategy always gets one
    return strategy.search(problem, Ask(several), verify or make_verifier(), kept)


def check_models(name: str, cls: type, count: int) -> None:
    """A strategy is given as many models as it asks (one line saying what to do)."""
    low, high = getattr(cls, "models", (1, 1))
    if high == 0 and count:
        raise UserError(f"--strategy {name} asks no model: drop --model")
    if count < low:
        raise UserError(f"--strategy {name} needs a model (--model openai:M, anthropic:M, hf:PATH)")
    if high is not None and count > high:
        raise UserError(f"several --model need --strategy evolve ({name} asks {high})")
