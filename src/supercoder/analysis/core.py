"""``analyze(baseline_asm, candidate_asm) -> Analysis``: labels, evidence and mix deltas.

Analysis runs on the host, in Python, so what it may cost is bounded: a listing over
``MAX_ANALYSIS_BYTES`` is not analysed (the ``Analysis`` says so in ``note``), and a
function of more than ``cfg.MAX_LOOP_BLOCKS`` blocks is not searched for loops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from supercoder.analysis.asm import parse
from supercoder.analysis.cfg import Program, program_of
from supercoder.analysis.kinds import DETECTORS, TRANSFORMATION_KINDS, Finding
from supercoder.analysis.match import FunctionPair, match_functions
from supercoder.analysis.mix import CLASSES, class_mix
from supercoder.analysis.tables import TABLE_MIN_BYTES, data_objects, indexed_reads
from supercoder.codec import JsonObject, encode, opts


@dataclass(frozen=True)
class Label:
    kind: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class MixDelta:
    """Instruction mix of one region (a function or a loop) before and after."""

    function: str
    loop: str | None  # None: the whole function
    depth: int
    base_total: int
    cand_total: int
    # class -> (baseline count, candidate count), stored as an object
    changes: tuple[tuple[str, tuple[int, int]], ...] = field(metadata=opts(as_object=True))


MAX_ANALYSIS_BYTES = 2 << 20  # about 2-5 s of host CPU and 150 MB to parse


@dataclass(frozen=True)
class Table:
    """A lookup table the candidate adds: a data object it indexes at a register."""

    name: str
    section: str  # .rodata, .data, .bss
    size: int = field(metadata=opts(key="bytes"))  # bytes
    function: str  # where it is read
    index: str  # the index register (its 64-bit family)
    line: int  # the candidate's line that reads it
    from_input: bool  # the index derives from the input

    def evidence(self) -> str:
        how = "an index derived from the input" if self.from_input else "a computed index"
        return (
            f"table {self.name} ({self.size:,} bytes in {self.section}) added; read in "
            f"{self.function} at {how} (%{self.index}, line {self.line})"
        )


@dataclass(frozen=True)
class Analysis:
    """What ``analyze`` found; ``to_json()`` (the codec's) is what ``analyze --json``
    prints: the loops' line spans stay out, ``kinds`` and ``data_bytes`` are written
    as derived keys."""

    labels: tuple[Label, ...]
    functions: tuple[MixDelta, ...]
    loops: tuple[MixDelta, ...]
    # (function, header, first, last line)
    base_loops: tuple[tuple[str, str, int, int], ...] = field(metadata=opts(skip=True))
    cand_loops: tuple[tuple[str, str, int, int], ...] = field(metadata=opts(skip=True))
    tables: tuple[Table, ...] = ()  # lookup tables the candidate adds
    # data objects' bytes: baseline, candidate
    data_bytes: tuple[int, int] = field(default=(0, 0), metadata=opts(skip=True))
    note: str = field(default="", metadata=opts(omit_default=True))  # why not analysed

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("kinds", "data_bytes")

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(label.kind for label in self.labels)

    def evidence(self, kind: str) -> tuple[str, ...]:
        return next((lb.evidence for lb in self.labels if lb.kind == kind), ())

    def derived_json(self) -> JsonObject:
        base, cand = self.data_bytes
        return {"kinds": list(self.kinds), "data_bytes": {"baseline": base, "candidate": cand}}

    def to_json(self) -> JsonObject:
        return encode(self)  # type: ignore[return-value]


def _delta(function: str, loop: str | None, depth: int, base, cand) -> MixDelta:
    bm, cm = class_mix(base), class_mix(cand)
    changes = tuple((k, (bm[k], cm[k])) for k in CLASSES if bm[k] != cm[k])
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


def too_large(*listings: str) -> str:
    """Why listings this large are not analysed ("" when they are not too large)."""
    big = max(len(text) for text in listings)
    if big <= MAX_ANALYSIS_BYTES:
        return ""
    return (
        f"not analysed: a listing of {big / 1e6:.1f} MB is over the analysis cap of "
        f"{MAX_ANALYSIS_BYTES >> 20} MiB (its parse would cost the host too much)"
    )


def added_tables(base_items, cand_items, cand: Program) -> tuple[tuple[Table, ...], int, int]:
    """The lookup tables the candidate adds (data objects of at least ``TABLE_MIN_BYTES``
    the baseline lacks, or larger than the baseline's of that name, that some instruction
    indexes), and the data bytes of each listing."""
    base_objs = data_objects(base_items)
    cand_objs = data_objects(cand_items)
    known = {o.name: o.size for o in base_objs}
    added = {
        o.name: o for o in cand_objs if o.size >= TABLE_MIN_BYTES and o.size > known.get(o.name, 0)
    }
    reads = indexed_reads(cand, added) if added else []
    tables = []
    for name, obj in added.items():
        mine = [r for r in reads if r.symbol == name]
        if not mine:
            continue
        first = next((r for r in mine if r.from_input), mine[0])
        tables.append(
            Table(
                name,
                obj.section,
                obj.size,
                first.function,
                first.index,
                first.line,
                first.from_input,
            )
        )
    total = (sum(o.size for o in base_objs), sum(o.size for o in cand_objs))
    return tuple(tables), total[0], total[1]


def tables_added(baseline_asm: str, candidate_asm: str) -> tuple[Table, ...]:
    """The lookup tables the candidate adds (``added_tables``) from the two listings;
    none for listings over ``MAX_ANALYSIS_BYTES`` (not analysed) or that do not parse."""
    if too_large(baseline_asm, candidate_asm):
        return ()
    try:
        base_items, cand_items = parse(baseline_asm), parse(candidate_asm)
        return added_tables(base_items, cand_items, program_of(cand_items))[0]
    except (ValueError, KeyError, IndexError, RecursionError):
        return ()


def analyze(baseline_asm: str, candidate_asm: str) -> Analysis:
    """Which transformation kinds (the paper's nine and ``lookup_table``) turn the
    baseline into the candidate; listings over ``MAX_ANALYSIS_BYTES`` are not analysed."""
    note = too_large(baseline_asm, candidate_asm)
    if note:
        return Analysis((), (), (), (), (), note=note)
    base_items, cand_items = parse(baseline_asm), parse(candidate_asm)
    base, cand = program_of(base_items), program_of(cand_items)
    tables, base_data, cand_data = added_tables(base_items, cand_items, cand)
    found = findings(base, cand) + [
        Finding("lookup_table", t.evidence(), t.function) for t in tables
    ]
    labels = tuple(
        Label(kind, tuple(dict.fromkeys(f.evidence for f in found if f.kind == kind)))
        for kind in TRANSFORMATION_KINDS
        if any(f.kind == kind for f in found)
    )
    funcs, loops = mix_deltas(match_functions(base, cand))
    return Analysis(
        labels,
        funcs,
        loops,
        loop_lines(base),
        loop_lines(cand),
        tables,
        (base_data, cand_data),
    )
