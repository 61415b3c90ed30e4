"""The evolutionary search's program database: programs, their features, elites.

A ``Program`` is one verified, distinct (by ``gcc.asm_digest``: its exact text) assembly program of
a problem: a seed (the -O3 baseline, the ``compiler`` model's best build) or a model's
answer to a prompt showing its parent(s). Its speedup is always relative to gcc -O3.

``ProgramDB`` holds them and decides, noise-aware, which ones are *elites*:

- each island keeps a *best*: a child replaces it only when ``faster_than`` says so
  (the child's CI, divided by the incumbent's, lies above the practical band: a lucky
  noisy measurement of an equally fast program never displaces it);
- each cell of the feature grid (``features``: size, vector-instruction share, loop
  count, bucketed by ``cell``) keeps its best by the same rule, so different kinds of
  programs survive for exploration;
- a re-measurement (``remeasure``) replaces a program's estimate with the fresh one.

The database is a plain value rebuilt from what the run store keeps, so a resumed
search makes the same decisions as an uninterrupted one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from supercoder.analysis.cfg import build_program
from supercoder.analysis.core import too_large
from supercoder.analysis.mix import is_simd
from supercoder.runs.registry import LEGACY_BUILDS
from supercoder.toolchain.gcc import asm_digest
from supercoder.types import MIN_PRACTICAL_MARGIN, Speedup, Status, Verdict, practical_significance
from supercoder.verify.reward import BASELINE_SPEEDUP, credited_speedup

BASELINE = BASELINE_SPEEDUP
# the kind of a program another strategy proposed as a seed (evolve's ``start_from``),
# stored under the build search's older name, as before
SEED_KIND = LEGACY_BUILDS


@dataclass(frozen=True)
class Features:
    """Assembly properties the feature grid is laid over (stored as the codec's JSON).

    Fields:
        instructions: instructions in the listing.
        vector_share: the share of packed vector instructions (3 decimals).
        loops: natural loops of the CFG.
    """

    instructions: int = 0
    vector_share: float = 0.0
    loops: int = 0


@dataclass(frozen=True)
class Program:
    """One distinct program of the search (see module docstring).

    Fields:
        id: its number in the problem's database (0 = the -O3 baseline).
        asm: the full program.
        digest: ``gcc.asm_digest`` of it (the exact text: no normalization, which
            could conflate two programs that run differently).
        parents: ids of the program(s) its prompt showed (empty for seeds).
        island: the population it lives in.
        generation: the generation that made it (-1 for seeds).
        slot: its answer's place in the generation.
        kind: ``baseline``, ``compiler`` (seeds) or the prompt kind (``improve``,
            ``diff``, ``crossover``).
        model: the model that wrote it (None for the baseline).
        prompt_tokens, completion_tokens, cost_usd: what its answer cost.
        verdict: the verification's verdict (speedup vs gcc -O3 with its CI).
        features: ``features(asm)``.
        edit: the model's answer (SEARCH/REPLACE blocks or a whole program).
    """

    id: int
    asm: str
    digest: str
    parents: tuple[int, ...]
    island: int
    generation: int
    slot: int
    kind: str
    model: str | None
    verdict: Verdict
    features: Features = field(default_factory=Features, compare=False)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    edit: str | None = None

    @classmethod
    def made(cls, asm: str, **fields: Any) -> Program:
        """A program made now, its ``digest`` and ``features`` computed from ``asm``
        (a stored one is read back with the ones it was stored with)."""
        return cls(asm=asm, digest=asm_digest(asm), features=features(asm), **fields)

    @property
    def correct(self) -> bool:
        return self.verdict.correct

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def features(asm: str) -> Features:
    """The listing's ``Features``: instructions, the share of packed vector
    instructions, and loops (natural loops of the CFG)."""
    if too_large(asm):  # bounded host work: the largest cell, without parsing it
        return Features(instructions=asm.count("\n"))
    try:
        program = build_program(asm)
    except Exception:  # an unparsable listing still has a place: the empty cell
        return Features()
    instructions = [i for f in program.functions for i in f.instructions]
    vector = sum(1 for i in instructions if is_simd(i))
    return Features(
        instructions=len(instructions),
        vector_share=round(vector / len(instructions), 3) if instructions else 0.0,
        loops=sum(len(f.loops) for f in program.functions),
    )


def cell(feats: Features) -> tuple[int, int, int]:
    """The feature-grid cell: size (log2 buckets of 8x), vector share (none, some, mostly),
    loops (0, 1, 2, 3+)."""
    n = feats.instructions
    size = min(int(math.log(n, 8)) if n > 0 else 0, 4)
    share = feats.vector_share
    vec = 0 if share == 0 else (1 if share < 0.25 else 2)
    return (size, vec, min(feats.loops, 3))


def faster_than(child: Speedup | None, incumbent: Speedup | None) -> bool:
    """Is ``child`` significantly faster than ``incumbent`` (both vs gcc -O3)? The ratio's
    interval (child low / incumbent high, child high / incumbent low) must lie above the
    practical band (the wider of the two margins)."""
    if child is None:
        return False
    if incumbent is None:
        return child.significantly_faster
    margin = max(child.margin, incumbent.margin, MIN_PRACTICAL_MARGIN)
    low = child.low / max(incumbent.high, 1e-12)
    high = child.high / max(incumbent.low, 1e-12)
    return practical_significance(low, high, margin) > 0


@dataclass(frozen=True)
class ProgramDB:
    """The programs of one problem and its elites (see module docstring).

    Fields:
        programs: every program by id.
        estimates: each program's current speedup (its verdict's, or a re-measurement's).
        best: island -> id of its best program.
        cells: feature cell -> id of its best program.
        digests: digest -> id (the novelty check).
        children: id -> children asked of it so far (answers, kept or not).
        tried: id -> short notes on what its children did (shown in prompts).
        remeasured: ids re-measured so far.
    """

    islands: int = 1
    programs: dict[int, Program] = field(default_factory=dict)
    estimates: dict[int, Speedup] = field(default_factory=dict)
    best: dict[int, int] = field(default_factory=dict)
    cells: dict[tuple[int, int, int], int] = field(default_factory=dict)
    digests: dict[str, int] = field(default_factory=dict)
    children: dict[int, int] = field(default_factory=dict)
    tried: dict[int, tuple[str, ...]] = field(default_factory=dict)
    remeasured: frozenset[int] = frozenset()

    def speedup(self, pid: int) -> Speedup | None:
        return self.estimates.get(pid)

    def value(self, pid: int) -> float:
        sp = self.estimates.get(pid)
        return sp.value if sp is not None else 0.0

    def known(self, digest: str) -> int | None:
        return self.digests.get(digest)

    @property
    def next_id(self) -> int:
        return len(self.programs)

    def elites(self) -> list[int]:
        """Island bests and cell bests, fastest first (ties: older first)."""
        ids = set(self.best.values()) | set(self.cells.values())
        return sorted(ids, key=lambda i: (-self.value(i), i))

    def global_best(self) -> int:
        """The fastest island best (ties: the older)."""
        return min(self.best.values(), key=lambda i: (-self.value(i), i))

    def add(self, program: Program) -> ProgramDB:
        """The database with ``program`` in it (elite where it is significantly faster)."""
        pid = program.id
        programs = {**self.programs, pid: program}
        digests = {**self.digests, program.digest: pid}
        estimates = dict(self.estimates)
        best, cells = dict(self.best), dict(self.cells)
        if program.correct:
            sp = credited_speedup(program.verdict) or BASELINE
            estimates[pid] = sp
            seed = program.generation < 0  # seeds start every island
            for isl in range(self.islands) if seed else (program.island,):
                if isl not in best or faster_than(sp, estimates.get(best[isl])):
                    best[isl] = pid
            key = cell(program.features)
            if key not in cells or faster_than(sp, estimates.get(cells[key])):
                cells[key] = pid
        return replace(
            self, programs=programs, digests=digests, estimates=estimates, best=best, cells=cells
        )

    def note_child(self, parent: int, note: str) -> ProgramDB:
        """One more child asked of ``parent``, and what it did."""
        notes = (*self.tried.get(parent, ()), note)[-6:]
        return replace(
            self,
            children={**self.children, parent: self.children.get(parent, 0) + 1},
            tried={**self.tried, parent: notes},
        )

    def remeasure(self, pid: int, verdict: Verdict) -> ProgramDB:
        """The fresh measurement replaces the estimate; a program no longer correct
        leaves the elites (its island falls back to its fastest other correct program)."""
        estimates = dict(self.estimates)
        done = self.remeasured | {pid}
        if verdict.correct:
            estimates[pid] = credited_speedup(verdict) or BASELINE
            return replace(self, estimates=estimates, remeasured=done)
        estimates.pop(pid, None)
        best = {k: v for k, v in self.best.items() if v != pid}
        cells = {k: v for k, v in self.cells.items() if v != pid}
        for isl in {p.island for p in self.programs.values()} - set(best):
            members = [
                i
                for i, p in self.programs.items()
                if (p.island == isl or p.generation < 0) and i in estimates
            ]
            best[isl] = min(members, key=lambda i: (-estimates[i].value, i)) if members else 0
        return replace(self, estimates=estimates, best=best, cells=cells, remeasured=done)

    def migrate(self) -> ProgramDB:
        """Each island's best joins every other island where it is significantly faster
        than the best there (the program stays one; islands share it)."""
        best = dict(self.best)
        for isl, pid in sorted(self.best.items()):
            for other in range(self.islands):
                if other != isl and faster_than(
                    self.estimates.get(pid), self.estimates.get(best.get(other, -1))
                ):
                    best[other] = pid
        return replace(self, best=best)

    def lineage(self, pid: int) -> list[int]:
        """``pid`` and its first parents back to a seed, oldest first."""
        chain = [pid]
        while self.programs[chain[-1]].parents:
            chain.append(self.programs[chain[-1]].parents[0])
        return chain[::-1]


def baseline_program(problem: str, asm: str) -> Program:
    """Program 0: the -O3 baseline, 1.0x by definition."""
    verdict = Verdict(problem, Status.OK, identical_to_baseline=True, message="the -O3 baseline")
    return Program.made(
        asm,
        id=0,
        parents=(),
        island=0,
        generation=-1,
        slot=0,
        kind="baseline",
        model=None,
        verdict=verdict,
    )


def rebuild(islands: int, programs: Iterable[Program]) -> ProgramDB:
    db = ProgramDB(islands)
    for p in sorted(programs, key=lambda p: p.id):
        db = db.add(p)
    return db
