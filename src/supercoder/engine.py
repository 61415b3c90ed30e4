"""The engine: the one place that decides how a run shares this machine.

Three budgets, set once per process (``EngineConfig``, the CLI's ``--requests``,
``--workers``, ``--timing-slots``):

- **requests**: model requests in flight at once, across every model and problem
  (``Budget``: each HTTP request to a model holds one while it is on the wire; a
  model's own, narrower limit holds too);
- **workers**: verification workers, the processes that build, run and check
  candidates (and import records, measure coverage, build the dataset): one
  spawn-context process pool, started on first use; one worker runs jobs inline;
- **slots**: timing slots, the CPUs reserved for timed runs (one timing session each;
  ``timing/slots.py`` takes them with file locks, machine-wide).

Work is submitted, never given a pool of its own: ``processes(fn, items)`` runs jobs on
the workers, ``threads(fn, items, width)`` runs in-process tasks that mostly wait (the
problems an eval has in flight, the requests a strategy fans out, one timing session
per slot, a server's requests). Both yield ``(index, result)`` as jobs finish; on an
interrupt (Ctrl-C, SIGTERM) they cancel what has not started and return at once, and
the process pool is shut down without waiting for its running jobs (its workers end
when they find their parent gone).

``current()`` is this process's engine (``use(engine)`` installs one for a command);
a worker process gets its parent's budgets. It imports only the standard library and
``errors``, so every layer may use it (problems, dataset, verify, models, runs...).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from supercoder.errors import UserError

T = TypeVar("T")
R = TypeVar("R")

SLOTS_ENV = "SUPERCODER_TIMING_SLOTS"
DEFAULT_REQUESTS = 4


def cpu_count() -> int:
    """The logical CPUs this process may use (its affinity mask)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


@cache
def physical_cores() -> tuple[tuple[int, ...], ...]:
    """The logical CPUs this process may use, grouped by physical core (sorted)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    cores: dict[tuple[str, str], list[int]] = {}
    for cpu in allowed:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            key = (
                (topo / "physical_package_id").read_text().strip(),
                (topo / "core_id").read_text().strip(),
            )
        except OSError:
            key = ("?", str(cpu))
        cores.setdefault(key, []).append(cpu)
    return tuple(sorted(tuple(c) for c in cores.values()))


def default_slots() -> int:
    """``SUPERCODER_TIMING_SLOTS``: a whole number >= 1, or ``auto`` (one per physical
    core: a timed run never shares a core with another one)."""
    text = os.environ.get(SLOTS_ENV, "auto").strip().lower()
    if text in ("", "auto"):
        return max(1, len(physical_cores()))
    try:
        n = int(text)
    except ValueError:
        raise UserError(f"{SLOTS_ENV} must be a whole number or 'auto', got {text!r}") from None
    if n < 1:
        raise UserError(f"{SLOTS_ENV} must be at least 1, got {n}")
    return n


def default_workers() -> int:
    """The workers of an engine no command configured (a library caller's, a trainer's
    reward): one per CPU, at least 2."""
    return max(2, cpu_count())


def every_cpu_but_one() -> int:
    """The batch commands' default worker count: the CPUs less one (at least 1)."""
    return max(1, cpu_count() - 1)


@dataclass(frozen=True)
class EngineConfig:
    """How a run shares this machine: the three budgets of ``supercoder.engine``.

    Fields:
        requests: model requests in flight at once, across every model and problem
            (eval: also the problems in flight); --concurrency, its old name in eval, is
            deprecated and still accepted.
        workers: verification workers: processes that build, run and check candidates
            (import, coverage and dataset build: records, problems or submissions
            processed at once; serve and mcp: requests or tool calls verified at once);
            1 runs them in this process.
        timing_slots: timing slots: CPUs reserved for timed runs, one timing session
            each (else $SUPERCODER_TIMING_SLOTS, else one per physical core).
    """

    requests: int = field(
        default=DEFAULT_REQUESTS,
        metadata={"flags": ("--requests", "--concurrency"), "option": {"min": 1}},
    )
    workers: int | None = field(
        default=None,
        metadata={
            "flags": ("--workers", "-w"),
            "shown": "one per CPU, at least 2",
            "option": {"min": 1},
        },
    )
    timing_slots: int | None = field(
        default=None,
        metadata={
            "flags": ("--timing-slots",),
            "shown": "$SUPERCODER_TIMING_SLOTS, else one per physical core",
            "option": {"min": 1},
        },
    )

    def __post_init__(self) -> None:
        for name in ("requests", "workers", "timing_slots"):
            value = getattr(self, name)
            if value is not None and value < 1:
                flag = name.replace("_", "-")
                raise UserError(f"--{flag} must be at least 1 (got {value})")

    def or_workers(self, default: int) -> EngineConfig:
        """These budgets, ``workers`` set to ``default`` when the user gave none."""
        return self if self.workers is not None else replace(self, workers=default)


class Budget:
    """A counting limit whose state can be read: ``limit`` holders at most, ``in_use``
    now, ``peak`` the most at once so far, ``waiting`` the callers queued for one."""

    def __init__(self, name: str, limit: int) -> None:
        if limit < 1:
            raise UserError(f"{name} must be at least 1 (got {limit})")
        self.name = name
        self.limit = limit
        self.in_use = 0
        self.peak = 0
        self.waiting = 0
        self._cond = threading.Condition()

    def acquire(self) -> None:
        with self._cond:
            self.waiting += 1
            try:
                while self.in_use >= self.limit:
                    self._cond.wait()
            finally:
                self.waiting -= 1
            self.in_use += 1
            self.peak = max(self.peak, self.in_use)

    def release(self) -> None:
        with self._cond:
            if self.in_use <= 0:
                raise RuntimeError(f"{self.name}: released more than held")
            self.in_use -= 1
            self._cond.notify()

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold one unit of the budget (waits for a free one) while the block runs."""
        self.acquire()
        try:
            yield
        finally:
            self.release()


def _adopt(config: EngineConfig, parent: int) -> None:
    """A worker process's start: its parent's budgets (its own jobs inline); SIGTERM
    (the engine stopping its pool) ends the job now, its cleanups run, and the worker
    with it; Ctrl-C is the command's to handle (ignored here); a worker whose parent is
    gone ends too (nothing outlives the command)."""
    import signal
    import time

    install(Engine(replace(config, workers=1)))

    def stop(signum: int, _frame: Any) -> None:
        threading.Timer(2.0, os._exit, (128 + signum,)).start()  # after the job's cleanups
        raise SystemExit(128 + signum)

    def orphaned() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    # Ctrl-C reaches the whole process group: the command stops its workers (SIGTERM),
    # so a worker never prints a KeyboardInterrupt traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=orphaned, name="sc-orphan-watch", daemon=True).start()


class WorkerPool:
    """The engine's verification workers: a spawn-context process pool of ``workers``
    (thread-safe, started on first use). Spawn, not fork: an eval has generation
    threads running, and forking a threaded process can deadlock the child. It is an
    ``Executor`` (``verify/executors.py``): ``map_unordered`` and ``close``."""

    inline = False

    def __init__(self, workers: int, config: EngineConfig | None = None) -> None:
        if workers < 1:
            raise UserError(f"--workers must be at least 1 (got {workers})")
        self.workers = workers
        self._config = config or EngineConfig(workers=workers)
        self._pool: cf.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.started = 0  # pools started (a broken one is replaced)

    def _get_pool(self) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("spawn")
                self._pool = cf.ProcessPoolExecutor(
                    self.workers,
                    mp_context=ctx,
                    initializer=_adopt,
                    initargs=(self._config, os.getpid()),
                )
                self.started += 1
            return self._pool

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """``(index, fn(items[index]))`` in completion order; an interrupt cancels the
        jobs not started and returns without waiting for the running ones."""
        pool = self._get_pool()
        futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
        try:
            for future in cf.as_completed(futures):
                yield futures[future], future.result()
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: stop now
            self.abandon()
            raise
        except BaseException:  # a job failed, or the caller stopped reading
            for future in futures:
                future.cancel()
            raise

    def abandon(self) -> None:
        """Stop the pool now (Ctrl-C, SIGTERM): queued jobs cancelled, the workers sent
        SIGTERM (a running job's cleanups run, then the worker ends); the next use starts
        a fresh pool."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            with contextlib.suppress(Exception):  # one already gone
                worker.terminate()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class InlineWorkers:
    """One verification worker: jobs run in the calling thread (nothing is pickled)."""

    workers = 1
    inline = True

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        for i, item in enumerate(items):
            yield i, fn(item)

    def close(self) -> None:
        return None


class Engine:
    """This process's budgets (``EngineConfig``) and the only place that starts pools.

    ``requests`` is the model-request ``Budget``; ``workers`` the verification workers'
    count, ``pool()`` their process pool (an ``Executor``); ``slots`` the timing slots.
    """

    def __init__(self, config: EngineConfig | None = None) -> None:
        config = config or EngineConfig()
        self.config = config
        self.workers = config.workers if config.workers is not None else default_workers()
        self.requests = Budget("--requests", config.requests)
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    @property
    def slots(self) -> int:
        """The timing slots: ``--timing-slots``, else ``SUPERCODER_TIMING_SLOTS`` as it
        reads now, else one per physical core."""
        given = self.config.timing_slots
        return given if given is not None else default_slots()

    def __repr__(self) -> str:
        return (
            f"Engine(requests={self.requests.limit}, workers={self.workers}, "
            f"timing_slots={self.slots})"
        )

    @contextmanager
    def with_workers(self, workers: int | None) -> Iterator[Engine]:
        """This engine or, when ``workers`` is given and differs, one like it with that
        many verification workers (sharing the request budget), stopped after the block."""
        if workers is None or workers == self.workers:
            yield self
            return
        other = Engine(replace(self.config, workers=workers))
        other.requests = self.requests
        with other:
            yield other

    def pool(self) -> WorkerPool | InlineWorkers:
        """The verification workers: inline for one, else the engine's process pool."""
        return InlineWorkers() if self.workers <= 1 else self.processes_pool()

    def processes_pool(self) -> WorkerPool:
        """The verification workers as processes, even just one (a server never checks
        in its own process: a worker that dies takes the pool, not the server)."""
        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool(self.workers, replace(self.config, workers=self.workers))
            return self._pool

    def processes(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """Run the top-level (picklable) ``fn`` on each item on the verification workers;
        ``(index, result)`` as they finish."""
        return self.pool().map_unordered(fn, list(items))

    def process_map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: Callable[[], None] | None = None,
    ) -> list[R]:
        """``[fn(x) for x in items]`` on the verification workers, in order;
        ``progress()`` once per finished item."""
        out: list[Any] = [None] * len(items)
        for i, result in self.processes(fn, items):
            out[i] = result
            if progress:
                progress()
        return out

    def threads(
        self, fn: Callable[[T], R], items: Iterable[T], width: int | None = None
    ) -> Iterator[tuple[int, R]]:
        """Run ``fn`` on each item on at most ``width`` threads of this process (default:
        the request budget): for tasks that mostly wait (model requests, sandboxed runs,
        a timing session). ``(index, result)`` as they finish; an interrupt cancels what
        has not started and returns without waiting for the rest."""
        todo = list(items)
        if not todo:
            return
        size = max(1, min(width or self.requests.limit, len(todo)))
        pool = cf.ThreadPoolExecutor(size, thread_name_prefix="sc-engine")
        try:
            futures = {pool.submit(fn, item): i for i, item in enumerate(todo)}
            for future in cf.as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()

    def thread_executor(self, width: int, name: str = "sc-engine") -> cf.ThreadPoolExecutor:
        """``width`` threads for a long-lived service's event loop (``run_in_executor``):
        a server's requests, each verified on one (the caller shuts it down)."""
        return cf.ThreadPoolExecutor(max(1, width), thread_name_prefix=name)

    def thread_map(
        self, fn: Callable[[T], R], items: Iterable[T], width: int | None = None
    ) -> list[R]:
        """``[fn(x) for x in items]`` on ``threads``, in order."""
        todo = list(items)
        out: list[Any] = [None] * len(todo)
        for i, result in self.threads(fn, todo, width):
            out[i] = result
        return out

    def discard_pool(self) -> None:
        """Drop the process pool (one of its workers died, or the process is stopping):
        the next ``pool()`` starts a fresh one."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def close(self) -> None:
        """Stop the process pool (waiting for the jobs it runs)."""
        self.discard_pool()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        if kind is not None and not issubclass(kind, Exception):  # Ctrl-C: do not wait
            with self._lock:
                pool, self._pool = self._pool, None
            if pool is not None:
                pool.abandon()
            return
        self.close()


_CURRENT: list[Engine] = []
_CURRENT_LOCK = threading.Lock()


def current() -> Engine:
    """This process's engine: the one a command installed, else one with the defaults
    (the request budget 4, workers one per CPU and at least 2, slots as configured)."""
    with _CURRENT_LOCK:
        if not _CURRENT:
            _CURRENT.append(Engine())
        return _CURRENT[-1]


def install(engine: Engine) -> None:
    """Make ``engine`` this process's engine (a worker process adopts its parent's)."""
    with _CURRENT_LOCK:
        _CURRENT[:] = [engine]


@contextmanager
def use(engine: Engine) -> Iterator[Engine]:
    """Run the block with ``engine`` as this process's engine, then restore the one
    before and stop ``engine``'s pool (at once on an interrupt)."""
    with _CURRENT_LOCK:
        before = list(_CURRENT)
        _CURRENT[:] = [engine]
    try:
        with engine:
            yield engine
    finally:
        with _CURRENT_LOCK:
            _CURRENT[:] = before
