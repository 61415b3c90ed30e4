"""A memory cgroup per sandbox, where the machine has one we may make.

rlimits bound a run's address space, but kernel memory a run makes the kernel hold
(pipe buffers, page tables, the sandbox's tmpfs files) counts against no rlimit.
seccomp refuses the calls known to hold much of it (``runner.c``); as a second wall,
each runtime sandbox goes into a memory cgroup of its own capped at its memory limit
plus a margin, so whatever the kernel holds for it is charged there and bounded.

Made only when we are root and the cgroup v1 memory controller is mounted (our CI
machines) with our own cgroup writable; elsewhere (cgroup v2, where a process's own
cgroup cannot hand a controller to a child while it holds processes; no root) there is
none and seccomp is the wall. The sandbox user may move its own process into the
cgroup (``cgroup.procs`` is handed to it); the cgroup is removed when the sandbox ends.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup/memory")
MARGIN_MB = 256  # the runner, the loader and libraries, pipes, page tables
_counter = itertools.count()


def _own_v1_path() -> str | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(","):
            return parts[2]
    return None


def make_memory_cgroup(memory_mb: int, owner: tuple[int, int] | None) -> Path | None:
    """A fresh v1 memory cgroup capped at ``memory_mb`` + ``MARGIN_MB`` whose
    ``cgroup.procs`` ``owner`` (uid, gid) may write; None where none can be made."""
    if os.geteuid() != 0 or not (V1_ROOT / "cgroup.procs").is_file():
        return None
    own = _own_v1_path()
    if own is None:
        return None
    base = V1_ROOT / own.lstrip("/")
    folder = base / f"supercoder-{os.getpid()}-{next(_counter)}"
    limit = str((memory_mb + MARGIN_MB) << 20)
    try:
        folder.mkdir(mode=0o755)
    except OSError:
        return None
    try:
        folder.chmod(0o755)  # the sandbox user enters it under any umask (077 too)
        (folder / "memory.limit_in_bytes").write_text(limit)
        swap = folder / "memory.memsw.limit_in_bytes"
        if swap.is_file():
            swap.write_text(limit)
        if owner is not None:
            for name in ("cgroup.procs", "tasks"):
                os.chown(folder / name, *owner)
    except OSError:
        remove_cgroup(folder)
        return None
    return folder


def enter_command(folder: Path, argv: list[str]) -> list[str]:
    """``argv`` started by a shell that first moves itself into ``folder`` (so every
    process it becomes or starts is in the cgroup from the start)."""
    procs = str(folder / "cgroup.procs")
    script = 'echo $$ > "$0" && shift && exec "$@"'
    return ["/bin/sh", "-c", script, procs, "_", *argv]


def remove_cgroup(folder: Path | None) -> None:
    """Remove the cgroup (its processes have exited; a few tries while they go)."""
    if folder is None:
        return
    for _ in range(50):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)
