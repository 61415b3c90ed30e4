"""best-of-N and refinement with scripted models, the real evaluator and real gcc.

Also holds the small problems and scripted answers that test_runs / test_eval_cli use.
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import pytest

from supercoder.models.base import Sampling
from supercoder.models.scripted import ScriptedModel
from supercoder.problems.loading import load_problem, write_problem
from supercoder.prompting.prompts import extract_assembly
from supercoder.runs.strategies import (
    StrategyConfig,
    best_of_n,
    choose_best,
    make_verifier,
    refine,
    solve,
)
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import assemble, compile_to_asm
from supercoder.types import Candidate, Problem, Status, TestCase
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.executors import InlineExecutor, LocalExecutor
from tests.conftest import sandbox_or_skip
from tests.fakes.executors import watched
from tests.fakes.sizing import sized

# Count primes below n by trial division (slow at -O3) / with a sieve (same output).
SLOW_PRIMES = r"""/* problem: %s */
#include <stdio.h>
int main(void) {
    long n;
    if (scanf("%%ld", &n) != 1) return 1;
    long count = 0;
    for (long i = 2; i < n; i++) {
        int prime = 1;
        for (long d = 2; d * d <= i; d++) if (i %% d == 0) { prime = 0; break; }
        count += prime;
    }
    printf("%%ld\n", count);
    return 0;
}
"""
FAST_PRIMES = r"""#include <stdio.h>
static char composite[20000000];
int main(void) {
    long n;
    if (scanf("%ld", &n) != 1) return 1;
    long count = 0;
    for (long i = 2; i < n; i++) {
        if (composite[i]) continue;
        count++;
        for (long j = i * i; j < n; j += i) composite[j] = 1;
    }
    printf("%ld\n", count);
    return 0;
}
"""
WRONG = r"""#include <stdio.h>
int main(void) { puts("42"); return 0; }
"""
BROKEN = "```assembly\n\t.globl main\nmain:\n\tfrobnicate %eax, %ebx\n\tret\n```"
NO_ANSWER = "I am sorry, I cannot write assembly for this program."


def fence(asm: str) -> str:
    return f"Here it is:\n```assembly\n{asm}```"


@cache
def fast_answer() -> str:
    return fence(compile_to_asm(FAST_PRIMES))


@cache
def wrong_answer() -> str:
    return fence(compile_to_asm(WRONG))


def run_c(source: str, data: bytes, tmp: Path) -> bytes:
    binary = tmp / f"ref{abs(hash(source))}"
    assert assemble(compile_to_asm(source), binary).ok
    return subprocess.run([binary], input=data, capture_output=True, check=True).stdout


def timed_sizes() -> tuple[int, int]:
    """Two sizes whose -O3 baseline runs >= 4x the meter's cutoff on this machine."""
    n = sized(SLOW_PRIMES % "primes", start=20000, limit=10_000_000)
    return n, n * 3 // 2


def primes_problem(tmp: Path, name: str = "primes", sizes=None) -> Problem:
    """A problem whose -O3 build is ~10x slower than FAST_PRIMES on its tests (by default
    sized so that every test is timed on this machine)."""
    source = SLOW_PRIMES % name
    sizes = sizes or timed_sizes()
    tests = tuple(
        TestCase(f"t{i}", run_c(source, f"{n}\n".encode(), tmp), f"{n}\n".encode())
        for i, n in enumerate(sizes)
    )
    return Problem(name, source, tests)


def primes_dir(root: Path, name: str, sizes=None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return write_problem(primes_problem(root, name, sizes), root / name)


def untimed() -> CheckConfig:
    return CheckConfig(time=False)


def by_sample(*answers: str):
    return lambda messages, i: answers[i % len(answers)]


@pytest.fixture(scope="module")
def primes(tmp_path_factory) -> Problem:
    return primes_problem(tmp_path_factory.mktemp("primes"))


# --- best-of-N ---------------------------------------------------------------------


def test_best_of_n_picks_the_fast_correct_answer_over_broken_copy_and_wrong(primes):
    sandbox_or_skip()
    copy = fence(baseline_asm(primes))
    model = ScriptedModel(by_sample(BROKEN, copy, fast_answer(), wrong_answer(), NO_ANSWER))
    out = best_of_n(primes, model, n=5, verify=make_verifier(CheckConfig()))
    statuses = [a.verdict.status for a in sorted(out.attempts, key=lambda a: a.sample)]
    assert statuses == [
        Status.COMPILE_ERROR,
        Status.OK,
        Status.OK,
        Status.WRONG_OUTPUT,
        Status.NO_ANSWER,
    ]
    assert out.best is not None and out.best.sample == 2
    assert out.best.verdict.speedup.value > 1.5 and out.best.verdict.speedup.low > 1.0
    assert out.attempts[1].verdict.identical_to_baseline
    assert out.best.origin.model == "scripted" and out.best.origin.completion_tokens > 0
    assert len(model.calls) == 1  # one request for all N samples


def test_a_baseline_copy_never_wins_over_a_real_answer_even_untimed(primes):
    sandbox_or_skip()
    copy = fence(baseline_asm(primes))
    out = best_of_n(
        primes, ScriptedModel(by_sample(copy, fast_answer())), n=2, verify=make_verifier(untimed())
    )
    assert [a.verdict.correct for a in out.attempts] == [True, True]
    assert out.best.sample == 1 and not out.best.verdict.identical_to_baseline


def test_most_tests_passed_wins_among_incorrect_answers(tmp_path):
    sandbox_or_skip()
    # A program that is right on small inputs only: it prints 0 for n >= 50000.
    half = SLOW_PRIMES.replace("long count = 0;", "long count = 0; if (n >= 50000) n = 0;")
    problem = primes_problem(tmp_path, sizes=(100, 60000))
    model = ScriptedModel(by_sample(wrong_answer(), fence(compile_to_asm(half % "x"))))
    out = best_of_n(problem, model, n=2, verify=make_verifier(untimed()))
    assert [a.verdict.tests_passed for a in out.attempts] == [0, 1]
    assert out.best.sample == 1 and not out.best.verdict.correct


# --- refinement --------------------------------------------------------------------


def fixes_after_assembler_error(messages, i) -> str:
    """Broken first; fixed only when the feedback shows the assembler's complaint."""
    last = messages[-1]["content"]
    return fast_answer() if len(messages) > 1 and "frobnicate" in last else BROKEN


def test_refinement_turns_a_broken_answer_into_a_correct_one(primes):
    sandbox_or_skip()
    model = ScriptedModel(fixes_after_assembler_error)
    out = refine(primes, model, rounds=4, verify=make_verifier(untimed()))
    assert [a.verdict.status for a in out.attempts] == [Status.COMPILE_ERROR, Status.OK]
    assert [a.round for a in out.attempts] == [0, 1]  # stopped once correct
    second = model.calls[1]
    assert second[-2] == {"role": "assistant", "content": BROKEN}  # its own answer shown
    assert "assemble" in second[-1]["content"] and out.best.round == 1


def test_refinement_keeps_asking_when_the_feedback_does_not_help(primes):
    sandbox_or_skip()
    model = ScriptedModel(lambda messages, i: BROKEN if len(messages) < 3 else NO_ANSWER)
    out = refine(primes, model, rounds=3, verify=make_verifier(untimed()))
    assert [a.verdict.status for a in out.attempts] == [
        Status.COMPILE_ERROR,
        Status.NO_ANSWER,
        Status.NO_ANSWER,
    ]
    assert "did not contain an assembly program" in model.calls[2][-1]["content"]
    assert out.best is not None and not out.best.verdict.correct


def test_samples_times_rounds_chains_are_independent(primes):
    sandbox_or_skip()
    # chain 0 gets it right at once; chain 1 needs the feedback
    model = ScriptedModel(
        lambda m, i: fast_answer() if i == 0 else fixes_after_assembler_error(m, i)
    )
    out = solve(
        primes, model, StrategyConfig(Sampling(n=2), rounds=3), verify=make_verifier(untimed())
    )
    assert sorted((a.sample, a.round, a.verdict.correct) for a in out.attempts) == [
        (0, 0, True),
        (1, 0, False),
        (1, 1, True),
    ]


# --- infrastructure failures -------------------------------------------------------


def test_an_infra_failure_is_retried_once(primes):
    sandbox_or_skip()
    machine = watched(InlineExecutor(), fail_first=1)  # its first check finds no sandbox
    verify = make_verifier(untimed(), machine)
    out = best_of_n(primes, ScriptedModel(by_sample(fast_answer())), n=1, verify=verify)
    assert len(machine.checks) == 2
    assert out.best.verdict.correct and out.best.tries == 2 and out.dropped == 0


def test_a_repeated_infra_failure_is_dropped_not_scored(primes):
    machine = watched(InlineExecutor(), fail_first=2)
    verify = make_verifier(untimed(), machine)
    out = best_of_n(primes, ScriptedModel(by_sample(fast_answer())), n=1, verify=verify)
    assert out.dropped == 1 and out.best is None and choose_best(out.attempts) is None
    assert len(machine.checks) == 2 and out.attempts[0].tries == 2


# --- executors ---------------------------------------------------------------------


def square(x: int) -> int:
    return x * x


def test_local_executor_runs_jobs_in_processes_and_verifies_folder_problems(tmp_path):
    sandbox_or_skip()
    problem = load_problem(primes_dir(tmp_path, "pp"))
    with LocalExecutor(2) as executor:
        assert sorted(executor.map_unordered(square, [1, 2, 3])) == [(0, 1), (1, 4), (2, 9)]
        verify = make_verifier(untimed(), executor)
        answers = [NO_ANSWER, fast_answer(), BROKEN]
        candidates = [Candidate(extract_assembly(a)) for a in answers]
        got = {i: v for i, v, *_ in verify(problem, candidates)}
    assert [got[i].status for i in range(3)] == [Status.NO_ANSWER, Status.OK, Status.COMPILE_ERROR]


def test_the_chosen_faster_answer_is_re_checked_afresh_before_it_is_reported(primes):
    """The figure that picked an answer is the best of several noisy ones: the chosen
    significantly faster answer is verified and timed again, and the fresh verdict is
    what the outcome reports (checks: 2; the first check kept beside it)."""
    sandbox_or_skip()
    real, seen = make_verifier(CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=4))), []

    def counting(problem, candidates):
        seen.extend(c.asm for c in candidates)
        yield from real(problem, candidates)

    copy = fence(baseline_asm(primes))
    model = ScriptedModel(by_sample(copy, fast_answer()))
    out = best_of_n(primes, model, n=2, verify=counting)
    fast = extract_assembly(fast_answer())
    assert seen.count(fast) == 2 and seen.count(extract_assembly(copy)) == 1
    best = out.best
    assert best.sample == 1 and best.verdict.context.measurement.checks == 2
    assert best.verdict.context.measurement.first_check.value > 1.5
    # each figure keeps the load it was timed under: a busier or quieter machine is seen
    measured = best.verdict.context.measurement
    assert measured.load is not None and measured.first_check_load is not None
    assert best.verdict.speedup.value > 1.5 and best.verdict.significantly_faster
    assert out.attempts[0].verdict.context.measurement.checks == 1  # the copy: one check
