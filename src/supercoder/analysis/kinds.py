"""The paper's nine transformation kinds, each a detector over a matched function pair,
and a tenth, ``lookup_table``: a data table the answer adds and indexes (found over the
whole program by ``analysis/tables.py``, not per function pair; the paper has no such
kind, but an answer specialised to the inputs it was shown keeps what it knows there).

A detector returns ``Finding``s: the kind plus one sentence of evidence a person can
check in the two listings (function, loop label, instruction names, counts).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from supercoder.analysis.asm import Imm
from supercoder.analysis.cfg import Function, Loop, Program, call_target
from supercoder.analysis.match import FunctionPair, LoopPair
from supercoder.analysis.mix import (
    access_strides,
    address_arithmetic,
    class_mix,
    classes,
    mnemonic_mix,
    register_steps,
)

TRANSFORMATION_KINDS = (
    "loop_restructuring",
    "instruction_selection",
    "algorithmic_simplification",
    "stack_canary_removal",
    "register_allocation",
    "branch_elimination",
    "address_computation",
    "function_call_optimization",
    "arithmetic_simplification",
    "lookup_table",
)
SPECIAL = ("bitcount", "bmi", "cmov", "set", "simd")
CANARY_CALL = "__stack_chk_fail"


@dataclass(frozen=True)
class Finding:
    kind: str
    evidence: str
    function: str
    loop: str | None = None


def _names(instructions, cls: str, limit: int = 4) -> str:
    seen = Counter(i.raw for i in instructions if cls in classes(i))
    return ", ".join(n for n, _ in seen.most_common(limit))


def _where(fp: FunctionPair, lp: LoopPair | None) -> str:
    return f"loop {lp.name} of {fp.name}" if lp else fp.name


def stack_canary(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    if not fp.base:
        return []
    out = []
    b_calls = [call_target(i) for i in fp.base.instructions].count(CANARY_CALL)
    c_calls = [call_target(i) for i in fp.cand.instructions].count(CANARY_CALL) if fp.cand else 0
    b_fs = class_mix(fp.base.instructions)["canary"]
    c_fs = class_mix(fp.cand.instructions)["canary"] if fp.cand else 0
    if b_calls and not c_calls:
        out.append(
            Finding("stack_canary_removal", f"{CANARY_CALL} no longer called in {fp.name}", fp.name)
        )
    if b_fs > c_fs:
        out.append(
            Finding(
                "stack_canary_removal",
                f"%fs:40 canary store/check in {fp.name}: {b_fs} -> {c_fs} instructions",
                fp.name,
            )
        )
    return out


def _loop_of_call(fn: Function, target: str) -> Loop | None:
    for ins in fn.instructions:
        if call_target(ins) == target:
            return fn.loop_of(ins)
    return None


def function_calls(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    if not fp.base or not fp.cand:
        return []
    b = Counter(t for t in map(call_target, fp.base.instructions) if t and t != CANARY_CALL)
    c = Counter(t for t in map(call_target, fp.cand.instructions) if t and t != CANARY_CALL)
    added = sorted((c - b).keys())
    out = []
    for target, n in sorted((b - c).items()):
        loop = _loop_of_call(fp.base, target)
        where = f" (was in loop {loop.header})" if loop else ""
        text = f"call to {target} removed from {fp.name}{where}"
        if n > 1 or c[target]:
            text = f"calls to {target} in {fp.name}: {b[target]} -> {c[target]}{where}"
        if base.function(target) and not cand.function(target):
            text += f"; {target} inlined (no longer defined)"
        elif base.function(target):
            text += f"; {target} inlined"
        elif added:
            text += f"; now calls {', '.join(added)}"
        out.append(Finding("function_call_optimization", text, fp.name, loop and loop.header))
    return out


def arithmetic(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    out = []
    for lp in _regions(fp):
        b_ins, c_ins = _ins(fp, lp)
        bm, cm = class_mix(b_ins), class_mix(c_ins)
        if bm["div"] > cm["div"]:
            div = _names(b_ins, "div")
            repl = " + ".join(x for x in (_names(c_ins, "mul", 1), _names(c_ins, "shift", 1)) if x)
            how = f"replaced by {repl} (multiply-shift)" if repl else "removed"
            out.append(
                Finding(
                    "arithmetic_simplification",
                    f"{div} in {_where(fp, lp)} {how}: divisions {bm['div']} -> {cm['div']}",
                    fp.name,
                    lp and lp.name,
                )
            )
        pow2 = _pow2_muls(b_ins) - _pow2_muls(c_ins)
        if pow2 > 0 and cm["shift"] + cm["lea"] > bm["shift"] + bm["lea"]:
            out.append(
                Finding(
                    "arithmetic_simplification",
                    f"{pow2} multiplication(s) by a power of two in {_where(fp, lp)} "
                    "replaced by shifts/lea",
                    fp.name,
                    lp and lp.name,
                )
            )
    return out


def _pow2_muls(instructions) -> int:
    return sum(
        1
        for i in instructions
        if i.mnemonic == "imul"
        and i.operands
        and isinstance(i.operands[0], Imm)
        and i.operands[0].value
        and i.operands[0].value & (i.operands[0].value - 1) == 0
    )


def _regions(fp: FunctionPair) -> list[LoopPair | None]:
    """Matched loops if there are any; otherwise the whole function (None)."""
    if not fp.base or not fp.cand:
        return []
    inner = [lp for lp in fp.matched_loops if lp.cand.innermost or lp.base.innermost]
    return inner or [None]


def _ins(fp: FunctionPair, lp: LoopPair | None):
    if lp is None:
        return fp.base.instructions, fp.cand.instructions
    return lp.base.instructions, lp.cand.instructions


def instruction_selection(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    if not fp.cand:
        return []
    b_mix = class_mix(fp.base.instructions) if fp.base else Counter()
    c_mix = class_mix(fp.cand.instructions)
    out = []
    for cls in SPECIAL:
        if c_mix[cls] <= b_mix[cls]:
            continue
        hits = [i for i in fp.cand.instructions if cls in classes(i)]
        loops = [lp for lp in (fp.cand.loop_of(i) for i in hits) if lp]
        loop = Counter(loops).most_common(1)[0][0] if loops else None
        where = f"loop {loop.header} of {fp.name}" if loop else fp.name
        text = f"{_names(fp.cand.instructions, cls)} introduced in {where} ({cls} {b_mix[cls]} -> {c_mix[cls]})"
        removed = _removed_inside(fp, loop)
        if removed:
            text += f", replacing the {removed.size}-instruction loop {removed.header}"
        out.append(Finding("instruction_selection", text, fp.name, loop and loop.header))
    return out


def _removed_inside(fp: FunctionPair, loop: Loop | None) -> Loop | None:
    """A baseline loop nested in the baseline twin of ``loop`` that the candidate dropped."""
    pair = fp.cand_pair_of(loop) if loop else None
    if not pair or not pair.base:
        return None
    return next((r for r in fp.removed_loops if r.blocks < pair.base.blocks), None)


def branch_elimination(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    out = []
    for lp in _regions(fp):
        b_ins, c_ins = _ins(fp, lp)
        bm, cm = class_mix(b_ins), class_mix(c_ins)
        gained = cm["cmov"] + cm["set"] + cm["simd"] - bm["cmov"] - bm["set"] - bm["simd"]
        if bm["cond_branch"] > cm["cond_branch"] and gained > 0:
            now = _names(c_ins, "cmov") or _names(c_ins, "set") or "SIMD"
            gone = ", ".join(sorted({i.raw for i in b_ins if i.mnemonic == "jcc"}))
            out.append(
                Finding(
                    "branch_elimination",
                    f"branch replaced by {now} in {_where(fp, lp)}: conditional "
                    f"branches {bm['cond_branch']} -> {cm['cond_branch']} (was {gone})",
                    fp.name,
                    lp and lp.name,
                )
            )
    return out


def register_allocation(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    out = []
    for lp in fp.matched_loops:
        bm, cm = class_mix(lp.base.instructions), class_mix(lp.cand.instructions)
        b = bm["stack_load"] + bm["stack_store"]
        c = cm["stack_load"] + cm["stack_store"]
        if b > c:
            out.append(
                Finding(
                    "register_allocation",
                    f"stack accesses (spills) in {_where(fp, lp)}: {b} -> {c} (loads "
                    f"{bm['stack_load']} -> {cm['stack_load']}, stores "
                    f"{bm['stack_store']} -> {cm['stack_store']})",
                    fp.name,
                    lp.name,
                )
            )
    return out


def address_computation(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    out = []
    for lp in fp.matched_loops:
        b = address_arithmetic(lp.base.instructions)
        c = address_arithmetic(lp.cand.instructions)
        if len(b) > len(c):
            scaled = [m for i in lp.cand.instructions for m in i.mems() if m.index and m.scale > 1]
            text = (
                f"address arithmetic in {_where(fp, lp)}: {len(b)} -> {len(c)} instructions "
                f"({', '.join(sorted({i.raw for i in b}))} before)"
            )
            if scaled:
                text += f"; scaled addressing (x{scaled[0].scale}) folds the index into the access"
            out.append(Finding("address_computation", text, fp.name, lp.name))
    return out


def loop_restructuring(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    out = []
    for lp in fp.matched_loops:
        factor = _unroll_factor(lp)
        if factor >= 2:
            out.append(
                Finding(
                    "loop_restructuring",
                    f"loop {lp.name} of {fp.name} unrolled {factor}x (body "
                    f"{lp.base.size} -> {lp.cand.size} instructions)",
                    fp.name,
                    lp.name,
                )
            )
        b_stride, c_stride = _stride(lp.base), _stride(lp.cand)
        if lp.base.innermost and b_stride and c_stride and b_stride >= 64 > c_stride:
            out.append(
                Finding(
                    "loop_restructuring",
                    f"loop nest reordered: inner loop {lp.name} of {fp.name} now walks "
                    f"memory with stride {c_stride} bytes (was {b_stride})",
                    fp.name,
                    lp.name,
                )
            )
    return out


def _stride(loop: Loop) -> int | None:
    strides = access_strides(loop.instructions)
    return int(statistics.median(strides)) if strides else None


def _unroll_factor(lp: LoopPair) -> int:
    """k when the shared mnemonics grow ~k-fold and an induction step grows exactly k-fold."""
    if not lp.base.innermost or not lp.cand.innermost or lp.cand.size < 1.5 * lp.base.size:
        return 0
    b, c = mnemonic_mix(lp.base.instructions), mnemonic_mix(lp.cand.instructions)
    ratios = [c[k] / b[k] for k in b.keys() & c.keys() if not k.startswith(("j", "cmp", "test"))]
    k = round(statistics.median(ratios)) if ratios else 0
    b_steps = {abs(v) for v in register_steps(lp.base.instructions).values() if v}
    c_steps = {abs(v) for v in register_steps(lp.cand.instructions).values() if v}
    return k if k >= 2 and any(s * k in c_steps for s in b_steps) else 0


def algorithmic(fp: FunctionPair, base: Program, cand: Program) -> list[Finding]:
    if not fp.base:
        return []
    explained = {f.loop for f in instruction_selection(fp, base, cand)}
    b_total = sum(lp.size for lp in fp.base.loops if lp.depth == 1)
    c_total = sum(lp.size for lp in fp.cand.loops if lp.depth == 1) if fp.cand else 0
    out = []
    for loop in fp.removed_loops:
        parent = next((p for p in fp.matched_loops if loop.blocks < p.base.blocks), None)
        if parent and parent.cand.header in explained:
            continue
        out.append(
            Finding(
                "algorithmic_simplification",
                f"loop {loop.header} of {fp.name} ({loop.size} instructions, depth "
                f"{loop.depth}) removed; loop code {b_total} -> {c_total} instructions",
                fp.name,
                loop.header,
            )
        )
    return out


DETECTORS: tuple[Callable[[FunctionPair, Program, Program], list[Finding]], ...] = (
    loop_restructuring,
    instruction_selection,
    algorithmic,
    stack_canary,
    register_allocation,
    branch_elimination,
    address_computation,
    function_calls,
    arithmetic,
)
