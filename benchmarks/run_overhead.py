"""What a run's working folder and output-by-name cost (issue 42 items 3-4): the
sandbox's runner as it was before them (from git, ``--before REV``) and as it is now,
side by side in one process, taking turns.

Since then every run gets a scratch tmpfs of its own (its working folder: writable
copies of its data files, read back after the run) and FIFOs for its stdout and stderr
(``/dev/stdout``, ``/dev/stderr``). Per runner it prints the wall time per run of a
trivial program (the round trip a check pays per run: set-up, run, read-back) with
and without a 1 MiB data file, and the CPU time a ~20 ms loop is charged (what timing
measures: set-up is taken out, so it must not move).

usage: python benchmarks/run_overhead.py [--runs 200] [--before 90e6437]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import supercoder.sandbox.box as box
from supercoder.types import with_args

TRIVIAL = "int main(void) { return 0; }\n"
LOOP = r"""
#include <stdio.h>
int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 60000000UL; i++) s += i ^ (s >> 3); printf("%lu\n", s); return 0; }
"""


def _build(text: str, out: Path, *flags: str) -> Path:
    src = out.with_suffix(".c")
    src.write_text(text)
    subprocess.run(["gcc", "-O2", *flags, "-o", str(out), str(src)], check=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--before", default="90e6437", help="the git revision of the old runner")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        old_src = subprocess.run(
            ["git", "show", f"{a.before}:src/supercoder/sandbox/runner.c"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        runners = {"before": _build(old_src, t / "runner_old"), "now": box.runner_binary()}
        bins = {"trivial": _build(TRIVIAL, t / "trivial"), "loop": _build(LOOP, t / "loop")}
        data = with_args(("d.bin",), b"", (("d.bin", bytes(1 << 20)),))
        walls: dict[tuple[str, str], list[float]] = {}
        cpus: dict[str, list[float]] = {}
        boxes = {}
        for name, runner in runners.items():
            box.runner_binary.cache_clear()
            real = box.runner_binary
            box.runner_binary = lambda runner=runner: runner  # type: ignore[assignment]
            try:
                boxes[name] = box.Sandbox(bins)
            finally:
                box.runner_binary = real
        try:
            for k in range(a.runs):
                for name in runners if k % 2 else reversed(list(runners)):
                    for kind, stdin in (("plain", b""), ("1 MiB file", data)):
                        start = time.perf_counter()
                        r = boxes[name].run("trivial", stdin)
                        assert r.outcome == "exited", r.describe()
                        walls.setdefault((name, kind), []).append(time.perf_counter() - start)
                    if k % 20 == 0:
                        cpus.setdefault(name, []).append(boxes[name].run("loop", b"").cpu_seconds)
        finally:
            for b in boxes.values():
                b.close()
    for kind in ("plain", "1 MiB file"):
        before = statistics.median(walls[("before", kind)]) * 1e3
        now = statistics.median(walls[("now", kind)]) * 1e3
        print(
            f"wall per run, {kind:>10}: before {before:6.2f} ms  now {now:6.2f} ms  now/before {now / before:.2f}x"
        )
    before, now = statistics.median(cpus["before"]), statistics.median(cpus["now"])
    print(
        f"CPU charged to a loop: before {before * 1e3:.1f} ms  now {now * 1e3:.1f} ms  now/before {now / before:.3f}x"
    )


if __name__ == "__main__":
    main()
