"""A resumed eval ends with exactly the attempts an uninterrupted one stores: a kill
between two attempts of one problem loses nothing and skips nothing (issue 36)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, replace

import pytest

from supercoder.problems.loading import load_problem
from supercoder.runs.buildsearch import build_search, builds_settings
from supercoder.runs.buildsearch.records import BuildProvenance
from supercoder.runs.store import RunJournal, Store
from supercoder.runs.strategies import Attempt, make_verifier
from supercoder.types import Candidate, Origin, Speedup
from supercoder.verify.evaluate import CheckConfig
from tests.conftest import make_sum_problem, sandbox_or_skip


def _rows(db) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return sorted(
            con.execute("SELECT problem, sample, round, status, created FROM attempts").fetchall()
        )
    finally:
        con.close()


def _count(db) -> int:
    try:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT count(*) FROM attempts").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not created yet
        return 0


@dataclass
class _KilledJournal(RunJournal):
    """The run's journal, with the process "killed" right after the ``after``-th
    attempt is committed (what a SIGKILL at that moment leaves in the store)."""

    after: int = 1

    def record(self, problem: str, attempt: Attempt) -> None:
        super().record(problem, attempt)
        self.after -= 1
        if self.after == 0:
            raise KeyboardInterrupt


def test_an_untimed_build_search_killed_between_two_attempts_resumes_to_the_same_end(tmp_path):
    """The build search checks its builds two at a time until one is correct: killed
    after the first of a pair was stored, a rerun used to keep that one alone (1 attempt
    where the uninterrupted run has 2). Now it checks the one left and stops as before."""
    sandbox_or_skip()
    problem = load_problem(make_sum_problem(tmp_path / "sum"))
    settings = builds_settings()  # what eval asks
    verify = make_verifier(CheckConfig(time=False))

    whole = Store(tmp_path / "whole.sqlite")
    full = build_search(problem, settings, verify=verify, journal=RunJournal(whole, "r"))
    expected = [(a.sample, a.round, a.verdict.status) for a in full.attempts]
    assert len(expected) == 2  # one pair, the first build correct: the search stops there

    store = Store(tmp_path / "killed.sqlite")
    with pytest.raises(KeyboardInterrupt):
        build_search(problem, settings, verify=verify, journal=_KilledJournal(store, "r"))
    (kept,) = store.attempts("r", problem.name)
    resumed = build_search(problem, settings, verify=verify, journal=RunJournal(store, "r"))
    assert [(a.sample, a.round, a.verdict.status) for a in resumed.attempts] == expected
    again = store.attempts("r", problem.name)
    assert [(a.sample, a.verdict.status) for a in again] == [(s, st) for s, _, st in expected]
    assert again[0].candidate.asm == kept.candidate.asm  # the stored one, not rebuilt anew


def test_a_timed_search_killed_after_it_chose_finishes_its_answers_without_searching(
    tmp_path, monkeypatch
):
    """Timed, the search stores its chosen build (attempt 0), then the -O3 fallback
    (attempt 1), then re-checks the answer: killed in between, a rerun finishes those
    steps (the fallback checked, the answer confirmed) instead of ending one attempt
    short, and does not search again."""
    sandbox_or_skip()
    import supercoder.runs.buildsearch.strategy as bs
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.toolchain.gcc import compile_to_asm
    from supercoder.verify.evaluate import evaluate

    problem = load_problem(make_sum_problem(tmp_path / "sum"))
    store = Store(tmp_path / "runs.sqlite")
    journal = RunJournal(store, "r")
    journal.baseline(problem.name, baseline_asm(problem))
    origin = Origin(provenance=BuildProvenance(build="gcc -O1", family="gcc", flags=("-O1",)))
    asm = compile_to_asm(problem.source, ("-O1",))
    checked = evaluate(problem, asm, CheckConfig())  # every test the search's check ran
    chosen = replace(checked, speedup=Speedup(1.5, 1.4, 1.6, 30, 3))  # as the search measured
    assert chosen.significantly_faster and not chosen.identical_to_baseline
    journal.record(problem.name, Attempt(0, 0, Candidate(asm, origin), chosen, tries=1))

    def no_search(*args, **kw):
        raise AssertionError("a resumed search that had chosen must not search again")

    monkeypatch.setattr(bs, "search_builds", no_search)
    verify = make_verifier(CheckConfig(time=True))
    out = build_search(problem, builds_settings(), verify=verify, journal=journal)
    stored = store.attempts("r", problem.name)
    assert [(a.sample, a.round) for a in stored] == [(0, 0), (1, 0)]
    assert bs.build_of(stored[1].origin).family == "baseline" and stored[1].verdict.correct
    assert stored[0].verdict.context.measurement.checks == 2  # re-checked afresh, as uninterrupted
    assert [(a.sample, a.round) for a in out.attempts] == [(0, 0), (1, 0)]


def test_eval_stopped_by_sigterm_and_rerun_stores_what_an_uninterrupted_eval_stores(tmp_path):
    """The reported case: ``eval --no-time`` stopped by SIGTERM right after its first
    attempt was committed (waited on as a row in the store, not on time), then rerun
    with the same command, ends with the same attempts as an eval never stopped, and
    the attempt stored before the stop is kept as it was (not checked again)."""
    sandbox_or_skip()
    bench = tmp_path / "bench"
    for name in ("s1", "s2"):
        make_sum_problem(bench / name, hidden=False)

    def args(db):
        return [
            sys.executable,
            "-m",
            "supercoder.cli",
            "eval",
            "--benchmark",
            str(bench),
            "--no-time",
            "--concurrency",
            "1",
            "--run",
            "r",
            "--db",
            str(db),
        ]

    whole, stopped = tmp_path / "whole.sqlite", tmp_path / "stopped.sqlite"
    done = subprocess.run(args(whole), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    proc = subprocess.Popen(args(stopped), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while _count(stopped) < 1 and proc.poll() is None:
            time.sleep(0.002)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err.decode()
    before = _rows(stopped)
    assert before and len(before) < len(_rows(whole))
    again = subprocess.run(args(stopped), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    after = _rows(stopped)
    assert [r[:4] for r in after] == [r[:4] for r in _rows(whole)]
    assert set(before) <= set(after)  # what was stored stays as it was
