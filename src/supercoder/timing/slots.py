"""Timing slots: how many timings may run at once on this machine, each on its own core.

The count is the engine's budget (``supercoder.engine``: ``--timing-slots``, else
``SUPERCODER_TIMING_SLOTS``, a number or ``auto``, the default): one slot per
physical core this process may use (SMT siblings are left idle: a timed run never
shares a core with another one). Slot ``i`` is pinned to the first logical CPU of the
``i``-th physical core; the sandbox that times in it, its supervisor and every run in
it are bound to that CPU (``Sandbox(cpus=...)``). ``timing_slot()`` takes a free slot
across every process of this machine (a file lock per slot under the cache), waiting
for one, and yields it. On a Ray cluster each node has its own cache and so its own
slots.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from supercoder.engine import SLOTS_ENV, current, physical_cores
from supercoder.paths import cache_dir

__all__ = ["SLOTS_ENV", "Slot", "free_slot_count", "physical_cores", "slot_count", "timing_slot"]


@dataclass(frozen=True)
class Slot:
    """One timing slot: its index and the CPUs its sandbox is bound to."""

    index: int
    cpus: frozenset[int]


def slot_count() -> int:
    """The timing slots of this process's engine (``--timing-slots``, else
    ``SUPERCODER_TIMING_SLOTS``: a whole number >= 1, or ``auto``, one per core)."""
    return current().slots


def slot_cpus(index: int) -> frozenset[int]:
    """The CPU slot ``index`` is pinned to: the first CPU of a physical core (more
    slots than cores share them round-robin)."""
    cores = physical_cores()
    return frozenset({cores[index % len(cores)][0]})


def _lock_dir() -> Path:
    folder = cache_dir() / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _take(lock_dir: Path, i: int) -> int | None:
    """Slot ``i``'s lock, taken without waiting: its locked descriptor, or None when
    another process (or thread) holds it."""
    fd = os.open(lock_dir / f"timing-{i}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _release(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def free_slot_count() -> int:
    """How many of this machine's timing slots no process holds right now (a glance:
    each slot's lock is tried and let go at once; another caller may take one next)."""
    lock_dir, free = _lock_dir(), 0
    for i in range(slot_count()):
        fd = _take(lock_dir, i)
        if fd is not None:
            free += 1
            _release(fd)
    return free


@contextmanager
def timing_slot() -> Iterator[Slot]:
    """Hold one of this machine's ``slot_count()`` timing slots (waits for a free one)."""
    slots, lock_dir = slot_count(), _lock_dir()
    while True:
        for i in range(slots):
            fd = _take(lock_dir, i)
            if fd is None:
                continue
            try:
                yield Slot(i, slot_cpus(i))
            finally:
                _release(fd)
            return
        time.sleep(0.01)
