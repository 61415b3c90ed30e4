"""Stored results say what wrote them: a format version on verdict, summary and run-store
JSON (older JSON without one still reads, newer is refused), and a context that names
the supercoder version, the meter protocol, the noise floor in force and the date."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest

from supercoder.build.toolchain import machine_context
from supercoder.errors import UserError
from supercoder.paths import package_version
from supercoder.runs.metrics import summarize
from supercoder.runs.store import JSON_FORMAT_VERSION, RunConfig, Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import SUMMARY_FORMAT_VERSION, RunSummary
from supercoder.timing.meter import LEGACY_METHOD, LEGACY_PROTOCOL, METHOD, PROTOCOL, MeterConfig
from supercoder.types import (
    VERDICT_FORMAT_VERSION,
    Candidate,
    Problem,
    Speedup,
    Status,
    TestCase,
    Verdict,
)
from supercoder.verify.evaluate import CheckConfig, evaluate

PROBLEM = Problem("echo", "int main(void) { return 0; }", (TestCase("t", b""),))


def _verdict() -> Verdict:
    return Verdict("p", Status.OK, speedup=Speedup(1.2, 1.1, 1.3, 8, 1), context={"cpu": "x"})


def test_verdict_json_carries_its_format_version_and_reads_back():
    data = json.loads(json.dumps(_verdict().to_json()))
    assert data["format_version"] == VERDICT_FORMAT_VERSION >= 2
    assert Verdict.from_json(data) == _verdict()


def test_verdict_json_from_before_versioning_still_reads():
    old = _verdict().to_json()
    del old["format_version"]
    old["speedup_detail"]["method"] = LEGACY_METHOD  # stored by the earlier meter
    again = Verdict.from_json(old)
    assert again.status is Status.OK and again.speedup.method == LEGACY_METHOD


def test_a_verdict_of_a_newer_format_is_refused():
    newer = {**_verdict().to_json(), "format_version": VERDICT_FORMAT_VERSION + 1}
    with pytest.raises(UserError, match="format version"):
        Verdict.from_json(newer)


def test_speedup_method_defaults_to_todays_meter():
    assert Speedup(1.0, 0.9, 1.1, 4, 1).method == METHOD != LEGACY_METHOD
    assert PROTOCOL != LEGACY_PROTOCOL


def test_summary_json_carries_its_format_version_and_old_summaries_read():
    outcome = Outcome("p", (Attempt(0, 0, Candidate("x"), _verdict()),))
    s = summarize([outcome], {"gcc": "gcc 12"}).to_json()
    assert s["format_version"] == SUMMARY_FORMAT_VERSION >= 2
    assert RunSummary.from_json(s).to_json() == s
    old = {k: v for k, v in s.items() if k != "format_version"}
    assert RunSummary.from_json(old).problems == 1
    with pytest.raises(UserError, match="format version"):
        RunSummary.from_json({**s, "format_version": SUMMARY_FORMAT_VERSION + 1})


def test_run_store_json_carries_its_format_version_and_old_rows_read(tmp_path):
    db = tmp_path / "runs.sqlite"
    store = Store(db)
    store.open_run(RunConfig("compiler", "val", name="new"), {"gcc": "gcc 12"})
    assert not store.open_run(RunConfig("compiler", "val", name="other"), {})
    assert store.open_run(RunConfig("compiler", "val", name="new"), {})  # resumes
    store.close()
    raw = sqlite3.connect(db)
    (options,) = raw.execute("SELECT options FROM runs WHERE name = 'new'").fetchone()
    assert json.loads(options)["format_version"] == JSON_FORMAT_VERSION >= 2
    old = {k: v for k, v in json.loads(options).items() if k != "format_version"}
    raw.execute("UPDATE runs SET options = ? WHERE name = 'other'", (json.dumps(old),))
    raw.commit()
    raw.close()
    store = Store(db)
    rows = {r["name"]: r for r in store.runs()}
    assert rows["new"]["format_version"] == JSON_FORMAT_VERSION
    assert rows["other"]["format_version"] == 1  # stored before versioning
    assert "format_version" not in rows["new"]["options"]  # not part of the identity
    assert store.open_run(RunConfig("compiler", "val", name="other"), {})  # an old run resumes
    store.close()


def test_the_context_names_version_meter_floor_and_date():
    ctx = machine_context()
    assert ctx["supercoder"] == package_version()  # from the package metadata
    assert abs((datetime.now(UTC) - datetime.fromisoformat(ctx["date"])).total_seconds()) < 60
    config = CheckConfig(meter=MeterConfig(noise_floor=0.0123, margin=0.02))
    verdict = evaluate(PROBLEM, None, config)  # no answer: nothing runs
    assert verdict.status is Status.NO_ANSWER
    ctx = verdict.to_json()["context"]
    assert ctx["meter"] == PROTOCOL and ctx["noise_floor"] == 0.0123 and ctx["margin"] == 0.02
    assert ctx["supercoder"] == package_version() and ctx["date"]
    legacy = evaluate(PROBLEM, None, CheckConfig(meter=MeterConfig(legacy=True)))
    assert legacy.context["meter"] == LEGACY_PROTOCOL and legacy.context["noise_floor"] == 0.0
