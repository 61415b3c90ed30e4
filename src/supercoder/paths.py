"""Where supercoder keeps its files, and how it writes them: a leaf module (imports nothing of ours)."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path


def cache_dir() -> Path:
    """The cache root: ``$SUPERCODER_CACHE`` or ``~/.cache/supercoder`` (created)."""
    root = Path(os.environ.get("SUPERCODER_CACHE", Path.home() / ".cache" / "supercoder"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def default_store() -> Path:
    """The run store every command uses without ``--db``: ``$SUPERCODER_DB``, else
    ``runs.sqlite`` in the user's data folder (``$XDG_DATA_HOME/supercoder`` or
    ``~/.local/share/supercoder``), the same from any working folder (not created here)."""
    if os.environ.get("SUPERCODER_DB"):
        return Path(os.environ["SUPERCODER_DB"]).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "supercoder" / "runs.sqlite"


def pid_alive(pid: int) -> bool:
    """Does process ``pid`` exist (on this machine)?"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


_EXITING = threading.Event()


def temp_prefix(what: str) -> str:
    """The name prefix of a temp folder of ours: ``sc-WHAT-PID-`` (``tempfile`` adds 8
    characters). The pid says whose it is: a folder whose process is gone is removed by
    the next command (``sandbox.tempclean``), whatever its age. Once the process is
    exiting (``refuse_new_temp``), threads still running make no new one."""
    if _EXITING.is_set():
        raise KeyboardInterrupt("exiting: no new temp folder")
    return f"sc-{what}-{os.getpid()}-"


def staging_prefix(parent: Path, prefix: str) -> str:
    """``PREFIX-PID-`` for a staging folder made beside its target in ``parent`` (a
    problem being initialized, a cache entry being filled); first removes the ones in
    ``parent`` whose process is gone (a kill leaves them behind)."""
    import re
    import shutil

    pattern = re.compile(re.escape(prefix) + r"-(\d+)-[A-Za-z0-9_]{8}")
    try:
        entries = list(os.scandir(parent))
    except OSError:
        entries = []
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and entry.is_dir(follow_symlinks=False) and not pid_alive(int(m.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
    return f"{prefix}-{os.getpid()}-"


def refuse_new_temp() -> None:
    """From now on ``temp_prefix`` refuses (the process is exiting and sweeps its own)."""
    _EXITING.set()


def sibling_temp(path: Path) -> Path:
    """A temporary name beside ``path``, its own to this process and thread (two threads
    writing one cache entry at once must not share a temp file)."""
    return path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one
    (written beside it, flushed to disk, then renamed over it: a full disk or a kill
    leaves the old file as it was)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = sibling_temp(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            tmp.chmod(mode)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode(), mode)


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def write_checked(path: Path, data: bytes, mode: int | None = None) -> None:
    """A cache file with its SHA-256 beside it (``NAME.sha256``), written after it: a
    file cut short (full disk, crash, tampering) no longer matches and is not used."""
    import hashlib

    atomic_write_bytes(path, data, mode)
    atomic_write_text(_digest_path(path), hashlib.sha256(data).hexdigest() + "\n")


def read_checked(path: Path) -> bytes | None:
    """The cache file's bytes when they match their recorded digest; None when missing
    or damaged (then both files are removed, so the caller rebuilds it)."""
    import hashlib

    try:
        data = path.read_bytes()
        want = _digest_path(path).read_text().strip()
    except OSError:
        data, want = b"", ""
    if want and hashlib.sha256(data).hexdigest() == want:
        return data
    for stale in (path, _digest_path(path)):
        with contextlib.suppress(OSError):
            stale.unlink()
    return None


def package_version() -> str:
    """supercoder's version from the installed package's metadata (``0+unknown`` when the
    source is imported without being installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("supercoder")
    except PackageNotFoundError:
        return "0+unknown"
