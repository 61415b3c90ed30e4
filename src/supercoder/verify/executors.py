"""Executors: where verification jobs run (a local process pool, or a Ray cluster).

An executor has one verb, ``map_unordered(fn, items)``: it runs the top-level
(picklable) ``fn`` on each item and yields ``(index, result)`` pairs as they finish,
in completion order. It may be called from several threads at once (the eval runner
verifies different problems concurrently through one executor).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import threading
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

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


class InlineExecutor:
    """Runs jobs in the calling thread (one worker, no processes): tests and debugging."""

    workers = 1
    inline = True  # jobs share the caller's memory: nothing is pickled

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        for i, item in enumerate(items):
            yield i, fn(item)

    def close(self) -> None:
        return None


class ThreadExecutor:
    """Runs jobs on threads of this process: for jobs that mostly wait on sandboxed
    processes (a CLI check of a few candidates), with no worker start-up cost."""

    inline = True  # jobs share the caller's memory: nothing is pickled

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise UserError(f"workers must be at least 1 (got {workers})")
        self.workers = workers

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        pool = cf.ThreadPoolExecutor(self.workers)
        try:
            futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
            for future in cf.as_completed(futures):
                yield futures[future], future.result()
        except BaseException:  # Ctrl-C: stop now, not after the running jobs end
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()

    def close(self) -> None:
        return None


class LocalExecutor:
    """A spawn-context process pool shared by every caller (thread-safe, lazy start).

    Spawn (not fork) because the eval runner has generation threads running: forking
    a threaded process can deadlock the child.
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise UserError(f"--workers must be at least 1 (got {workers})")
        self.workers = workers
        self._pool: cf.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _get_pool(self) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("spawn")
                self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx)
            return self._pool

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        pool = self._get_pool()
        futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
        for future in cf.as_completed(futures):
            yield futures[future], future.result()

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def make_executor(kind: str = "local", workers: int = 1) -> Executor:
    """``local`` (a process pool; ``workers=1`` runs inline) or ``ray`` (a Ray cluster,
    ``RAY_ADDRESS`` honoured; needs ``pip install 'supercoder[ray]'``)."""
    if kind == "local":
        return InlineExecutor() if workers <= 1 else LocalExecutor(workers)
    if kind == "ray":
        require("ray", "ray")
        try:
            from supercoder.verify.ray import RayExecutor
        except ImportError as e:
            if "ray" in str(e).lower() and "executors_ray" not in str(e):
                raise MissingExtra("ray", "ray") from e
            raise UserError(f"the ray executor is not available in this build ({e})") from e
        return RayExecutor(workers)
    raise UserError(f"unknown executor {kind!r}: use one of {', '.join(EXECUTOR_KINDS)}")
