"""Our meter vs the SuperCoder paper's protocol, side by side, in one run.

For a few bundled problems, the *baseline itself* is evaluated as the candidate
(self-vs-self: the true speedup is exactly 1.00) several times with each protocol:

- ours: ``supercoder.verify.evaluate`` (correctness pass, then paired interleaved CPU-time
  runs, median log-ratio per test, geometric mean, bootstrap CI, adaptive stopping);
- paper: a re-implementation of their harness in the same sandbox (a correctness run
  per test, then hyperfine-style ``--warmup 3 --runs 10`` for baseline and candidate,
  mean wall time, per-test ratio clamped at >= 1, mean over tests).

It prints bias (mean estimate - 1) with its standard error (spread / sqrt(repeats):
a bias smaller than about twice its standard error is indistinguishable from none),
spread (std of the estimates across repeats), 95% CI width (ours: the CI it reports;
paper: none exists, the width implied by its spread is shown), and CPU-seconds spent
per candidate. Last, the bias over all problems together (mean of the per-problem
biases and its standard error). The repeats are interleaved (one check of every problem
per pass, the two protocols taking turns to go first), so a slow spell of the machine
is spread over all problems rather than shifting every repeat of one.

usage: python benchmarks/measurement.py [--repeats 5] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.sandbox.box import Sandbox
from supercoder.toolchain.baseline import baseline_asm, baseline_binary
from supercoder.toolchain.gcc import assemble, cpu_model, gcc_version
from supercoder.verify.evaluate import CheckConfig, evaluate

DEFAULT = ["dp_lcs", "num_sieve_primes", "mat_multiply_mod", "graph_dijkstra"]


def paper_protocol(problem, binary: Path, warmup: int = 3, runs: int = 10) -> tuple[float, float]:
    """(speedup, cpu seconds spent) under the paper's protocol, self vs self."""
    cpu = 0.0
    ratios = []
    with Sandbox({"baseline": binary, "candidate": binary}) as box:
        tests = [(t.read_input(), t.expected) for t in problem.tests]
        for data, expected in tests:  # correctness pass
            run = box.run("candidate", data)
            cpu += run.cpu_seconds
            assert run.stdout == expected
        for data, _ in tests:
            means = {}
            for who in ("baseline", "candidate"):  # hyperfine runs one command, then the other
                walls = []
                for i in range(warmup + runs):
                    run = box.run(who, data)
                    cpu += run.cpu_seconds
                    if i >= warmup:
                        walls.append(run.wall_seconds)
                means[who] = statistics.fmean(walls)
            ratios.append(max(1.0, means["baseline"] / means["candidate"]))
    return statistics.fmean(ratios), cpu


def ours(problem) -> tuple[float, float, float, int]:
    """(speedup, CI width, cpu seconds spent, pairs) under our meter, self vs self."""
    verdict = evaluate(problem, baseline_asm(problem), CheckConfig())
    assert verdict.correct, verdict.message
    s = verdict.speedup
    return s.value, s.high - s.low, verdict.cpu_seconds_spent, s.samples


def build_cost(asm: str, isolation: bool, n: int = 5) -> tuple[float, float]:
    """(CPU s, wall s) per build of ``asm`` (assemble + link), in the build sandbox or
    on the host (``isolation=False``: today's pre-sandbox cost), mean of ``n``."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            assert assemble(asm, Path(tmp) / f"b{i}", isolation=isolation).ok
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu / n, (time.perf_counter() - start) / n


def bias_and_error(estimates: list[float]) -> tuple[float, float, float]:
    """(bias, its standard error, spread) of self-vs-self estimates (truth 1.0)."""
    spread = statistics.stdev(estimates) if len(estimates) > 1 else 0.0
    return statistics.fmean(estimates) - 1, spread / len(estimates) ** 0.5, spread


def row(name: str, estimates: list[float], widths: list[float] | None, cpu: list[float]) -> str:
    bias, error, spread = bias_and_error(estimates)
    width = (
        f"{statistics.fmean(widths) * 100:6.2f}%" if widths else f"({3.92 * spread * 100:5.2f}%)"
    )
    return (
        f"  {name:<6} bias {bias * 100:+6.2f}% ± {error * 100:4.2f}%  spread {spread * 100:5.2f}%  "
        f"CI width {width}  cpu/candidate {statistics.fmean(cpu):6.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{gcc_version()} | {cpu_model()} | repeats {args.repeats} | self-vs-self (truth = 1.00)")
    totals = {"ours": [], "paper": [], "build": [], "host build": []}
    biases: dict[str, list[tuple[float, float]]] = {"ours": [], "paper": []}
    problems = [load_problem(BUNDLED_ROOT / name) for name in args.problems]
    runs: dict[str, dict[str, list]] = {p.name: {"ours": [], "paper": []} for p in problems}
    with tempfile.TemporaryDirectory() as tmp:
        binaries = {p.name: baseline_binary(baseline_asm(p), Path(tmp)) for p in problems}
        # repeats interleaved across problems and protocols (one check of each problem per
        # pass, alternating which protocol goes first): a slow spell of the machine spreads
        # over every problem instead of shifting all repeats of one
        for i in range(args.repeats):
            for problem in problems:
                first, second = ("ours", "paper") if i % 2 == 0 else ("paper", "ours")
                for who in (first, second):
                    got = (
                        ours(problem)
                        if who == "ours"
                        else paper_protocol(problem, binaries[problem.name])
                    )
                    runs[problem.name][who].append(got)
    for problem in problems:
        o, p = runs[problem.name]["ours"], runs[problem.name]["paper"]
        pairs = statistics.fmean(x[3] for x in o)
        print(
            f"{problem.name}: {len(problem.tests)} tests, our meter: {pairs:.0f} timed pairs per candidate"
        )
        print(row("ours", [x[0] for x in o], [x[1] for x in o], [x[2] for x in o]))
        print(row("paper", [x[0] for x in p], None, [x[1] for x in p]))
        for who, done in (("ours", o), ("paper", p)):
            biases[who].append(bias_and_error([x[0] for x in done])[:2])
        totals["ours"].append(statistics.fmean(x[2] for x in o))
        totals["paper"].append(statistics.fmean(x[1] for x in p))
        for who, isolation in (("build", True), ("host build", False)):
            totals[who].append(build_cost(baseline_asm(problem), isolation)[0])
    for who, rows in biases.items():
        mean = statistics.fmean(b for b, _ in rows)
        error = sum(e**2 for _, e in rows) ** 0.5 / len(rows)
        print(f"bias over {len(rows)} problems: {who:<5} {mean * 100:+.2f}% ± {error * 100:.2f}%")
    ratio = sum(totals["paper"]) / sum(totals["ours"])
    print(f"CPU time: the paper's protocol spends {ratio:.1f}x more CPU per candidate than ours")
    sandboxed, host = (statistics.fmean(totals[k]) for k in ("build", "host build"))
    extra = (sandboxed - host) / statistics.fmean(totals["ours"])
    print(
        f"build per candidate: sandboxed {sandboxed * 1000:.0f} ms CPU, on the host "
        f"{host * 1000:.0f} ms CPU: the build sandbox adds {extra * 100:+.2f}% to ours' cpu/candidate"
    )


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"(took {time.time() - t0:.0f}s)")
