"""Everything a run holds is bounded and released; a run's wall time is bounded too.

Before: ``vmsplice`` of one 4 KiB slice of a huge page kept the whole 2 MiB page in a
pipe after ``munmap`` (30 pipes x 16 slots held 960 MiB under ``--memory-mb 64``),
``F_SETPIPE_SZ`` grew pipes past the default, one run could take the host's whole
``fs.aio-max-nr`` (``io_setup(65536)``), inotify instances count against a per-host-user
quota; and a candidate that slept after answering kept its verdict (sleep costs no CPU
time) while holding the machine-wide timing slot: 37-63 s for a 3 s check. Now seccomp
refuses those calls, and a run asleep or blocked past its allowance is stopped.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from supercoder.sandbox.box import Limits, open_sandbox
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.adversarial.test_adversarial import CONFIG, LIMITS, fixture_asm, problem, refused

__all__ = ["problem"]  # the module-scoped fixture, shared


@pytest.mark.parametrize(
    "kind",
    [0, 1, 2, 3, 4, 5],
    ids=["vmsplice", "setpipe_sz", "io_setup", "inotify", "timer_create", "sigqueue"],
)
def test_kernel_memory_outside_the_limit_is_refused(problem, kind):
    verdict = evaluate(problem, fixture_asm("kernel_memory", f"KIND={kind}"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_a_candidate_that_sleeps_is_a_timeout_not_a_slot_holder(problem):
    config = CheckConfig(limits=LIMITS)
    start = time.monotonic()
    verdict = evaluate(problem, fixture_asm("sleep_in_slot", "NAP_MS=200"), config)
    took = time.monotonic() - start
    assert verdict.status is Status.TIMEOUT, (verdict.status, verdict.message)
    assert "slept" in verdict.message
    assert took < 20, took  # the allowance (2 s asleep per binary) plus honest work


def test_one_long_nap_is_stopped_at_the_per_run_allowance(problem):
    limits = replace(LIMITS, cpu_seconds=2.0, wall_seconds=30.0, idle_seconds=0.3)
    verdict = evaluate(
        problem, fixture_asm("sleep_in_slot", "NAP_MS=10000"), replace(CONFIG, limits=limits)
    )
    assert verdict.status is Status.TIMEOUT
    first = verdict.tests[0]
    assert "sleeping" in first.detail and first.candidate_seconds is not None


def test_honest_runs_are_not_called_asleep(problem, tmp_path):
    """The honest sum, many times: blocked time (~0.1 ms a run here) stays far below the
    allowance (2 s for all runs of a binary in a sandbox, 1 s a run)."""
    from supercoder.toolchain.baseline import baseline_asm, baseline_binary

    binary = baseline_binary(baseline_asm(problem), tmp_path)
    data = problem.tests[-2].read_input()
    with open_sandbox({"candidate": binary}, Limits(idle_total_seconds=1.0)) as box:
        runs = [box.run("candidate", data) for _ in range(40)]
    assert all(r.outcome == "exited" for r in runs), {r.outcome for r in runs}
    blocked = [r.blocked_seconds for r in runs]
    assert min(blocked) >= 0 and sum(blocked) < 0.5, blocked


def test_a_sandbox_is_charged_to_a_memory_cgroup_of_its_own(problem, tmp_path):
    """Where the machine has a cgroup v1 memory controller we may use (CI, as root),
    kernel memory a sandbox makes the kernel hold is charged to a cgroup of its own,
    capped at its memory limit plus a margin, and removed with the sandbox."""
    from supercoder.sandbox.cgroup import MARGIN_MB, make_memory_cgroup, remove_cgroup
    from supercoder.toolchain.baseline import baseline_asm, baseline_binary

    probe = make_memory_cgroup(64, None)
    if probe is None:
        pytest.skip("no cgroup v1 memory controller we may use here (seccomp is the wall)")
    remove_cgroup(probe)
    binary = baseline_binary(baseline_asm(problem), tmp_path)
    with open_sandbox({"candidate": binary}, Limits(memory_mb=128)) as box:
        folder = box._cgroup
        assert folder is not None and folder.is_dir()
        assert int((folder / "memory.limit_in_bytes").read_text()) == (128 + MARGIN_MB) << 20
        assert box.run("candidate", problem.tests[0].read_input()).outcome == "exited"
        assert len((folder / "cgroup.procs").read_text().split()) >= 2  # bwrap, the runner
    assert not folder.exists()


@pytest.mark.parametrize(
    ("fixture", "define", "limits"),
    [
        (
            "sleep_in_slot",
            "NAP_MS=3000",
            Limits(cpu_seconds=2.0, wall_seconds=20.0, idle_seconds=0.2, idle_total_seconds=0.4),
        ),
        ("infinite_loop", "UNUSED=1", Limits(cpu_seconds=0.3, wall_seconds=5.0)),
    ],
    ids=["asleep", "wall-or-cpu"],
)
def test_a_run_stopped_at_its_limit_while_timed_is_a_timeout(
    problem, tmp_path, fixture, define, limits
):
    """A candidate run stopped at its limit during timing (asleep past its allowance, or
    past its CPU/wall limit) reads as a timeout on a drawn input, never as "output
    changed": the meter carries how the run ended. Before: the verdict read the
    sandbox's sleeping allowance after timing, which the baseline's own blocking (a
    loaded machine) could raise again, so a sleeper read ``wrong_output``."""
    from supercoder.timing.meter import Meter, MeterConfig
    from supercoder.toolchain.baseline import baseline_asm, baseline_binary
    from supercoder.toolchain.gcc import assemble
    from supercoder.types import TestResult, UnseenResult, VerdictContext
    from supercoder.verify.evaluate import _timed_verdict

    base = baseline_binary(baseline_asm(problem), tmp_path)
    cand = assemble(fixture_asm(fixture, define), tmp_path / "cand")
    assert cand.ok and cand.binary is not None
    test = problem.tests[-1]
    tests = [("unseen/u1", test.run_input(), test.expected)]
    meter = Meter(MeterConfig(min_pairs=2, max_pairs=2, placements=1))
    with open_sandbox({"baseline": base, "candidate": cand.binary}, limits) as box:
        (cmp,) = meter.compare_group(box, tests, ["candidate"])
    assert cmp.mismatch and cmp.mismatch_outcome in ("idle", "timeout"), cmp
    verdict = _timed_verdict(
        problem,
        [TestResult(t.name, Status.OK) for t in problem.tests if not t.hidden],
        cmp,
        False,
        VerdictContext(),
        0.0,
        frozenset({"unseen/u1"}),
        UnseenResult(1, Status.OK),
    )
    assert verdict.status is Status.TIMEOUT, (verdict.status, verdict.message)
    assert verdict.unseen.status is Status.TIMEOUT
    assert "output changed" not in verdict.message
