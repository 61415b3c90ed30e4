"""Functions, basic blocks, control-flow graph, dominators and natural loops."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from supercoder.analysis.asm import Directive, Instruction, Item, LabelDef, Target, parse

NORETURN = frozenset(
    {"__stack_chk_fail", "exit", "_exit", "abort", "__assert_fail", "__chk_fail", "err"}
)


def call_target(ins: Instruction) -> str | None:
    """``call printf@PLT`` -> 'printf'; indirect calls -> None."""
    if ins.mnemonic != "call" or not ins.operands or not isinstance(ins.operands[0], Target):
        return None
    target = ins.operands[0]
    return None if target.indirect else target.symbol.split("@")[0]


def jump_target(ins: Instruction) -> str | None:
    if ins.mnemonic not in ("jmp", "jcc") or not ins.operands:
        return None
    op = ins.operands[0]
    return op.symbol if isinstance(op, Target) and not op.indirect else None


def _ends_block(ins: Instruction) -> bool:
    return ins.mnemonic in ("jmp", "jcc", "ret", "ud2", "hlt") or call_target(ins) in NORETURN


@dataclass(frozen=True)
class Block:
    index: int
    labels: tuple[str, ...]
    instructions: tuple[Instruction, ...]
    successors: tuple[int, ...]

    @property
    def name(self) -> str:
        return self.labels[0] if self.labels else f"#{self.index}"


@dataclass(frozen=True)
class Loop:
    header: str  # label of the header block, e.g. ".L5"
    blocks: frozenset[int]
    depth: int  # 1 = outermost
    instructions: tuple[Instruction, ...]  # all instructions of the loop, nested loops included
    innermost: bool

    @property
    def size(self) -> int:
        return len(self.instructions)


@dataclass(frozen=True)
class Function:
    name: str
    blocks: tuple[Block, ...]

    @cached_property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(i for b in self.blocks for i in b.instructions)

    @cached_property
    def loops(self) -> tuple[Loop, ...]:
        return find_loops(self.blocks)

    def loop_of(self, ins: Instruction) -> Loop | None:
        """The innermost loop containing an instruction."""
        inner = [lp for lp in self.loops if any(i is ins for i in lp.instructions)]
        return max(inner, key=lambda lp: lp.depth, default=None)


@dataclass(frozen=True)
class Program:
    functions: tuple[Function, ...]

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.functions)


def _function_names(items: tuple[Item, ...]) -> set[str]:
    names = set()
    for it in items:
        if isinstance(it, Directive) and it.name == ".type" and "function" in it.args:
            names.add(it.args.split(",")[0].strip())
    if not names:  # no .type directives: every non-local label that precedes code
        names = {
            it.name for it in items if isinstance(it, LabelDef) and not it.name.startswith(".")
        }
    return names


def split_functions(items: tuple[Item, ...]) -> list[tuple[str, list[Item]]]:
    names = _function_names(items)
    out: list[tuple[str, list[Item]]] = []
    current: list[Item] | None = None
    for it in items:
        if isinstance(it, LabelDef) and it.name in names:
            current = []
            out.append((it.name, current))
        elif isinstance(it, LabelDef) and not it.name.startswith(".") and not it.name.isdigit():
            current = None  # a data symbol ends the function
        elif isinstance(it, Directive) and it.name == ".size":
            current = None
        elif current is not None and isinstance(it, Instruction | LabelDef):
            current.append(it)
    return [(n, body) for n, body in out if any(isinstance(i, Instruction) for i in body)]


def build_blocks(body: list[Item]) -> tuple[Block, ...]:
    raw: list[tuple[list[str], list[Instruction]]] = []
    labels: list[str] = []
    for it in body:
        if isinstance(it, LabelDef):
            if raw and not raw[-1][1] and raw[-1][0]:  # consecutive labels, same block
                raw[-1][0].append(it.name)
            else:
                labels = [it.name]
                raw.append((labels, []))
            continue
        if not raw or (raw[-1][1] and _ends_block(raw[-1][1][-1])):
            raw.append(([], []))
        raw[-1][1].append(it)
    raw = [(ls, ins) for ls, ins in raw if ins or ls]
    where = {name: k for k, (ls, _) in enumerate(raw) for name in ls}
    blocks = []
    for k, (ls, ins) in enumerate(raw):
        succ: list[int] = []
        last = ins[-1] if ins else None
        target = jump_target(last) if last else None
        if target in where:
            succ.append(where[target])
        falls = last is None or not (
            last.mnemonic in ("jmp", "ret", "ud2", "hlt") or call_target(last) in NORETURN
        )
        if falls and k + 1 < len(raw):
            succ.append(k + 1)
        blocks.append(Block(k, tuple(ls), tuple(ins), tuple(dict.fromkeys(succ))))
    return tuple(blocks)


# A function with more blocks than this is not searched for loops: dominator sets grow
# with the square of the blocks (a candidate's 100,000-case compare chain would take the
# host minutes and gigabytes); gcc -O3 functions stay far below it.
MAX_LOOP_BLOCKS = 2000


def dominators(blocks: tuple[Block, ...]) -> dict[int, frozenset[int]]:
    """Iterative dominator sets over the blocks reachable from block 0."""
    if not blocks:
        return {}
    preds: dict[int, list[int]] = {b.index: [] for b in blocks}
    for b in blocks:
        for s in b.successors:
            preds[s].append(b.index)
    order, seen, stack = [], {0}, [0]
    while stack:
        n = stack.pop()
        order.append(n)
        for s in blocks[n].successors:
            if s not in seen:
                seen.add(s)
                stack.append(s)
    every = frozenset(order)
    dom = {n: every for n in order}
    dom[0] = frozenset({0})
    changed = True
    while changed:
        changed = False
        for n in order[1:]:
            ps = [dom[p] for p in preds[n] if p in dom]
            new = frozenset.intersection(*ps) | {n} if ps else frozenset({n})
            if new != dom[n]:
                dom[n], changed = new, True
    return dom


def find_loops(blocks: tuple[Block, ...]) -> tuple[Loop, ...]:
    """Natural loops from back edges (u -> h where h dominates u); same header merged.
    None in a function of more than ``MAX_LOOP_BLOCKS`` blocks (see there)."""
    if len(blocks) > MAX_LOOP_BLOCKS:
        return ()
    dom = dominators(blocks)
    preds: dict[int, list[int]] = {b.index: [] for b in blocks}
    for b in blocks:
        for s in b.successors:
            preds[s].append(b.index)
    bodies: dict[int, set[int]] = {}
    for u in dom:
        for h in blocks[u].successors:
            if h in dom[u]:
                body, work = bodies.setdefault(h, {h}), [u]
                while work:
                    n = work.pop()
                    if n not in body:
                        body.add(n)
                        work.extend(p for p in preds[n] if p in dom)
    loops = []
    for h, body in sorted(bodies.items()):
        depth = sum(1 for other in bodies.values() if body < other) + 1
        innermost = not any(other < body for other in bodies.values())
        ins = tuple(i for k in sorted(body) for i in blocks[k].instructions)
        loops.append(Loop(blocks[h].name, frozenset(body), depth, ins, innermost))
    return tuple(loops)


def build_program(text: str) -> Program:
    return program_of(parse(text))


def program_of(items: tuple[Item, ...]) -> Program:
    """The functions of parsed assembly (``asm.parse``)."""
    return Program(tuple(Function(n, build_blocks(b)) for n, b in split_functions(items)))
