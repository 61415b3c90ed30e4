"""Parse gcc-style AT&T assembly text into labels, instructions and typed operands.

The candidates are text, so the text is parsed directly (a small grammar, not a
disassembler); ``binary.py`` cross-checks the result against capstone on the
assembled object file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from supercoder.toolchain.asmtext import statements


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_COND_ALIAS = {
    "z": "e",
    "nz": "ne",
    "c": "b",
    "nae": "b",
    "nc": "ae",
    "nb": "ae",
    "na": "be",
    "nbe": "a",
    "nge": "l",
    "nl": "ge",
    "ng": "le",
    "nle": "g",
    "pe": "p",
    "po": "np",
}
CONDITIONS = _words(
    "o no b c nae ae nb nc e z ne nz be na a nbe s ns p pe np po l nge ge nl le ng g nle"
)
# Mnemonics that take an AT&T size suffix (b/w/l/q) which we strip.
_SUFFIXED = _words(
    """add sub and or xor cmp test mov lea inc dec neg not imul mul idiv div shl sal shr sar
    rol ror rcl rcr push pop call ret jmp adc sbb xchg cmpxchg xadd bt bts btr btc bsf bsr
    popcnt lzcnt tzcnt andn blsi blsr blsmsk bextr bzhi pdep pext shlx shrx sarx rorx
    shld shrd stos lods scas cmps movs nop leave movbe bswap cmpxchg8b"""
)
_EXACT = {
    "cltq": "cdqe",
    "cltd": "cdq",
    "cqto": "cqo",
    "cqo": "cqo",
    "cwtl": "cwde",
    "cwtd": "cwd",
    "movslq": "movsxd",
    "movsxd": "movsxd",
    "movabsq": "movabs",
    "movabs": "movabs",
}
_EXTEND = re.compile(r"^mov([sz])([bw])([wlq])$")
_CVT = re.compile(r"^v?cvtt?(si2s[sd]|s[sd]2si)[lq]$")
_MEM = re.compile(r"^(?:%(?P<seg>[a-z]s):)?(?P<disp>[^(]*)\((?P<inner>[^)]*)\)$")
_SEG_ABS = re.compile(r"^%(?P<seg>[a-z]s):(?P<disp>[^(]+)$")
_LABEL = re.compile(r"^(?P<name>[A-Za-z_.$][\w.$@]*|\d+):(?P<rest>.*)$")
PREFIXES = frozenset({"rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16"})

_REG64 = {}
for _i, _r in enumerate(("ax", "bx", "cx", "dx")):
    for _n in (f"r{_r}", f"e{_r}", _r, f"{_r[0]}l", f"{_r[0]}h"):
        _REG64[_n] = f"r{_r}"
for _r in ("si", "di", "bp", "sp"):
    for _n in (f"r{_r}", f"e{_r}", _r, f"{_r}l"):
        _REG64[_n] = f"r{_r}"
for _k in range(8, 16):
    for _n in (f"r{_k}", f"r{_k}d", f"r{_k}w", f"r{_k}b"):
        _REG64[_n] = f"r{_k}"


def reg_family(name: str) -> str:
    """%eax, %ax, %al -> rax; vector and other registers map to themselves."""
    return _REG64.get(name, name)


@dataclass(frozen=True)
class Reg:
    name: str  # without '%'

    @property
    def family(self) -> str:
        return reg_family(self.name)

    @property
    def is_vector(self) -> bool:
        return self.name[:3] in ("xmm", "ymm", "zmm")


@dataclass(frozen=True)
class Imm:
    value: int | None  # None when symbolic ($.LC0)
    text: str


@dataclass(frozen=True)
class Mem:
    disp: int
    symbol: str | None
    base: str | None  # register family (rax, rsp, rip, ...)
    index: str | None
    scale: int
    segment: str | None = None


@dataclass(frozen=True)
class Target:
    """A bare symbol: a branch/call target (or an absolute address)."""

    symbol: str
    indirect: bool = False


@dataclass(frozen=True)
class IndirectOp:
    """``*%rax`` or ``*8(%rax)`` in jmp/call."""

    inner: Reg | Mem


Operand = Reg | Imm | Mem | Target | IndirectOp


@dataclass(frozen=True)
class Instruction:
    raw: str  # mnemonic as written, e.g. "addl"
    mnemonic: str  # normalised, Intel-style base, e.g. "add", "cmov", "jcc"... see below
    cond: str | None  # condition code for jcc/cmov/set
    operands: tuple[Operand, ...]
    line: int  # 1-based line in the source text
    prefix: str | None = None

    @property
    def name(self) -> str:
        """Human form: jcc/cmov/set with their condition (jle, cmovl, setg)."""
        if self.cond is not None:
            return {"jcc": "j", "cmov": "cmov", "set": "set"}[self.mnemonic] + self.cond
        return self.mnemonic

    @property
    def dest(self) -> Operand | None:
        return self.operands[-1] if self.operands else None

    def mems(self) -> tuple[Mem, ...]:
        return tuple(o for o in self.operands if isinstance(o, Mem))

    def regs(self) -> tuple[Reg, ...]:
        return tuple(o for o in self.operands if isinstance(o, Reg))


@dataclass(frozen=True)
class LabelDef:
    name: str
    line: int


@dataclass(frozen=True)
class Directive:
    name: str  # ".type"
    args: str
    line: int


Item = Instruction | LabelDef | Directive


def normalize_mnemonic(raw: str) -> tuple[str, str | None]:
    """AT&T mnemonic -> (base, condition). ``addl`` -> ("add", None), ``jle`` -> ("jcc", "le")."""
    m = raw.lower()
    if m in _EXACT:
        return _EXACT[m], None
    if m in ("jmp", "jmpq"):
        return "jmp", None
    if m.startswith("j") and m[1:] in CONDITIONS | {"rcxz", "ecxz"}:
        return "jcc", _COND_ALIAS.get(m[1:], m[1:])
    for family in ("cmov", "set"):
        if m.startswith(family) and len(m) > len(family):
            cond = m[len(family) :]
            if cond not in CONDITIONS and cond[-1] in "bwlq" and cond[:-1] in CONDITIONS:
                cond = cond[:-1]
            if cond in CONDITIONS:
                return family, _COND_ALIAS.get(cond, cond)
    if _CVT.match(m):
        return m[:-1], None
    ext = _EXTEND.match(m)
    if ext:
        return ("movzx" if ext.group(1) == "z" else "movsx"), None
    if m in _SUFFIXED:
        return m, None
    if m[-1:] in ("b", "w", "l", "q") and m[:-1] in _SUFFIXED:
        return m[:-1], None
    return m, None


def _parse_int(text: str) -> int | None:
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        return None


def _split_disp(disp: str) -> tuple[int, str | None]:
    """'2048+a' -> (2048, 'a'); '-16' -> (-16, None); '.LC0' -> (0, '.LC0')."""
    disp = disp.strip()
    if not disp:
        return 0, None
    value = _parse_int(disp)
    if value is not None:
        return value, None
    total, symbols = 0, []
    for sign, term in re.findall(r"([+-]?)\s*([^+-]+)", disp):
        number = _parse_int(term)
        if number is None:
            symbols.append(term.strip())
        else:
            total += -number if sign == "-" else number
    return total, ("+".join(symbols) or None)


def parse_operand(text: str) -> Operand:
    text = text.strip()
    if text.startswith("*"):
        inner = parse_operand(text[1:])
        return IndirectOp(inner) if isinstance(inner, Reg | Mem) else Target(text[1:], True)
    if text.startswith("$"):
        return Imm(_parse_int(text[1:]), text[1:])
    if text.startswith("%") and "(" not in text and ":" not in text:
        return Reg(text[1:].lower())
    mem = _MEM.match(text)
    if mem:
        disp, symbol = _split_disp(mem.group("disp"))
        parts = [p.strip().lstrip("%").lower() for p in mem.group("inner").split(",")]
        base = reg_family(parts[0]) if parts[0] else None
        index = reg_family(parts[1]) if len(parts) > 1 and parts[1] else None
        scale = _parse_int(parts[2]) if len(parts) > 2 and parts[2] else 1
        return Mem(disp, symbol, base, index, scale or 1, mem.group("seg"))
    seg = _SEG_ABS.match(text)
    if seg:
        disp, symbol = _split_disp(seg.group("disp"))
        return Mem(disp, symbol, None, None, 1, seg.group("seg"))
    return Target(text)


def split_operands(text: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def parse_instruction(text: str, line: int) -> Instruction:
    words = text.split(None, 1)
    prefix = None
    if words[0].lower() in PREFIXES and len(words) > 1:
        prefix = words[0].lower()
        words = words[1].split(None, 1)
    raw = words[0]
    mnemonic, cond = normalize_mnemonic(raw)
    ops = tuple(parse_operand(o) for o in split_operands(words[1])) if len(words) > 1 else ()
    if raw.lower() in ("movd", "movq") and any(isinstance(o, Reg) and o.is_vector for o in ops):
        mnemonic = raw.lower()  # a vector transfer, not an integer mov with a suffix
    return Instruction(raw, mnemonic, cond, ops, line, prefix)


def parse(text: str) -> tuple[Item, ...]:
    """Assembly text -> labels, directives and instructions in order."""
    items: list[Item] = []
    for number, stmt in statements(text):
        while stmt:
            label = _LABEL.match(stmt)
            if not label or stmt.startswith(('"', "'")):
                break
            items.append(LabelDef(label.group("name"), number))
            stmt = label.group("rest").strip()
        if not stmt:
            continue
        if stmt.startswith("."):
            name, *args = stmt.split(None, 1)
            items.append(Directive(name, args[0] if args else "", number))
        else:
            items.append(parse_instruction(stmt, number))
    return tuple(items)
