"""Remove temp folders a stopped supercoder left behind (SIGKILL skips every cleanup).

Our temp folders are named ``sc-<what>-<pid>-XXXXXXXX`` (``paths.temp_prefix``): the
pid of the process that made them. Where they are made (the system temp folder and
``/dev/shm``, the sandbox's memory folder) every command, when it starts, removes those
whose process is gone, whatever their age; at exit a command removes its own
(``clean_own_temp``: also when it was stopped by a signal while threads still held
some). Only folders that are certainly ours are removed: directly in those folders,
named like ours, real folders (not links), owned by this user (or the sandbox's user
we hand build folders to). Folders named the older
way (``sc-<what>-XXXXXXXX``, no pid) are removed once untouched for ``max_age`` seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from supercoder.paths import pid_alive

OURS = re.compile(r"sc-[a-z]+-[a-z0-9_]{8}")
OURS_PID = re.compile(r"sc-[a-z]+-(\d+)-[a-z0-9_]{8}")
MAX_AGE = 12 * 3600.0


def temp_roots() -> list[Path]:
    """Where our temp folders are made: the temp folder and the sandbox's memory folder."""
    from supercoder.sandbox.box import memory_folder

    roots = [Path(tempfile.gettempdir())]
    shm = memory_folder()
    if shm and Path(shm) not in roots:
        roots.append(Path(shm))
    return roots


def clean_stale_temp(root: str | Path | None = None, max_age: float = MAX_AGE) -> list[Path]:
    """Remove our abandoned temp folders under ``root`` (None: every temp root): those
    whose process is gone, and pid-less old ones; never raises."""
    roots = [Path(root)] if root else temp_roots()
    removed: list[Path] = []
    for base in roots:
        removed += _sweep(base, lambda pid: not pid_alive(pid), max_age)
    return removed


def clean_own_temp(settle: float = 0.05) -> list[Path]:
    """Remove this process's temp folders (at exit: what threads stopped midway left).
    Threads make no new one from here on; a folder one was making as this started is
    caught by the second sweep, ``settle`` seconds later."""
    from supercoder.paths import refuse_new_temp

    refuse_new_temp()
    me = os.getpid()
    removed: list[Path] = []
    for again in (False, True):
        if again:
            time.sleep(settle)
        for base in temp_roots():
            removed += _sweep(base, lambda pid: pid == me, None)
    return removed


def _owners() -> set[int]:
    """Users whose folders of ours may be: ourselves, and (as root) the sandbox's host
    user, to whom a build folder is handed."""
    from supercoder.sandbox.bwrap import sandbox_host_ids

    owners = {os.getuid()}
    try:
        ids = sandbox_host_ids()
    except Exception:  # no such user: nothing handed to it
        ids = None
    if ids:
        owners.add(ids[0])
    return owners


def _sweep(base: Path, dead, max_age: float | None) -> list[Path]:
    removed = []
    owners = _owners()
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        with_pid = OURS_PID.fullmatch(entry.name)
        if with_pid:
            if not dead(int(with_pid.group(1))):
                continue
        elif max_age is None or not OURS.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid not in owners:
            continue
        if not with_pid and now - st.st_mtime < (max_age or 0):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed
