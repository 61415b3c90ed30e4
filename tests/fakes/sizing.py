"""Timed fixtures sized from what this machine does, not from a CPU speed assumed.

The meter times a test only when its baseline takes at least ``MeterConfig().min_test_seconds``
(5 ms). A fixture written for a slow CPU runs under that cutoff on a fast one, and then
nothing is timed. ``sized`` builds the real -O3 baseline of a program, runs it on growing
workloads (an input size, a loop count) and returns the first size whose fastest CPU time
reaches ``multiple`` times the cutoff (4x by default): a safe margin on this machine,
whatever its speed. Every timed fixture in tests/ gets its sizes here.
"""

from __future__ import annotations

import resource
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.baseline import compile_baseline
from supercoder.toolchain.gcc import assemble

CUTOFF = MeterConfig().min_test_seconds
SAFE_MULTIPLE = 4.0


def cpu_seconds(binary: Path, data: bytes, runs: int = 3) -> float:
    """The fastest user+sys CPU time of ``runs`` runs of ``binary`` on ``data``."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([binary], input=data, capture_output=True, check=True, timeout=60)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, spent)
    return best


@cache
def _baseline(source: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="sc-sizing-"))
    build = assemble(compile_baseline(source), folder / "baseline", isolation=False)
    assert build.ok and build.binary is not None, build.log
    return build.binary


@cache
def sized(
    source: str,
    input_format: str = "{n}\n",
    start: int = 1000,
    multiple: float = SAFE_MULTIPLE,
    limit: int = 10**9,
) -> int:
    """The smallest size n (from ``start``, growing) whose input ``input_format.format(n=n)``
    keeps the -O3 baseline of ``source`` busy for ``multiple`` x the meter's cutoff or more.
    ``limit`` bounds n (the program's own capacity); reaching it fails the fixture."""
    binary, target, n = _baseline(source), multiple * CUTOFF, start
    while True:
        spent = cpu_seconds(binary, input_format.format(n=n).encode())
        if spent >= target:
            return n
        assert n < limit, f"{n} is the largest size and runs {spent:.4f}s < {target:.4f}s"
        # grow towards the target (at most 4x a step, at least 1.2x), then re-measure
        factor = min(4.0, max(1.2, (target / max(spent, 1e-4)) ** 0.7))
        n = min(limit, int(n * factor) + 1)
