"""The evolutionary search through a real loopback OpenAI-compatible server, the real
sandbox, the real meter and a real SQLite store.

The scripted *chain* model (tests/fakes/chain.py), asked to improve version k of a
program, answers version k + 1 (about one answer in four wrong on purpose, seeded), and
each version repeats the work 4x less often than the one before, so it is measurably
faster. With the same answer budget, evolve climbs the chain; best-of-N, always shown
the baseline, can only reach version 1.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_evolve.py."""

from __future__ import annotations

from supercoder.runs.programs import ProgramDB, baseline_program, faster_than
from supercoder.types import Speedup, Status, Verdict


def test_noise_aware_selection():
    def sp(value, half):
        return Speedup(value, value * (1 - half), value * (1 + half), 10, 1)

    assert faster_than(sp(2.0, 0.02), sp(1.5, 0.02))
    assert not faster_than(sp(1.52, 0.02), sp(1.5, 0.02))  # within noise: no displacement
    assert not faster_than(sp(3.0, 0.6), sp(1.5, 0.02))  # a lucky, wide measurement
    base = baseline_program("p", "\t.globl main\nmain:\n\tret\n")
    db = ProgramDB(2).add(base)
    ok = Verdict("p", Status.OK, speedup=sp(2.0, 0.02))
    child = base.__class__(1, "x", "d1", (0,), 1, 0, 1, "improve", "m", ok)
    db = db.add(child)
    assert db.best == {0: 0, 1: 1}  # only its island
    lucky = base.__class__(
        2, "y", "d2", (1,), 1, 1, 1, "improve", "m", Verdict("p", Status.OK, speedup=sp(2.03, 0.02))
    )
    db = db.add(lucky)
    assert db.best[1] == 1  # not significantly faster than the incumbent
    assert db.migrate().best == {0: 1, 1: 1}
    # a re-measurement that fails demotes the elite
    db = db.remeasure(1, Verdict("p", Status.WRONG_OUTPUT))
    assert db.best[1] == 2 and db.best[0] == 0
