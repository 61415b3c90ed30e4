"""Executors: where verification jobs run (the engine's workers, or a Ray cluster).

The local pools are the engine's (``supercoder.engine``: ``WorkerPool``, the
verification workers; ``InlineWorkers``); this module names them for the verification
service and adds Ray.

An executor has one verb, ``map_unordered(fn, items)``: it runs the top-level
(picklable) ``fn`` on each item and yields ``(index, result)`` pairs as they finish,
in completion order. It may be called from several threads at once (the eval runner
verifies different problems concurrently through one executor).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import Protocol, TypeVar, runtime_checkable

from supercoder.engine import InlineWorkers, WorkerPool, current
from supercoder.errors import MissingExtra, UserError, require

T = TypeVar("T")
R = TypeVar("R")


class ExecutorKind(StrEnum):
    """Where verifications run: ``local`` (a process pool) or ``ray`` (a Ray cluster)."""

    LOCAL = "local"
    RAY = "ray"


EXECUTOR_KINDS = tuple(k.value for k in ExecutorKind)


@runtime_checkable
class Executor(Protocol):
    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """Yield ``(index, fn(items[index]))`` for every item, in completion order."""
        ...

    def close(self) -> None: ...


InlineExecutor = InlineWorkers  # runs jobs in the calling thread: tests and debugging
LocalExecutor = WorkerPool  # the engine's spawn-context process pool


class ThreadExecutor:
    """Runs jobs on the engine's threads of this process: for jobs that mostly wait on
    sandboxed processes (a CLI check of a few candidates), with no worker start-up cost."""

    inline = True  # jobs share the caller's memory: nothing is pickled

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise UserError(f"workers must be at least 1 (got {workers})")
        self.workers = workers

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        return current().threads(fn, items, self.workers)

    def close(self) -> None:
        return None


def make_executor(kind: str = "local", workers: int | None = None) -> Executor:
    """``local`` (the engine's verification workers: ``workers`` of them, default the
    engine's; one runs inline) or ``ray`` (a Ray cluster, ``RAY_ADDRESS`` honoured;
    needs ``pip install 'supercoder[ray]'``)."""
    engine = current()
    if kind == "local":
        if workers is None or workers == engine.workers:
            return engine.pool()
        return InlineExecutor() if workers <= 1 else LocalExecutor(workers, engine.config)
    if kind == "ray":
        require("ray", "ray")
        try:
            from supercoder.verify.ray import RayExecutor
        except ImportError as e:
            if "ray" in str(e).lower() and "executors_ray" not in str(e):
                raise MissingExtra("ray", "ray") from e
            raise UserError(f"the ray executor is not available in this build ({e})") from e
        return RayExecutor(workers or engine.workers)
    raise UserError(f"unknown executor {kind!r}: use one of {', '.join(EXECUTOR_KINDS)}")
