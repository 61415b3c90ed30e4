"""Calibrated uncertainty: the noise floor, the cached timed-test set, `supercoder calibrate`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from supercoder.paths import cache_dir
from supercoder.problems.loading import load_problem
from supercoder.timing.calibration import (
    DEFAULT_FLOOR,
    Calibration,
    calibration_path,
    estimate_calibration,
    load_calibration,
    save_calibration,
)
from supercoder.timing.meter import LEGACY_METHOD, METHOD, Meter, MeterConfig
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import machine
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.conftest import sandbox_or_skip
from tests.fakes.sizing import sized
from tests.integration.test_evaluate import SLOW, prime_count, primes_tests


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SUPERCODER_CACHE", str(tmp_path / "cache"))
    # a quiet machine: the floors below are read as stored (a busier one widens them,
    # ``calibration.floor_at_load``, tested in tests/unit/timing)
    monkeypatch.setattr("supercoder.timing.meter.machine_load", lambda: 0.0)
    return tmp_path / "cache"


def test_calibration_is_kept_per_machine(own_cache, monkeypatch):
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "1")  # as many as it was measured with
    assert load_calibration() == Calibration() and not load_calibration().measured
    mine = Calibration(0.012, 0.02, 20, ("a",), machine(), 1.0)
    save_calibration(mine)
    assert load_calibration() == mine
    assert Meter().noise_floor == 0.012 and Meter().margin == 0.02
    assert Meter(MeterConfig(noise_floor=0.0)).noise_floor == 0.0
    other = {**mine.to_json(), "context": {**mine.to_json()["context"], "cpu": "another CPU"}}
    calibration_path().write_text(json.dumps(other))
    assert load_calibration().noise_floor == DEFAULT_FLOOR  # not this machine's: defaults


def test_calibration_holds_only_for_as_many_slots_as_were_busy(own_cache, monkeypatch):
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "2")
    two = Calibration(0.004, 0.01, 12, ("a",), machine(), 1.0, slots=2)
    save_calibration(two)
    assert load_calibration() == two
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "1")  # fewer busy: still honest
    assert load_calibration() == two
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "3")  # more at once than measured
    assert load_calibration() == Calibration() and Meter().noise_floor == DEFAULT_FLOOR
    old = {k: v for k, v in two.to_json().items() if k != "slots"}  # before slots were kept
    calibration_path().write_text(json.dumps(old))
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "1")
    assert load_calibration().slots == 1 and load_calibration().measured
    assert estimate_calibration([("p", 1.0, 0.01)] * 3, {}, slots=4).slots == 4


@pytest.fixture
def primes(tmp_path) -> Path:
    sandbox_or_skip()
    folder = tmp_path / "primes"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SLOW)
    for n, count in primes_tests().items():
        (folder / "tests" / f"n{n}.in").write_text(f"{n}\n")
        (folder / "tests" / f"n{n}.out").write_text(f"{count}\n")
    return folder


def test_timed_set_is_decided_once_and_cached(primes, own_cache):
    """Where the timed tests are fixed (here: a program marked as reading no input, timed
    on its visible tests), which of them are timed is decided once and cached; inputs
    drawn afresh every check are decided in the check and never stored."""
    drawn = evaluate(load_problem(primes), baseline_asm(load_problem(primes)), CheckConfig())
    assert drawn.correct and drawn.unseen is not None and drawn.unseen.timed >= 1
    assert not list((cache_dir() / "bin").glob("*.timed.json"))
    (primes / "problem.json").write_text(json.dumps({"reads_input": False}))
    problem = load_problem(primes)
    asm = baseline_asm(problem)
    config = CheckConfig(meter=MeterConfig(max_pairs=3))
    first = evaluate(problem, asm, config)
    assert first.correct and first.timed_tests and "n1" not in first.timed_tests
    stored = list((cache_dir() / "bin").glob("*.timed.json"))
    assert len(stored) == 1
    assert evaluate(problem, asm, config).timed_tests == first.timed_tests
    # the stored decision is what later checks use (not a fresh per-check choice)
    sets = json.loads(stored[0].read_text())
    one = first.timed_tests[0]
    stored[0].write_text(json.dumps({k: [one] for k in sets}))
    again = evaluate(problem, asm, config)
    assert again.timed_tests == (one,) and again.speedup.tests_timed == 1
    for t in again.tests:  # raw samples on every timed test, one per pair
        assert not t.timed or len(t.baseline_samples) == len(t.candidate_samples) == t.pairs >= 2
    assert again.speedup.method == METHOD and not again.significantly_faster


def test_legacy_meter_is_still_callable(primes, own_cache):
    problem = load_problem(primes)
    v = evaluate(problem, baseline_asm(problem), CheckConfig(meter=MeterConfig(legacy=True)))
    assert v.correct and v.speedup.method == LEGACY_METHOD
    assert not list((cache_dir() / "bin").glob("*.timed.json"))  # chosen per check
    assert set(Meter(MeterConfig(legacy=True)).binaries(Path("b"), Path("c"))) == {
        "baseline",
        "candidate",
    }


def test_calibrate_command_stores_and_shows(own_cache):
    sandbox_or_skip()
    cmd = [sys.executable, "-m", "supercoder.cli", "calibrate"]
    proc = subprocess.run(
        [*cmd, "bit_sos_naive", "--checks", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["checks"] == 2 and data["problems"] == ["bit_sos_naive"]
    assert data["slots"] >= 1  # measured with every timing slot busy
    assert data["noise_floor"] >= 0.002 and data["margin"] >= 0.01
    assert data["context"]["cpu"] == machine().cpu
    shown = subprocess.run([*cmd, "--show"], capture_output=True, text=True, timeout=60)
    assert "measured on 2 identical-program checks" in shown.stdout
    bad = subprocess.run([*cmd, "no_such_problem"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a bundled problem" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_short_tests_get_more_pairs_per_round(tmp_path, own_cache):
    """A timed test ~16x shorter than the longest gets ~4 pairs a round (sqrt of the
    ratio), each pair tagged with its round; the interval resamples whole rounds."""
    sandbox_or_skip()
    folder = tmp_path / "two"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SLOW)
    # fixed timed tests, shown one by one: a program marked as reading no input is timed
    # on its visible tests (others are timed on inputs drawn afresh, reported together)
    (folder / "problem.json").write_text(json.dumps({"reads_input": False}))
    small = sized(SLOW, start=5000, limit=2_000_000)  # timed here; the other 16x longer
    names = (f"n{small}", f"n{4 * small}")  # SLOW takes ~n^2 time
    for n in (10, small, 4 * small):  # n10: too short to time
        (folder / "tests" / f"n{n}.in").write_text(f"{n}\n")
        (folder / "tests" / f"n{n}.out").write_text(f"{prime_count(n)}\n")
    problem = load_problem(folder)
    config = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=3))
    verdict = evaluate(problem, baseline_asm(problem), config)
    assert verdict.correct and set(verdict.timed_tests) == set(names)
    short, long_ = (next(t for t in verdict.tests if t.name == n) for n in names)
    assert long_.pairs == 3 and short.pairs >= 2 * long_.pairs
    assert short.sample_rounds[0] == 0 and set(short.sample_rounds) == {0, 1, 2}
    assert list(long_.sample_rounds) == [0, 1, 2]
    assert verdict.speedup.samples == short.pairs + long_.pairs
    legacy_like = evaluate(
        problem,
        baseline_asm(problem),
        CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=3, max_repeats=1)),
    )
    assert [t.pairs for t in legacy_like.tests if t.timed] == [3, 3]
