"""Eval runs: the SQLite store, resuming, refusing mismatched resumes, summary metrics.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_runs.py."""

from __future__ import annotations

import sqlite3

import pytest

from supercoder.errors import UserError
from supercoder.runs.metrics import summarize
from supercoder.runs.store import Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.types import Candidate, Speedup, Status, Verdict


def outcome(name: str, *verdicts: Verdict) -> Outcome:
    attempts = tuple(Attempt(i, 0, Candidate("x"), v) for i, v in enumerate(verdicts))
    return Outcome(name, attempts)


def ok(speed: float, low: float, high: float, paper: float, copy: bool = False) -> Verdict:
    return Verdict(
        "p",
        Status.OK,
        speedup=Speedup(speed, low, high, 10, 1),
        paper_speedup=paper,
        identical_to_baseline=copy,
    )


def test_summary_definitions():
    outcomes = [
        outcome("fast", ok(2.0, 1.8, 2.2, 2.1), Verdict("p", Status.COMPILE_ERROR)),
        outcome("noisy", ok(1.15, 0.95, 1.3, 1.2)),  # >= 1.1 but not significant
        outcome("slow", ok(0.8, 0.7, 0.9, 1.0)),
        outcome("copy", ok(1.3, 1.2, 1.4, 1.3, copy=True)),
        outcome("wrong", Verdict("p", Status.WRONG_OUTPUT, paper_speedup=None)),
        outcome("none", Verdict("p", Status.NO_ANSWER)),
        outcome("infra", Verdict("p", Status.INFRA_ERROR)),
    ]
    s = summarize(outcomes, {"gcc": "gcc 12"}).to_json()
    ours = [2.0, 1.15, 0.8, 1.0, 1.0, 1.0]  # copy -> 1.0, incorrect -> 1.0, infra left out
    assert s["problems"] == 6 and s["problems_dropped"] == 1 and s["infra_dropped"] == 1
    assert s["compilation_rate"] == pytest.approx(100 * 5 / 6, abs=0.01)
    assert s["accuracy"] == pytest.approx(100 * 4 / 6, abs=0.01)
    assert s["accuracy_excluding_copies"] == pytest.approx(50.0)
    assert s["avg_speedup"] == pytest.approx(sum(ours) / 6, abs=1e-4)
    assert s["max_speedup"] == 2.0 and s["median_speedup"] == 1.0
    assert s["fast_1.1"] == pytest.approx(100 / 6, abs=0.01)  # only "fast" is significant
    assert (s["significant_speedups"], s["significant_slowdowns"]) == (1, 1)
    paper = [2.1, 1.2, 1.0, 1.3, 1.0, 1.0]  # clamped figures; the copy counts
    assert s["paper"]["avg_speedup"] == pytest.approx(sum(paper) / 6, abs=1e-4)
    assert s["paper"]["fast_1.1"] == pytest.approx(50.0)
    assert s["context"] == {"gcc": "gcc 12"}


def test_store_schema_is_versioned_and_old_files_are_migrated(tmp_path):

    from supercoder.runs.store import SCHEMA, SCHEMA_VERSION

    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as db:  # a store written before versioning: user_version 0
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO runs (name, model, benchmark, options, started, context) "
            "VALUES ('r', 'compiler', 'val', '{}', 1.0, '{}')"
        )
    Store(old).close()
    with sqlite3.connect(old) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT name FROM runs").fetchall() == [("r",)]
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert "attempts_problem" in indexes


def test_a_store_from_a_newer_version_is_refused(tmp_path):

    import pytest

    from supercoder.runs.store import SCHEMA_VERSION, Store

    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(UserError, match="newer supercoder"):
        Store(newer)


def test_the_summary_pays_the_runs_reward_through_its_one_definition():
    outcomes = [
        outcome("fast", ok(2.0, 1.8, 2.2, 2.1)),
        outcome("noisy", ok(1.15, 0.95, 1.3, 1.2)),
        outcome("copy", ok(1.3, 1.2, 1.4, 1.3, copy=True)),
        outcome("wrong", Verdict("p", Status.WRONG_OUTPUT)),
    ]
    gated = summarize(outcomes, {})  # runs stored before --reward: gated
    assert gated.reward_form == "gated" and gated.mean_reward == pytest.approx(2.0 / 4)
    binary = summarize(outcomes, {"reward": "binary:threshold=1.5"})
    assert binary.reward_form == "binary:threshold=1.5" and binary.mean_reward == 0.25
    assert summarize(outcomes, {"reward": "paper"}).mean_reward == pytest.approx(3.15 / 4)
    pct = summarize(outcomes, {"reward": "percentile:pool=builds"})
    assert pct.mean_reward is None  # its pools were not given
    pool = {"fast": (Speedup(1.0, 1.0, 1.0, 0, 0), Speedup(3.0, 2.9, 3.1, 1, 1))}
    pct = summarize(outcomes, {"reward": "percentile:pool=builds"}, pools=pool)
    assert pct.mean_reward == pytest.approx(0.5 / 4)
    assert pct.to_json()["reward_form"] == "percentile:pool=builds"


def test_the_reward_is_part_of_a_runs_identity():
    from supercoder.runs.identity import RunConfig

    assert RunConfig("m", "val").identity().reward is None  # as runs stored before it
    chosen = RunConfig("m", "val", reward="binary:threshold=1.1").identity()
    assert chosen.reward == "binary:threshold=1.1"
    assert chosen != RunConfig("m", "val").identity()  # another reward: another run


def test_a_recomputed_percentile_summary_pays_with_the_pools_the_run_kept(tmp_path):
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.store import leaderboard_rows

    db = tmp_path / "runs.sqlite"
    store = Store(db)
    spec = "percentile:pool=builds"
    store.open_run(RunConfig("m", "val", name="r", reward=spec), {"reward": spec})
    for done in (outcome("fast", ok(2.0, 1.8, 2.2, 2.1)), outcome("slow", ok(0.8, 0.7, 0.9, 1))):
        store.record("r", done.problem, done.attempts[0], "")
        store.finish_problem("r", done)
    before = leaderboard_rows(db)[0].summary
    assert before.reward_form == spec and before.mean_reward is None  # no pools kept yet
    store.keep_pools("r", {"fast": (Speedup(1.0, 1.0, 1.0, 0, 0), Speedup(3.0, 2.9, 3.1, 1, 1))})
    store.close()
    (row,) = leaderboard_rows(db)  # the leaderboard's recompute: nothing measured
    assert row.summary.mean_reward == pytest.approx(0.5 / 2)  # beats half of fast's pool
    assert Store(db, read_only=True).pools("other") is None
