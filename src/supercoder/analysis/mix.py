"""Instruction classes and per-region instruction mixes, strides and stack traffic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from supercoder.analysis.asm import Imm, Instruction, Mem, Reg

BITCOUNT = frozenset({"popcnt", "lzcnt", "tzcnt", "bsf", "bsr"})
BMI = frozenset(
    {
        "andn",
        "blsi",
        "blsr",
        "blsmsk",
        "bextr",
        "bzhi",
        "pdep",
        "pext",
        "shlx",
        "shrx",
        "sarx",
        "rorx",
    }
)
SHIFTS = frozenset({"shl", "sal", "shr", "sar", "shlx", "shrx", "sarx"})
NO_WRITE = frozenset(
    {
        "cmp",
        "test",
        "bt",
        "push",
        "jmp",
        "jcc",
        "call",
        "lea",
        "prefetcht0",
        "ucomiss",
        "ucomisd",
        "comiss",
        "comisd",
        "nop",
    }
)
# Instruction classes the analysis talks about, besides the mnemonic itself.
CLASSES = (
    "cond_branch",
    "call",
    "cmov",
    "set",
    "div",
    "mul",
    "shift",
    "lea",
    "bitcount",
    "bmi",
    "simd",
    "load",
    "store",
    "stack_load",
    "stack_store",
    "canary",
)


def is_simd(ins: Instruction) -> bool:
    """Packed vector work: a vector register and not a scalar-float (ss/sd) operation."""
    if not any(r.is_vector for r in ins.regs()):
        return False
    base = ins.mnemonic.rstrip("lq") if ins.mnemonic.startswith("cvt") else ins.mnemonic
    return not base.endswith(("ss", "sd")) and not base.startswith(("cvtsi", "vcvtsi"))


def _mem_roles(ins: Instruction) -> tuple[list[Mem], list[Mem]]:
    """(memory operands read, memory operands written)."""
    if ins.mnemonic in ("lea", "nop") or ins.mnemonic.startswith("prefetch"):
        return [], []
    ops = ins.operands
    reads = [o for o in ops[:-1] if isinstance(o, Mem)]
    last = ops[-1] if ops else None
    writes: list[Mem] = []
    if isinstance(last, Mem):
        if (
            ins.mnemonic in NO_WRITE
            or len(ops) == 1
            and ins.mnemonic in ("push", "idiv", "div", "mul", "imul")
        ):
            reads.append(last)
        elif ins.mnemonic in ("mov", "movabs", "pop") or ins.mnemonic.startswith(
            ("set", "movap", "movup", "movdq")
        ):
            writes.append(last)
        else:  # read-modify-write (addl $1, 8(%rsp))
            reads.append(last)
            writes.append(last)
    return reads, writes


def classes(ins: Instruction, frame_pointer: bool = False) -> tuple[str, ...]:
    """The analysis classes of one instruction (empty for plain moves and ALU ops)."""
    out = []
    m = ins.mnemonic
    if m == "jcc":
        out.append("cond_branch")
    if m in ("cmov", "set", "call", "lea"):
        out.append(m)
    if m in ("div", "idiv"):
        out.append("div")
    if m in ("imul", "mul"):
        out.append("mul")
    if m in SHIFTS:
        out.append("shift")
    if m in BITCOUNT:
        out.append("bitcount")
    if m in BMI:
        out.append("bmi")
    if is_simd(ins):
        out.append("simd")
    reads, writes = _mem_roles(ins)
    stack = ("rsp", "rbp") if frame_pointer else ("rsp",)
    if reads:
        out.append("load")
    if writes:
        out.append("store")
    if any(r.base in stack and r.segment is None for r in reads):
        out.append("stack_load")
    if any(w.base in stack and w.segment is None for w in writes):
        out.append("stack_store")
    if any(o.segment == "fs" and o.disp == 40 for o in ins.mems()):
        out.append("canary")
    return tuple(out)


def class_mix(instructions: Iterable[Instruction], frame_pointer: bool = False) -> Counter:
    """Counter of classes plus ``total``."""
    mix: Counter = Counter()
    for ins in instructions:
        mix["total"] += 1
        mix.update(classes(ins, frame_pointer))
    return mix


def mnemonic_mix(instructions: Iterable[Instruction]) -> Counter:
    return Counter(ins.name for ins in instructions if ins.mnemonic != "nop")


def register_steps(instructions: Iterable[Instruction]) -> dict[str, int]:
    """Per register family, the constant it is advanced by in a region (add/sub/lea/inc/dec)."""
    steps: dict[str, int] = {}
    for ins in instructions:
        ops, m = ins.operands, ins.mnemonic
        dest = ops[-1] if ops else None
        if not isinstance(dest, Reg):
            continue
        step = None
        if m in ("add", "sub") and isinstance(ops[0], Imm) and ops[0].value is not None:
            step = ops[0].value if m == "add" else -ops[0].value
        elif m in ("inc", "dec"):
            step = 1 if m == "inc" else -1
        elif m == "lea" and isinstance(ops[0], Mem):
            src = ops[0]
            if src.base == dest.family and src.index is None and src.symbol is None:
                step = src.disp
        if step is not None:
            steps[dest.family] = steps.get(dest.family, 0) + step
    return steps


def access_strides(instructions: tuple[Instruction, ...]) -> list[int]:
    """Byte stride of each memory access whose address advances by a constant per iteration."""
    steps = register_steps(instructions)
    strides = []
    for ins in instructions:
        if ins.mnemonic == "lea":
            continue
        for mem in ins.mems():
            stride = 0
            if mem.base in steps:
                stride += steps[mem.base]
            if mem.index in steps:
                stride += steps[mem.index] * mem.scale
            if stride:
                strides.append(abs(stride))
    return strides


def address_arithmetic(instructions: tuple[Instruction, ...]) -> list[Instruction]:
    """lea, and ALU/extension instructions whose result is used as a memory base or index."""
    address_regs = {
        r
        for ins in instructions
        if ins.mnemonic != "lea"
        for mem in ins.mems()
        for r in (mem.base, mem.index)
        if r and r not in ("rsp", "rip")
    }
    out = []
    for ins in instructions:
        dest = ins.dest
        computes = (
            ins.mnemonic in ("add", "sub", "shl", "sal", "imul", "movsxd")
            and isinstance(dest, Reg)
            and dest.family in address_regs
            and not isinstance(ins.operands[0], Imm)
        )
        if ins.mnemonic == "lea" or computes:
            out.append(ins)
    return out
