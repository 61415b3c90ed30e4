"""Stored results say what wrote them: a format version on verdict, summary and run-store
JSON (older JSON without one still reads, newer is refused), and a context that names
the supercoder version, the meter protocol, the noise floor in force and the date.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_formats.py."""

from __future__ import annotations

import json
import sqlite3

import pytest

from supercoder.codec import plain
from supercoder.errors import UserError
from supercoder.runs.buildsearch.records import BuildProvenance
from supercoder.runs.evolve import EvolveProvenance
from supercoder.runs.identity import RunConfig
from supercoder.runs.metrics import summarize
from supercoder.runs.store import JSON_FORMAT_VERSION, Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import SUMMARY_FORMAT_VERSION, RunSummary
from supercoder.timing.meter import LEGACY_METHOD, LEGACY_PROTOCOL, METHOD, PROTOCOL
from supercoder.types import (
    VERDICT_FORMAT_VERSION,
    Candidate,
    Machine,
    Origin,
    Provenance,
    Speedup,
    Status,
    Verdict,
    VerdictContext,
)


def _verdict() -> Verdict:
    return Verdict(
        "p",
        Status.OK,
        speedup=Speedup(1.2, 1.1, 1.3, 8, 1),
        context=VerdictContext(provenance=Provenance(machine=Machine(cpu="x"))),
    )


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
    rows = {r.name: r for r in store.runs()}
    assert rows["new"].format_version == JSON_FORMAT_VERSION
    assert rows["other"].format_version == 1  # stored before versioning
    assert "format_version" not in rows["new"].options.extra  # not part of the identity
    assert store.open_run(RunConfig("compiler", "val", name="other"), {})  # an old run resumes
    store.close()


# an evolve answer's origin as the store kept it before ``Origin`` was typed (JSON format
# 2: every key its source set, nulls and falses too), with a key a plugin model added
OLD_ORIGIN = {
    "strategy": "evolve",
    "generation": 3,
    "sample": 1,
    "round": 3,
    "parents": [4, 2],
    "prompt_kind": "crossover",
    "island": 0,
    "model": "openai:m",
    "prompt_tokens": 812,
    "completion_tokens": 301,
    "cost_usd": None,
    "cached": False,
    "finish_reason": "stop",
    "answer": "diff",
    "program": 9,
    "vendor_trace": {"id": "abc", "steps": [1, 2]},
}


def test_an_origin_stored_before_it_was_typed_reads_back_and_keeps_every_key(tmp_path):
    db = tmp_path / "runs.sqlite"
    store = Store(db)
    store.open_run(RunConfig("compiler", "val", name="old"), {})
    store.record("old", "p", Attempt(1, 3, Candidate("x"), _verdict()), "digest")
    store.close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE attempts SET origin = ?", (json.dumps(OLD_ORIGIN),))
    raw.commit()
    raw.close()
    store = Store(db)
    [attempt] = store.attempts("old", "p")
    o = attempt.origin
    e = o.provenance  # the flat keys of format 2, read into the evolve provenance
    assert isinstance(e, EvolveProvenance) and o.of(BuildProvenance) is None
    assert (e.generation, e.parents, e.prompt_kind, e.island, e.program) == (
        3,
        (4, 2),
        "crossover",
        0,
        9,
    )
    assert (o.model, o.tokens, o.cost_usd, o.usd, o.answer) == ("openai:m", 1113, None, 0.0, "diff")
    assert e.duplicate_of is None and not e.final
    assert plain(o.extra) == {"vendor_trace": {"id": "abc", "steps": [1, 2]}}  # read-only
    with pytest.raises(TypeError):
        o.extra["vendor_trace"] = None  # type: ignore[index]  # a value is never changed
    store.record("old", "p", attempt, "digest")  # written again: no key is lost
    store.close()
    raw = sqlite3.connect(db)
    (again,) = raw.execute("SELECT origin FROM attempts").fetchone()
    raw.close()
    # the nulls and falses (a field's default) are left out and read back as themselves;
    # the provenance is one object now (format 3), every other key kept as it was
    kept = {k: v for k, v in OLD_ORIGIN.items() if v is not None and v is not False}
    evolve = ("generation", "parents", "prompt_kind", "island", "program")
    nested = {"kind": "evolve", **{k: kept.pop(k) for k in evolve}}
    del kept["strategy"]
    assert json.loads(again) == {**kept, "provenance": nested}
    assert Origin.from_json(json.loads(again)) == o


def test_an_origin_is_built_with_keywords_only():
    with pytest.raises(TypeError):
        Origin("openai:m")  # type: ignore[misc]
    with pytest.raises(ValueError, match="names a field: model"):
        Origin(extra={"model": "m"})  # a field is set by its keyword, never through extra
    o = Origin(
        model="compiler:gcc -O2", provenance=BuildProvenance(build="gcc -O2", flags=("-O2",))
    )
    assert Origin.from_json(json.loads(json.dumps(o.to_json()))) == o
    assert o.to_json() == {
        "model": "compiler:gcc -O2",
        "provenance": {"kind": "build", "build": "gcc -O2", "flags": ["-O2"]},
    }


# the compiler model's search as an earlier version kept it with its answer (before
# ``budget_note`` and ``unfinished``), one build screened and one chosen
OLD_SEARCH = {
    "chosen": "gcc -O2 -march=native",
    "cpu_seconds": 12.5,
    "budget": 120.0,
    "skipped_families": ["clang-pgo"],
    "note": "",
    "builds": [
        {
            "id": "o2n",
            "cc": "gcc",
            "flags": ["-O2", "-march=native"],
            "pgo": False,
            "family": "gcc-O2-native",
            "label": "gcc -O2 -march=native",
            "status": "chosen",
            "detail": "",
            "correct": True,
            "screen_speedup": 1.31,
            "halving_speedup": 1.28,
            "pairs": 24,
            "speedup": 1.27,
            "speedup_ci": [1.2, 1.33],
        },
        {"id": "o1", "label": "gcc -O1", "status": "wrong_output", "correct": False},
    ],
}


def test_a_stored_build_search_reads_as_typed_records():
    o = Origin.from_json({"model": "compiler:gcc -O2 -march=native", "search": OLD_SEARCH})
    build = o.of(BuildProvenance)
    assert build is not None
    s = build.search
    assert s is not None and (s.chosen, s.cpu_seconds, s.skipped_families) == (
        "gcc -O2 -march=native",
        12.5,
        ("clang-pgo",),
    )
    assert s.budget_note == "" and s.unfinished == () and not s.budget_spent  # not kept then
    chosen, wrong = s.builds
    assert (chosen.label, chosen.correct, chosen.speedup_ci) == (
        "gcc -O2 -march=native",
        True,
        (1.2, 1.33),
    )
    assert chosen.flags == ("-O2", "-march=native") and chosen.pairs == 24
    assert (wrong.status, wrong.correct, wrong.speedup, wrong.speedup_ci) == (
        "wrong_output",
        False,
        None,
        None,
    )
    again = Origin.from_json(json.loads(json.dumps(o.to_json())))
    kept = again.of(BuildProvenance)
    assert again == o and kept is not None and kept.search is not None
    assert kept.search.to_json()["builds"][0] == OLD_SEARCH["builds"][0]
