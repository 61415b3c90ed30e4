"""Benchmarks: named problem sets (the bundled splits, a folder of problem folders, or a
SuperCoder-schema JSONL/Parquet file), loaded as a list of problems with unique names."""

from __future__ import annotations

import logging
from pathlib import Path

from supercoder.dataset.records import load_records
from supercoder.errors import UserError
from supercoder.problems.loading import BUNDLED_ROOT, SPLITS, is_problem_dir, load_problem
from supercoder.types import Problem


def load_benchmark(name_or_dir: str | Path) -> list[Problem]:
    """``train``/``val``/``all`` (bundled), a benchmark folder, a problem folder, or a
    JSONL/Parquet file of SuperCoder-schema records. A folder named ``val`` (or another
    bundled name) in the working folder wins over the bundled split, with a warning."""
    spec = str(name_or_dir)
    bundled_name = spec in ("all", "bundled", "default") or spec in SPLITS
    if bundled_name and Path(spec).is_dir():  # a folder of that name here wins, and says so
        logging.getLogger("supercoder").warning(
            "using the folder ./%s (not the bundled benchmark %r: pass ./%s explicitly to "
            "silence this, or run elsewhere for the bundled one)",
            spec,
            spec,
            spec,
        )
    elif bundled_name:
        problems = unique_names(
            [load_problem(p) for p in sorted(BUNDLED_ROOT.iterdir()) if is_problem_dir(p)]
        )
        if spec in SPLITS:
            problems = [p for p in problems if p.split == spec]
        if not problems:
            raise UserError(f"the bundled benchmark has no problems in split {spec!r}")
        return problems
    path = Path(spec)
    if path.is_file() and path.suffix in (".jsonl", ".json", ".parquet"):
        return unique_names(load_records(path))
    if not path.exists():
        raise UserError(
            f"{spec}: no such benchmark (use train, val, all, a folder or a .jsonl/.parquet file)"
        )
    if is_problem_dir(path):
        return [load_problem(path)]
    problems = [load_problem(p) for p in sorted(path.iterdir()) if is_problem_dir(p)]
    if not problems:
        raise UserError(no_problems_message(path))
    return unique_names(problems)


def no_problems_message(path: Path) -> str:
    """Why a folder is no benchmark, and where its problems are when it holds folders of
    problem folders (``dataset import`` writes OUT/train and OUT/val)."""
    splits = [
        d
        for d in sorted(path.iterdir())
        if d.is_dir()
        and not d.name.startswith(".")
        and not is_problem_dir(d)
        and any(is_problem_dir(p) for p in d.iterdir())
    ]
    if not splits:
        return f"{path}: no problem folders inside (each needs source.c and tests/)"
    names = ", ".join(f"{d.name}/" for d in splits)
    return (
        f"{path}: no problem folders directly inside; its folders {names} hold problems "
        f"(as dataset import writes them): use --benchmark {splits[0]}"
    )


def unique_names(problems: list[Problem]) -> list[Problem]:
    """``problems`` unchanged, or UserError naming both places of a duplicate name (one
    would silently replace the other's results)."""
    seen: dict[str, Problem] = {}
    for p in problems:
        if p.name in seen:
            first, second = (q.path or q.settings.record_where for q in (seen[p.name], p))
            raise UserError(
                f"two problems are named {p.name!r}: {first} and {second}; "
                'give each a unique name (problem.json "name")'
            )
        seen[p.name] = p
    return problems
