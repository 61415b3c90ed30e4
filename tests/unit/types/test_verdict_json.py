"""The one definition of "significantly faster/slower" and the verdict's JSON round-trip."""

from __future__ import annotations

import json

from supercoder.types import (
    MIN_PRACTICAL_MARGIN,
    Machine,
    Provenance,
    Speedup,
    Status,
    TestResult,
    UnseenResult,
    Verdict,
    VerdictContext,
    practical_significance,
)


def test_practical_band_is_at_least_one_percent():
    assert MIN_PRACTICAL_MARGIN == 0.01
    assert practical_significance(1.005, 1.02) == 0  # CI excludes 1.0 but not the band
    assert practical_significance(1.011, 1.05) == 1
    assert practical_significance(0.95, 0.989) == -1
    assert practical_significance(1.02, 1.05, margin=0.03) == 0  # a wider calibrated band
    assert practical_significance(1.02, 1.05, margin=0.001) == 1  # never below 1%


def test_speedup_and_verdict_use_the_band():
    inside = Speedup(1.01, 1.004, 1.016, 10, 2)
    assert not inside.significantly_faster and not inside.significant
    wide = Speedup(1.2, 1.05, 1.3, 10, 2, margin=0.06)
    assert not wide.significantly_faster
    fast = Speedup(1.2, 1.05, 1.3, 10, 2, margin=0.02)
    assert fast.significantly_faster and fast.significant and not fast.significantly_slower
    assert Verdict("p", Status.OK, speedup=fast).significantly_faster
    assert not Verdict(
        "p", Status.OK, speedup=fast, identical_to_baseline=True
    ).significantly_faster
    assert not Verdict("p", Status.WRONG_OUTPUT, speedup=fast).significantly_faster


def test_verdict_round_trips_through_json_text():
    tests = (
        TestResult(
            "a",
            Status.OK,
            speedup=1.3,
            speedup_ci=(1.2, 1.4),
            baseline_seconds=0.02,
            candidate_seconds=0.015,
            pairs=3,
            timed=True,
            baseline_samples=(0.02, 0.021, 0.0205),
            candidate_samples=(0.015, 0.016, 0.0155),
        ),
        TestResult("b", Status.OK, "too short to time", speedup=1.0, pairs=1),
    )
    v = Verdict(
        "p",
        Status.OK,
        tests,
        Speedup(1.3, 1.2, 1.4, 3, 1, margin=0.015),
        paper_speedup=1.25,
        context=VerdictContext(provenance=Provenance(machine=Machine(cpu="x"))),
        cpu_seconds_spent=0.5,
    )
    data = json.loads(json.dumps(v.to_json()))
    assert data["timed_tests"] == ["a"] and data["significantly_faster"] is True
    assert data["tests"][0]["baseline_samples"] == [0.02, 0.021, 0.0205]
    assert data["context"] == {"cpu": "x"}  # flat, as older readers read it
    again = Verdict.from_json(data)
    assert again == v and again.to_json() == v.to_json()
    assert again.tests[0].candidate_samples == (0.015, 0.016, 0.0155)


def test_old_verdict_json_without_new_fields_still_loads():
    old = {
        "problem": "p",
        "status": "ok",
        "speedup_detail": {
            "value": 1.1,
            "low": 1.0,
            "high": 1.2,
            "samples": 4,
            "tests_timed": 1,
            "method": "m",
        },
        "tests": [
            {"name": "a", "status": "ok", "speedup_ci": [1.0, 1.2], "pairs": 4, "timed": True}
        ],
    }
    v = Verdict.from_json(old)
    assert v.speedup.margin == MIN_PRACTICAL_MARGIN and v.tests[0].baseline_samples == ()


def test_unseen_tests_round_trip_together_and_count_all_or_nothing():
    visible = (TestResult("a", Status.OK), TestResult("b", Status.OK))
    together = UnseenResult(5, Status.WRONG_OUTPUT)
    v = Verdict("p", Status.WRONG_OUTPUT, visible, unseen=together)
    data = json.loads(json.dumps(v.to_json()))
    assert data["format_version"] >= 3 and data["tests_total"] == 7
    assert data["tests_passed"] == 2  # the unseen ones pass only all together
    assert data["unseen"] == {
        "count": 5,
        "status": "wrong_output",
        "timed": 0,
        "baseline_seconds": None,
        "candidate_seconds": None,
        "long_enough": None,
    }
    again = Verdict.from_json(data)
    assert again == v and again.unseen == together
    ok = Verdict("p", Status.OK, visible, unseen=UnseenResult(5, Status.OK, timed=5))
    assert ok.tests_passed == ok.tests_total == 7
    assert Verdict.from_json({"problem": "p", "status": "ok"}).unseen is None  # format 1
