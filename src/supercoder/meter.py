"""Paired, interleaved timing of baseline vs candidate, with bootstrap confidence intervals.

Protocol (``Meter.compare``):

1. Inside one sandbox, each round runs every timed test once with the baseline and
   once with the candidate, in a shuffled test order per round; within a test, the
   pairs alternate which binary runs first (ABBA, from a random start). CPU time
   (user+sys of the process, from wait4) is the measure; wall time is recorded. Every run's output is checked again.
2. Per test, the speedup is exp(median of the paired log-ratios log(t_base/t_cand)).
   Tests whose baseline run takes less than ``min_test_seconds`` are reported but
   not timed further and don't enter the aggregate (process start-up would dominate),
   unless no test is long enough (then all enter, and the result says so).
3. The aggregate is the geometric mean of the per-test speedups; its 95% CI is a
   bootstrap over pairs, resampled within each test. No clamping anywhere.
4. Adaptive: after ``min_pairs`` rounds, stop once the aggregate CI half-width (in
   log space) is below ``target_halfwidth``; else add rounds up to ``max_pairs``.

The paper's figure (mean wall time ratio per test, clamped at >= 1, averaged over
tests) is computed from the same samples for comparison with published numbers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from supercoder.compare import outputs_match
from supercoder.errors import InfraError
from supercoder.sandbox import RunResult, Sandbox
from supercoder.types import Speedup


@dataclass(frozen=True)
class MeterConfig:
    min_pairs: int = 2
    max_pairs: int = 15
    target_halfwidth: float = 0.02  # log-space half-width of the aggregate 95% CI (~2%)
    min_test_seconds: float = 0.005
    max_cpu_seconds: float = 120.0  # budget for one comparison
    bootstrap: int = 2000
    seed: int = 0


@dataclass(frozen=True)
class TestTiming:
    __test__ = False

    name: str
    base_cpu: tuple[float, ...]
    cand_cpu: tuple[float, ...]
    base_wall: tuple[float, ...]
    cand_wall: tuple[float, ...]
    timed: bool

    @property
    def log_ratios(self) -> np.ndarray:
        return np.log(np.asarray(self.base_cpu)) - np.log(np.asarray(self.cand_cpu))

    @property
    def speedup(self) -> float:
        return float(math.exp(np.median(self.log_ratios)))


@dataclass(frozen=True)
class Comparison:
    tests: tuple[TestTiming, ...]
    speedup: Speedup | None
    paper_speedup: float | None
    per_test_ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    cpu_seconds: float = 0.0
    mismatch: str | None = None  # why the candidate's output changed during timing
    mismatch_test: str | None = None  # on which test
    note: str = ""


class OutputChanged(Exception):
    """The candidate printed something else in a timing run than in its checked run."""

    def __init__(self, test: str, detail: str):
        super().__init__(detail)
        self.test = test


def _tiny(seconds: float) -> float:
    return max(seconds, 1e-6)


class _Samples:
    def __init__(self, names: Sequence[str]):
        self.data = {n: ([], [], [], []) for n in names}
        self.cpu = 0.0

    def add(self, name: str, base: RunResult, cand: RunResult) -> None:
        bc, cc, bw, cw = self.data[name]
        bc.append(_tiny(base.cpu_seconds))
        cc.append(_tiny(cand.cpu_seconds))
        bw.append(_tiny(base.wall_seconds))
        cw.append(_tiny(cand.wall_seconds))
        self.cpu += base.cpu_seconds + cand.cpu_seconds

    def timing(self, name: str, timed: bool) -> TestTiming:
        bc, cc, bw, cw = self.data[name]
        return TestTiming(name, tuple(bc), tuple(cc), tuple(bw), tuple(cw), timed)


def bootstrap_aggregate(
    ratios: list[np.ndarray], n: int, rng: np.random.Generator
) -> tuple[float, float, float]:
    """(estimate, low, high) of exp(mean over tests of median log-ratio), 95% CI."""
    est = float(np.mean([np.median(r) for r in ratios]))
    total = np.zeros(n)
    for r in ratios:
        idx = rng.integers(0, len(r), size=(n, len(r)))
        total += np.median(r[idx], axis=1)
    boots = total / len(ratios)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return math.exp(est), math.exp(float(lo)), math.exp(float(hi))


def paper_protocol_speedup(tests: Sequence[TestTiming]) -> float | None:
    """The paper's aggregation: mean wall ratio per test, clamped >= 1, mean over tests."""
    ratios = [
        max(1.0, float(np.mean(t.base_wall) / np.mean(t.cand_wall))) for t in tests if t.base_wall
    ]
    return float(np.mean(ratios)) if ratios else None


class Meter:
    """Compares two binaries named ``baseline`` and ``candidate`` inside a sandbox."""

    def __init__(self, config: MeterConfig = MeterConfig()):
        self.config = config

    def compare(self, box: Sandbox, tests: Sequence[tuple[str, bytes, bytes]]) -> Comparison:
        """``tests``: (name, input, expected output). Candidate must already be correct."""
        cfg = self.config
        rng = random.Random(cfg.seed)
        self._pairs_done: dict[str, int] = {}
        samples = _Samples([t[0] for t in tests])
        try:
            samples.cpu += box.run(
                "baseline", tests[0][1]
            ).cpu_seconds  # warm the baseline's pages once
            for name, data, expected in tests:
                samples.add(name, *self._pair(box, data, expected, rng, name))
            long = [t for t in tests if min(samples.data[t[0]][0]) >= cfg.min_test_seconds]
            timed = long or list(tests)
            for round_ in range(1, cfg.max_pairs):
                if round_ >= cfg.min_pairs and self._precise(samples, timed):
                    break
                if samples.cpu > cfg.max_cpu_seconds:
                    break
                order = list(timed)
                rng.shuffle(order)
                for name, data, expected in order:
                    samples.add(name, *self._pair(box, data, expected, rng, name))
        except OutputChanged as e:
            return Comparison(
                (), None, None, cpu_seconds=samples.cpu, mismatch=str(e), mismatch_test=e.test
            )
        return self._summarize(samples, tests, timed, bool(long))

    def _pair(self, box: Sandbox, data: bytes, expected: bytes, rng: random.Random, name: str):
        # counterbalanced (ABBA): a test's pairs alternate which binary runs first,
        # from a random start, so position effects cancel instead of becoming bias
        k = self._pairs_done.get(name, rng.randrange(2))
        self._pairs_done[name] = k + 1
        order = ["baseline", "candidate"] if k % 2 == 0 else ["candidate", "baseline"]
        runs = {who: box.run(who, data) for who in order}
        for who, run in runs.items():
            if run.clean_exit and outputs_match(run.stdout, expected):
                continue
            detail = run.describe() if not run.clean_exit else "it printed a different output"
            if who == "baseline":  # the problem or the machine, never the candidate's fault
                raise InfraError(
                    f"the baseline failed test {name} during timing ({detail}): is the problem deterministic?"
                )
            raise OutputChanged(
                name, f"candidate output changed on test {name} during timing: {detail}"
            )
        return runs["baseline"], runs["candidate"]

    def _precise(self, samples: _Samples, timed: list) -> bool:
        ratios = [samples.timing(t[0], True).log_ratios for t in timed]
        rng = np.random.default_rng(self.config.seed)
        _, lo, hi = bootstrap_aggregate(ratios, 400, rng)
        return (math.log(hi) - math.log(lo)) / 2 <= self.config.target_halfwidth

    def _summarize(self, samples: _Samples, tests, timed, any_long: bool) -> Comparison:
        timed_names = {t[0] for t in timed}
        timings = tuple(samples.timing(t[0], t[0] in timed_names) for t in tests)
        rng = np.random.default_rng(self.config.seed)
        per_test = {}
        for t in timings:
            if t.timed and len(t.base_cpu) > 1:
                _, lo, hi = bootstrap_aggregate([t.log_ratios], self.config.bootstrap, rng)
                per_test[t.name] = (lo, hi)
        ratios = [t.log_ratios for t in timings if t.timed]
        value, lo, hi = bootstrap_aggregate(ratios, self.config.bootstrap, rng)
        n = sum(len(r) for r in ratios)
        method = Speedup.__dataclass_fields__["method"].default
        note = (
            ""
            if any_long
            else (
                f"every test's baseline runs under {self.config.min_test_seconds * 1000:.0f} ms: "
                "the speedup mostly measures process start-up"
            )
        )
        speedup = Speedup(value, lo, hi, samples=n, tests_timed=len(ratios), method=method)
        return Comparison(
            timings, speedup, paper_protocol_speedup(timings), per_test, samples.cpu, note=note
        )
