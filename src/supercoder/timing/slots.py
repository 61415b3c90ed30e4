"""Timing slots: how many timings may run at once on this machine, each on its own core.

``SUPERCODER_TIMING_SLOTS`` is a number or ``auto`` (the default): one slot per
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
from functools import cache
from pathlib import Path

from supercoder.errors import UserError
from supercoder.paths import cache_dir

SLOTS_ENV = "SUPERCODER_TIMING_SLOTS"


@dataclass(frozen=True)
class Slot:
    """One timing slot: its index and the CPUs its sandbox is bound to."""

    index: int
    cpus: frozenset[int]


@cache
def physical_cores() -> tuple[tuple[int, ...], ...]:
    """The logical CPUs this process may use, grouped by physical core (sorted)."""
    allowed = sorted(os.sched_getaffinity(0))
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


def slot_count() -> int:
    """``SUPERCODER_TIMING_SLOTS``: a whole number >= 1, or ``auto`` (one per core)."""
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
