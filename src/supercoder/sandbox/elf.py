"""What a binary needs to run: its loader and shared libraries, read from the ELF itself.

The runtime sandbox shows a program only what its runs need: the files this module
finds, copied into the sandbox's own memory (``sandbox.box``). They are read from the
binaries' program headers (``PT_INTERP``, the ``DT_NEEDED`` entries of ``PT_DYNAMIC``),
never by running anything (``ldd`` runs the binary's loader), and resolved only in the
system's library folders (a name with a ``/``, or a loader outside them, is not
provided: the program then fails to start, its own failure). Libraries' own needs are
followed too (libm needs libc, libgomp needs libc...).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

LIB_DIRS = (
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
)
MAX_LIB_BYTES = 256 << 20  # libraries copied into one sandbox, at most
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB = 1, 5


def elf_needs(path: Path) -> tuple[str | None, tuple[str, ...]]:
    """(loader path or None, DT_NEEDED names) of a 64-bit little-endian ELF file; (None,
    ()) for anything else (a static binary, not an ELF, unreadable)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None, ()
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None, ()
    try:
        return _parse(data)
    except (struct.error, IndexError, ValueError):
        return None, ()


def _parse(data: bytes) -> tuple[str | None, tuple[str, ...]]:
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic, interp = [], None, None
    for i in range(min(phnum, 256)):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize
        )
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
        elif p_type == _PT_INTERP:
            interp = data[p_offset : p_offset + p_filesz].split(b"\0", 1)[0].decode("latin-1")
    if dynamic is None:
        return interp, ()
    needed, strtab = [], None
    off, size = dynamic
    for k in range(0, min(size, 1 << 16), 16):
        tag, val = struct.unpack_from("<qQ", data, off + k)
        if tag == 0:
            break
        if tag == _DT_NEEDED:
            needed.append(val)
        elif tag == _DT_STRTAB:
            strtab = val
    if strtab is None:
        return interp, ()
    base = next((o + strtab - v for v, o, s in loads if v <= strtab < v + s), None)
    if base is None:
        return interp, ()
    names = []
    for n in needed:
        end = data.index(b"\0", base + n)
        names.append(data[base + n : end].decode("latin-1"))
    return interp, tuple(names)


def _in_lib_dirs(path: str) -> bool:
    real = os.path.realpath(path)
    dirs = {os.path.realpath(d) for d in LIB_DIRS}
    return os.path.isfile(real) and os.path.dirname(real) in dirs


def _find(name: str) -> str | None:
    if "/" in name or not name:
        return None
    for folder in LIB_DIRS:
        candidate = f"{folder}/{name}"
        if os.path.isfile(candidate):
            return candidate
    return None


def runtime_files(binaries: list[Path]) -> list[str]:
    """The loader and every library (transitively) the binaries need, as the paths a
    program opens them by (``/lib64/ld-linux-x86-64.so.2``, ``/lib/.../libc.so.6``):
    each one a regular file in the system's library folders."""
    wanted: list[str] = []
    queue = list(binaries)
    seen_names: set[str] = set()
    total = 0
    while queue:
        interp, needed = elf_needs(Path(queue.pop()))
        paths = [interp] if interp and _in_lib_dirs(interp) else []
        for name in needed:
            if name in seen_names:
                continue
            seen_names.add(name)
            found = _find(name)
            if found:
                paths.append(found)
        for p in paths:
            if p in wanted:
                continue
            size = os.path.getsize(os.path.realpath(p))
            if total + size > MAX_LIB_BYTES:
                continue
            total += size
            wanted.append(p)
            queue.append(Path(os.path.realpath(p)))
    return wanted


def path_chain(path: str) -> list[tuple[str, str]]:
    """How ``path`` resolves on this host, as what a sandbox must hold for the same path
    to work there: ("symlink", target, where) for each link on the way, then ("file",
    real path, real path). Every ``where`` has no link above it."""
    out: list[tuple[str, str]] = []
    p = os.path.normpath(path)
    for _ in range(40):
        parts = Path(p).parts
        cur = Path("/")
        for i, part in enumerate(parts[1:]):
            cur = cur / part
            if cur.is_symlink():
                target = os.readlink(cur)
                out.append(("symlink", target, str(cur)))
                rest = parts[i + 2 :]
                base = Path(target) if target.startswith("/") else cur.parent / target
                p = os.path.normpath(str(base.joinpath(*rest)))
                break
        else:
            out.append(("file", p, p))
            return out
    return out
