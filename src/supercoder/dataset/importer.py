"""``supercoder dataset import``: the published SuperCoder dataset -> problem folders.

Source: a local ``.parquet``/``.jsonl``/``.json`` file in the ``llm_superoptimizer_ds``
schema, or a hub name (``LLM4Code/llm_superoptimizer_ds``) when the ``datasets``
library is installed and the network allows.

The baseline of every imported problem is rebuilt from ``c_code`` with ``gcc -O3 -S``
(written as ``baseline.s``), never taken from the record: in the released build
script ``unoptimized_assembly`` is ``-O0`` output and the timed baseline was built
from it. For each record the shipped ``reward_model.ground_truth`` and
``extra_info.unoptimized_assembly`` are classified as:

- ``O3``: identical to our ``-O3`` rebuild after ``normalize_asm``;
- ``O0``: identical to our ``-O0`` build, or -O0-looking (see ``looks_unoptimized``);
- ``other``: neither (typically a different gcc version's -O3 output);
- ``missing``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.errors import UserError, require

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

    @property
    def ground_truth_disagreed(self) -> int:
        return self.written - self.ground_truth.get("O3", 0) - self.ground_truth.get("missing", 0)

    def lines(self) -> list[str]:
        gt, un = self.ground_truth, self.unoptimized
        return [
            f"{self.records} records read; {self.written} problems written "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(self.splits.items()))}); "
            f"{self.not_compiling} skipped because c_code does not compile here.",
            "Every baseline was rebuilt from c_code with gcc -O3 -S (baseline.s); "
            "the shipped assembly is not used.",
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
    from supercoder.toolchain import normalize_asm

    if not isinstance(asm, str) or not asm.strip():
        return "missing"
    norm = normalize_asm(asm)
    if norm == normalize_asm(ours_o3):
        return "O3"
    if norm == normalize_asm(ours_o0) or looks_unoptimized(asm):
        return "O0"
    return "other"


def read_source(spec: str) -> list[dict[str, Any]]:
    """Raw records from a local file or a hub dataset name (all splits)."""
    from supercoder.records import FORMATS, read_raw

    path = Path(spec)
    if path.exists() or path.suffix in FORMATS:
        return read_raw(path)
    datasets = require("datasets", "verl")
    try:
        loaded = datasets.load_dataset(spec)
    except Exception as e:  # offline, unknown name, ...: many exception types
        raise UserError(
            f"could not load {spec!r} from the Hugging Face hub ({type(e).__name__}: {e}). "
            "Offline? Download the dataset's Parquet files and pass a file path instead."
        ) from e
    return [dict(r) for split in loaded for r in loaded[split]]


def rebuild(record: dict[str, Any]) -> tuple[str, str] | None:
    """Our (-O3, -O0) assembly of the record's c_code, or None if it does not compile."""
    from supercoder.toolchain import compile_to_asm

    code = (record.get("extra_info") or {}).get("c_code") or ""
    try:
        return compile_to_asm(code, ("-O3",)), compile_to_asm(code, ("-O0",))
    except UserError:
        return None


def import_records(
    records: list[dict[str, Any]], out: Path, workers: int = 1,
    progress: Callable[[], None] | None = None,
) -> ImportReport:  # fmt: skip
    """Write one problem folder per record under ``out/<split>/<name>/``."""
    from dataclasses import replace

    from supercoder.problems import write_problem
    from supercoder.records import problem_from_record

    problems = [problem_from_record(r, where=f"record #{i}") for i, r in enumerate(records)]
    gt: Counter = Counter()
    un: Counter = Counter()
    splits: Counter = Counter()
    failed = 0
    for rec, problem, built in zip(
        records, problems, _map(rebuild, records, workers, progress), strict=True
    ):
        if built is None:
            failed += 1
            continue
        o3, o0 = built
        kinds = {
            "ground_truth_kind": classify(
                (rec.get("reward_model") or {}).get("ground_truth"), o3, o0
            ),
            "unoptimized_assembly_kind": classify(
                rec["extra_info"].get("unoptimized_assembly"), o3, o0
            ),
        }
        gt[kinds["ground_truth_kind"]] += 1
        un[kinds["unoptimized_assembly_kind"]] += 1
        split = problem.split or "train"
        splits[split] += 1
        meta = {k: v for k, v in problem.meta.items() if not k.startswith("record_")}
        meta.update(kinds, baseline="rebuilt with gcc -O3 -S from c_code")
        write_problem(
            replace(problem, baseline_asm=o3, split=split, meta=meta), out / split / problem.name
        )
    return ImportReport(
        len(records), sum(splits.values()), failed, dict(gt), dict(un), dict(splits)
    )


def _map(fn: Callable, items: list, workers: int, progress: Callable[[], None] | None) -> list:
    if workers <= 1:
        results = []
        for item in items:
            results.append(fn(item))
            if progress:
                progress()
        return results
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = []
        for r in pool.map(fn, items, chunksize=4):
            results.append(r)
            if progress:
                progress()
        return results
