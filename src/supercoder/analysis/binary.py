"""Cross-check the text parser against capstone on the assembled object file.

``gcc -c`` turns the text into an ELF object; each ``STT_FUNC`` symbol's bytes are
decoded with capstone and its mnemonic counts compared with what the parser saw.
Alignment padding (nops) is ignored on both sides.
"""

from __future__ import annotations

import shutil
import struct
from collections import Counter
from dataclasses import dataclass

from supercoder.analysis.cfg import build_program
from supercoder.errors import UserError, require
from supercoder.sandbox.readback import read_back
from supercoder.toolchain.gcc import MAX_BINARY_BYTES, object_code

_STRING_OPS = ("stos", "lods", "scas", "cmps", "movs")
_ALIASES = {"sal": "shl", "cwde": "cwde", "cdqe": "cdqe"}


@dataclass(frozen=True)
class Mismatch:
    function: str
    mnemonic: str
    parsed: int
    decoded: int


def _object_bytes(asm: str) -> bytes:
    """``gcc -c`` of untrusted text: built like a candidate, in the build sandbox."""
    built = object_code(asm)
    if not built.ok or built.binary is None:
        raise UserError(f"the assembly does not assemble:\n{built.log[:2000]}")
    try:
        return read_back(built.binary.parent, built.binary.name, MAX_BINARY_BYTES) or b""
    finally:
        shutil.rmtree(built.binary.parent, ignore_errors=True)


def elf_functions(data: bytes) -> dict[str, bytes]:
    """Function symbol -> its code bytes, from a relocatable ELF64 little-endian object."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise UserError("not an ELF64 object")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)
    ]
    out: dict[str, bytes] = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name_off, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", data, off)
            if info & 0xF != 2 or not size or shndx >= len(sections):  # STT_FUNC
                continue
            start = strtab[4] + name_off
            name = data[start : data.index(b"\0", start)].decode()
            code_off = sections[shndx][4] + value
            out[name] = data[code_off : code_off + size]
    return out


def _key(mnemonic: str) -> str:
    m = mnemonic.split()[-1]  # drop rep/lock prefixes
    if m.startswith(_STRING_OPS) and len(m) == 5:
        return m[:4]
    return _ALIASES.get(m, m)


def decoded_mnemonics(asm: str) -> dict[str, Counter]:
    """Per function, capstone's mnemonic counts (nops dropped)."""
    capstone = require("capstone", "analysis")
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    out = {}
    for name, code in elf_functions(_object_bytes(asm)).items():
        counts: Counter = Counter()
        for _addr, _size, mnemonic, _ops in md.disasm_lite(code, 0):
            if not mnemonic.endswith("nop"):
                counts[_key(mnemonic)] += 1
        out[name] = counts
    return out


def parsed_mnemonics(asm: str) -> dict[str, Counter]:
    out = {}
    for fn in build_program(asm).functions:
        out[fn.name] = Counter(_key(i.name) for i in fn.instructions if i.mnemonic != "nop")
    return out


def crosscheck(asm: str) -> tuple[Mismatch, ...]:
    """Differences between the parser's and capstone's per-function mnemonic counts."""
    parsed, decoded = parsed_mnemonics(asm), decoded_mnemonics(asm)
    out = []
    for fn in sorted(parsed.keys() | decoded.keys()):
        p, d = parsed.get(fn, Counter()), decoded.get(fn, Counter())
        out.extend(Mismatch(fn, m, p[m], d[m]) for m in sorted(p.keys() | d.keys()) if p[m] != d[m])
    return tuple(out)
