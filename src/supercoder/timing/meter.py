"""Paired, interleaved timing of baseline vs candidate, with a calibrated confidence interval.

Protocol (``Meter.compare``):

1. Inside one sandbox, each round runs every timed test with the baseline and with the
   candidate, in a shuffled order per round: one pair per test in the first round, then
   ``k`` pairs of a test about ``k^2`` times shorter than the longest timed test (at most
   ``max_repeats``: cheap short tests, whose runs are noisiest, get more pairs for
   little CPU); within a test, the pairs alternate which binary runs first (ABBA,
   from a random start). Each run uses
   one of ``placements`` copies of its binary, picked at random (other file pages, so
   the binary's placement in memory varies within a check as it does between checks);
   a check's group session also spreads its runs over two sandbox instances at random
   (``sandbox.box.Sandboxes``, from ``verify.evaluate``), so what one instance fixes
   varies within the check too.
   CPU time (user+sys of the process, from wait4) is the measure; wall time is recorded.
   Every run's output is checked again.
2. Per test, the speedup is exp(median of the paired log-ratios log(t_base/t_cand)).
3. The timed tests (their baseline takes at least ``min_test_seconds``) are decided
   once per baseline binary and test set and cached (``calibration.cached_timed_set``):
   a test whose first run lies from half the cutoff to 4x it is decided on the median of 3.
   Other tests are reported but not timed further and don't enter the aggregate,
   unless no test is long enough (then all enter, and the result says so).
4. The aggregate is the geometric mean of the per-test speedups. Its 95% CI: a
   bootstrap over *rounds* (all tests of a round resampled together, so what slows a
   whole round is seen), its half-widths scaled for the few rounds it saw
   (sqrt(r/(r-1)) * t(r-1)/1.96), widened by the between-check noise floor of this
   machine (``calibration``: what two checks of the same program differ by beyond
   sampling): half-width = sqrt(sampling half-width^2 + (1.96 * floor)^2). No clamping.
   Where the timed tests are inputs drawn afresh for the check (``drawn_inputs``), the
   spread of the per-test speedups between them joins the floor
   (``intervals.input_spread``): the interval is one of the speedup over the problem's
   input distribution, so two checks with two draws give overlapping intervals.
5. Adaptive: after ``min_pairs`` rounds (4: two or three rounds that happen to agree
   say little about the spread, and a longer check averages over slow machine states),
   stop once the interval it would report (the scaled sampling half-width widened by
   the floor, in log space) is within ``target_halfwidth``, or, where the floor alone
   keeps it wider, once sampling is below the floor's 1.96 * floor
   (``precise_enough``); with ``stop_when_not_faster`` (a caller that pays only a
   proven gain), also once that interval lies wholly below ``1 + margin``; else add
   rounds up to ``max_pairs``.

**Group timing** (``Meter.compare_group``): k correct candidates of one problem in one
sandbox against one stream of baseline runs. Each round runs, per timed test and
repeat, the baseline and every candidate still measured, in a shuffled order with the
baseline's position counterbalanced (per test it steps through every slot of the order
from a random start: each candidate runs after the baseline as often as before it, and
with one candidate this is ABBA); candidate c's pair is (that baseline run, c's run).
A group costs about k+1 runs per test and round instead of 2k. Every candidate keeps
its own samples, ``Speedup`` (round bootstrap, floor) and stop rule: once its interval
is precise it leaves the session, and one whose output changes leaves with its
mismatch. ``compare`` is a group of one.

``MeterConfig(legacy=True)`` is the earlier meter (pairs resampled within each test,
timed set chosen in each check, no floor, one copy of each binary), kept so
``benchmarks/calibration.py`` can show both side by side.

The paper's figure (mean wall time ratio per test, clamped at >= 1, averaged over
tests) is computed from the same samples for comparison with published numbers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from supercoder.errors import InfraError
from supercoder.problems.outputs import outputs_match
from supercoder.sandbox.box import RunResult, Sandbox, Sandboxes
from supercoder.timing.calibration import (
    DEFAULT_FLOOR_LOAD,
    cached_timed_set,
    floor_at_load,
    load_calibration,
    tests_key,
)
from supercoder.timing.intervals import (
    Z95,
    bootstrap_aggregate,
    input_spread,
    round_bootstrap,
    widen,
)
from supercoder.types import MIN_PRACTICAL_MARGIN, Speedup, machine_load

METHOD = Speedup.__dataclass_fields__["method"].default
LEGACY_METHOD = "median paired log-ratio of CPU time, geometric mean over tests, bootstrap 95% CI"

# The meter protocol's id, stored in every verdict's context (``Meter.context``) so results
# measured under different protocols can be told apart. Bump it with any change to what
# the protocol above measures or when it stops, and add a line here (ids 1-4 were given
# after the fact to the states before ids existed):
#   meter-1: pairs resampled within each test, timed set chosen per check, no noise floor,
#            one copy of each binary, at least 2 rounds (``MeterConfig(legacy=True)``).
#   meter-2: rounds bootstrapped together, binary copies, shuffled run order, the
#            machine's noise floor in the CI, timed-test set cached per baseline.
#   meter-3: sampling interval scaled for the rounds seen (Student's t), stop on it;
#            built-in floor 1.5%; near-cutoff tests decided on a median of 3.
#   meter-4: short timed tests get ~sqrt(longest/own) pairs a round (at most 8).
#   meter-5: at least 4 rounds before stopping; binary copies made in a random order.
#   meter-6: stop once the *reported* half-width (sampling widened by the floor) is within
#            the target, not the sampling part alone (a stop at 2% sampling reported
#            +-2.2% with the 0.5% floor), decided on the very bootstrap it reports (400
#            resamples decided, 2000 reported: a stop could report +-2.3%); the warm-up
#            runs use the smallest input; ``stop_when_not_faster``.
#   meter-7: with ``drawn_inputs`` (timed inputs drawn afresh every check) the interval
#            is one of the speedup over the input distribution: the spread between the
#            drawn tests joins the noise floor (``intervals.input_spread``), in the stop
#            rule too.
#   meter-8: five drawn inputs, not three, each aimed at 12 ms of reference CPU (not 20),
#            their spread's standard error times t(k-1)/z (a spread seen in few inputs);
#            a group's runs spread over two sandbox instances at random (``Sandboxes``).
PROTOCOL = "meter-8"
LEGACY_PROTOCOL = "meter-1"

Tests = Sequence[tuple[str, bytes, bytes]]  # (name, input, expected output)
Box = Sandbox | Sandboxes  # where the runs go: one instance, or several at random


@dataclass(frozen=True)
class MeterConfig:
    """How ``Meter.compare`` measures (the protocol in the module docstring).

    Fields:
        min_pairs: rounds before it may stop; None: 4 (legacy: 2).
        max_pairs: rounds at most.
        target_halfwidth: stop once the aggregate's reported log-space 95% CI
            half-width (the floor included) is within it (``precise_enough``).
        min_test_seconds: a test whose baseline is shorter is not timed.
        max_cpu_seconds: CPU budget of one comparison (it stops the rounds once spent,
            never before ``min_pairs`` of them).
        bootstrap: bootstrap resamples.
        seed: the run order; None: fresh per check (legacy: 0).
        legacy: the earlier, uncalibrated meter (``LEGACY_PROTOCOL``).
        noise_floor: the between-check log-space sd; None: this machine's calibration.
        margin: the practical band's half-width; None: this machine's calibration.
        placements: copies of each binary in the sandbox.
        max_repeats: pairs per round of the shortest timed test (1: one pair each).
        drawn_inputs: the timed tests are inputs drawn afresh for this check from the
            problem's input distribution (``verify.unseen``): the interval is one of the
            speedup over that distribution, widened by the spread between the tests
            (``intervals.input_spread``) as by the noise floor.
        round_budget: CPU seconds the rounds of a comparison may take, priced from the
            baseline's first pass (a round runs every timed test, with its repeats, once
            per side): a round costing ``c`` allows ``round_budget / c`` rounds, never
            fewer than ``min_pairs`` (None: no cap but ``max_pairs`` and
            ``max_cpu_seconds``). A comparison it stopped says so (``Comparison.capped``).
        stop_when_not_faster: also stop (after ``min_pairs`` rounds) once the interval
            it would report lies wholly below ``1 + margin``: the candidate can no longer
            be significantly faster, so a caller that pays only a proven gain (the
            ``gated`` reward) has its answer; its interval is then wider than a full
            check's. False: stop on precision only.
    """

    min_pairs: int | None = None  # rounds before stopping; None: 4 (legacy: 2)
    max_pairs: int = 15  # rounds at most
    target_halfwidth: float = 0.02  # log-space half-width of the aggregate 95% CI (~2%)
    min_test_seconds: float = 0.005
    max_cpu_seconds: float = 120.0  # budget for one comparison
    bootstrap: int = 2000
    seed: int | None = None  # run order; None: fresh per check (legacy: 0)
    legacy: bool = False  # the earlier, uncalibrated meter (for side-by-side benchmarks)
    noise_floor: float | None = None  # log-space sd; None: this machine's calibration
    margin: float | None = None  # practical band; None: this machine's calibration
    placements: int = 4  # copies of each binary in the sandbox
    max_repeats: int = 8  # pairs per round of the shortest timed test (1: one pair each)
    stop_when_not_faster: bool = False  # also stop once it cannot be significantly faster
    drawn_inputs: bool = False  # the timed tests are a random draw of inputs
    round_budget: float | None = None  # CPU seconds of rounds, priced by the first pass


@dataclass(frozen=True)
class TestTiming:
    __test__ = False

    name: str
    base_cpu: tuple[float, ...]
    cand_cpu: tuple[float, ...]
    base_wall: tuple[float, ...]
    cand_wall: tuple[float, ...]
    timed: bool
    rounds: tuple[int, ...] = ()  # the round of each pair (empty: pair k is round k)

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
    # how the run that changed ended (``RunResult.outcome``: ``exited`` when it printed
    # something else; ``timeout``/``idle`` when it was stopped at its limit)
    mismatch_outcome: str | None = None
    # why it stopped at fewer rounds than it would have taken ('' when it did not):
    # ``MeterConfig.round_budget`` held a long program's rounds down
    capped: str = ""


class OutputChanged(Exception):
    """The candidate printed something else in a timing run than in its checked run."""

    def __init__(self, test: str, detail: str, cpu: float = 0.0, outcome: str = "exited"):
        super().__init__(detail)
        self.test = test
        self.cpu = cpu  # the CPU seconds of the run that changed
        self.outcome = outcome  # how that run ended (``RunResult.outcome``)


def _tiny(seconds: float) -> float:
    return max(seconds, 1e-6)


class _Samples:
    def __init__(self, names: Sequence[str]):
        self.data = {n: ([], [], [], []) for n in names}
        self.rounds: dict[str, list[int]] = {n: [] for n in names}
        self.cpu = 0.0

    def add(
        self, name: str, base: RunResult, cand: RunResult, round_: int = 0, share: int = 1
    ) -> None:
        """One pair; ``share``: how many candidates this baseline run is paired with
        (each is charged its part of the baseline's CPU time)."""
        bc, cc, bw, cw = self.data[name]
        bc.append(_tiny(base.cpu_seconds))
        cc.append(_tiny(cand.cpu_seconds))
        bw.append(_tiny(base.wall_seconds))
        cw.append(_tiny(cand.wall_seconds))
        self.rounds[name].append(round_)
        self.cpu += base.cpu_seconds / share + cand.cpu_seconds

    def timing(self, name: str, timed: bool) -> TestTiming:
        bc, cc, bw, cw = self.data[name]
        rounds = tuple(self.rounds[name])
        return TestTiming(name, tuple(bc), tuple(cc), tuple(bw), tuple(cw), timed, rounds)

    def ratios(self, names: Sequence[str]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per test: the log-ratios of its pairs and the round of each."""
        timings = [self.timing(n, True) for n in names]
        return [t.log_ratios for t in timings], [np.asarray(t.rounds) for t in timings]


def precise_enough(est: float, lo: float, hi: float, floor: float, target: float) -> bool:
    """The stop rule on a log-space sampling interval ``(est, lo, hi)``: the interval the
    check reports (widened by the floor as ``intervals.widen`` does) has a half-width
    within ``target``; or, where the floor alone keeps it wider (1.96 * floor near
    ``target`` or above), sampling is no longer the larger part of it."""
    low, high = widen(est, lo, hi, floor)
    reported = (math.log(high) - math.log(low)) / 2
    return reported <= target or (hi - lo) / 2 <= Z95 * floor


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
        cal = load_calibration() if not config.legacy else None
        floor = config.noise_floor if config.noise_floor is not None else cal and cal.noise_floor
        margin = config.margin if config.margin is not None else cal and cal.margin
        self.noise_floor = 0.0 if config.legacy else float(floor or 0.0)
        # the calibrated floor holds at the load it was measured at: a busier machine now
        # widens it (``calibration.floor_at_load``); a floor given explicitly is as given
        self.floor_load: float | None = None
        if cal is not None and config.noise_floor is None:
            self.floor_load = cal.load if cal.load is not None else DEFAULT_FLOOR_LOAD
            self.noise_floor = floor_at_load(self.noise_floor, self.floor_load, machine_load())
        self.margin = max(MIN_PRACTICAL_MARGIN, float(margin or 0.0))
        self._copies = 1  # copies of each binary in the sandbox (set by ``binaries``)

    def context(self) -> dict[str, str | float]:
        """What a result measured by this meter says about it: the protocol id (``PROTOCOL``)
        and the noise floor and practical margin in force."""
        protocol = LEGACY_PROTOCOL if self.config.legacy else PROTOCOL
        out: dict[str, str | float] = {
            "meter": protocol,
            "noise_floor": self.noise_floor,
            "margin": self.margin,
        }
        if self.floor_load is not None:
            out["floor_load"] = self.floor_load
        if self.config.stop_when_not_faster:
            out["stop"] = "precise, or not significantly faster"
        if self.config.drawn_inputs:
            out["interval"] = "over the input distribution (drawn inputs, rounds, floor)"
        return out

    def binaries(self, baseline: Path, candidate: Path) -> dict[str, Path]:
        """The sandbox's binaries: ``baseline``, ``candidate`` and their extra copies
        (used by ``compare`` only when the sandbox was made from this dict), in a random
        order: the sandbox copies them in this order, so neither role keeps getting the
        pages the allocator hands out first, check after check."""
        return self.group_binaries(baseline, {"candidate": candidate})

    def group_binaries(self, baseline: Path, candidates: dict[str, Path]) -> dict[str, Path]:
        """``binaries`` for a group: ``baseline`` and each named candidate, with copies."""
        self._copies = 1 if self.config.legacy else max(1, self.config.placements)
        roles = [("baseline", baseline), *candidates.items()]
        names = [
            (f"{who}_{k}" if k else who, path) for k in range(self._copies) for who, path in roles
        ]
        if not self.config.legacy:
            random.Random(self.config.seed).shuffle(names)
        return dict(names)

    def compare(self, box: Box, tests: Tests, baseline_digest: str | None = None) -> Comparison:
        """``tests``: (name, input, expected output). Candidate must already be correct.
        With ``baseline_digest`` the timed-test set is cached under it (not in legacy)."""
        if not self.config.legacy:
            return self.compare_group(box, tests, ("candidate",), baseline_digest)[0]
        cfg = self.config
        rng = random.Random(cfg.seed if cfg.seed is not None else 0)
        self._pairs_done: dict[str, int] = {}
        samples = _Samples([t[0] for t in tests])
        try:
            name, data, expected = tests[0]  # warm its pages once (checked, as every run)
            samples.cpu += self._run(box, "baseline", data, expected, name, copy=0).cpu_seconds
            for name, data, expected in tests:
                samples.add(name, *self._pair(box, data, expected, rng, name))
            first = {t[0]: samples.data[t[0]][0][0] for t in tests}
            timed = self._timed(box, tests, first, samples, baseline_digest)
            plan = list(timed)
            least = cfg.min_pairs if cfg.min_pairs is not None else 2
            for round_ in range(1, cfg.max_pairs):
                if round_ >= least and self._precise(samples, timed):
                    break
                if samples.cpu > cfg.max_cpu_seconds:
                    break
                order = list(plan)
                rng.shuffle(order)
                for name, data, expected in order:
                    samples.add(name, *self._pair(box, data, expected, rng, name), round_)
        except OutputChanged as e:
            return Comparison(
                (),
                None,
                None,
                cpu_seconds=samples.cpu,
                mismatch=str(e),
                mismatch_test=e.test,
                mismatch_outcome=e.outcome,
            )
        return self._summarize(samples, tests, timed)

    def compare_group(
        self,
        box: Box,
        tests: Tests,
        candidates: Sequence[str],
        baseline_digest: str | None = None,
        warm: bool = True,
    ) -> list[Comparison]:
        """Group timing: the binaries named ``candidates`` (each correct already) against
        one stream of ``baseline`` runs, one ``Comparison`` each, in that order.

        Each round runs, for every timed test (and each of its repeats), the baseline
        and every candidate still measured, in a shuffled order with the baseline's
        position counterbalanced (per test it steps through every slot of the order
        from a random start; with one candidate that is ABBA). Candidate ``c``'s pair on
        that run is (the baseline's run, ``c``'s run), so a group of k costs about k+1
        runs per test and round instead of 2k. Each candidate keeps its own samples,
        interval and stop rule: once its interval is precise it leaves the session; a
        candidate whose output changes leaves with its mismatch. The baseline's runs
        (and the timed-set decision) are charged in equal shares to the candidates
        measured at the time."""
        cfg = self.config
        if cfg.legacy:
            if list(candidates) != ["candidate"]:
                raise ValueError("the legacy meter times one binary named 'candidate'")
            return [self.compare(box, tests, baseline_digest)]
        if not candidates:
            return []
        if len(set(candidates)) != len(candidates):
            raise ValueError(f"candidate names repeat: {list(candidates)}")
        rng = random.Random(cfg.seed)
        names = [t[0] for t in tests]
        group = {c: _Samples(names) for c in candidates}
        failed: dict[str, OutputChanged] = {}
        active = list(candidates)
        self._positions: dict[str, int] = {}

        def charge(seconds: float) -> None:  # shared runs, split over the active ones
            for c in active:
                group[c].cpu += seconds / len(active)

        # warm every binary's pages once (the candidates were checked in another sandbox:
        # none of them starts warmer than the baseline), on the smallest input: a run
        # that is not measured should cost little. It is judged like every other run: a
        # candidate that fails or prints something else here leaves with its mismatch
        # (``warm=False``: this sandbox has just run them all, as for the draws past the
        # cut timed after a check's main session)
        warm_name, warm_data, warm_expected = min(tests, key=lambda t: len(t[1]))
        if warm:
            charge(
                self._run(box, "baseline", warm_data, warm_expected, warm_name, copy=0).cpu_seconds
            )
        for c in candidates if warm else ():
            try:
                group[c].cpu += self._run(
                    box, c, warm_data, warm_expected, warm_name, copy=0
                ).cpu_seconds
            except OutputChanged as e:
                failed[c] = e
                group[c].cpu += e.cpu
        active[:] = [c for c in active if c not in failed]
        if not active:
            return self._results(candidates, group, failed, tests, list(tests))
        first: dict[str, float] = {}
        for name, data, expected in tests:
            base = self._step(box, name, data, expected, rng, active, group, failed, 0)
            first[name] = _tiny(base.cpu_seconds)
            if not active:
                break
        if not active:
            return self._results(candidates, group, failed, tests, list(tests))
        timed = self._timed(box, tests, first, None, baseline_digest, charge)
        repeats = self._repeats(first, timed)
        plan = [t for t in timed for _ in range(repeats[t[0]])]
        least = cfg.min_pairs if cfg.min_pairs is not None else 4
        budget = cfg.max_cpu_seconds
        most, capped = self._round_cap(first, plan, least)
        for round_ in range(1, most):
            if round_ >= least:
                active[:] = [c for c in active if not self._precise(group[c], timed)]
            # the CPU budget ends a candidate's timing, never before ``least`` rounds:
            # an interval of one or two rounds is no interval
            active[:] = [c for c in active if group[c].cpu <= budget or round_ < least]
            if not active:
                break
            order = list(plan)
            rng.shuffle(order)
            for name, data, expected in order:
                if not active:
                    break
                self._step(box, name, data, expected, rng, active, group, failed, round_)
        out = self._results(candidates, group, failed, tests, timed)
        if capped and most < cfg.max_pairs:  # still measuring when the cap ended it
            out = [
                replace(c, capped=capped) if name in active and not c.mismatch else c
                for name, c in zip(candidates, out, strict=True)
            ]
        return out

    def _round_cap(self, first: dict[str, float], plan: list, least: int) -> tuple[int, str]:
        """Rounds at most (``MeterConfig.round_budget`` priced from the baseline's first
        pass ``first`` over the round's ``plan``; ``least`` at least) and the words
        saying so when that is fewer than ``max_pairs``."""
        cfg = self.config
        cost = 2 * sum(first[t[0]] for t in plan)
        if cfg.round_budget is None or cost <= 0:
            return cfg.max_pairs, ""
        most = max(least, min(cfg.max_pairs, int(cfg.round_budget / cost)))
        if most >= cfg.max_pairs:
            return cfg.max_pairs, ""
        return most, (
            f"timed in {most} rounds: one round of its timed tests costs {cost:.1f} CPU s "
            f"(a check's rounds are held to about {cfg.round_budget:g} CPU s, {least} at "
            "least): its interval is as wide as those rounds make it"
        )

    def _step(
        self,
        box: Box,
        name: str,
        data: bytes,
        expected: bytes,
        rng: random.Random,
        active: list[str],
        group: dict[str, _Samples],
        failed: dict[str, OutputChanged],
        round_: int,
    ) -> RunResult:
        """One run of the baseline and of every active candidate on test ``name``, in a
        shuffled order, the baseline at the test's next position; returns its run."""
        order = list(active)
        rng.shuffle(order)
        k = self._positions.get(name, rng.randrange(len(order) + 1))
        self._positions[name] = k + 1
        order.insert(k % (len(order) + 1), "baseline")
        runs: dict[str, RunResult] = {}
        for who in order:
            try:
                runs[who] = self._run(box, who, data, expected, name)
            except OutputChanged as e:
                failed[who] = e
                group[who].cpu += e.cpu
        base = runs["baseline"]
        sharing = [c for c in active if c in runs]
        for c in active:
            if c in runs:
                group[c].add(name, base, runs[c], round_, share=len(sharing))
        active[:] = [c for c in active if c not in failed]
        return base

    def _results(
        self,
        candidates: Sequence[str],
        group: dict[str, _Samples],
        failed: dict[str, OutputChanged],
        tests: Tests,
        timed: list,
    ) -> list[Comparison]:
        out = []
        for c in candidates:
            if c in failed:
                e = failed[c]
                cpu = group[c].cpu
                out.append(
                    Comparison(
                        (),
                        None,
                        None,
                        cpu_seconds=cpu,
                        mismatch=str(e),
                        mismatch_test=e.test,
                        mismatch_outcome=e.outcome,
                    )
                )
            else:
                out.append(self._summarize(group[c], tests, timed))
        return out

    def _timed(
        self,
        box: Box,
        tests: Tests,
        first: dict[str, float],
        samples: _Samples | None,
        digest: str | None,
        charge: Callable[[float], None] | None = None,
    ) -> list:
        """The timed tests, from each test's first baseline CPU time ``first``; the
        extra baseline runs are charged to ``samples`` or through ``charge``."""
        cut = self.config.min_test_seconds
        if self.config.legacy:  # decided on this check's first pair
            return [t for t in tests if first[t[0]] >= cut] or list(tests)

        def spend(seconds: float) -> None:
            if charge is not None:
                charge(seconds)
            elif samples is not None:
                samples.cpu += seconds

        def decide() -> tuple[str, ...]:
            chosen = []
            for name, data, expected in tests:
                times = [first[name]]
                # not clearly long or short: decide on a median of 3 (noise only adds time,
                # so a tiny test's one slow first run must not make it timed for good)
                if cut / 2 <= times[0] < 4 * cut:
                    for _ in range(2):
                        run = self._run(box, "baseline", data, expected, name)
                        spend(run.cpu_seconds)
                        times.append(run.cpu_seconds)
                if float(np.median(times)) >= cut:
                    chosen.append(name)
            return tuple(chosen)

        key = tests_key(digest, tests, cut) if digest else ""
        names = set(cached_timed_set(digest, key, decide) if digest else decide())
        return [t for t in tests if t[0] in names] or list(tests)

    def _repeats(self, first: dict[str, float], timed: list) -> dict[str, int]:
        """Pairs per round for each timed test: a test k times shorter than the longest
        gets about sqrt(k) pairs (at most ``max_repeats``), the allocation that makes the
        mean of per-test estimates most precise for its CPU cost when the tests' relative
        noise is alike; every test keeps its equal weight in the aggregate."""
        times = {t[0]: first[t[0]] for t in timed}
        longest = max(times.values())
        cap = max(1, self.config.max_repeats)
        return {n: min(cap, max(1, int(math.sqrt(longest / c)))) for n, c in times.items()}

    def _run(
        self,
        box: Box,
        who: str,
        data: bytes,
        expected: bytes,
        name: str,
        copy: int | None = None,
    ) -> RunResult:
        """One run of ``who`` (copy ``copy``; None: one of its copies, at random), its
        output checked."""
        k = random.randrange(self._copies) if copy is None else copy
        run = box.run(who if k == 0 else f"{who}_{k}", data)
        if run.clean_exit and outputs_match(run.stdout, expected):
            return run
        detail = run.describe() if not run.clean_exit else "it printed a different output"
        if who == "baseline":  # the problem or the machine, never the candidate's fault
            raise InfraError(
                f"the baseline failed test {name} during timing ({detail}): "
                "is the problem deterministic?"
            )
        raise OutputChanged(
            name,
            f"candidate output changed on test {name} during timing: {detail}",
            run.cpu_seconds,
            run.outcome,
        )

    def _pair(self, box: Box, data: bytes, expected: bytes, rng: random.Random, name: str):
        # counterbalanced (ABBA): a test's pairs alternate which binary runs first,
        # from a random start, so position effects cancel instead of becoming bias
        k = self._pairs_done.get(name, rng.randrange(2))
        self._pairs_done[name] = k + 1
        order = ["baseline", "candidate"] if k % 2 == 0 else ["candidate", "baseline"]
        runs = {who: self._run(box, who, data, expected, name) for who in order}
        return runs["baseline"], runs["candidate"]

    def _precise(self, samples: _Samples, timed: list) -> bool:
        ratios, rounds = samples.ratios([t[0] for t in timed])
        rng = np.random.default_rng(self.config.seed or 0)
        if self.config.legacy:
            _, lo, hi = bootstrap_aggregate(ratios, 400, rng)
            return (math.log(hi) - math.log(lo)) / 2 <= self.config.target_halfwidth
        # the very computation ``_summarize`` reports (same resamples, same generator):
        # a check that stops as precise reports an interval within the target
        est, lo, hi = round_bootstrap(ratios, self.config.bootstrap, rng, rounds=rounds)
        floor = self._floor(ratios, rounds)
        if precise_enough(est, lo, hi, floor, self.config.target_halfwidth):
            return True
        if not self.config.stop_when_not_faster:
            return False
        # the interval it would report lies wholly below the practical band's top: more
        # rounds cannot make it significantly faster (unless this interval is wrong)
        _, high = widen(est, lo, hi, floor)
        return high < 1.0 + self.margin

    def _interval(
        self, timings: Sequence[TestTiming], rng: np.random.Generator
    ) -> tuple[float, float, float]:
        ratios = [t.log_ratios for t in timings]
        if self.config.legacy:
            return bootstrap_aggregate(ratios, self.config.bootstrap, rng)
        rounds = [np.asarray(t.rounds) for t in timings]
        est, lo, hi = round_bootstrap(ratios, self.config.bootstrap, rng, rounds=rounds)
        return (math.exp(est), *widen(est, lo, hi, self._floor(ratios, rounds)))

    def _floor(self, ratios: list[np.ndarray], rounds: list[np.ndarray]) -> float:
        """The noise floor, and with drawn inputs the spread between them, in quadrature
        (from a generator of its own: the interval's resamples stay as they were)."""
        if not self.config.drawn_inputs:
            return self.noise_floor
        rng = np.random.default_rng(self.config.seed or 0)
        return math.hypot(self.noise_floor, input_spread(ratios, rng, rounds))

    def _summarize(self, samples: _Samples, tests: Tests, timed: list) -> Comparison:
        timed_names = {t[0] for t in timed}
        timings = tuple(samples.timing(t[0], t[0] in timed_names) for t in tests)
        ratios = [t.log_ratios for t in timings if t.timed]
        # the aggregate from a fresh generator: exactly the interval the stop rule saw
        rng = np.random.default_rng(self.config.seed or 0)
        value, lo, hi = self._interval([t for t in timings if t.timed], rng)
        per_test = {}
        for t in timings:
            if t.timed and len(t.base_cpu) > 1:
                _, t_lo, t_hi = self._interval([t], rng)
                per_test[t.name] = (t_lo, t_hi)
        n = sum(len(r) for r in ratios)
        cut = self.config.min_test_seconds
        # long enough to time: the one rule the verdict's ``long_enough`` reads too (some
        # test left out as short, else some timed test's fastest baseline run at the cut)
        any_long = len(timed) < len(tests) or any(min(t.base_cpu) >= cut for t in timings)
        note = (
            ""
            if any_long
            else (
                f"every test's baseline runs under {cut * 1000:.0f} ms: "
                "the speedup mostly measures process start-up"
            )
        )
        method = LEGACY_METHOD if self.config.legacy else METHOD
        speedup = Speedup(
            value, lo, hi, samples=n, tests_timed=len(ratios), method=method, margin=self.margin
        )
        paper = paper_protocol_speedup(timings)
        return Comparison(timings, speedup, paper, per_test, samples.cpu, note=note)
