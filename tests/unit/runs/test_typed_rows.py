"""The run store returns typed rows; summaries and run contexts go through the codec."""

from __future__ import annotations

import json
import sqlite3

import pytest

from supercoder.errors import UserError
from supercoder.runs.identity import RunConfig, RunIdentity
from supercoder.runs.store import JSON_FORMAT_VERSION, RunRow, Store
from supercoder.runs.summary import SUMMARY_FORMAT_VERSION, RunContext, RunSummary


def test_a_stored_run_is_a_typed_row_with_a_typed_context(tmp_path):
    db = tmp_path / "runs.sqlite"
    store = Store(db)
    context = {"gcc": "gcc 12", "cpu": "x", "model": "m", "problems_in_benchmark": 3}
    store.open_run(RunConfig("m", "val", name="r"), {**context, "timed": False, "plugin": 1})
    (row,) = store.runs()
    assert isinstance(row, RunRow) and (row.name, row.model, row.benchmark) == ("r", "m", "val")
    assert row.format_version == JSON_FORMAT_VERSION and row.finished is None
    assert row.context.machine.gcc == "gcc 12" and row.context.timed is False
    assert row.context.problems_in_benchmark == 3 and dict(row.context.extra) == {"plugin": 1}
    assert isinstance(row.options, RunIdentity) and row.options.benchmark == "val"
    assert (row.options.samples, row.options.time, row.options.sandbox) == (1, True, True)
    assert row.options == RunConfig("m", "val", name="r").identity()  # one typed value, as stored
    summary = store.summary(row)  # nothing finished yet: the benchmark's 3 problems
    assert summary.problems == 3 and summary.context == row.context
    store.close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE runs SET options = ?", (json.dumps({"format_version": 99}),))
    raw.commit()
    raw.close()
    store = Store(db)
    with pytest.raises(UserError, match="run store JSON of format version 99"):
        store.runs()
    store.close()


def test_a_summary_of_every_format_reads_and_writes_the_keys_it_wrote():
    s = RunSummary(problems=2, problems_scored=2, context=RunContext(model="m", timed=True))
    data = json.loads(json.dumps(s.to_json()))
    assert data["format_version"] == SUMMARY_FORMAT_VERSION and data["fast_1.1"] == 0.0
    assert "avg_speedup" in data and "avg_speedup" in data["paper"]  # flat, as before
    assert data["context"] == {"model": "m", "timed": True}
    assert "unscored_problems" not in data and data["complete"] is True
    assert RunSummary.from_json(data) == s
    record = {
        "status": "ok",
        "speedup": None,
        "speedup_ci": None,
        "paper_speedup": 1.0,
        "timed": None,  # format 3: null when nothing was timed
        "improved": False,
        "origin": "m sample 0 round 0",
        "sample": 0,
        "round": 0,
        "tests_passed": 1,
        "tests_total": 1,
        "cpu_seconds": 0.1,
        "seconds": 1.0,
    }
    old = {"format_version": 3, "problems": 1, "per_problem": {"p": record}}
    back = RunSummary.from_json(old).per_problem["p"]
    assert back.timed is False and back.timed_reason == "not timed"  # the migration
    del old["format_version"]  # format 1 passes through the same migration
    assert RunSummary.from_json(old).per_problem["p"].timed is False


def test_an_older_runs_identity_reads_typed_with_its_strategys_keys_kept(tmp_path):
    db = tmp_path / "runs.sqlite"
    store = Store(db)
    store.open_run(RunConfig("m", "val", name="r"), {"gcc": "gcc 12"})
    store.close()
    old = {  # an evolve run stored before versioning, one value of the wrong type
        "benchmark": "val",
        "samples": "lots",
        "temperature": 1,
        "strategy": "evolve",
        "evolve": {"generation": 3, "islands": 2},
    }
    raw = sqlite3.connect(db)
    raw.execute("UPDATE runs SET options = ?", (json.dumps(old),))
    raw.commit()
    raw.close()
    store = Store(db, read_only=True)
    (row,) = store.runs()
    store.close()
    o = row.options
    assert row.format_version == 1 and o.samples is None and o.temperature == 1.0
    assert o.strategy == "evolve" and o.time is None
    assert dict(o.extra["evolve"]) == {"generation": 3, "islands": 2}
