"""Regenerate the tests of bundled problems from their gen.py.

gen.py defines:
    CASES = [(seed, size), ...]          # generated visible tests (edge cases: small sizes)
    HIDDEN = [(seed, size), ...]         # optional: generated hidden tests
    EDGE = ["literal input", ...]        # optional: hand-written edge cases
    def generate(seed: int, size: int) -> str

Expected outputs come from running the -O3 reference (twice: must be deterministic).
Large inputs are stored as NAME.gen specs (seed, size, sha256), small ones as NAME.in.

usage: python scripts/build_bench.py [PROBLEM_DIR ...]   (default: every bundled problem)
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

from supercoder.problems.init import INLINE_LIMIT, gen_spec, reference_runs
from supercoder.problems.loading import BUNDLED_ROOT, is_problem_dir


def load_gen(folder: Path):
    spec = importlib.util.spec_from_file_location("gen", folder / "gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(folder: Path) -> str:
    gen = load_gen(folder)
    groups = {"tests": [], "hidden": []}
    for i, text in enumerate(getattr(gen, "EDGE", []), 1):
        groups["tests"].append((f"e{i:02d}", None, None, text.encode()))
    for key, attr in (("tests", "CASES"), ("hidden", "HIDDEN")):
        for i, (seed, size) in enumerate(getattr(gen, attr, []), 1):
            groups[key].append((f"g{i:02d}", seed, size, gen.generate(seed, size).encode()))
    source = (folder / "source.c").read_text()
    slowest = 0.0
    for sub, cases in groups.items():
        shutil.rmtree(folder / sub, ignore_errors=True)
        if not cases:
            continue
        (folder / sub).mkdir()
        runs = reference_runs(source, [c[3] for c in cases])
        for (name, seed, size, data), run in zip(cases, runs, strict=True):
            slowest = max(slowest, run.cpu_seconds)
            if len(data) > INLINE_LIMIT and seed is not None:
                spec = gen_spec(seed, size, data)
                (folder / sub / f"{name}.gen").write_text(json.dumps(spec) + "\n")
            else:
                (folder / sub / f"{name}.in").write_bytes(data)
            (folder / sub / f"{name}.out").write_bytes(run.output)
    n = sum(len(c) for c in groups.values())
    flag = "" if 0.020 <= slowest <= 0.300 else "  <-- slowest test should take 20-300 ms"
    return f"{folder.name}: {n} tests, slowest -O3 run {slowest * 1000:.0f} ms{flag}"


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv] or sorted(
        p for p in BUNDLED_ROOT.iterdir() if is_problem_dir(p)
    )
    for folder in folders:
        print(build(folder), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
