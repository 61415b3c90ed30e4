"""The data a linked program holds: sizes of its data sections, from the ELF headers.

An answer that is fast because it knows answers keeps them in data (a table in
``.rodata``, a memo in ``.bss``): the verdict compares the candidate's data with the
baseline's (``types.DataSize``) and says so when it grew by more than
``DATA_GROWTH_BYTES``. Sizes come from the section headers of the binaries the build
made (``.rodata*``, ``.data*`` including ``.data.rel.ro``, ``.bss*``, ``.tdata``,
``.tbss``, the large-model ``.l*`` ones): a few hundred bytes read, whatever the
program's size. A file that is not a 64-bit little-endian ELF reads as no data.
"""

from __future__ import annotations

import struct
from pathlib import Path

DATA_GROWTH_BYTES = 512  # more added data than this is flagged in the verdict
_DATA = (".rodata", ".data", ".bss", ".tdata", ".tbss", ".lrodata", ".ldata", ".lbss")
_MAX_SECTIONS = 4096


def data_sections(path: Path) -> dict[str, int]:
    """Bytes per data section of the ELF file at ``path`` (empty when it is not one)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return {}
            shoff = struct.unpack_from("<Q", head, 0x28)[0]
            entsize, count, names = struct.unpack_from("<HHH", head, 0x3A)
            if entsize < 64 or not 0 < count <= _MAX_SECTIONS or names >= count:
                return {}
            f.seek(shoff)
            table = f.read(entsize * count)
            if len(table) < entsize * count:
                return {}
            headers = [struct.unpack_from("<IIQQQQ", table, k * entsize) for k in range(count)]
            _, _, _, _, str_off, str_size = headers[names]
            f.seek(str_off)
            strings = f.read(min(str_size, 1 << 20))
    except OSError:
        return {}
    out: dict[str, int] = {}
    for name_at, _kind, flags, _addr, _off, size in headers:
        if not flags & 0x2:  # SHF_ALLOC: in memory when the program runs
            continue
        end = strings.find(b"\0", name_at)
        name = strings[name_at : end if end >= 0 else None].decode("ascii", "replace")
        if any(name == d or name.startswith(d + ".") for d in _DATA):
            out[name] = out.get(name, 0) + size
    return out


def data_bytes(path: Path) -> int:
    """All the data section bytes of the ELF file at ``path``."""
    return sum(data_sections(path).values())
