"""The verification service on a real bundled problem: real gcc, the real sandbox.

Duplicates are verified once, a wrong program is wrong, machine trouble (no sandbox)
is retried exactly ``infra_retries`` times and then reported as such, never as wrong;
inline, through a process pool, and through the default path.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from supercoder.errors import UserError
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.settings import ProblemSettings
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Candidate, Origin, Status
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.executors import InlineExecutor, LocalExecutor
from supercoder.verify.reward import score_verdict
from supercoder.verify.service import (
    VerifyConfig,
    run_job,
    verify_answers,
    verify_candidates,
    verify_stream,
)
from tests.conftest import sandbox_or_skip
from tests.fakes.executors import NO_SANDBOX, watched

UNTIMED = VerifyConfig(CheckConfig(time=False))
WRONG_C = '#include <stdio.h>\nint main(void) { puts("0 0 0"); return 0; }\n'


@pytest.fixture(scope="module")
def problem():
    return load_problem(BUNDLED_ROOT / "num_gcd_pairs")


@pytest.fixture(scope="module")
def programs(problem) -> dict[str, str]:
    """A correct program that is not the baseline (-O1), a wrong one, the baseline."""
    return {
        "good": compile_to_asm(problem.source, ("-O1",)),
        "wrong": compile_to_asm(WRONG_C, ("-O2",)),
        "copy": baseline_asm(problem),
    }


@pytest.fixture
def no_sandbox(monkeypatch, problem):
    """A machine without bubblewrap, for real: it is not on PATH (this process and the
    workers it spawns from now on; the baseline is cached first, gcc is not needed)."""
    from supercoder.sandbox.bwrap import isolation_status

    baseline_asm(problem)
    monkeypatch.setenv("PATH", "/nonexistent")
    isolation_status.cache_clear()
    yield
    isolation_status.cache_clear()  # recomputed with the real PATH on next use


def test_duplicates_are_verified_once_and_every_copy_gets_the_verdict(problem, programs):
    sandbox_or_skip()
    machine = watched(InlineExecutor())
    asms = [programs[k] for k in ("good", "wrong", "good", "copy", "wrong")]
    candidates = [Candidate(a, Origin(sample=i)) for i, a in enumerate(asms)]
    got = list(verify_stream(problem, candidates, UNTIMED, machine))
    assert len(machine.checks) == 3 and sorted(c.index for c in got) == [0, 1, 2, 3, 4]
    by_index = {c.index: c for c in got}
    statuses = [by_index[i].verdict.status for i in range(5)]
    assert statuses == [Status.OK, Status.WRONG_OUTPUT, Status.OK, Status.OK, Status.WRONG_OUTPUT]
    assert (
        by_index[3].verdict.identical_to_baseline and not by_index[0].verdict.identical_to_baseline
    )
    assert score_verdict(by_index[1].verdict) == 0.0  # wrong is scored wrong
    assert all(c.tries == 1 and c.seconds > 0 for c in got)
    assert by_index[0].seconds == by_index[2].seconds  # the one run, reported to both


def test_a_process_pool_gives_the_inline_verdicts_for_a_folder_problem(problem, programs):
    sandbox_or_skip()
    answers = [f"```assembly\n{programs[k]}```" for k in ("good", "wrong", "good")]
    answers.append("no program here")
    inline = verify_answers([problem] * 4, answers, UNTIMED, InlineExecutor())
    with LocalExecutor(2) as pool:
        pooled = verify_answers([problem] * 4, answers, UNTIMED, pool)
    default = verify_answers([problem] * 4, answers, UNTIMED)  # the shared local pool
    expected = [Status.OK, Status.WRONG_OUTPUT, Status.OK, Status.NO_ANSWER]
    for verdicts in (inline, pooled, default):
        assert [v.status for v in verdicts] == expected
        assert [v.problem for v in verdicts] == [problem.name] * 4


def test_infra_failures_are_retried_exactly_infra_retries_times(problem, programs):
    sandbox_or_skip()
    machine = watched(InlineExecutor(), fail_first=1)
    (only,) = verify_stream(problem, [programs["good"]], UNTIMED, machine)
    assert (
        len(machine.checks) == 2 and only.tries == 2 and only.verdict.correct
    )  # default: one retry

    machine.reset(fail_first=100)
    config = replace(UNTIMED, infra_retries=3)
    pair = [programs["good"], programs["wrong"]]
    got = list(verify_stream(problem, pair, config, machine))
    assert len(machine.checks) == 2 * 4  # each of the two: the first try and three retries
    assert {c.index for c in got} == {0, 1} and all(c.tries == 4 for c in got)
    for checked in got:
        assert checked.verdict.status is Status.INFRA_ERROR
        assert checked.verdict.message == f"InfraError: {NO_SANDBOX}"
        assert score_verdict(checked.verdict) is None  # dropped: no reward, never 0

    machine.reset(fail_first=100)
    never = verify_candidates(
        problem, [programs["good"]], replace(UNTIMED, infra_retries=0), machine
    )
    assert len(machine.checks) == 1 and never[0].is_infra_failure


@pytest.mark.parametrize("where", ["inline", "pool"])
def test_a_machine_without_a_sandbox_is_infra_never_wrong(problem, programs, no_sandbox, where):
    config = replace(UNTIMED, infra_retries=2)
    candidates = [programs["wrong"], programs["good"], programs["wrong"]]
    if where == "inline":
        got = list(verify_stream(problem, candidates, config, InlineExecutor()))
    else:
        with LocalExecutor(2) as pool:  # workers spawned now: no bubblewrap on their PATH
            got = list(verify_stream(problem, candidates, config, pool))
    assert sorted(c.index for c in got) == [0, 1, 2]
    for checked in got:
        assert checked.tries == 3, checked
        assert checked.verdict.status is Status.INFRA_ERROR
        assert "bubblewrap is not installed" in checked.verdict.message
        assert score_verdict(checked.verdict) is None


def test_a_broken_problem_raises_its_user_error_and_is_not_retried(problem, programs):
    sandbox_or_skip()
    # C that does not compile: no baseline can be built (a carried baseline.s is never
    # the yardstick: the reader builds it)
    broken = replace(
        problem, source="int main(void) { this is not C; }\n", settings=ProblemSettings()
    )
    machine = watched(InlineExecutor())
    with pytest.raises(UserError, match="error"):
        verify_candidates(broken, [programs["good"]], UNTIMED, machine)
    assert len(machine.checks) == 1


def test_the_job_never_raises(problem):
    from supercoder.verify.service import Job

    missing = run_job(Job("gone", None, "/nonexistent/problem", "main:\n", CheckConfig()))
    assert missing.problem_error and "not a folder" in missing.problem_error
    bug = run_job(Job(problem.name, problem, None, "main:\n", "not a config"))
    assert bug.verdict.status is Status.INFRA_ERROR and bug.problem_error is None
    assert bug.verdict.message.startswith("AttributeError: ")


def test_the_trl_reward_follows_the_same_policy(problem, programs):
    sandbox_or_skip()
    from supercoder.training.trl_reward import make_trl_reward
    from supercoder.verify.reward import RewardConfig

    config = RewardConfig("paper", eval_config=UNTIMED.eval)  # untimed: the paper pays 1.0
    machine = watched(InlineExecutor(), fail_first=1)
    reward = make_trl_reward([problem], config, machine)
    answer = [{"role": "assistant", "content": f"```assembly\n{programs['good']}```"}]
    assert reward(completions=[answer], problem=[problem.name]) == [1.0]  # retried once
    assert len(machine.checks) == 2
    machine.reset(fail_first=2)
    assert reward(completions=[answer], problem=[problem.name]) == [None]  # then no reward
    assert len(machine.checks) == 2


def test_the_cascade_times_only_correct_distinct_programs_grouped_per_problem(problem, programs):
    """A GRPO-like batch on two problems: failures and copies never reach timing, a
    program that differs only in comments is timed once, and each problem's
    programs share one timing session."""
    sandbox_or_skip()
    from supercoder.timing.meter import MeterConfig
    from supercoder.verify.reward import RewardConfig, verify_batch

    other = load_problem(BUNDLED_ROOT / "num_divisors")
    machine = watched(InlineExecutor())
    o2 = compile_to_asm(problem.source, ("-Os",))
    commented = "# the same program, other words\n" + programs["good"]
    batch = [
        (problem, programs["good"]),
        (problem, commented),
        (problem, o2),
        (problem, programs["copy"]),
        (problem, programs["wrong"]),
        (problem, programs["good"]),
        (other, compile_to_asm(other.source, ("-O1",))),
        (other, baseline_asm(other)),
    ]
    fast = CheckConfig(meter=MeterConfig(min_pairs=2, max_pairs=2, max_repeats=1))
    config = RewardConfig(eval_config=fast)
    texts = [f"```assembly\n{asm}```" for _, asm in batch]
    verdicts = verify_batch([p for p, _ in batch], texts, config, machine)
    assert len(machine.checks) == 7  # every distinct text is checked (the exact duplicate once)
    assert sorted(len(s) for s in machine.sessions) == [1, 2]  # good+o2 together, other's -O1
    statuses = [v.status for v in verdicts]
    assert statuses == [Status.OK] * 4 + [Status.WRONG_OUTPUT, Status.OK, Status.OK, Status.OK]
    timed = [v.speedup is not None for v in verdicts]
    assert timed == [True, True, True, False, False, True, True, False]  # no copy timed
    assert verdicts[0] == verdicts[1] == verdicts[5]  # one timing for the same program
    assert verdicts[3].identical_to_baseline and score_verdict(verdicts[3], config) == 0.0


def test_a_caller_that_reports_copies_still_times_them(problem, programs):
    sandbox_or_skip()
    from supercoder.timing.meter import MeterConfig

    machine = watched(InlineExecutor())
    fast = VerifyConfig(CheckConfig(meter=MeterConfig(min_pairs=2, max_pairs=2, max_repeats=1)))
    got = verify_candidates(problem, [programs["copy"], programs["good"]], fast, machine)
    assert machine.sessions == [[problem.name] * 2]
    assert all(v.speedup is not None for v in got) and got[0].identical_to_baseline


def test_a_lone_problem_s_programs_fill_the_idle_timing_slots(problem, programs, monkeypatch):
    """Four programs of one problem on a machine with two free slots: two sessions of
    two, one per slot (each still shares its baseline runs); run inline (one session at
    a time), one session of four."""
    sandbox_or_skip()
    from supercoder.timing.meter import MeterConfig
    from supercoder.timing.slots import timing_slot
    from supercoder.verify.executors import ThreadExecutor

    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "2")
    asms = [programs["good"]] + [compile_to_asm(problem.source, (f,)) for f in ("-Os", "-O2")]
    asms.append(compile_to_asm(problem.source, ("-O3", "-funroll-loops")))
    fast = VerifyConfig(CheckConfig(meter=MeterConfig(min_pairs=2, max_pairs=2, max_repeats=1)))
    threads, inline = watched(ThreadExecutor(2)), watched(InlineExecutor())
    got = verify_candidates(problem, asms, fast, threads)
    assert sorted(len(s) for s in threads.sessions) == [2, 2]
    assert all(v.correct and v.speedup is not None for v in got)
    verify_candidates(problem, asms, fast, inline)
    assert [len(s) for s in inline.sessions] == [4]
    threads.reset()  # another caller is timing in one of the two slots: no halving
    with timing_slot():
        verify_candidates(problem, asms, fast, threads)
    assert [len(s) for s in threads.sessions] == [4]
