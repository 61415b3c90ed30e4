"""The engine's option group (``--requests``, ``--workers``, ``--timing-slots``), declared
once by ``supercoder.engine.EngineConfig`` and composed into every command that shares
the machine. ``engine_options(workers=N)`` is the group as a command composes it (its
own default worker count); ``installs_engine`` runs the command with the engine of its
``machine`` group installed (``engine.use``: this process's budgets, the pool stopped at
the end, at once on Ctrl-C); ``with_engine`` does both for a command with no other
option group."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from supercoder.commands.optionset import Group, use, with_config
from supercoder.engine import Engine, EngineConfig, current
from supercoder.engine import use as use_engine

__all__ = ["current", "engine_options", "installs_engine", "with_engine"]


def engine_options(workers: int | None = None, skip: tuple[str, ...] = ()) -> Group:
    """The engine's group as a command composes it: ``workers`` its default worker count
    (None: the engine's, one per CPU and at least 2), ``skip`` the options it does not
    take (a command that asks no model skips ``requests``)."""
    return use(EngineConfig, skip=skip, **({} if workers is None else {"workers": workers}))


def installs_engine(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with the engine its ``machine`` option group describes installed; the
    body finds it with ``engine.current()``."""

    @functools.wraps(fn)
    def run(*args: Any, machine: EngineConfig, **kw: Any) -> Any:
        with use_engine(Engine(machine)):
            return fn(*args, **kw)

    return run


def with_engine(
    workers: int | None = None, skip: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Compose the engine's options into a command and install its engine."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        return with_config(engine_options(workers, skip), "machine")(installs_engine(fn))

    return decorate
