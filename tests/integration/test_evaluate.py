"""The evaluator's verdicts: every status, gross speedups, honest statistics."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.sandbox.box import Limits
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import asm_digest, assemble, compile_to_asm
from supercoder.types import Status, Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import paper_reward
from tests.conftest import sandbox_or_skip
from tests.fakes.sizing import sized

SLOW = r"""
#include <stdio.h>
int main(void) {
    int n; long long cnt = 0;
    if (scanf("%d", &n) != 1) return 0;
    for (int i = 2; i <= n; i++) {
        int p = 1;
        for (int d = 2; d < i; d++) if (i % d == 0) { p = 0; break; }
        cnt += p;
    }
    printf("%lld\n", cnt);
    return 0;
}
"""
FAST = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n; long long cnt = 0;
    if (scanf("%d", &n) != 1) return 0;
    if (n < 2) { printf("0\n"); return 0; }
    char *c = calloc(n + 1, 1);
    for (long long i = 2; i <= n; i++)
        if (!c[i]) { cnt++; for (long long j = i * i; j <= n; j += i) c[j] = 1; }
    printf("%lld\n", cnt);
    return 0;
}
"""
SLOWER = SLOW.replace(
    "for (int i = 2; i <= n; i++) {",
    "for (int rep = 0; rep < 3; rep++)\n    for (int i = 2; i <= n; i++) {",
).replace('printf("%lld\\n", cnt)', 'printf("%lld\\n", cnt / 3)')
WRONG = FAST.replace("cnt++;", "cnt += 2;")
CRASH = FAST.replace("char *c = calloc(n + 1, 1);", "char *c = 0;")


def prime_count(n: int) -> int:
    """How many primes are <= n (what SLOW and FAST print)."""
    if n < 2:
        return 0
    sieve = bytearray([1]) * (n + 1)
    sieve[0:2] = b"\0\0"
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytes(len(range(i * i, n + 1, i)))
    return sum(sieve)


@cache
def timed_sizes() -> tuple[int, int]:
    """Two sizes whose -O3 baseline of SLOW runs >= 4x the meter's cutoff here."""
    n = sized(SLOW, start=5000, limit=2_000_000)
    return n, n * 5 // 4


def primes_tests() -> dict[int, int]:
    """Three tiny tests (never timed) and the two timed sizes, with their prime counts."""
    return {n: prime_count(n) for n in (1, 10, 100, *timed_sizes())}


CONFIG = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=6))


@pytest.fixture(scope="module")
def primes(tmp_path_factory) -> Path:
    sandbox_or_skip()
    folder = tmp_path_factory.mktemp("primes") / "primes"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SLOW)
    for n, count in primes_tests().items():
        (folder / "tests" / f"n{n}.in").write_text(f"{n}\n")
        (folder / "tests" / f"n{n}.out").write_text(f"{count}\n")
    return folder


def test_faster_candidate_reads_faster(primes):
    verdict = evaluate(load_problem(primes), compile_to_asm(FAST), CONFIG)
    assert verdict.status is Status.OK and verdict.correct
    assert verdict.speedup.value > 1.5 and verdict.speedup.low > 1.0
    assert paper_reward(verdict) == pytest.approx(verdict.speedup.value)
    # timed only on inputs the model never saw (no hidden tests here: drawn ones),
    # reported together; the visible tests are listed one by one, none of them timed
    unseen = verdict.unseen
    assert unseen is not None and unseen.status is Status.OK and unseen.timed > 0
    assert unseen.baseline_seconds > 0.01 * unseen.timed and unseen.long_enough
    assert [t.name for t in verdict.tests] == [f"n{n}" for n in primes_tests()]
    assert not any(t.timed for t in verdict.tests)
    assert "drawn for this check" in verdict.context.measurement.timing
    assert (
        verdict.context.provenance.machine.gcc.startswith("gcc")
        and verdict.context.measurement.pairs >= 3
    )


def test_slower_candidate_reads_slower(primes):
    verdict = evaluate(load_problem(primes), compile_to_asm(SLOWER), CONFIG)
    assert verdict.status is Status.OK
    assert verdict.speedup.value < 0.67 and verdict.speedup.high < 1.0
    assert verdict.paper_speedup >= 1.0  # the paper's clamp hides the slowdown


def test_same_binary_reads_one_and_is_not_rewarded(primes):
    problem = load_problem(primes)
    verdict = evaluate(problem, baseline_asm(problem), CONFIG)
    assert verdict.status is Status.OK and verdict.identical_to_baseline
    assert 0.8 < verdict.speedup.value < 1.25
    assert paper_reward(verdict) == 0.0


@pytest.mark.parametrize(
    ("source", "status"),
    [(WRONG, Status.WRONG_OUTPUT), (CRASH, Status.RUNTIME_ERROR)],
)
def test_failures(primes, source, status):
    verdict = evaluate(load_problem(primes), compile_to_asm(source), CONFIG)
    assert verdict.status is status and not verdict.correct
    assert verdict.speedup is None and paper_reward(verdict) == 0.0
    assert verdict.tests_passed < verdict.tests_total


def test_compile_error_and_no_answer(primes):
    problem = load_problem(primes)
    broken = evaluate(problem, "main:\n    movq %rax, %nosuchreg\n", CONFIG)
    assert broken.status is Status.COMPILE_ERROR and "nosuchreg" in broken.message
    assert "sc-eval" not in broken.message  # no temp paths in feedback
    assert evaluate(problem, "   ", CONFIG).status is Status.NO_ANSWER
    assert evaluate(problem, None, CONFIG).status is Status.NO_ANSWER


def test_timeout(primes):
    config = replace(CONFIG, limits=Limits(cpu_seconds=0.05, wall_seconds=1.0))
    verdict = evaluate(load_problem(primes), compile_to_asm(SLOWER), config)
    assert verdict.status is Status.TIMEOUT


def test_missing_sandbox_is_infra_not_wrong(primes, monkeypatch):
    """A machine without bubblewrap, for real: not on PATH (the programs are built first)."""
    from supercoder.sandbox.bwrap import isolation_status
    from supercoder.toolchain.baseline import baseline_asm

    problem, asm = load_problem(primes), compile_to_asm(FAST)
    baseline_asm(problem)
    monkeypatch.setenv("PATH", "/nonexistent")
    isolation_status.cache_clear()
    try:
        verdict = evaluate(problem, asm, CONFIG)
    finally:
        isolation_status.cache_clear()  # recomputed with the real PATH on next use
    assert verdict.status is Status.INFRA_ERROR and verdict.is_infra_failure
    assert "bubblewrap" in verdict.message
    from supercoder.verify.reward import paper_reward

    assert paper_reward(verdict) is None  # no reward, not a zero


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_check_cli_json(primes, tmp_path):
    cand = tmp_path / "fast.s"
    cand.write_text(compile_to_asm(FAST))
    proc = run_cli("check", str(primes), str(cand), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "ok" and data["correct"] is True
    assert data["speedup"] > 1.5 and data["speedup_ci"][0] > 1.0
    assert data["identical_to_baseline"] is False and data["reward"] == data["speedup"]
    assert data["paper_reward"] == data["speedup"]  # proven faster: both rewards pay it
    assert data["reward_form"] == "gated"  # the default form, named beside its reward
    assert {"name", "status", "speedup", "baseline_seconds", "candidate_seconds"} <= set(
        data["tests"][0]
    )
    # visible tests one by one, none timed; the ones the model never saw together
    assert data["timed_tests"] == [] and not any(t["timed"] for t in data["tests"])
    unseen = data["unseen"]
    assert unseen["status"] == "ok" and unseen["count"] >= unseen["timed"] >= 1
    assert unseen["baseline_seconds"] > unseen["candidate_seconds"] > 0
    assert data["tests_total"] == len(data["tests"]) + unseen["count"] == data["tests_passed"]
    assert not [t for t in data["tests"] if t["name"].startswith("unseen")]
    again = Verdict.from_json(data)
    assert (
        again.to_json()
        == {k: v for k, v in data.items() if k not in ("reward", "paper_reward", "reward_form")}
        and again.significantly_faster
    )


def test_check_cli_errors_are_clear(primes, tmp_path):
    proc = run_cli("check", str(tmp_path / "nope"), str(tmp_path / "nope.s"))
    assert proc.returncode == 2 and "no such file" in proc.stderr and "Traceback" not in proc.stderr
    bad = tmp_path / "bad.s"
    bad.write_text("garbage\n")
    proc = run_cli("check", str(primes), str(bad))
    assert proc.returncode == 0 and "compile_error" in proc.stdout


def test_problem_init_and_nondeterminism(tmp_path):
    sandbox_or_skip()
    src = tmp_path / "p.c"
    src.write_text(FAST)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "a.txt").write_text("100\n")
    (inputs / "b.txt").write_text("10\n")
    proc = run_cli(
        "problem", "init", str(src), "--inputs", str(inputs), "-o", str(tmp_path / "prob")
    )
    assert proc.returncode == 0, proc.stderr
    problem = load_problem(tmp_path / "prob")
    assert [t.expected for t in problem.tests] == [b"25\n", b"4\n"]
    noisy = tmp_path / "noisy.c"
    noisy.write_text(
        '#include <stdio.h>\nint main(void){int x; printf("%p\\n", (void*)&x); return 0;}\n'
    )
    proc = run_cli(
        "problem", "init", str(noisy), "--inputs", str(inputs), "-o", str(tmp_path / "noisy")
    )
    assert proc.returncode == 2 and "non-deterministic" in proc.stderr


def test_baseline_failing_during_timing_is_infra_not_the_candidates_fault(primes, tmp_path):
    """A baseline that does not reproduce the expected outputs must never make a
    correct candidate read as wrong."""
    import shutil

    from supercoder.toolchain.baseline import vouch

    broken = tmp_path / "broken"
    shutil.copytree(primes, broken)
    wrong = compile_to_asm(WRONG)
    (broken / "baseline.s").write_text(wrong)
    # a carried baseline.s is the yardstick only when this process vouches for it (as
    # for a verification server's build); else the reader's own -O3 build is used
    vouch(wrong)
    verdict = evaluate(load_problem(broken), compile_to_asm(FAST), CONFIG)
    assert verdict.status is Status.INFRA_ERROR and verdict.is_infra_failure
    assert "baseline failed" in verdict.message


def test_baseline_failure_after_the_candidate_ran_is_blamed_on_it(primes, tmp_path):
    """A baseline failure in a sandbox that has run the candidate is the candidate's
    fault when the baseline passes in a fresh sandbox; infra_error only when it fails
    there too."""
    from supercoder.errors import InfraError
    from supercoder.toolchain.baseline import baseline_binary
    from supercoder.verify.evaluate import _blame, baseline_fails_alone

    problem = load_problem(primes)
    inputs = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    good = baseline_binary(baseline_asm(problem), tmp_path)
    assert baseline_fails_alone(good, inputs, CONFIG) is None
    verdict = _blame(problem, good, inputs, CONFIG, InfraError("lost"), False, {}, 0.0)
    assert verdict.status is Status.RUNTIME_ERROR and not verdict.is_infra_failure
    assert "fresh sandbox" in verdict.message and "broke its sandbox" in verdict.message
    wrong = assemble(compile_to_asm(WRONG), tmp_path / "wrong")
    verdict = _blame(problem, wrong.binary, inputs, CONFIG, InfraError("lost"), False, {}, 0.0)
    assert verdict.status is Status.INFRA_ERROR and "fresh sandbox" in verdict.message
    # a copy of the baseline runs nothing the baseline does not: a baseline that failed
    # beside it failed on its own (now and then), whatever a fresh sandbox then shows
    verdict = _blame(problem, good, inputs, CONFIG, InfraError("lost"), True, {}, 0.0)
    assert verdict.status is Status.INFRA_ERROR and verdict.is_infra_failure
    assert "baseline's own image" in verdict.message


def test_a_damaged_cache_is_rebuilt_never_used(primes):
    """A cached baseline binary or listing cut short (full disk, crash) is detected by
    its recorded digest and rebuilt; the check is the same as with a sound cache."""
    from supercoder.paths import cache_dir

    problem = load_problem(primes)
    config = CheckConfig(time=False)
    assert evaluate(problem, compile_to_asm(FAST), config).status is Status.OK
    base = baseline_asm(problem)
    binaries = [
        p
        for p in (cache_dir() / "bin").iterdir()
        if p.is_file() and "." not in p.name and p.name.startswith(asm_digest(base))
    ]
    assert len(binaries) == 1
    binary = binaries[0]
    whole = binary.read_bytes()
    binary.write_bytes(whole[: len(whole) // 3])  # cut short
    listing = next((cache_dir() / "baselines").glob(f"{problem.source_hash()}*.s"))
    listing.write_text(listing.read_text()[:200])
    again = evaluate(problem, compile_to_asm(FAST), config)
    assert again.status is Status.OK, again.message
    assert binary.read_bytes() == whole and baseline_asm(problem) == base
