"""The engine's option group (``--requests``, ``--workers``, ``--timing-slots``), declared
once by ``supercoder.engine.EngineConfig`` and composed into every command that shares
the machine: ``with_engine`` adds the group's options to a command and runs the command
with that engine installed (``engine.use``: this process's budgets, its pool stopped at
the end, at once on Ctrl-C)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from supercoder.commands.optionset import with_config
from supercoder.engine import Engine, EngineConfig, current, use

__all__ = ["with_engine", "current"]


def with_engine(
    workers: int | Callable[[], int] | None = None, skip: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Compose the engine's options into a command (less ``skip``: a command that asks
    no model skips ``requests``); ``workers`` is the command's default worker count (a
    number or a function of the machine; None: the engine's own, one per CPU, at
    least 2). The command body finds its engine with ``engine.current()``."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, machine: EngineConfig, **kw: Any) -> Any:
            default = workers() if callable(workers) else workers
            config = machine if default is None else machine.or_workers(default)
            with use(Engine(config)):
                return fn(*args, **kw)

        run.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]
        command = with_config(EngineConfig, "machine", skip)(run)
        command.default_workers = default_workers  # type: ignore[attr-defined]
        return command

    def default_workers() -> int:
        """The workers this command runs with when ``--workers`` is not given."""
        default = workers() if callable(workers) else workers
        return Engine(EngineConfig(workers=default)).workers

    return decorate
