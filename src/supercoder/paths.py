"""Where supercoder keeps its files, and how it writes them: a leaf module (imports nothing of ours)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache root: ``$SUPERCODER_CACHE`` or ``~/.cache/supercoder`` (created)."""
    root = Path(os.environ.get("SUPERCODER_CACHE", Path.home() / ".cache" / "supercoder"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        if mode is not None:
            tmp.chmod(mode)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode(), mode)


def package_version() -> str:
    """supercoder's version from the installed package's metadata (``0+unknown`` when the
    source is imported without being installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("supercoder")
    except PackageNotFoundError:
        return "0+unknown"
