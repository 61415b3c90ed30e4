"""Pair up functions and loops of a baseline and a candidate program."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from supercoder.analysis.cfg import Function, Loop, Program
from supercoder.analysis.mix import mnemonic_mix

MIN_LOOP_SIMILARITY = 0.65  # cosine of mixes + depth/position/innermost bonuses


@dataclass(frozen=True)
class LoopPair:
    base: Loop | None  # None: a loop the candidate added
    cand: Loop | None  # None: a loop the candidate removed

    @property
    def name(self) -> str:
        if self.base and self.cand and self.base.header != self.cand.header:
            return f"{self.base.header}->{self.cand.header}"
        return (self.base or self.cand).header  # type: ignore[union-attr]


@dataclass(frozen=True)
class FunctionPair:
    name: str
    base: Function | None
    cand: Function | None
    loops: tuple[LoopPair, ...]

    @property
    def matched_loops(self) -> tuple[LoopPair, ...]:
        return tuple(p for p in self.loops if p.base and p.cand)

    @property
    def removed_loops(self) -> tuple[Loop, ...]:
        return tuple(p.base for p in self.loops if p.base and not p.cand)

    def cand_pair_of(self, loop: Loop) -> LoopPair | None:
        return next((p for p in self.loops if p.cand is loop), None)


def _cosine(a: Counter, b: Counter) -> float:
    dot = sum(a[k] * b[k] for k in a.keys() & b.keys())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def _similarity(b: Loop, c: Loop, bpos: float, cpos: float) -> float:
    score = _cosine(mnemonic_mix(b.instructions), mnemonic_mix(c.instructions))
    score += 0.3 if b.depth == c.depth else 0.0
    score += 0.2 * (1.0 - abs(bpos - cpos))
    if b.innermost == c.innermost:
        score += 0.1
    return score


def match_loops(base: tuple[Loop, ...], cand: tuple[Loop, ...]) -> tuple[LoopPair, ...]:
    """Greedy best-similarity matching (mix, depth, position); identical programs pair 1:1."""
    bpos = [k / max(len(base) - 1, 1) for k in range(len(base))]
    cpos = [k / max(len(cand) - 1, 1) for k in range(len(cand))]
    scored = sorted(
        (
            (_similarity(b, c, bpos[i], cpos[j]), -abs(i - j), i, j)
            for i, b in enumerate(base)
            for j, c in enumerate(cand)
        ),
        reverse=True,
    )
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for score, _, i, j in scored:
        if score >= MIN_LOOP_SIMILARITY and i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    out = [LoopPair(b, cand[pairs[i]] if i in pairs else None) for i, b in enumerate(base)]
    out += [LoopPair(None, c) for j, c in enumerate(cand) if j not in used]
    return tuple(out)


def match_functions(base: Program, cand: Program) -> tuple[FunctionPair, ...]:
    names = list(dict.fromkeys(base.names + cand.names))
    pairs = []
    for name in names:
        b, c = base.function(name), cand.function(name)
        loops = match_loops(b.loops if b else (), c.loops if c else ())
        pairs.append(FunctionPair(name, b, c, loops))
    return tuple(pairs)
