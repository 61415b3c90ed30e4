"""A run stopped at its wall limit while it mostly waited for a CPU is the machine's
failure (a busy machine: freebench pifft's 5.6 s of CPU took 24 s of wall at load 11 on
2 cores, past a check's 25 s), so the sandbox runs it again with a longer wall limit;
a program that used its CPU, or slept, or whose waiting is unknown, is not."""

from __future__ import annotations

from supercoder.sandbox.box import RunResult, starved


def _run(outcome: str, cpu: float, wall: float, blocked: float) -> RunResult:
    return RunResult(outcome, -1, 9, b"", b"", cpu, wall, 0, 0, 0, blocked, 10.0, 25.0)


def test_a_run_that_waited_for_a_cpu_past_its_wall_limit_was_starved():
    assert starved(_run("timeout", 5.6, 25.0, 0.2))


def test_a_slow_sleeping_or_finished_run_or_one_of_unknown_waiting_was_not():
    assert not starved(_run("timeout", 9.5, 25.0, 0.0))  # it used its CPU limit
    assert not starved(_run("timeout", 5.6, 25.0, 15.0))  # it slept (blocked)
    assert not starved(_run("timeout", 5.6, 25.0, -1.0))  # unknown: no retry
    assert not starved(_run("exited", 5.6, 24.0, 0.0))  # it finished
    assert not starved(_run("timeout", 14.0, 25.0, 0.0))  # most of the wall on the CPU
