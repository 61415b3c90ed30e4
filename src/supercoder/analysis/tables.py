"""Lookup tables an answer adds: its data objects, the code that indexes them, and
whether the index derives from the input (the tenth transformation kind, ``lookup_table``).

A candidate that is fast because it *knows* answers keeps them in data: a table of
precomputed results in ``.rodata``/``.data``, or a memo in ``.bss``, read at an index
computed from what the program read. This module finds, from the text alone:

- ``data_objects``: every object of a data section (``.data``, ``.rodata``, ``.bss``
  and their ``.section`` variants, ``.comm``/``.lcomm``) with its size in bytes, summed
  from its directives (``.byte`` 1, ``.short`` 2, ``.long`` 4, ``.quad`` 8, ``.zero N``,
  strings, ``.fill``...);
- ``indexed_reads``: instructions that read or write an object at a register index
  (``table(,%rax,8)``, or ``leaq table(%rip), %rdx`` then ``(%rdx,%rax,4)``);
- ``input_taint``: which registers and memory hold a value derived from the input at
  each instruction: a forward data-flow over each function's CFG from what ``scanf``
  (and ``fscanf``) stores through its pointer arguments, what ``getchar``/``fgetc``/
  ``strtol``/``atoi``... return and what ``read``/``fread``/``fgets`` fill, through
  moves, arithmetic, loads from tainted places or at tainted indices, and calls to the
  program's own functions with tainted arguments.

A table is reported when the candidate holds an object of at least ``TABLE_MIN_BYTES``
that the baseline does not (by name, or larger than the baseline's object of that name)
and some instruction indexes it: its name, section, size, the function and the index
register, and whether that index derives from the input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from supercoder.analysis.asm import Directive, Imm, Instruction, Item, LabelDef, Mem, Reg
from supercoder.analysis.cfg import Function, Program, call_target

TABLE_MIN_BYTES = 16  # smaller objects are constants (a vector mask, a float), not tables

_SIZES = {
    ".byte": 1,
    ".short": 2,
    ".value": 2,
    ".word": 2,
    ".2byte": 2,
    ".hword": 2,
    ".long": 4,
    ".int": 4,
    ".4byte": 4,
    ".float": 4,
    ".single": 4,
    ".quad": 8,
    ".8byte": 8,
    ".double": 8,
    ".octa": 16,
}
_DATA_SECTIONS = (".data", ".rodata", ".bss", ".tdata", ".tbss", ".ldata", ".lrodata", ".lbss")


@dataclass(frozen=True)
class DataObject:
    name: str
    section: str  # .rodata, .data or .bss (the family)
    size: int  # bytes
    line: int


@dataclass(frozen=True)
class IndexedRead:
    function: str
    symbol: str
    index: str  # the index register's family (rax, ...)
    line: int
    from_input: bool


def _family(section: str) -> str | None:
    name = section.split(",")[0].strip().strip('"')
    for fam in _DATA_SECTIONS:
        if name == fam or name.startswith(fam + "."):
            return {".tdata": ".data", ".ldata": ".data", ".tbss": ".bss", ".lbss": ".bss"}.get(
                fam, ".rodata" if fam == ".lrodata" else fam
            )
    return None


def _count_values(args: str) -> int:
    depth, count, quoted = 0, 1, False
    if not args.strip():
        return 0
    for ch in args:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and ch == "," and depth == 0:
            count += 1
    return count


def _int(text: str) -> int:
    try:
        return max(0, int(text.strip(), 0))
    except ValueError:
        return 0


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _string_bytes(args: str, terminated: bool) -> int:
    total = 0
    for body in _STRING.findall(args):
        escapes = len(re.findall(r"\\(?:[0-7]{1,3}|x[0-9a-fA-F]+|.)", body))
        raw = len(re.sub(r"\\(?:[0-7]{1,3}|x[0-9a-fA-F]+|.)", "", body))
        total += raw + escapes + (1 if terminated else 0)
    return total


def directive_bytes(d: Directive) -> int:
    """Bytes one data directive emits (0 for one that emits none)."""
    if d.name in _SIZES:
        return _SIZES[d.name] * _count_values(d.args)
    if d.name in (".zero", ".skip", ".space"):
        return _int(d.args.split(",")[0])
    if d.name in (".string", ".asciz"):
        return _string_bytes(d.args, True)
    if d.name == ".ascii":
        return _string_bytes(d.args, False)
    if d.name == ".fill":
        parts = [p for p in d.args.split(",")]
        repeat = _int(parts[0]) if parts else 0
        size = _int(parts[1]) if len(parts) > 1 else 1
        return repeat * min(size, 8)
    return 0


def data_objects(items: Iterable[Item]) -> list[DataObject]:
    """Every labelled object of a data section, with its size (see the module docstring)."""
    section: str | None = None
    previous: str | None = None
    out: list[DataObject] = []
    current: list | None = None  # [name, section, size, line]
    for it in items:
        if isinstance(it, Directive):
            if it.name in (".text", ".data", ".bss"):
                previous, section = section, _family(it.name)
                current = None
            elif it.name == ".section":
                previous, section = section, _family(it.args)
                current = None
            elif it.name == ".previous":
                section, previous = previous, section
                current = None
            elif it.name in (".comm", ".lcomm"):
                parts = it.args.split(",")
                if len(parts) >= 2:
                    out.append(DataObject(parts[0].strip(), ".bss", _int(parts[1]), it.line))
            elif current is not None:
                current[2] += directive_bytes(it)
        elif isinstance(it, LabelDef):
            if section is not None:
                if current is not None and current[2] == 0:
                    current[0] = current[0]  # an alias label of the same object: keep the first
                    continue
                current = [it.name, section, 0, it.line]
                out.append(current)  # type: ignore[arg-type]
            else:
                current = None
        else:
            current = None
    return [
        o if isinstance(o, DataObject) else DataObject(o[0], o[1], o[2], o[3])  # type: ignore[index]
        for o in out
    ]


# ---------------------------------------------------------------- input taint

SCANF = frozenset({"scanf", "__isoc99_scanf", "__isoc23_scanf", "fscanf", "__isoc99_fscanf"})
RETURNS_INPUT = frozenset(
    {
        "getchar",
        "getchar_unlocked",
        "fgetc",
        "fgetc_unlocked",
        "getc",
        "getc_unlocked",
        "_IO_getc",
        "strtol",
        "strtoll",
        "strtoul",
        "strtoull",
        "strtod",
        "strtof",
        "atoi",
        "atol",
        "atoll",
        "atof",
        "__isoc23_strtol",
        "__isoc23_strtoll",
        "__isoc23_strtoul",
        "__isoc23_strtoull",
    }
)
FILLS_BUFFER = {
    "read": "rsi",
    "fread": "rdi",
    "fread_unlocked": "rdi",
    "fgets": "rdi",
    "gets": "rdi",
}
ARGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
CALLER_SAVED = frozenset({"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"})
STACK = "[stack]"  # a stack object whose slot is not known: every stack load is suspect


def _loc(m: Mem) -> str | None:
    """The memory place an operand names, when it is a fixed one (a stack slot, a global)."""
    if m.segment is not None:
        return None
    if m.base in ("rsp", "rbp") and m.index is None:
        return f"{m.base}{m.disp:+d}"
    if m.symbol and (m.base in (None, "rip")):
        return m.symbol
    return None


@dataclass
class _State:
    regs: set[str]
    mem: set[str]
    addr: dict[str, str]  # register -> the place it points at

    def copy(self) -> _State:
        return _State(set(self.regs), set(self.mem), dict(self.addr))

    def merge(self, other: _State) -> bool:
        before = (len(self.regs), len(self.mem), len(self.addr))
        self.regs |= other.regs
        self.mem |= other.mem
        for k, v in other.addr.items():
            self.addr.setdefault(k, v)
        return before != (len(self.regs), len(self.mem), len(self.addr))


def _mem_tainted(state: _State, m: Mem) -> bool:
    if m.index and m.index in state.regs:
        return True  # a value read at an input-derived index
    if m.base and m.base in state.regs and m.base not in ("rsp", "rbp", "rip"):
        return True
    loc = _loc(m)
    if loc is not None and (loc in state.mem or (loc[:3] in ("rsp", "rbp") and STACK in state.mem)):
        return True
    if m.base and m.base in state.addr and state.addr[m.base] in state.mem:
        return True  # through a pointer to an input buffer
    return bool(m.symbol and m.symbol in state.mem)


def _operand_tainted(state: _State, op) -> bool:
    if isinstance(op, Reg):
        return op.family in state.regs
    if isinstance(op, Mem):
        return _mem_tainted(state, op)
    return False


def _pointee(state: _State, reg: str) -> str | None:
    return state.addr.get(reg)


def _step(ins: Instruction, state: _State, local: set[str], tainted_calls: set[str]) -> None:
    m = ins.mnemonic
    target = call_target(ins)
    if m == "call":
        args_tainted = any(a in state.regs for a in ARGS)
        if target in SCANF:
            for reg in ARGS[2:] if "fscanf" in target else ARGS[1:]:
                place = _pointee(state, reg)
                if place is not None:
                    state.mem.add(place)
        elif target in FILLS_BUFFER:
            place = _pointee(state, FILLS_BUFFER[target])
            if place is not None:
                state.mem.add(place)
        state.regs -= CALLER_SAVED
        state.regs -= {r for r in state.regs if r.startswith(("xmm", "ymm", "zmm"))}
        for reg in CALLER_SAVED:
            state.addr.pop(reg, None)
        if target in RETURNS_INPUT:
            state.regs |= {"rax", "xmm0"}
        elif target in local and args_tainted:
            state.regs.add("rax")
            tainted_calls.add(target)
        return
    ops = ins.operands
    if not ops:
        return
    dest = ops[-1]
    srcs = ops[:-1]
    if m == "lea" and isinstance(dest, Reg) and srcs and isinstance(srcs[0], Mem):
        src = srcs[0]
        fam = dest.family
        place = _loc(src) if src.index is None else None
        if place is None and src.symbol and src.base in (None, "rip"):
            place = src.symbol  # &table[i]: the table
        if place is None and src.base in ("rsp", "rbp"):
            place = STACK
        if place is None and src.base in state.addr:
            place = state.addr[src.base]
        if place is not None:
            state.addr[fam] = place
        else:
            state.addr.pop(fam, None)
        tainted = bool(
            (src.base and src.base in state.regs and src.base not in ("rsp", "rbp", "rip"))
            or (src.index and src.index in state.regs)
        )
        (state.regs.add if tainted else state.regs.discard)(fam)
        return
    same = (
        len(ops) == 2
        and isinstance(ops[0], Reg)
        and isinstance(ops[1], Reg)
        and ops[0].family == ops[1].family
    )
    if m in ("xor", "sub", "pxor", "vpxor", "xorps", "xorpd") and same:
        state.regs.discard(dest.family)  # type: ignore[union-attr]
        state.addr.pop(dest.family, None)  # type: ignore[union-attr]
        return
    if m in ("cmp", "test", "push", "bt") or m.startswith(("cmp", "ucomis", "comis")):
        return
    if m == "pop" and isinstance(dest, Reg):
        state.regs.discard(dest.family)
        return
    src_tainted = any(_operand_tainted(state, s) for s in srcs)
    moves = m.startswith(("mov", "cvt", "vcvt", "vmov", "pmov", "vpmov", "cmov", "vbroadcast"))
    if isinstance(dest, Reg):
        fam = dest.family
        if m in ("movzx", "movsx", "movsxd", "mov", "movabs") or (
            moves and not m.startswith("cmov")
        ):
            if isinstance(srcs[0] if srcs else None, Imm):
                state.regs.discard(fam)
                state.addr.pop(fam, None)
                return
            (state.regs.add if src_tainted else state.regs.discard)(fam)
            if srcs and isinstance(srcs[0], Reg) and srcs[0].family in state.addr:
                state.addr[fam] = state.addr[srcs[0].family]
            elif srcs and isinstance(srcs[0], Reg) and srcs[0].family == "rsp":
                state.addr[fam] = "rsp+0"
            elif (
                m in ("mov", "movabs")
                and srcs
                and isinstance(srcs[0], Imm)
                and srcs[0].value is None
            ):
                state.addr[fam] = srcs[0].text  # movl $table, %esi (non-PIE)
            else:
                state.addr.pop(fam, None)
            return
        if src_tainted:
            state.regs.add(fam)
        if m in ("add", "sub") and fam in state.addr and srcs and isinstance(srcs[0], Reg):
            pass  # a pointer moved within its object still points at it
        return
    if isinstance(dest, Mem):
        loc = _loc(dest)
        if src_tainted and loc is not None:
            state.mem.add(loc)
        elif src_tainted and dest.base in state.addr:
            state.mem.add(state.addr[dest.base])
        elif src_tainted and dest.symbol:
            state.mem.add(dest.symbol)
        elif src_tainted and dest.base in ("rsp", "rbp"):
            state.mem.add(STACK)
        elif loc is not None and not src_tainted and moves:
            state.mem.discard(loc)


def _function_taint(
    fn: Function, entry: set[str], local: set[str], tainted_calls: set[str]
) -> dict[int, _State]:
    """The state before each instruction (by ``id``) of ``fn``: a forward may-analysis
    over its blocks to a fixed point (bounded passes)."""
    blocks = fn.blocks
    if not blocks:
        return {}
    ins_state: dict[int, _State] = {}
    into: dict[int, _State] = {0: _State(set(entry), set(), {})}
    work = [0]
    passes = 0
    limit = 8 * len(blocks) + 8
    while work and passes < limit:
        passes += 1
        k = work.pop(0)
        state = into[k].copy()
        for ins in blocks[k].instructions:
            seen = ins_state.get(id(ins))
            if seen is None:
                ins_state[id(ins)] = state.copy()
            else:
                seen.merge(state)
            _step(ins, state, local, tainted_calls)
        for s in blocks[k].successors:
            if s not in into:
                into[s] = state.copy()
                work.append(s)
            elif into[s].merge(state) and s not in work:
                work.append(s)
    for k, block in enumerate(blocks):  # blocks unreached from the entry: start clean
        if k not in into:
            state = _State(set(), set(), {})
            for ins in block.instructions:
                ins_state.setdefault(id(ins), state.copy())
                _step(ins, state, local, tainted_calls)
    return ins_state


def input_taint(program: Program) -> dict[str, dict[int, _State]]:
    """Per function, the taint state before each instruction (see the module docstring).
    A function called with a tainted argument is analysed again with its arguments
    tainted (a few rounds); globals tainted anywhere are tainted everywhere."""
    local = set(program.names)
    entry: dict[str, set[str]] = {fn.name: set() for fn in program.functions}
    shared_mem: set[str] = set()
    result: dict[str, dict[int, _State]] = {}
    for _ in range(3):
        calls: set[str] = set()
        changed = False
        for fn in program.functions:
            states = _function_taint(fn, entry[fn.name], local, calls)
            for st in states.values():
                st.mem |= {m for m in shared_mem}
            result[fn.name] = states
            new_globals = {
                m for st in states.values() for m in st.mem if not m.startswith(("rsp", "rbp", "["))
            }
            if not new_globals <= shared_mem:
                shared_mem |= new_globals
                changed = True
        for name in calls:
            if entry[name] != set(ARGS):
                entry[name] = set(ARGS)
                changed = True
        if not changed:
            break
    return result


def indexed_reads(program: Program, objects: Iterable[str]) -> list[IndexedRead]:
    """Instructions that access one of ``objects`` at a register index, and whether the
    index derives from the input."""
    names = set(objects)
    taint = input_taint(program)
    out: list[IndexedRead] = []
    for fn in program.functions:
        states = taint.get(fn.name, {})
        for ins in fn.instructions:
            state = states.get(id(ins))
            if state is None:
                continue
            for m in ins.mems():
                symbol, index = None, None
                if m.symbol in names and (m.index or (m.base and m.base != "rip")):
                    symbol, index = m.symbol, m.index or m.base
                elif m.base in state.addr and state.addr[m.base] in names:
                    symbol, index = state.addr[m.base], m.index or m.base
                if symbol is None or index is None:
                    continue
                from_input = index in state.regs or (m.base is not None and m.base in state.regs)
                # the base register of ``(%rdx)`` moved by an input-derived offset
                out.append(IndexedRead(fn.name, symbol, index, ins.line, from_input))
    return out
