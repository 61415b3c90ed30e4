"""Calibrated uncertainty: the noise floor, the cached timed-test set, `supercoder calibrate`.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_calibration.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from supercoder.timing.calibration import (
    estimate_calibration,
)
from supercoder.timing.intervals import round_bootstrap, widen
from supercoder.timing.meter import Meter, MeterConfig, precise_enough


def test_floor_is_the_spread_beyond_sampling_error():
    rng = np.random.default_rng(1)
    checks = [("p", math.exp(x), 0.003) for x in rng.normal(0.0, 0.01, 400)]
    cal = estimate_calibration(checks, {"cpu": "x"})
    assert cal.noise_floor == pytest.approx(math.sqrt(0.01**2 - 0.003**2), rel=0.15)
    assert 0.015 < cal.margin < 0.025 and cal.checks == 400 and cal.measured
    quiet = estimate_calibration([("p", 1.0, 0.01)] * 5, {})  # sampling explains it all
    assert quiet.noise_floor == 0.002 and quiet.margin == 0.01  # the minimums


def test_interval_covers_round_effects_and_the_floor():
    rng = np.random.default_rng(0)
    shift = rng.normal(0, 0.05, 8)  # what slows a whole round slows every test in it
    ratios = [shift + rng.normal(0, 0.002, 8) for _ in range(6)]
    est, lo, hi = round_bootstrap(ratios, 2000, rng)
    assert hi - lo > 0.04  # the pair-within-test bootstrap would say ~0.002
    low, high = widen(0.0, 0.0, 0.0, 0.01)
    assert low == pytest.approx(math.exp(-0.0196), abs=1e-4)
    assert high == pytest.approx(math.exp(0.0196), abs=1e-4)


def test_a_check_stops_only_once_the_interval_it_reports_is_within_the_target():
    # 2% of sampling alone reads +-2.2% once the 0.5% floor is added: not yet
    assert not precise_enough(0.0, -0.02, 0.02, 0.005, 0.02)
    low, high = widen(0.0, -0.017, 0.017, 0.005)
    assert precise_enough(0.0, -0.017, 0.017, 0.005, 0.02)
    assert (math.log(high) - math.log(low)) / 2 < 0.02
    # a floor that alone keeps the interval wider than the target: stop once sampling
    # is no longer the larger part of it, not never
    assert not precise_enough(0.0, -0.03, 0.03, 0.012, 0.02)
    assert precise_enough(0.0, -0.02, 0.02, 0.012, 0.02)


@pytest.mark.parametrize("seed", [3, 4])
def test_the_stop_rule_sees_exactly_the_interval_the_check_reports(seed):
    """A check that stops as precise reports an interval within the target: the rule
    decides on the very bootstrap the verdict reports (heavy-tailed pairs, where a
    smaller bootstrap's percentiles land elsewhere)."""
    from supercoder.timing.meter import _Samples

    rng = np.random.default_rng(seed)  # data where 400 resamples read 1/7 of 2000's
    samples = _Samples(["a", "b"])
    for name in ("a", "b"):
        bc, cc, bw, cw = samples.data[name]
        for r in range(9):
            slow = rng.random(2) < 0.25  # a slow spell hits about one run in four
            base, cand = 0.05 * np.exp(rng.normal(0, 0.004, 2) + 0.2 * slow)
            bc.append(base), cc.append(cand), bw.append(base), cw.append(cand)
            samples.rounds[name].append(r)
    tests = [("a", b"", b""), ("b", b"", b"")]
    meter = Meter(MeterConfig(noise_floor=0.005, seed=2))
    speedup = meter._summarize(samples, tests, tests).speedup
    reported = (math.log(speedup.high) - math.log(speedup.low)) / 2
    at = Meter(MeterConfig(noise_floor=0.005, seed=2, target_halfwidth=reported * 1.0001))
    below = Meter(MeterConfig(noise_floor=0.005, seed=2, target_halfwidth=reported * 0.999))
    assert at._precise(samples, tests) and not below._precise(samples, tests)


def test_round_bootstrap_with_several_pairs_a_round_is_the_resampled_median():
    """The weighted median equals the median of the pairs of the drawn rounds."""
    from supercoder.timing.intervals import weighted_median

    rng = np.random.default_rng(4)
    values = rng.normal(0, 1, 13)
    rounds = np.array([0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4])
    counts = np.zeros((200, 5), dtype=np.int64)
    np.add.at(counts, (np.arange(200)[:, None], rng.integers(0, 5, size=(200, 5))), 1)
    fast = weighted_median(values, rounds, counts)
    for row, got in zip(counts, fast, strict=True):
        drawn = np.concatenate([values[rounds == g] for g in range(5) for _ in range(row[g])])
        assert got == pytest.approx(float(np.median(drawn)))
    # one pair a round: the same interval as resampling the rounds x tests matrix
    ratios = [rng.normal(0, 0.03, 6) for _ in range(4)]
    plain = round_bootstrap(ratios, 500, np.random.default_rng(9))
    tagged = round_bootstrap(ratios, 500, np.random.default_rng(9), rounds=[np.arange(6)] * 4)
    assert plain == pytest.approx(tagged)


def test_a_check_busier_than_its_floor_was_measured_gets_a_wider_floor(monkeypatch):
    """Issue 42 item 7: eval's 1.222x [1.207, 1.248] against four fresh checks at
    1.098-1.171x on a loaded machine: the floor measured at one load does not cover
    checks at a busier one. The floor now holds at the load it was measured at and
    grows by ``LOAD_NOISE`` per unit of load per CPU above it; the verdict keeps both."""
    from supercoder.timing import meter as meter_mod
    from supercoder.timing.calibration import (
        DEFAULT_FLOOR,
        DEFAULT_FLOOR_LOAD,
        LOAD_NOISE,
        floor_at_load,
    )

    assert floor_at_load(0.005, 2.5, 1.0) == 0.005  # quieter: never narrower
    assert floor_at_load(0.005, 2.5, None) == 0.005
    busy = floor_at_load(0.005, 2.5, 6.5)
    assert busy == pytest.approx(math.hypot(0.005, 4 * LOAD_NOISE))
    assert busy > 3 * 0.005  # a gross widening at load 13 on 2 cores
    monkeypatch.setattr(meter_mod, "machine_load", lambda: DEFAULT_FLOOR_LOAD + 4)
    wide = Meter(MeterConfig())
    assert wide.noise_floor == pytest.approx(floor_at_load(DEFAULT_FLOOR, 2.5, 6.5))
    assert wide.context()["floor_load"] == DEFAULT_FLOOR_LOAD
    monkeypatch.setattr(meter_mod, "machine_load", lambda: 0.3)
    assert Meter(MeterConfig()).noise_floor == DEFAULT_FLOOR  # quiet: as measured
    assert Meter(MeterConfig(noise_floor=0.01)).noise_floor == 0.01  # given: as given
    assert "floor_load" not in Meter(MeterConfig(noise_floor=0.01)).context()
    cal = estimate_calibration([("p", 1.0, 0.01)] * 5, {}, load=1.75)
    assert cal.load == 1.75  # stored with the floor it was measured with
