"""``analyze(baseline_asm, candidate_asm) -> Analysis``: labels, evidence and mix deltas."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from supercoder.analysis.cfg import Program, build_program
from supercoder.analysis.kinds import DETECTORS, TRANSFORMATION_KINDS, Finding
from supercoder.analysis.match import FunctionPair, match_functions
from supercoder.analysis.mix import CLASSES, class_mix


@dataclass(frozen=True)
class Label:
    kind: str
    evidence: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "evidence": list(self.evidence)}


@dataclass(frozen=True)
class MixDelta:
    """Instruction mix of one region (a function or a loop) before and after."""

    function: str
    loop: str | None  # None: the whole function
    depth: int
    base_total: int
    cand_total: int
    changes: tuple[tuple[str, int, int], ...]  # (class, baseline count, candidate count)

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "loop": self.loop,
            "depth": self.depth,
            "base_total": self.base_total,
            "cand_total": self.cand_total,
            "changes": {k: [b, c] for k, b, c in self.changes},
        }


@dataclass(frozen=True)
class Analysis:
    labels: tuple[Label, ...]
    functions: tuple[MixDelta, ...]
    loops: tuple[MixDelta, ...]
    base_loops: tuple[tuple[str, str, int, int], ...]  # (function, header, first, last line)
    cand_loops: tuple[tuple[str, str, int, int], ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(label.kind for label in self.labels)

    def evidence(self, kind: str) -> tuple[str, ...]:
        return next((lb.evidence for lb in self.labels if lb.kind == kind), ())

    def to_json(self) -> dict[str, Any]:
        return {
            "kinds": list(self.kinds),
            "labels": [lb.to_json() for lb in self.labels],
            "functions": [d.to_json() for d in self.functions],
            "loops": [d.to_json() for d in self.loops],
        }


def _delta(function: str, loop: str | None, depth: int, base, cand) -> MixDelta:
    bm, cm = class_mix(base), class_mix(cand)
    changes = tuple((k, bm[k], cm[k]) for k in CLASSES if bm[k] != cm[k])
    return MixDelta(function, loop, depth, bm["total"], cm["total"], changes)


def mix_deltas(
    pairs: tuple[FunctionPair, ...],
) -> tuple[tuple[MixDelta, ...], tuple[MixDelta, ...]]:
    funcs, loops = [], []
    for fp in pairs:
        funcs.append(
            _delta(
                fp.name,
                None,
                0,
                fp.base.instructions if fp.base else (),
                fp.cand.instructions if fp.cand else (),
            )
        )
        for lp in fp.loops:
            depth = (lp.base or lp.cand).depth  # type: ignore[union-attr]
            loops.append(
                _delta(
                    fp.name,
                    lp.name,
                    depth,
                    lp.base.instructions if lp.base else (),
                    lp.cand.instructions if lp.cand else (),
                )
            )
    return tuple(funcs), tuple(loops)


def loop_lines(program: Program) -> tuple[tuple[str, str, int, int], ...]:
    """(function, loop header, first line, last line) of every loop, for highlighting."""
    out = []
    for fn in program.functions:
        for loop in fn.loops:
            lines = [i.line for i in loop.instructions]
            out.append((fn.name, loop.header, min(lines), max(lines)))
    return tuple(out)


def findings(base: Program, cand: Program) -> list[Finding]:
    out: list[Finding] = []
    for fp in match_functions(base, cand):
        for detect in DETECTORS:
            out.extend(detect(fp, base, cand))
    return out


def analyze(baseline_asm: str, candidate_asm: str) -> Analysis:
    """Which of the paper's nine transformation kinds turn the baseline into the candidate."""
    base, cand = build_program(baseline_asm), build_program(candidate_asm)
    found = findings(base, cand)
    labels = tuple(
        Label(kind, tuple(dict.fromkeys(f.evidence for f in found if f.kind == kind)))
        for kind in TRANSFORMATION_KINDS
        if any(f.kind == kind for f in found)
    )
    funcs, loops = mix_deltas(match_functions(base, cand))
    return Analysis(labels, funcs, loops, loop_lines(base), loop_lines(cand))
