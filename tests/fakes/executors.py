"""A machine the tests can watch: an executor that runs the real jobs and counts them.

``watched(executor, fail_first=N)`` is ``executor`` (same class, so the service sizes
its timing sessions as for the real one) whose map sees every job: ``checks`` lists the
assembly of each correctness check (``Job``), ``sessions`` one entry per timing session
(``GroupJob``: its members' problem name). Its first ``fail_first`` checks find a machine
without a sandbox: they return what ``run_job`` returns when the sandbox cannot start
(an infrastructure verdict), the real check never runs. This is the seam the service
offers (the executor parameter), so no module attribute is replaced.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from supercoder.errors import InfraError
from supercoder.verify.service import GroupJob, Job, JobResult, infra_verdict

T = TypeVar("T")
R = TypeVar("R")

NO_SANDBOX = "could not start the sandbox: out of pids"


class _Watch:
    checks: list[str | None]
    sessions: list[list[str]]
    fail_first: int
    _lock: threading.Lock

    def reset(self, fail_first: int = 0) -> None:
        self.checks, self.sessions, self.fail_first = [], [], fail_first
        self._lock = threading.Lock()

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        def run(item):
            if isinstance(item, Job):
                with self._lock:
                    self.checks.append(item.asm)
                    fails = len(self.checks) <= self.fail_first
                if fails:
                    return JobResult(infra_verdict(item.name, InfraError(NO_SANDBOX)), 0.0)
            elif isinstance(item, GroupJob):
                with self._lock:
                    self.sessions.append([item.name] * len(item.checked))
            return fn(item)

        return super().map_unordered(run, items)  # type: ignore[misc]


def watched(executor: T, fail_first: int = 0) -> T:
    """``executor``, watched (see the module docstring); jobs run inline or on its threads
    (a process pool cannot run the watching closure)."""
    cls = type(f"Watched{type(executor).__name__}", (_Watch, type(executor)), {})
    out = copy.copy(executor)
    out.__class__ = cls
    out.reset(fail_first)  # type: ignore[attr-defined]
    return out
