"""Problem folders and benchmarks (folders of problem folders).

A problem folder holds:

- ``source.c``            the C program (stdin -> stdout);
- ``baseline.s``          optional; else built with ``gcc -O3 -S``;
- ``problem.json``        optional metadata: ``split`` ("train"/"val"), ``tags``, ...;
- ``gen.py``              optional input generator: ``generate(seed: int, size: int) -> str``;
- ``tests/NAME.in``       a visible test's input, with ``tests/NAME.out`` its expected output;
- ``tests/NAME.gen``      instead of ``NAME.in`` for large inputs: JSON
  ``{"seed": S, "size": N, "sha256": H}``; the input is ``gen.py``'s output, checked
  against ``sha256`` and cached;
- ``hidden/``             the same layout for hidden tests (used to judge, never shown).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

from supercoder.errors import UserError
from supercoder.paths import cache_dir
from supercoder.types import Problem, TestCase

BUNDLED_ROOT = Path(__file__).parent / "data" / "bench"
SPLITS = ("train", "val")


def is_problem_dir(path: Path) -> bool:
    return (path / "source.c").is_file()


def load_problem(path: str | Path) -> Problem:
    """Load one problem folder; raises UserError with a clear message if malformed."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder (a problem is a folder with source.c and tests/)")
    if not is_problem_dir(folder):
        raise UserError(f"{folder}: no source.c found")
    meta: dict = {}
    if (folder / "problem.json").is_file():
        try:
            meta = json.loads((folder / "problem.json").read_text())
        except json.JSONDecodeError as e:
            raise UserError(f"{folder / 'problem.json'}: invalid JSON ({e})") from e
    baseline = folder / "baseline.s"
    tests = [
        *_load_tests(folder, "tests", hidden=False),
        *_load_tests(folder, "hidden", hidden=True),
        *_load_tests(folder, "fuzz", hidden=True),
    ]
    if not tests:
        raise UserError(f"{folder}: no tests (expected tests/NAME.in with tests/NAME.out)")
    return Problem(
        name=meta.get("name", folder.name),
        source=(folder / "source.c").read_text(),
        tests=tuple(tests),
        baseline_asm=baseline.read_text() if baseline.is_file() else None,
        split=meta.get("split"),
        meta={**meta, "path": str(folder.resolve())},
    )


def _load_tests(folder: Path, sub: str, hidden: bool) -> list[TestCase]:
    tdir = folder / sub
    if not tdir.is_dir():
        return []
    tests = []
    for out in sorted(tdir.glob("*.out")):
        stem = out.stem
        name = stem if sub == "tests" else f"{sub}/{stem}"  # unique across folders
        inp, gen = tdir / f"{stem}.in", tdir / f"{stem}.gen"
        if inp.is_file():
            tests.append(
                TestCase(name, out.read_bytes(), input_bytes=inp.read_bytes(), hidden=hidden)
            )
        elif gen.is_file():
            factory = _generated_input(folder, gen)
            tests.append(TestCase(name, out.read_bytes(), input_factory=factory, hidden=hidden))
        else:
            raise UserError(f"{out}: no matching {stem}.in or {stem}.gen")
    return tests


def _generated_input(folder: Path, spec_path: Path) -> Callable[[], bytes]:
    try:
        spec = json.loads(spec_path.read_text())
        seed, size, digest = int(spec["seed"]), int(spec["size"]), str(spec["sha256"])
    except (json.JSONDecodeError, KeyError, ValueError) as e:
        raise UserError(f"{spec_path}: expected JSON with seed, size, sha256 ({e})") from e

    def factory() -> bytes:
        return generated_input(folder, seed, size, digest)

    return factory


def generated_input(folder: Path, seed: int, size: int, digest: str | None = None) -> bytes:
    """Run the folder's gen.py for (seed, size), cached by digest; verifies the digest."""
    cached = cache_dir() / "inputs" / f"{digest}.in" if digest else None
    if cached and cached.is_file():
        return cached.read_bytes()
    gen = _load_generator(str(folder.resolve()))
    data = gen(seed, size)
    data_bytes = data.encode() if isinstance(data, str) else bytes(data)
    actual = hashlib.sha256(data_bytes).hexdigest()
    if digest and actual != digest:
        raise UserError(
            f"{folder}/gen.py(seed={seed}, size={size}) produced different input than recorded"
        )
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data_bytes)
        tmp.replace(cached)
    return data_bytes


@cache
def _load_generator(folder: str) -> Callable[[int, int], str]:
    path = Path(folder) / "gen.py"
    if not path.is_file():
        raise UserError(f"{folder}: tests reference generated inputs but gen.py is missing")
    spec = importlib.util.spec_from_file_location(f"supercoder_gen_{abs(hash(folder))}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "generate"):
        raise UserError(f"{path}: must define generate(seed: int, size: int) -> str")
    return module.generate


def load_benchmark(name_or_dir: str | Path) -> list[Problem]:
    """``train``/``val``/``all`` (bundled), a benchmark folder, a problem folder, or a
    JSONL/Parquet file of SuperCoder-schema records."""
    spec = str(name_or_dir)
    if spec in ("all", "bundled", "default") or spec in SPLITS:
        problems = [load_problem(p) for p in sorted(BUNDLED_ROOT.iterdir()) if is_problem_dir(p)]
        if spec in SPLITS:
            problems = [p for p in problems if p.split == spec]
        if not problems:
            raise UserError(f"the bundled benchmark has no problems in split {spec!r}")
        return problems
    path = Path(spec)
    if path.is_file() and path.suffix in (".jsonl", ".json", ".parquet"):
        from supercoder.records import load_records

        return load_records(path)
    if not path.exists():
        raise UserError(
            f"{spec}: no such benchmark (use train, val, all, a folder or a .jsonl/.parquet file)"
        )
    if is_problem_dir(path):
        return [load_problem(path)]
    problems = [load_problem(p) for p in sorted(path.iterdir()) if is_problem_dir(p)]
    if not problems:
        raise UserError(f"{path}: no problem folders inside (each needs source.c and tests/)")
    return problems


def write_problem(problem: Problem, folder: Path) -> Path:
    """Write a problem in the folder format (inputs written out in full)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "source.c").write_text(problem.source)
    if problem.baseline_asm:
        (folder / "baseline.s").write_text(problem.baseline_asm)
    meta = {k: v for k, v in problem.meta.items() if k != "path"}
    if problem.split:
        meta["split"] = problem.split
    meta.setdefault("name", problem.name)
    (folder / "problem.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    for t in problem.tests:
        sub = folder / ("hidden" if t.hidden else "tests")
        sub.mkdir(exist_ok=True)
        stem = t.name.removeprefix("hidden/").replace("/", "_")
        (sub / f"{stem}.in").write_bytes(t.read_input())
        (sub / f"{stem}.out").write_bytes(t.expected)
    return folder
