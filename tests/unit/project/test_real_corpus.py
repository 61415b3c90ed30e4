"""benchmarks/real_corpus.py reads each command's outcome as it happened: a step the
program's ``--timeout`` cut short is a timeout with its cause (never ``error: None``),
and a stage ``--stages`` left out is marked skipped, not mistaken for one never reached."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _runner():
    name = "real_corpus_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "real_corpus.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _record(**stages):
    base = {
        "name": "slow",
        "kind": ["argv-size"],
        "init": {"ok": True, "rc": 0, "line": "created"},
        "timed": {"status": "ok", "correct": True, "timed": True, "speedup": 1.0, "message": ""},
        "seconds": 300.0,
    }
    return {**base, **stages}


def test_a_check_cut_by_the_programs_timeout_reads_as_a_timeout():
    rc = _runner()
    step = rc.Step(None, "", 9.0)  # what Runner returns when the deadline passes
    why = rc.step_error(step, 300)
    assert why.startswith("timed out") and "300 s" in why and "--timeout" in why
    rec = _record(
        eval={"rc": 0, "status": "ok", "speedup": 1.07, "ci": [1.05, 1.08], "timed": True},
        check={"status": "error", "why": why, "rc": None, "seconds": 9.0},
    )
    assert rc.cell_check(rec) == "timeout"
    assert "None" not in rc.why(rec) and "timed out" in rc.why(rec)
    assert "timeout" in rc.table([rec]).splitlines()[1]


def test_a_failed_step_without_a_message_says_its_exit_code():
    rc = _runner()
    assert rc.step_error(rc.Step(3, "", 1.0), 600) == "exit code 3 and no message"
    assert rc.step_error(rc.Step(2, "x\nerror: bad flag\n", 1.0), 600) == "error: bad flag"


def test_a_baseline_check_that_timed_out_is_named_as_such():
    rc = _runner()
    rec = _record(timed={"status": "error", "why": "timed out: ...", "rc": None})
    assert rc.cell_timed(rec) == "timeout"
    assert rc.why(rec).startswith("the baseline's check: timed out")


def test_stages_left_out_are_skipped_not_missing():
    rc = _runner()
    rec = _record(stages=["init", "timed"])
    assert rc.cell_eval(rec) == "(skipped)" and rc.cell_check(rec) == "(skipped)"
    # an older record (no stages kept) and a stage never reached still read '-'
    assert rc.cell_eval(_record()) == "-"
    reached = _record(stages=["check", "eval", "init", "timed"])
    assert rc.cell_eval(reached) == "-"
