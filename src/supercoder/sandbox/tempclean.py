"""Remove temp folders a killed supercoder left behind (SIGKILL skips every cleanup).

Only folders that are certainly ours and certainly abandoned are removed: directly in
the temp folder, named like ours (``sc-<what>-XXXXXXXX``, as ``tempfile`` makes them),
real folders (not links), owned by this user, untouched for ``max_age`` seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

OURS = re.compile(r"sc-[a-z]+-[a-z0-9_]{8}")
MAX_AGE = 12 * 3600.0


def clean_stale_temp(root: str | Path | None = None, max_age: float = MAX_AGE) -> list[Path]:
    """Remove our abandoned temp folders under ``root`` (the temp folder); never raises."""
    base = Path(root or tempfile.gettempdir())
    removed = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not OURS.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or now - st.st_mtime < max_age:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed
