"""``supercoder dataset import``: the published SuperCoder dataset -> problem folders.

Source: a local ``.parquet``/``.jsonl``/``.json`` file in the ``llm_superoptimizer_ds``
schema, or a hub name (``LLM4Code/llm_superoptimizer_ds``) when the ``datasets``
library is installed and the network allows.

The baseline of every imported problem is rebuilt from ``c_code`` with ``gcc -O3 -S``
(written as ``baseline.s``), never taken from the record (nor from a ``baseline.s`` its
``problem_files`` carry: one that differs is counted and replaced): in the released build
script ``unoptimized_assembly`` is ``-O0`` output and the timed baseline was built
from it. For each record the shipped ``reward_model.ground_truth`` and
``extra_info.unoptimized_assembly`` are classified as:

- ``O3``: identical to our ``-O3`` rebuild after ``normalize_asm``;
- ``O0``: identical to our ``-O0`` build, or -O0-looking (see ``looks_unoptimized``);
- ``other``: neither (typically a different gcc version's -O3 output);
- ``missing``.

Records come from outside and are checked one by one; a bad one is skipped with its
reason and counted, never aborting the others: a record that is not valid, whose name
(or split) is not a safe folder name (``[A-Za-z0-9_.-]{1,100}``, not ``.``/``..``),
whose name repeats another record's, whose C does not compile, or whose expected
outputs differ from what its reference build prints (``reference.reference_runs``, as
``problem init`` uses, but one run per input; ``check_outputs=False`` skips that). Every folder written is
checked to lie inside the output folder.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from supercoder.dataset.records import FORMATS, problem_from_record, read_raw
from supercoder.engine import current
from supercoder.errors import InfraError, UserError, inside, is_safe_name, printable, require
from supercoder.problems.loading import is_problem_dir, remove_dead_partials, write_problem
from supercoder.sandbox.box import isolation_status
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import normalize_asm
from supercoder.toolchain.reference import reference_runs

_RBP_SLOT = re.compile(r"-?\d*\(%rbp\)")
_INSTRUCTION = re.compile(r"^\s+[a-z]")


@dataclass(frozen=True)
class ImportReport:
    records: int
    written: int
    not_compiling: int
    ground_truth: dict[str, int] = field(default_factory=dict)
    unoptimized: dict[str, int] = field(default_factory=dict)
    splits: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> records
    reasons: list[str] = field(default_factory=list)  # "record #i: why", per skipped record
    outputs_checked: bool = True
    # records whose problem_files carried a baseline.s that is not our -O3 rebuild (not
    # used: the rebuild is written)
    carried_replaced: int = 0

    @property
    def ground_truth_disagreed(self) -> int:
        return self.written - self.ground_truth.get("O3", 0) - self.ground_truth.get("missing", 0)

    def lines(self) -> list[str]:
        gt, un = self.ground_truth, self.unoptimized
        skipped = sum(self.skipped.values())
        out = [
            f"{self.records} records read; {self.written} problems written "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(self.splits.items()))}); "
            f"{skipped} skipped ({self.not_compiling} because c_code does not compile here).",
        ]
        out += [f"  skipped {n:5d}  {why}" for why, n in sorted(self.skipped.items())]
        out += [f"  {r}" for r in self.reasons[:20]]
        if len(self.reasons) > 20:
            out.append(f"  ... {len(self.reasons) - 20} more in import_report.json")
        if not self.outputs_checked:
            out.append("Expected outputs were NOT checked against the reference build.")
        return out + [
            "Every baseline was rebuilt from c_code with gcc -O3 -S (baseline.s); "
            "the shipped assembly is not used"
            + (
                f" ({self.carried_replaced} record(s) carried a baseline.s in problem_files "
                "that is not that build: replaced).",
                ".",
            )[not self.carried_replaced],
            f"reward_model.ground_truth disagreed with our -O3 rebuild in "
            f"{self.ground_truth_disagreed} of {self.written} records "
            f"(-O0-looking: {gt.get('O0', 0)}, other: {gt.get('other', 0)}, "
            f"missing: {gt.get('missing', 0)}).",
            f"extra_info.unoptimized_assembly was -O0-looking in {un.get('O0', 0)} records, "
            f"matched our -O3 in {un.get('O3', 0)}, other: {un.get('other', 0)}, "
            f"missing: {un.get('missing', 0)}.",
        ]


def looks_unoptimized(asm: str) -> bool:
    """gcc -O0 keeps every variable in a stack slot: most instructions touch N(%rbp)."""
    instructions = [
        ln for ln in asm.splitlines() if _INSTRUCTION.match(ln) and not ln.strip().startswith(".")
    ]
    if len(instructions) < 8:
        return False
    slots = sum(1 for ln in instructions if _RBP_SLOT.search(ln))
    return slots / len(instructions) >= 0.25


def classify(asm: Any, ours_o3: str, ours_o0: str) -> str:
    if not isinstance(asm, str) or not asm.strip():
        return "missing"
    norm = normalize_asm(asm)
    if norm == normalize_asm(ours_o3):
        return "O3"
    if norm == normalize_asm(ours_o0) or looks_unoptimized(asm):
        return "O0"
    return "other"


def read_source(spec: str, bad: list[tuple[str, str]] | None = None) -> list[Any]:
    """Raw records from a local file or a hub dataset name (all splits); with ``bad``,
    unreadable JSONL lines are noted there instead of failing."""
    path = Path(spec)
    if path.exists() or path.suffix in FORMATS:
        return read_raw(path, bad)
    datasets = require("datasets", "verl")
    try:
        loaded = datasets.load_dataset(spec)
    except Exception as e:  # offline, unknown name, ...: many exception types
        raise UserError(
            f"could not load {spec!r} from the Hugging Face hub ({type(e).__name__}: {e}). "
            "Offline? Download the dataset's Parquet files and pass a file path instead."
        ) from e
    return [dict(r) for split in loaded for r in loaded[split]]


NOT_VALID, UNSAFE_NAME, DUPLICATE = "not a valid record", "unsafe name or split", "duplicate name"
NOT_COMPILING, REFERENCE_FAILS = "c_code does not compile", "reference program fails"
WRONG_OUTPUTS, NOT_WRITABLE = "expected outputs differ from the reference", "cannot write"


@dataclass(frozen=True)
class Built:
    """A worker's result for one record: the two builds, or why it is skipped."""

    o3: str = ""
    o0: str = ""
    skip: str = ""
    why: str = ""
    carried: str = ""  # the record's own baseline.s (problem_files): "", "same", "differs"


def rebuild(problem: Any, check_outputs: bool = False) -> Built:
    """Our -O3 (the problem's baseline) and -O0 assembly of the problem's C; with
    ``check_outputs``, its visible and hidden expected outputs compared with one run of
    the -O3 reference build."""
    from supercoder.toolchain.gcc import compile_to_asm

    try:
        o3, o0 = (
            baseline_asm(problem),
            compile_to_asm(problem.source, ("-O0", *problem.compile_flags)),
        )
    except UserError as e:
        return Built(skip=NOT_COMPILING, why=str(e).splitlines()[0])
    if check_outputs:
        try:
            runs = reference_runs(
                problem.source,
                [t.run_input() for t in problem.tests],
                timeout=10.0,
                cflags=problem.compile_flags,
                ldflags=problem.ldflags,
                units=problem.units,
                repeat=1,
                exit_code=problem.exit_code,
            )
        except UserError as e:
            return Built(skip=REFERENCE_FAILS, why=str(e).splitlines()[0])
        for t, run in zip(problem.tests, runs, strict=True):
            if run.output != t.expected:
                return Built(
                    skip=WRONG_OUTPUTS, why=f"test {t.name}: {_differs(t.expected, run.output)}"
                )
    carried = ""
    if problem.baseline_asm:
        carried = "same" if problem.baseline_asm == o3 else "differs"
    return Built(o3, o0, carried=carried)


def _differs(expected: bytes, actual: bytes) -> str:
    return f"the record says {expected[:60]!r}, the reference prints {actual[:60]!r}"


def _check(records: list[Any], bad: list[tuple[str, str]]) -> tuple[list[tuple[str, Any]], list]:
    """(where, Problem) for every record that is valid and safely named; the others are
    added to ``bad`` as (where, reason kind, why)."""
    good: list[tuple[str, Any]] = []
    skipped: list[tuple[str, str, str]] = [(w, NOT_VALID, why) for w, why in bad]
    seen: dict[tuple[str, str], str] = {}
    for i, rec in enumerate(records):
        where = f"record #{i}"
        try:
            problem = problem_from_record(rec, where=where)
        except UserError as e:
            skipped.append((where, NOT_VALID, str(e).removeprefix(f"{where}: ")))
            continue
        split = problem.split or "train"
        unsafe = [
            f"{k} {v!r}"
            for k, v in (("name", problem.name), ("split", split))
            if not is_safe_name(v)
        ]
        if unsafe:
            why = f"{' and '.join(unsafe)} is not a safe folder name ([A-Za-z0-9_.-], 1-100)"
            skipped.append((where, UNSAFE_NAME, printable(why)))
            continue
        if (split, problem.name) in seen:
            first = seen[(split, problem.name)]
            skipped.append((where, DUPLICATE, f"{split}/{problem.name} is also {first}"))
            continue
        seen[(split, problem.name)] = where
        good.append((where, problem))
    return good, skipped


def import_records(
    records: list[Any],
    out: Path,
    workers: int | None = 1,
    progress: Callable[[], None] | None = None,
    *,
    bad: list[tuple[str, str]] | None = None,
    check_outputs: bool = True,
) -> ImportReport:
    """Write one problem folder per good record under ``out/<split>/<name>/``."""
    if check_outputs:
        _require_sandbox()
    remove_dead_partials(out)  # what a killed import left half-written
    good, skipped = _check(records, list(bad or []))
    gt: Counter = Counter()
    un: Counter = Counter()
    carried: Counter = Counter()
    splits: Counter = Counter()
    late: dict[int, tuple[str, str, str]] = {}  # skipped while building, in record order
    job = partial(rebuild, check_outputs=check_outputs)
    with current().with_workers(workers) as engine:  # each folder written as it is built
        for i, b in engine.processes(job, [p for _, p in good]):
            where, problem = good[i]
            if progress:
                progress()
            if b.skip:
                late[i] = (where, b.skip, printable(b.why))
                continue
            kinds = _kinds(problem, b)
            try:
                why = _write(problem, b, kinds, out)
            except UserError as e:  # this record's files cannot make a folder: it alone
                why = printable(str(e).splitlines()[0] if str(e) else repr(e))
            if why:
                late[i] = (where, NOT_WRITABLE, why)
                continue
            carried[b.carried or "none"] += 1
            gt[kinds["ground_truth_kind"]] += 1
            un[kinds["unoptimized_assembly_kind"]] += 1
            splits[problem.split or "train"] += 1
    skipped += [late[i] for i in sorted(late)]
    reasons = Counter(kind for _, kind, _ in skipped)
    return ImportReport(
        len(records) + len(bad or []),
        sum(splits.values()),
        reasons.get(NOT_COMPILING, 0),
        dict(gt),
        dict(un),
        dict(splits),
        dict(reasons),
        [f"{w}: {kind}: {why}" for w, kind, why in skipped],
        check_outputs,
        carried.get("differs", 0),
    )


def _require_sandbox() -> None:
    ok, why = isolation_status()
    if not ok:
        raise InfraError(
            f"checking expected outputs runs each reference program in the sandbox: {why}. "
            "Fix that, or import without the check (--no-check-outputs)."
        )


def _kinds(problem: Any, b: Built) -> dict[str, str]:
    given = problem.settings
    return {
        "ground_truth_kind": classify(given.record_ground_truth, b.o3, b.o0),
        "unoptimized_assembly_kind": classify(given.record_unoptimized_assembly, b.o3, b.o0),
    }


def _write(problem: Any, b: Built, kinds: dict[str, str], out: Path) -> str:
    """Write the problem folder; '' when done, else why not (never outside ``out``)."""
    split = problem.split or "train"
    dest = out / split / problem.name
    if not inside(out, dest) or dest.is_symlink() or (out / split).is_symlink():
        return f"{dest} would lie outside {out}"
    if (dest.exists() or dest.is_symlink()) and (dest.is_symlink() or not is_problem_dir(dest)):
        return f"{dest} exists and is not a problem folder"
    # an earlier import of the same record is replaced once the new folder is whole
    settings = replace(
        problem.settings,
        record_ground_truth=None,
        record_unoptimized_assembly=None,
        record_where=None,
        baseline="rebuilt with gcc -O3 -S from c_code",
        carried_baseline=(
            "the record's baseline.s was not this build: not used"
            if b.carried == "differs"
            else None
        ),
        **kinds,
    )
    write_problem(replace(problem, baseline_asm=b.o3, split=split, settings=settings), dest)
    return ""
