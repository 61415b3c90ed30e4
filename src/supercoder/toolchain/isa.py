"""Which x86-64 CPUs a program runs on: ISA targets, extensions used, lowest level.

A **target** (``--target``) is ``native`` (whatever this CPU has) or one of the
x86-64 micro-architecture levels (``x86-64``, ``x86-64-v2``, ``x86-64-v3``,
``x86-64-v4``, as gcc, glibc and the psABI define them). Under a level the
assembler itself refuses instructions beyond it (``gas_flags``: GNU as 2.40 has no
level names, so the level is spelled as ``generic64`` plus its extensions); the
object's executable bytes are then decoded (capstone) and any extension above the
level is refused too (``beyond``): that catches what the text check cannot see
(``.byte`` encodings, an ``.arch`` directive).

``scan_object`` decodes an object file's executable sections and names the
extensions its instructions need (``IsaUse``: the extensions and the lowest level
that has them all, None when one of them is in no level). Two instructions are
counted as baseline on purpose: ``tzcnt`` (its bytes are ``rep bsf``, which gcc emits
for ``-march=x86-64`` and which runs as ``bsf`` on older CPUs) and ``endbr64`` (a NOP
before CET). Bytes capstone cannot decode count as the extension ``UNKNOWN``, in no
level. ``missing_here`` compares what a program uses with this CPU's
``/proc/cpuinfo`` flags (why a candidate died with SIGILL).
"""

from __future__ import annotations

import enum
import re
import struct
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from supercoder.types import IsaUse


class Target(enum.StrEnum):
    NATIVE = "native"
    X86_64 = "x86-64"
    V2 = "x86-64-v2"
    V3 = "x86-64-v3"
    V4 = "x86-64-v4"


DEFAULT_TARGET = Target.NATIVE

# extension -> its /proc/cpuinfo flag
CPU_FLAGS: dict[str, str] = {
    "SSE3": "pni",
    "SSSE3": "ssse3",
    "SSE4.1": "sse4_1",
    "SSE4.2": "sse4_2",
    "POPCNT": "popcnt",
    "CX16": "cx16",
    "LAHF": "lahf_lm",
    "AVX": "avx",
    "AVX2": "avx2",
    "BMI1": "bmi1",
    "BMI2": "bmi2",
    "F16C": "f16c",
    "FMA": "fma",
    "LZCNT": "abm",
    "MOVBE": "movbe",
    "XSAVE": "xsave",
    "AVX512F": "avx512f",
    "AVX512BW": "avx512bw",
    "AVX512CD": "avx512cd",
    "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl",
    "AVX512ER": "avx512er",
    "AVX512PF": "avx512pf",
    "AVX512VBMI": "avx512vbmi",
    "AVX512_VBMI2": "avx512_vbmi2",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512IFMA": "avx512ifma",
    "AVX512_BF16": "avx512_bf16",
    "AVX512_FP16": "avx512_fp16",
    "AVX512_BITALG": "avx512_bitalg",
    "AVX512_VPOPCNTDQ": "avx512_vpopcntdq",
    "AVX512_VP2INTERSECT": "avx512_vp2intersect",
    "AVX_VNNI": "avx_vnni",
    "AVX_IFMA": "avx_ifma",
    "AVX_VNNI_INT8": "avx_vnni_int8",
    "GFNI": "gfni",
    "VAES": "vaes",
    "VPCLMULQDQ": "vpclmulqdq",
    "AES": "aes",
    "PCLMUL": "pclmulqdq",
    "SHA": "sha_ni",
    "ADX": "adx",
    "RDRAND": "rdrand",
    "RDSEED": "rdseed",
    "RDTSCP": "rdtscp",
    "RDPID": "rdpid",
    "PRFCHW": "3dnowprefetch",
    "CLFLUSHOPT": "clflushopt",
    "CLWB": "clwb",
    "SSE4A": "sse4a",
    "FMA4": "fma4",
    "XOP": "xop",
    "TBM": "tbm",
    "3DNOW": "3dnow",
    "RTM": "rtm",
    "HLE": "hle",
    "FSGSBASE": "fsgsbase",
}

_V2 = frozenset({"SSE3", "SSSE3", "SSE4.1", "SSE4.2", "POPCNT", "CX16", "LAHF"})
_V3 = _V2 | {"AVX", "AVX2", "BMI1", "BMI2", "F16C", "FMA", "LZCNT", "MOVBE", "XSAVE"}
_V4 = _V3 | {"AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL"}
# each level and the extensions it has beyond the baseline (SSE2, CMOV, CX8, ...)
LEVELS: dict[Target, frozenset[str]] = {
    Target.X86_64: frozenset(),
    Target.V2: _V2,
    Target.V3: _V3,
    Target.V4: _V4,
}
# GNU as spells a level as generic64 plus these extensions (ibt: endbr64, a NOP before CET)
_GAS = {
    Target.X86_64: "generic64+ibt",
    Target.V2: "generic64+ibt+sse3+ssse3+sse4.1+sse4.2+popcnt+cx16",
}
_GAS[Target.V3] = _GAS[Target.V2] + "+avx+avx2+bmi+bmi2+f16c+fma+lzcnt+movbe+xsave"
_GAS[Target.V4] = _GAS[Target.V3] + "+avx512f+avx512bw+avx512cd+avx512dq+avx512vl"


def parse_target(value: str | Target) -> Target:
    try:
        return Target(str(value).strip().lower())
    except ValueError:
        choices = ", ".join(t.value for t in Target)
        raise ValueError(f"unknown target {value!r}: use one of {choices}") from None


def gas_flags(target: Target) -> tuple[str, ...]:
    """gcc flags that make the assembler refuse instructions beyond ``target``."""
    return () if target is Target.NATIVE else (f"-Wa,-march={_GAS[target]}",)


def cc_flags(target: Target) -> tuple[str, ...]:
    """gcc/clang flags for the best code ``target`` allows (tuned for this CPU); a
    target with FMA fuses multiply-adds, which changes floating-point output, hence
    ``-ffp-contract=off``."""
    if target is Target.NATIVE:
        return ("-march=native", "-ffp-contract=off")
    return (f"-march={target.value}", "-mtune=native", "-ffp-contract=off")


def describe(target: Target) -> str:
    """What a prompt says of a level: the newest extensions it allows."""
    newest = {
        Target.X86_64: "SSE2 (no SSE3, SSE4, POPCNT, AVX or later)",
        Target.V2: "SSE4.2 and POPCNT (no AVX, AVX2, BMI, FMA or later)",
        Target.V3: "AVX2, BMI1/BMI2, FMA, F16C, LZCNT and MOVBE (no AVX-512)",
        Target.V4: "AVX-512 F/BW/CD/DQ/VL (no other AVX-512 extension)",
    }
    return newest.get(target, "whatever this CPU runs")


def lowest_level(extensions: frozenset[str] | set[str]) -> Target | None:
    """The lowest x86-64 level with every one of ``extensions`` (None: no level has them)."""
    for level, exts in LEVELS.items():
        if set(extensions) <= exts:
            return level
    return None


def allowed(target: Target) -> frozenset[str] | None:
    """The extensions ``target`` allows (None: any this CPU has)."""
    return None if target is Target.NATIVE else LEVELS[target]


# --- decoding ------------------------------------------------------------------------

_GROUPS = {
    "sse3": "SSE3",
    "ssse3": "SSSE3",
    "sse41": "SSE4.1",
    "sse42": "SSE4.2",
    "sse4a": "SSE4A",
    "avx": "AVX",
    "avx2": "AVX2",
    "fma": "FMA",
    "fma4": "FMA4",
    "xop": "XOP",
    "tbm": "TBM",
    "bmi": "BMI1",
    "bmi2": "BMI2",
    "adx": "ADX",
    "aes": "AES",
    "pclmul": "PCLMUL",
    "sha": "SHA",
    "f16c": "F16C",
    "avx512": "AVX512F",
    "bwi": "AVX512BW",
    "dqi": "AVX512DQ",
    "cdi": "AVX512CD",
    "vlx": "AVX512VL",
    "eri": "AVX512ER",
    "pfi": "AVX512PF",
    "3dnow": "3DNOW",
    "rtm": "RTM",
    "hle": "HLE",
    "fsgsbase": "FSGSBASE",
}
# what capstone's groups leave out, by mnemonic (prefix match where it ends in '*')
_MNEMONICS = {
    "popcnt": "POPCNT",
    "lzcnt": "LZCNT",
    "movbe": "MOVBE",
    "cmpxchg16b": "CX16",
    "lahf": "LAHF",
    "sahf": "LAHF",
    "xsave*": "XSAVE",
    "xrstor*": "XSAVE",
    "xgetbv": "XSAVE",
    "crc32*": "SSE4.2",
    "rdrand": "RDRAND",
    "rdseed": "RDSEED",
    "rdtscp": "RDTSCP",
    "rdpid": "RDPID",
    "prefetchw": "PRFCHW",
    "clflushopt": "CLFLUSHOPT",
    "clwb": "CLWB",
    "adcx": "ADX",
    "adox": "ADX",
    "vpermb": "AVX512VBMI",
    "vpermi2b": "AVX512VBMI",
    "vpermt2b": "AVX512VBMI",
    "vpmultishiftqb": "AVX512VBMI",
    "vpcompressb": "AVX512_VBMI2",
    "vpcompressw": "AVX512_VBMI2",
    "vpexpandb": "AVX512_VBMI2",
    "vpexpandw": "AVX512_VBMI2",
    "vpshld*": "AVX512_VBMI2",
    "vpshrd*": "AVX512_VBMI2",
    "vpopcntd": "AVX512_VPOPCNTDQ",
    "vpopcntq": "AVX512_VPOPCNTDQ",
    "vpopcntb": "AVX512_BITALG",
    "vpopcntw": "AVX512_BITALG",
    "vpshufbitqmb": "AVX512_BITALG",
    "vcvtne2ps2bf16": "AVX512_BF16",
    "vcvtneps2bf16": "AVX512_BF16",
    "vdpbf16ps": "AVX512_BF16",
    "vp2intersect*": "AVX512_VP2INTERSECT",
    "gf2p8*": "GFNI",
    "vgf2p8*": "GFNI",
    "vplzcnt*": "AVX512CD",
    "vpconflict*": "AVX512CD",
    "vpbroadcastm*": "AVX512CD",
}
# VEX-encoded only (an EVEX form is AVX-512): capstone gives them no group
_VEX = {"vcvtph2ps": "F16C", "vcvtps2ph": "F16C"}
_FMA3 = ("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")
# EVEX (AVX-512) or VEX (AVX) encodings of the same mnemonic
_EVEX_OR_VEX = {
    "vpdpbusd": ("AVX512_VNNI", "AVX_VNNI"),
    "vpdpbusds": ("AVX512_VNNI", "AVX_VNNI"),
    "vpdpwssd": ("AVX512_VNNI", "AVX_VNNI"),
    "vpdpwssds": ("AVX512_VNNI", "AVX_VNNI"),
    "vpmadd52luq": ("AVX512IFMA", "AVX_IFMA"),
    "vpmadd52huq": ("AVX512IFMA", "AVX_IFMA"),
}
_LEGACY_PREFIXES = frozenset({0x66, 0x67, 0xF0, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65})


def _evex(code: bytes) -> bool:
    i = _opcode_at(code)
    return i < len(code) and code[i] == 0x62


def _opcode_at(code: bytes) -> int:
    i = 0
    while i < len(code) and code[i] in _LEGACY_PREFIXES:
        i += 1
    return i


def _xop(code: bytes) -> bool:
    i = _opcode_at(code)
    return i + 1 < len(code) and code[i] == 0x8F and (code[i + 1] & 0x1F) >= 8


def _by_mnemonic(mnemonic: str) -> str | None:
    for key, ext in _MNEMONICS.items():
        if mnemonic == key or (key.endswith("*") and mnemonic.startswith(key[:-1])):
            return ext
    return None


def _known(mnemonic: str) -> str:
    """The mnemonic without an AT&T size suffix where that names a known one."""
    m = mnemonic
    if m[-1:] in ("b", "w", "l", "q") and m not in _MNEMONICS and m[:-1] in _MNEMONICS:
        return m[:-1]
    if m[:-1] in ("tzcnt", "lzcnt", "popcnt", "movbe", "rdrand", "rdseed", "crc32", "adcx"):
        return m[:-1]
    return m


def instruction_extensions(mnemonic: str, groups: list[str], code: bytes, ops: str) -> set[str]:
    """The extensions one decoded instruction needs (capstone mnemonic and group names)."""
    m = _known(mnemonic.split()[-1])  # rep/lock prefixes and AT&T suffixes dropped
    if m in ("tzcnt", "endbr64", "endbr32"):
        return set()
    out = {_GROUPS[g] for g in groups if g in _GROUPS}
    if m in _VEX and not _evex(code):
        out.add(_VEX[m])
    if m.startswith(_FMA3) and any(c.isdigit() for c in m) and not _evex(code):
        out.add("FMA")
    if _xop(code):
        out.add("XOP")
    if m in _EVEX_OR_VEX:
        evex, vex = _EVEX_OR_VEX[m]
        out.add(evex if _evex(code) else vex)
    named = _by_mnemonic(m)
    if named:
        out.add(named)
    if m.startswith(("vaes", "vpclmul")) and ("%ymm" in ops or "%zmm" in ops):
        out.add("VAES" if m.startswith("vaes") else "VPCLMULQDQ")
    if _evex(code):
        out.add("AVX512F")
        if "%zmm" not in ops:
            out.add("AVX512VL")
    if m.endswith("ph") and _evex(code) and m.startswith("v") and "cvt" not in m:
        out.add("AVX512_FP16")
    return out


def executable_sections(data: bytes) -> list[bytes]:
    """The bytes of each executable section (SHF_EXECINSTR) of an ELF64 object."""
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2:
        raise ValueError("not an ELF64 object")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for k in range(shnum):
        at = shoff + k * shentsize
        if at + 64 > len(data):
            raise ValueError("section header out of range")
        _, kind, flags, _, offset, size = struct.unpack_from("<IIQQQQ", data, at)
        if kind == 1 and flags & 0x4 and size:  # SHT_PROGBITS, SHF_EXECINSTR
            if offset + size > len(data):
                raise ValueError("section out of range")
            out.append(data[offset : offset + size])
    return out


def decode(code: bytes, address: int = 0) -> list[tuple[str, set[str]]]:
    """Each instruction of ``code`` (AT&T text; ``address``: where it starts) with the
    extensions it needs; bytes capstone cannot decode as ``(".byte 0x..", {"UNKNOWN"})``."""
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    md.detail = True
    out: list[tuple[str, set[str]]] = []
    at, end = address, address + len(code)
    while at < end:
        for insn in md.disasm(code[at - address :], at):
            groups = [insn.group_name(g) for g in insn.groups]
            text = f"{insn.mnemonic} {insn.op_str}".strip()
            out.append((text, instruction_extensions(insn.mnemonic, groups, insn.bytes, text)))
            at = insn.address + insn.size
        if at < end:  # capstone stopped: an instruction it does not know
            out.append((f".byte {code[at - address]:#04x}", {"UNKNOWN"}))
            at += 1
            while at < end and not next(md.disasm_lite(code[at - address :], at, 1), None):
                at += 1
    return out


# Instructions of x86-64's baseline in every encoding (AT&T, as capstone prints them,
# with or without a size suffix): the scan needs no detail of them. Anything else, any
# instruction with a prefix or a byte that may start a VEX/EVEX/XOP encoding, is
# decoded in full. A candidate of 400,000 compares took the full decode 8 s of host CPU.
_PLAIN = frozenset(
    [
        "mov",
        "movabs",
        "lea",
        "add",
        "sub",
        "cmp",
        "test",
        "and",
        "or",
        "xor",
        "not",
        "neg",
        "inc",
        "dec",
        "shl",
        "shr",
        "sar",
        "sal",
        "rol",
        "ror",
        "imul",
        "mul",
        "div",
        "idiv",
        "push",
        "pop",
        "call",
        "ret",
        "jmp",
        "nop",
        "cqto",
        "cltq",
        "cltd",
        "cwtl",
        "cqo",
        "cdq",
        "cdqe",
        "cwde",
        "leave",
        "xchg",
        "adc",
        "sbb",
        "movzbl",
        "movzbw",
        "movzwl",
        "movzbq",
        "movzwq",
        "movsbl",
        "movsbw",
        "movswl",
        "movslq",
        "movsbq",
        "movswq",
        "ud2",
        "hlt",
        "int3",
    ]
)
_SIZE = ("b", "w", "l", "q")
# a byte that may start a VEX (c4, c5), EVEX (62) or XOP (8f) encoding, or is an operand
# byte that happens to look like one (then the instruction is decoded in full)


_ENCODED = re.compile(rb"[\xc4\xc5\x62\x8f]")


def _plain(mnemonic: str, raw: bytes) -> bool:
    if _ENCODED.search(raw):
        return False
    if mnemonic in _PLAIN or (mnemonic[-1:] in _SIZE and mnemonic[:-1] in _PLAIN):
        return True
    if mnemonic.startswith(("cmov", "set")) or (mnemonic[:1] == "j" and mnemonic[1:].isalpha()):
        return " " not in mnemonic
    return False


def needs(code: bytes) -> Iterator[tuple[str, set[str]]]:
    """The instructions of ``code`` that need an extension, with the extensions: what
    ``decode`` finds, with only the instructions that may need one decoded in full."""
    import capstone

    lite = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    lite.syntax = capstone.CS_OPT_SYNTAX_ATT
    at = 0
    while at < len(code):
        for address, size, mnemonic, _ops in lite.disasm_lite(code[at:], at):
            at = address + size
            if not _plain(mnemonic, code[address:at]):
                for text, exts in decode(code[address:at], address):
                    if exts:
                        yield text, exts
        if at < len(code):  # capstone stopped: an instruction it does not know
            yield f".byte {code[at]:#04x}", {"UNKNOWN"}
            at += 1
            while at < len(code) and not next(lite.disasm_lite(code[at:], at, 1), None):
                at += 1


def scan_object(data: bytes, target: Target = DEFAULT_TARGET) -> IsaUse:
    """What an object file's code needs: its extensions, the lowest level, and for
    each extension the first instruction that needs it."""
    first: dict[str, str] = {}
    for code in executable_sections(data):
        for text, exts in needs(code):
            for ext in sorted(exts):
                first.setdefault(ext, text)
    used = frozenset(first)
    level = lowest_level(used)
    return IsaUse(
        extensions=tuple(sorted(used)),
        level=level.value if level else None,
        target=target.value,
        examples=tuple((e, first[e]) for e in sorted(used)),
    )


def beyond(use: IsaUse, target: Target) -> str | None:
    """Why ``use`` does not fit ``target`` (one line naming an instruction), or None."""
    ok = allowed(target)
    if ok is None:
        return None
    over = [e for e in use.extensions if e not in ok]
    if not over:
        return None
    examples = dict(use.examples)
    ext = over[0]
    needs = lowest_level({ext})
    where = needs.value if needs else "no x86-64 level"
    more = f" (and {', '.join(over[1:])})" if len(over) > 1 else ""
    return (
        f"`{examples.get(ext, '?')}` needs {ext} ({where}), outside --target {target.value}{more}"
    )


@cache
def cpu_flags() -> frozenset[str]:
    """This CPU's feature flags (``/proc/cpuinfo``; empty when unreadable)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def missing_here(use: IsaUse, flags: frozenset[str] | None = None) -> list[str]:
    """The extensions ``use`` needs that this CPU does not report (UNKNOWN included)."""
    have = cpu_flags() if flags is None else flags
    if not have:
        return []
    return [e for e in use.extensions if CPU_FLAGS.get(e) not in have]


def sigill_note(use: IsaUse | None) -> str:
    """What to say of a candidate killed by SIGILL: the extensions this CPU lacks."""
    if use is None:
        return "an illegal instruction (its extensions are not known)"
    lacking = missing_here(use)
    if not lacking:
        return "an illegal instruction, though this CPU reports every extension it uses"
    examples = dict(use.examples)
    shown = ", ".join(f"{e} (`{examples.get(e, '?')}`)" for e in lacking)
    return f"this CPU lacks {shown}"
