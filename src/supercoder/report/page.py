"""Eval runs for people: per-kind tables and a self-contained HTML results browser.

Read-only interface: ``load_run(source, name)`` returns a ``RunData`` of
``CandidateRecord``s (every non-dropped attempt; ``best`` marks each problem's chosen one)
and its ``metrics.RunSummary``: the figures the page shows are ``metrics``' own, never
recomputed here. ``source`` is either the runs SQLite store (``store.Store``: the stored
attempts of finished problems, the summary ``Store.summary`` computes, i.e. what
``eval --json`` wrote, and the stored baseline listings; a store from before they were
stored rebuilds them from the run's benchmark) or a JSON file of verdict records
(``Verdict.to_json()`` plus ``asm``, ``baseline_asm`` and ``model``): a list of records
or ``{"runs": [{"name", "model", "records": [...]}, ...]}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.analysis.core import Analysis
from supercoder.codec import decode, opts
from supercoder.errors import SupercoderError, UserError, argv_text, parse_json
from supercoder.paths import atomic_write_text
from supercoder.runs.archive import StoredArchive
from supercoder.runs.metrics import geomean, summarize
from supercoder.runs.registry import LEGACY_BUILDS
from supercoder.runs.store import RunRow, Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import RunSummary
from supercoder.types import (
    Candidate,
    Origin,
    Status,
    Verdict,
)

COMPILER_MODEL = LEGACY_BUILDS  # what a run of the build search is named (as ever)


@dataclass(frozen=True)
class CandidateRecord:
    problem: str
    status: str
    correct: bool
    speedup: float | None
    ci: tuple[float, float] | None
    asm: str
    baseline_asm: str
    model: str
    message: str = ""
    best: bool = True
    significantly_faster: bool = False  # types.practical_significance, as the verdict said
    baseline_copy: bool = False  # the answer is the gcc -O3 baseline itself
    runs_on: str = ""  # the verdict's IsaUse: extensions needed, lowest x86-64 level
    memorizable: bool = False  # the problem reads no input (Verdict.memorizable)
    data_grew: str = ""  # the verdict's DataSize in words, when the answer's data grew


@dataclass(frozen=True)
class LineageStep:
    """One program on the way to an evolve run's answer: how it was made and how fast."""

    program: int
    kind: str
    model: str
    speedup: float | None
    ci: tuple[float, float] | None
    edit: str  # the model's answer that made it (cut to EDIT_CHARS)


EDIT_CHARS = 4000


@dataclass(frozen=True)
class RunData:
    name: str
    model: str
    records: tuple[CandidateRecord, ...]
    summary: RunSummary
    lineages: tuple[tuple[str, tuple[LineageStep, ...]], ...] = ()  # evolve runs: per problem
    benchmark: str | None = None  # the benchmark it ran on, when known

    @property
    def problems(self) -> frozenset[str]:
        return frozenset(r.problem for r in self.records)


@dataclass(frozen=True)
class KindStat:
    kind: str
    count: int
    mean_speedup: float | None  # geometric mean over candidates with a measured speedup


@dataclass(frozen=True)
class RunFileRecord:
    """One record of a JSON run file: a verdict's JSON (``Verdict.to_json()``) and, beside
    its keys, the answer and what the page shows with it; read by the codec, leniently (a
    run file is outside input: a value of the wrong type reads as its default).

    Fields:
        verdict: the verdict (its keys are the record's own).
        asm: the answer's assembly.
        baseline_asm: the gcc -O3 baseline's assembly.
        model: the model that wrote it ('' : the run's).
        best: the problem's chosen answer.
    """

    verdict: Verdict = field(metadata=opts(flatten=True))
    asm: str = ""
    baseline_asm: str = ""
    model: str = ""
    best: bool = True


def _run_file_json(d: object) -> dict[str, object]:
    """A run file's record as a verdict's JSON: the shapes written before verdicts carried
    ``speedup_detail`` (a speedup and its CI only) and an unknown status (read from
    ``correct``) migrate here; everything else is the codec's."""
    if not isinstance(d, dict):
        raise UserError(f"a run record must be a JSON object, got {type(d).__name__}")
    out = dict(d)
    if not isinstance(out.get("problem"), str):
        out["problem"] = "?" if out.get("problem") is None else str(out["problem"])
    out["status"] = _status(out.get("status"), out.get("correct") is True).value
    tests = out.get("tests")
    out["tests"] = [
        {**t, "status": _status(t.get("status")).value}
        for t in (tests if isinstance(tests, list) else [])
        if isinstance(t, dict)
    ]
    if not isinstance(out.get("speedup_detail"), dict):
        out["speedup_detail"] = _detail(out.get("speedup"), out.get("speedup_ci"))
    return out


def _detail(value: object, ci: object) -> dict[str, object] | None:
    """``speedup_detail`` of a record that kept its speedup and CI only."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    low = high = value
    if isinstance(ci, list) and len(ci) == 2 and all(_finite(x) for x in ci):
        low, high = ci
    return {"value": value, "low": low, "high": high, "samples": 0, "tests_timed": 0}


def _finite(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _status(value: object, correct: bool = False) -> Status:
    try:
        return Status(value)
    except (ValueError, TypeError):
        return Status.OK if correct else Status.WRONG_OUTPUT


def _read_record(d: object) -> RunFileRecord:
    return decode(RunFileRecord, _run_file_json(d), lenient=True)


def _candidate(r: RunFileRecord, model: str) -> CandidateRecord:
    """What the page shows of one answer, from its typed verdict."""
    v = r.verdict
    sp = v.speedup
    return CandidateRecord(
        problem=v.problem,
        status=v.status.value,
        correct=v.correct,
        speedup=sp.value if sp else None,
        ci=(sp.low, sp.high) if sp else None,
        asm=r.asm,
        baseline_asm=r.baseline_asm,
        model=r.model or model,
        message=v.message,
        best=r.best,
        significantly_faster=v.significantly_faster,
        baseline_copy=v.identical_to_baseline,
        runs_on=f"{v.isa.summary()} (--target {v.isa.target})" if v.isa else "",
        memorizable=v.memorizable,
        data_grew=v.data.summary() if v.data is not None and v.data.grew else "",
    )


def _runs_from_json(path: Path) -> list[RunData]:
    try:
        data = parse_json(path.read_bytes().decode("utf-8"), path)
    except (OSError, UnicodeDecodeError, UserError) as e:
        raise UserError(f"cannot read run file {path}: {e}") from e
    runs = (
        data["runs"]
        if isinstance(data, dict) and "runs" in data
        else [{"name": path.stem, "records": data}]
    )
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        raise UserError(f"{path}: 'runs' must be a list of objects")
    out = []
    for i, run in enumerate(runs):
        records = run.get("records", [])
        if not isinstance(records, list):
            raise UserError(f"{path}: run #{i}: 'records' must be a list of objects")
        model = _text(run.get("model"))
        try:
            read = [_read_record(r) for r in records]
        except UserError as e:
            raise UserError(f"{path}: run #{i}: {e}") from e
        recs = tuple(_candidate(r, model) for r in read)
        name = _text(run.get("name"), path.stem)
        benchmark = _text(run.get("benchmark")) or None
        summary = summarize(_outcomes(read), {"model": model, "benchmark": benchmark})
        model = model or (recs[0].model if recs else "")
        out.append(RunData(name, model, recs, summary, benchmark=benchmark))
    return out


def _text(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default if value is None else str(value)


def _outcomes(records: list[RunFileRecord]) -> list[Outcome]:
    """One ``Outcome`` per problem from a JSON file's records, in file order."""
    by_problem: dict[str, list[Attempt]] = {}
    for r in records:
        attempts = by_problem.setdefault(r.verdict.problem, [])
        candidate = Candidate(r.asm, Origin(model=r.model))
        attempts.append(Attempt(len(attempts), 0, candidate, r.verdict))
    return [Outcome(p, tuple(a)) for p, a in by_problem.items()]


def _rebuilt_baselines(benchmark: str) -> dict[str, str]:
    """problem -> baseline assembly rebuilt with gcc -O3 like the evaluator (for a store
    written before baselines were stored)."""
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.toolchain.baseline import baseline_asm

    try:
        return {p.name: baseline_asm(p) for p in load_benchmark(benchmark)}
    except SupercoderError:
        return {}


def _stored_run(store: Store, run: RunRow) -> RunData:
    """One stored run: its finished problems' attempts, and ``Store.summary``."""
    outcomes = store.outcomes(run.name)
    base = store.baselines(run.name)
    if {o.problem for o in outcomes} - base.keys():  # attempts stored before schema 3
        base = {**_rebuilt_baselines(run.benchmark), **base}
    records = tuple(
        _candidate(
            RunFileRecord(
                a.verdict, a.candidate.asm or "", base.get(o.problem, ""), "", a is o.best
            ),
            run.model,
        )
        for o in outcomes
        for a in o.attempts
        if not a.dropped
    )
    lineages = tuple(
        (o.problem, steps) for o in outcomes if (steps := _lineage(store, run.name, o))
    )
    return RunData(
        run.name,
        run.model,
        records,
        store.summary(run, outcomes),
        lineages,
        run.benchmark or None,
    )


def _lineage(store: Store, run: str, outcome: Outcome) -> tuple[LineageStep, ...]:
    """The answer's ancestry in its run's program archive, seed first (its provenance's
    ``ancestry``: an evolve answer's lineage; empty when its strategy keeps none)."""
    best = outcome.best
    kept = best.origin.provenance if best is not None else None
    chain = kept.ancestry() if kept is not None else ()
    if not chain:
        return ()
    programs = {p.id: p for p in StoredArchive.in_store(store, run).programs(outcome.problem)}
    steps = []
    for pid in chain:
        p = programs.get(pid)
        if p is None:
            continue
        sp = p.verdict.speedup
        value = 1.0 if p.kind == "baseline" else (sp.value if sp else None)
        edit = (p.edit or "")[:EDIT_CHARS]
        ci = (sp.low, sp.high) if sp else None
        steps.append(LineageStep(p.id, p.kind, p.model or "gcc -O3", value, ci, edit))
    return tuple(steps)


def _runs_from_sqlite(path: Path) -> list[RunData]:
    store = Store(path, read_only=True)
    try:
        return [_stored_run(store, run) for run in store.runs()]
    finally:
        store.close()


def list_runs(source: str | Path | None) -> list[RunData]:
    """Every run in ``source`` (None: the default store), SQLite or JSON records."""
    from supercoder.paths import default_store

    path = Path(source) if source else default_store()
    if not path.is_file():
        raise UserError(f"no run store at {path} (run `supercoder eval` first, or pass --db)")
    with path.open("rb") as f:
        is_sqlite = f.read(16) == b"SQLite format 3\x00"
    return _runs_from_sqlite(path) if is_sqlite else _runs_from_json(path)


def load_run(source: str | Path | None, name: str | None = None) -> RunData:
    """One run by name (the only one if ``name`` is None)."""
    runs = list_runs(source)
    name = argv_text(name) if name is not None else None
    if name is None and len(runs) == 1:
        return runs[0]
    for run in runs:
        if run.name == name:
            return run
    names = ", ".join(r.name for r in runs) or "none"
    raise UserError(f"no run named {name!r} in {source} (runs: {names})")


def compiler_run(source: str | Path | None, run: RunData) -> RunData | None:
    """The latest other run of the build search (``--strategy builds``, by default) on the
    same benchmark as ``run``:
    the same benchmark name where both runs record one (and problems in common), else
    exactly the same problems; None when there is none (a run of another benchmark is
    never the comparison)."""
    same = [
        r
        for r in list_runs(source)
        if r.model == COMPILER_MODEL and r.name != run.name and same_benchmark(r, run)
    ]
    return same[-1] if same else None


def same_benchmark(a: RunData, b: RunData) -> bool:
    if a.benchmark and b.benchmark:
        return a.benchmark == b.benchmark and bool(a.problems & b.problems)
    return bool(a.problems) and a.problems == b.problems


def best_records(run: RunData) -> list[CandidateRecord]:
    """One record per problem: the chosen attempt (the first if none is marked)."""
    out: dict[str, CandidateRecord] = {}
    for r in run.records:
        if r.problem not in out or (r.best and not out[r.problem].best):
            out[r.problem] = r
    return list(out.values())


def analyze_run(run: RunData, best_only: bool = False) -> list[tuple[CandidateRecord, Analysis]]:
    """(record, Analysis) for every verified candidate that carries both listings."""
    from supercoder.analysis import analyze

    records = best_records(run) if best_only else run.records
    return [
        (r, analyze(r.baseline_asm, r.asm))
        for r in records
        if r.correct and r.asm and r.baseline_asm
    ]


def kind_table(analyzed: list[tuple[CandidateRecord, Analysis]]) -> list[KindStat]:
    from supercoder.analysis import TRANSFORMATION_KINDS

    out = []
    for kind in TRANSFORMATION_KINDS:
        having = [r for r, a in analyzed if kind in a.kinds]
        out.append(KindStat(kind, len(having), geomean(r.speedup for r in having if r.speedup)))
    return out


@dataclass(frozen=True)
class Page:
    """Everything the HTML page shows, computed here so ``report.html`` only renders."""

    run: RunData
    records: list[CandidateRecord]
    analyzed: list[tuple[CandidateRecord, Analysis]]
    summary: RunSummary
    compiler_summary: RunSummary | None
    kinds: list[KindStat]
    compiler_name: str = ""  # the compared run's name (same benchmark)


def build_page(source: str | Path | None, name: str) -> Page:
    run = load_run(source, name)
    analyzed = analyze_run(run, best_only=True)
    compiler = compiler_run(source, run)
    return Page(
        run,
        best_records(run),
        analyzed,
        run.summary,
        compiler.summary if compiler else None,
        kind_table(analyzed),
        compiler.name if compiler else "",
    )


def write_report(source: str | Path | None, name: str, out: str | Path) -> Path:
    from supercoder.report.html import render

    html = render(build_page(source, name))
    path = Path(out)
    atomic_write_text(path, html)
    return path
