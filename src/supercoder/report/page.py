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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.errors import SupercoderError, UserError, argv_text, parse_json
from supercoder.paths import atomic_write_text
from supercoder.runs.metrics import geomean, summarize
from supercoder.runs.registry import LEGACY_BUILDS
from supercoder.runs.store import Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import RunSummary
from supercoder.types import (
    MIN_PRACTICAL_MARGIN,
    Candidate,
    DataSize,
    IsaUse,
    Origin,
    Speedup,
    Status,
    TestResult,
    UnseenResult,
    Verdict,
    practical_significance,
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


def _number(value: Any) -> float | None:
    """A finite number, or None: a run file is outside input, never trusted for types."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _ci(value: Any) -> tuple[float, float] | None:
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    low, high = _number(value[0]), _number(value[1])
    return (low, high) if low is not None and high is not None else None


def _text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default if value is None else str(value)


def _record(d: Any, model: str) -> CandidateRecord:
    if not isinstance(d, dict):
        raise UserError(f"a run record must be a JSON object, got {type(d).__name__}")
    ci = _ci(d.get("speedup_ci"))
    detail = d.get("speedup_detail")
    margin = _number(detail.get("margin") if isinstance(detail, dict) else None)
    faster = d.get("significantly_faster")
    if not isinstance(faster, bool):  # records written before verdicts carried it
        m = MIN_PRACTICAL_MARGIN if margin is None else margin
        faster = bool(ci and practical_significance(ci[0], ci[1], m) > 0)
    correct = d.get("correct", d.get("status") == "ok")
    return CandidateRecord(
        problem=_text(d.get("problem"), "?"),
        status=_text(d.get("status"), "?"),
        correct=correct is True or correct == 1,
        speedup=_number(d.get("speedup")),
        ci=ci,
        asm=_text(d.get("asm")),
        baseline_asm=_text(d.get("baseline_asm")),
        model=_text(d.get("model")) or model,
        message=_text(d.get("message")),
        best=d.get("best", True) is not False,
        significantly_faster=faster,
        baseline_copy=d.get("identical_to_baseline") is True,
        runs_on=_runs_on(d.get("isa")),
        memorizable=d.get("memorizable") is True,
        data_grew=_data_grew(d.get("data")),
    )


def _data_grew(data: Any) -> str:
    """The verdict's data record in words when the answer's data grew ("" otherwise, and
    for records stored before verdicts carried it)."""
    size = DataSize.from_json(data) if isinstance(data, dict) else None
    return size.summary() if size is not None and size.grew else ""


def _runs_on(isa: Any) -> str:
    """The verdict's ISA record in words ("" for records stored before targets)."""
    if not isinstance(isa, dict):
        return ""
    use = IsaUse.from_json(isa)
    return f"{use.summary()} (--target {use.target})" if use else ""


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
            recs = tuple(_record(r, model) for r in records)
        except UserError as e:
            raise UserError(f"{path}: run #{i}: {e}") from e
        name = _text(run.get("name"), path.stem)
        benchmark = _text(run.get("benchmark")) or None
        summary = summarize(_outcomes(records), {"model": model, "benchmark": benchmark})
        model = model or (recs[0].model if recs else "")
        out.append(RunData(name, model, recs, summary, benchmark=benchmark))
    return out


def _status(value: Any, correct: Any = False) -> Status:
    try:
        return Status(value)
    except (ValueError, TypeError):
        return Status.OK if correct is True else Status.WRONG_OUTPUT


def _test(t: dict[str, Any]) -> TestResult:
    seconds = _number(t.get("baseline_seconds"))
    return TestResult(
        _text(t.get("name")),
        _status(t.get("status")),
        baseline_seconds=seconds,
        timed=t.get("timed") is True,
    )


def _verdict(d: dict[str, Any]) -> Verdict:
    """A JSON record's verdict for the summary, from its checked fields only (a run file
    is outside input): status, speedup with CI and margin, paper speedup, copy flag, and
    per test its status, baseline time and whether the meter timed it."""
    value, ci = _number(d.get("speedup")), _ci(d.get("speedup_ci"))
    detail = d.get("speedup_detail") if isinstance(d.get("speedup_detail"), dict) else {}
    speedup = None
    if value is not None:
        low, high = ci or (value, value)
        margin = _number(detail.get("margin")) or MIN_PRACTICAL_MARGIN
        speedup = Speedup(value, low, high, samples=0, tests_timed=0, margin=margin)
    tests = d.get("tests") if isinstance(d.get("tests"), list) else []
    return Verdict(
        _text(d.get("problem"), "?"),
        _status(d.get("status"), d.get("correct")),
        tuple(_test(t) for t in tests if isinstance(t, dict)),
        speedup=speedup,
        paper_speedup=_number(d.get("paper_speedup")),
        identical_to_baseline=d.get("identical_to_baseline") is True,
        unseen=_unseen(d.get("unseen")),
        memorizable=d.get("memorizable") is True,
    )


def _unseen(u: Any) -> UnseenResult | None:
    """The record's tests the model never saw, together (format 3), from checked fields."""
    if not isinstance(u, dict) or not isinstance(u.get("count"), int):
        return None
    long_enough = u.get("long_enough")
    return UnseenResult(
        u["count"],
        _status(u.get("status")),
        timed=u["timed"] if isinstance(u.get("timed"), int) else 0,
        long_enough=long_enough if isinstance(long_enough, bool) else None,
    )


def _outcomes(records: list[dict[str, Any]]) -> list[Outcome]:
    """One ``Outcome`` per problem from a JSON file's records, in file order."""
    by_problem: dict[str, list[Attempt]] = {}
    for d in records:
        v = _verdict(d)
        attempts = by_problem.setdefault(v.problem, [])
        candidate = Candidate(_text(d.get("asm")), Origin(model=_text(d.get("model"))))
        attempts.append(Attempt(len(attempts), 0, candidate, v))
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


def _stored_run(store: Store, run: dict[str, Any]) -> RunData:
    """One stored run: its finished problems' attempts, and ``Store.summary``."""
    outcomes = store.outcomes(run["name"])
    base = store.baselines(run["name"])
    if {o.problem for o in outcomes} - base.keys():  # attempts stored before schema 3
        base = {**_rebuilt_baselines(run["benchmark"]), **base}
    records = tuple(
        _record(
            {
                **a.verdict.to_json(),
                "asm": a.candidate.asm,
                "best": a is o.best,
                "baseline_asm": base.get(o.problem, ""),
            },
            run["model"],
        )
        for o in outcomes
        for a in o.attempts
        if not a.dropped
    )
    lineages = tuple(
        (o.problem, steps) for o in outcomes if (steps := _lineage(store, run["name"], o))
    )
    return RunData(
        run["name"],
        run["model"],
        records,
        store.summary(run, outcomes),
        lineages,
        run.get("benchmark") or None,
    )


def _lineage(store: Store, run: str, outcome: Outcome) -> tuple[LineageStep, ...]:
    """The evolve answer's ancestry, seed first (empty for other strategies)."""
    best = outcome.best
    chain = best.origin.lineage if best is not None else ()
    if not chain:
        return ()
    programs = {p.id: p for p in store.programs(run, outcome.problem)}
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


def analyze_run(run: RunData, best_only: bool = False) -> list[tuple[CandidateRecord, Any]]:
    """(record, Analysis) for every verified candidate that carries both listings."""
    from supercoder.analysis import analyze

    records = best_records(run) if best_only else run.records
    return [
        (r, analyze(r.baseline_asm, r.asm))
        for r in records
        if r.correct and r.asm and r.baseline_asm
    ]


def kind_table(analyzed: list[tuple[CandidateRecord, Any]]) -> list[KindStat]:
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
    analyzed: list[tuple[CandidateRecord, Any]]
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
