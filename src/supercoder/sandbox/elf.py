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


# ---------------------------------------------------------------- what runs

_PT_NOTE = 4
_NT_GNU_BUILD_ID = 3
_MAX_PHNUM = 256


def run_image_digest(data: bytes, *, as_copy: bool = False) -> str:
    """A digest of what the loader maps and runs from an executable: its entry point,
    type and machine, every program header (type, flags, address, sizes, alignment)
    and the file bytes of every ``PT_LOAD`` segment. Bytes no segment loads (the
    ``.comment`` section ``.ident`` writes, symbols, section headers, debug info) do not
    count, so two programs that differ in any loaded byte differ here, and two that
    differ only outside what is loaded do not. Anything that is not a 64-bit
    little-endian ELF (or does not parse) is digested whole.

    ``as_copy``: also leave out the loaded bytes that only mirror the bytes that are not
    loaded: the GNU build ID (the linker's hash of the whole file) and the ELF header's
    section-header fields (``e_shoff``, ``e_shentsize``, ``e_shnum``, ``e_shstrndx``).
    This is the digest for "a copy of the baseline": the baseline's code never reads
    them, so a program equal to it in every other loaded byte runs as it does. It is not
    for telling candidates apart (timing groups, caches): a candidate's own code could
    read its build ID and branch on it, so there every loaded byte counts."""
    import hashlib

    try:
        image = _run_image(data, as_copy)
    except (struct.error, IndexError, ValueError):
        image = None
    h = hashlib.sha256()
    if image is None:
        h.update(b"whole\0" + data)
    else:
        h.update(b"elf-image\0")
        for part in image:
            h.update(len(part).to_bytes(8, "little") + part)
    return h.hexdigest()


def _run_image(data: bytes, as_copy: bool) -> list[bytes] | None:
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    e_type, e_machine, _, e_entry, phoff = struct.unpack_from("<HHIQQ", data, 0x10)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    if phentsize < 56 or not 0 < phnum <= _MAX_PHNUM or phoff + phnum * phentsize > len(data):
        return None
    view = bytearray(data) if as_copy else data
    headers = []
    for i in range(phnum):
        headers.append(struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize))
    if as_copy:
        view[0x28:0x30] = bytes(8)  # e_shoff
        view[0x3A:0x40] = bytes(6)  # e_shentsize, e_shnum, e_shstrndx
        for p_type, _, p_offset, _, _, p_filesz, _, _ in headers:
            if p_type == _PT_NOTE:
                _blank_build_id(view, p_offset, p_filesz)
    parts = [struct.pack("<HHQ", e_type, e_machine, e_entry)]
    for p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, p_align in headers:
        parts.append(struct.pack("<IIQQQQ", p_type, p_flags, p_vaddr, p_filesz, p_memsz, p_align))
        if p_type == _PT_LOAD:
            if p_offset + p_filesz > len(data):
                return None
            parts.append(bytes(view[p_offset : p_offset + p_filesz]))
    return parts


def _blank_build_id(view: bytearray, offset: int, size: int) -> None:
    """Zero the descriptor of a GNU build-ID note inside the notes at ``offset``."""
    end, k = min(offset + size, len(view)), offset
    while k + 12 <= end:
        namesz, descsz, kind = struct.unpack_from("<III", view, k)
        name_at = k + 12
        desc_at = name_at + ((namesz + 3) & ~3)
        nxt = desc_at + ((descsz + 3) & ~3)
        if nxt > end:
            return
        if kind == _NT_GNU_BUILD_ID and bytes(view[name_at : name_at + namesz]) == b"GNU\0":
            view[desc_at : desc_at + descsz] = bytes(descsz)
        k = nxt


def same_run_image(a: bytes, b: bytes) -> bool:
    """Whether executable ``a`` is a copy of ``b`` in everything it loads and runs
    (``run_image_digest(as_copy=True)``): "identical to the baseline"."""
    return a == b or run_image_digest(a, as_copy=True) == run_image_digest(b, as_copy=True)
