"""The one codec against the hand-written verdict reader it replaced, side by side.

    .venv/bin/python benchmarks/codec_speed.py [REV]

Reads one rich verdict's JSON (10 timed visible tests of 30 pairs each, a typed context)
with ``Verdict.from_json`` of this tree (the codec) and of ``REV``'s ``types.py`` (default
a7862ef, the last tree with hand-written ``to_json``/``from_json``; exported with ``git
show``, loaded as a module of its own), and writes it with both; prints milliseconds per
call and the ratios, measured in the same process one after the other. On the 2-core
development machine under load: reading 1.4-1.8x the hand-written reader's time (about
0.5 ms a verdict; ``json.loads`` and SQLite come on top of both), writing 0.5-0.7x.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from supercoder.types import (
    Machine,
    Measurement,
    Provenance,
    Speedup,
    Status,
    TestResult,
    UnseenResult,
    Verdict,
    VerdictContext,
)

ROOT = Path(__file__).resolve().parent.parent


def old_types(rev: str):
    text = subprocess.run(
        ["git", "show", f"{rev}:src/supercoder/types.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_types.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_types", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_types"] = module
    spec.loader.exec_module(module)
    return module


def verdict() -> Verdict:
    tests = tuple(
        TestResult(
            f"t{i}",
            Status.OK,
            speedup=1.2,
            speedup_ci=(1.1, 1.3),
            baseline_seconds=0.1,
            candidate_seconds=0.08,
            pairs=30,
            timed=True,
            baseline_samples=tuple(0.1 + j * 1e-3 for j in range(30)),
            candidate_samples=tuple(0.08 + j * 1e-3 for j in range(30)),
            sample_rounds=tuple(range(30)),
        )
        for i in range(10)
    )
    context = VerdictContext(
        provenance=Provenance(machine=Machine(cpu="x", gcc="gcc 12"), meter="m", margin=0.01),
        measurement=Measurement(pairs=300, timing="timed on the visible tests"),
    )
    unseen = UnseenResult(8, Status.OK, 8, 1.0, 0.8, True)
    return Verdict(
        "p", Status.OK, tests, Speedup(1.2, 1.1, 1.3, 300, 10), context=context, unseen=unseen
    )


def per_call_ms(fn, n: int = 400) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def main() -> None:
    old = old_types(sys.argv[1] if len(sys.argv) > 1 else "a7862ef")
    v = verdict()
    data = json.loads(json.dumps(v.to_json()))
    hand = old.Verdict.from_json(data)
    assert Verdict.from_json(data) == v
    rows = [
        (
            "read (from_json)",
            per_call_ms(lambda: Verdict.from_json(data)),
            per_call_ms(lambda: old.Verdict.from_json(data)),
        ),
        ("write (to_json)", per_call_ms(v.to_json), per_call_ms(hand.to_json)),
    ]
    print(f"one verdict, {len(json.dumps(data)):,} bytes of JSON")
    print(f"{'':18} {'codec ms':>9} {'hand ms':>9} {'codec/hand':>11}")
    for name, new, was in rows:
        print(f"{name:18} {new:9.3f} {was:9.3f} {new / was:11.2f}")


if __name__ == "__main__":
    main()
