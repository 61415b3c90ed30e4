"""The one reference runner (real gcc, real sandbox) and the one cached -O3 baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.paths import cache_dir
from supercoder.sandbox.box import MAX_THREADS
from supercoder.settings import ProblemSettings
from supercoder.toolchain.baseline import baseline_asm, baseline_binary
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.toolchain.reference import (
    MISMATCH,
    NONDETERMINISTIC,
    RUNTIME_ERROR,
    THREADS_MEASURED,
    TIMEOUT,
    ReferenceBuildError,
    reference_runs,
    run_reference,
    starts_threads,
)
from supercoder.types import Problem, TestCase
from tests.conftest import sandbox_or_skip

OPENMP = Path(__file__).resolve().parents[1] / "fixtures" / "openmp_harmonic"
DOUBLE = """#include <stdio.h>
int main(void) { long x; if (scanf("%ld", &x) != 1) return 1; printf("%ld\\n", 2 * x); return 0; }
"""
# Crashes (null write) on 0, doubles anything else.
CRASH_ON_ZERO = """#include <stdio.h>
int main(void) {
    long x; if (scanf("%ld", &x) != 1) return 1;
    if (x == 0) *(volatile int *)0 = 1;
    printf("%ld\\n", 2 * x); return 0;
}
"""
# Prints the clock in nanoseconds: a different output on every run.
CLOCK = """#include <stdio.h>
#include <time.h>
int main(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    printf("%ld %ld\\n", (long)t.tv_sec, (long)t.tv_nsec); return 0;
}
"""
NEEDS_N = '#include <stdio.h>\nint main(void) { printf("%d\\n", N); return 0; }\n'
BY_LEVEL = """#include <stdio.h>
int main(void) {
#ifdef __OPTIMIZE__
    puts("optimised");
#else
    puts("plain");
#endif
    return 0;
}
"""
SPIN = "int main(void) { volatile unsigned long i = 0; for (;;) i++; }\n"
SLEEPS = "#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n"
# Starts NWORKERS threads and relies on them (the Benchmarks Game's pthread mandelbrot
# starts 8 and never checks pthread_create).
THREADED = """#include <pthread.h>
#include <stdio.h>
#ifndef NWORKERS
#define NWORKERS 8
#endif
#include <sched.h>
static int v[NWORKERS];
static volatile int go; /* every worker alive at once until all are started */
static void *work(void *p) {
    for (long i = 0; i < 100000 && !go; i++) sched_yield();
    *(int *)p = 42; return 0;
}
int main(void) {
    pthread_t t[NWORKERS]; int sum = 0;
    for (int i = 0; i < NWORKERS; i++) if (pthread_create(&t[i], 0, work, &v[i])) return 3;
    go = 1;
    for (int i = 0; i < NWORKERS; i++) pthread_join(t[i], 0), sum += v[i];
    printf("%d\\n", sum); return 0;
}
"""


def test_a_deterministic_program_gives_its_outputs_and_times():
    sandbox_or_skip()
    results = run_reference(DOUBLE, [b"1\n", b"21\n"], runs={"O3": 2, "O0": 2})
    assert [r.output for r in results] == [b"2\n", b"42\n"]
    assert all(r.ok and set(r.cpu_seconds) == {"O3", "O0"} for r in results)
    assert [r.name for r in results] == ["input #0", "input #1"]
    assert [r.output for r in reference_runs(DOUBLE, [b"5\n"], repeat=1)] == [b"10\n"]


def test_a_nondeterministic_program_is_reported_as_such():
    sandbox_or_skip()
    [result] = run_reference(CLOCK, [b""], names=["t1.in"])
    assert result.failure == NONDETERMINISTIC and result.level == "O3"
    with pytest.raises(UserError) as e:
        reference_runs(CLOCK, [b""], names=["t1.in"], source_path=Path("/u/clock.c"))
    assert "/u/clock.c is non-deterministic on t1.in" in str(e.value)
    [once] = run_reference(CLOCK, [b""], runs={"O3": 1})  # one run cannot disagree with itself
    assert once.ok


def test_a_crash_on_one_input_names_that_input():
    sandbox_or_skip()
    inputs, names = [b"1\n", b"0\n", b"3\n"], ["a.txt", "b.txt", "c.txt"]
    results = run_reference(CRASH_ON_ZERO, inputs, names=names, stop_at_failure=False)
    assert [r.failure for r in results] == ["", RUNTIME_ERROR, ""]
    assert results[1].name == "b.txt" and "signal" in results[1].detail
    assert [r.output for r in results if r.ok] == [b"2\n", b"6\n"]
    assert len(run_reference(CRASH_ON_ZERO, inputs, names=names)) == 2  # stops at the failure
    with pytest.raises(UserError) as e:
        reference_runs(CRASH_ON_ZERO, inputs, names=names, source_path=Path("/u/crash.c"))
    assert str(e.value).startswith("/u/crash.c failed on b.txt: killed by signal SIGSEGV")


def test_threads_run_in_the_sandbox_up_to_a_cap_and_more_are_told_why():
    sandbox_or_skip()
    assert starts_threads(THREADED) and not starts_threads(CRASH_ON_ZERO)
    assert "CPU time summed over every thread" in THREADS_MEASURED  # what problem show says
    [eight] = reference_runs(THREADED, [b""], names=["a"], repeat=1)
    assert eight.output == b"336\n"  # 8 threads, as the Benchmarks Game's mandelbrot
    with pytest.raises(UserError) as e:
        reference_runs(
            THREADED, [b""], names=["a"], cflags=("-DNWORKERS=40",), source_path=Path("/u/mt.c")
        )
    message = str(e.value)
    assert message.startswith("/u/mt.c failed on a:")
    assert f"at most {MAX_THREADS}" in message and f"-DTHREADS={MAX_THREADS}" in message
    with pytest.raises(UserError) as e:  # a crash in a program without threads: no hint
        reference_runs(CRASH_ON_ZERO, [b"0\n"], names=["z"])
    assert "thread" not in str(e.value)


# Two OpenMP sections where the first waits on the second (revcomp's ordered output does
# so): one thread would spin forever (bounded here: it gives up and says so).
WAITS_ON_A_SECTION = """#include <stdio.h>
int main(void) {
    volatile int ready = 0; long spins = 0; int value = 0;
#pragma omp parallel sections shared(ready, value, spins)
    {
#pragma omp section
        { while (!ready && spins < 400000000L) { spins++;
#pragma omp flush
          } }
#pragma omp section
        { value = 42;
#pragma omp flush
          ready = 1; }
    }
    printf(ready && spins < 400000000L ? "%d\\n" : "stuck %d\\n", value);
    return 0;
}
"""


def test_openmp_gets_a_team_of_two_so_sections_that_wait_on_each_other_finish():
    sandbox_or_skip()
    [run] = reference_runs(WAITS_ON_A_SECTION, [b""], cflags=("-fopenmp",), repeat=1)
    assert run.output == b"42\n"


def test_timeouts_and_disagreeing_builds_are_told_apart():
    sandbox_or_skip()
    [slow] = run_reference(SPIN, [b""], timeout=0.3)
    assert slow.failure == TIMEOUT and "time limit" in slow.detail
    with pytest.raises(UserError) as e:  # init names the input and what to do with it
        reference_runs(SPIN, [b""], timeout=0.3, names=["in/big"])
    assert "leave in/big out or give a smaller one" in str(e.value) and "--timeout" in str(e.value)
    # stopped by the wall limit with little CPU used: the load or a wait, said so
    [waits] = run_reference(SLEEPS, [b""], timeout=0.3)
    assert waits.failure == TIMEOUT and "of a CPU: the machine was busy" in waits.detail
    [ub] = run_reference(BY_LEVEL, [b""], runs={"O3": 1, "O0": 1})
    assert ub.failure == MISMATCH and ub.level == "O0"
    [o3] = run_reference(BY_LEVEL, [b""])
    assert o3.output == b"optimised\n"


def test_cflags_and_ldflags_are_honoured():
    sandbox_or_skip()
    with pytest.raises(ReferenceBuildError) as e:
        run_reference(NEEDS_N, [b""], label="/u/n.c")
    assert "/u/n.c does not compile with gcc -O3" in str(e.value) and e.value.level == "O3"
    assert "sc-ref-" not in str(e.value)
    [r] = run_reference(NEEDS_N, [b""], cflags=("-DN=3",))
    assert r.output == b"3\n"
    source = (OPENMP / "harmonic.c").read_text()
    with pytest.raises(ReferenceBuildError) as e:
        run_reference(source, [b"10\n"])
    assert "does not link" in str(e.value) and "--cflags -fopenmp" in str(e.value)
    [omp] = run_reference(source, [b"10\n"], cflags=("-fopenmp",), ldflags=("-lgomp",))
    assert omp.output == b"2.928968 1\n"


def test_the_baseline_is_built_once_and_cached():
    problem = Problem(
        "cached",
        DOUBLE + "/* test_reference */\n",
        (TestCase("1", b"1\n"),),
        settings=ProblemSettings(cflags="-DUNUSED=1"),
    )
    calls = []
    real = compile_to_asm

    def counting(source, flags):
        calls.append(flags)
        return real(source, flags)

    first = baseline_asm(problem, counting)
    assert calls == [("-O3", "-DUNUSED=1")] and "main:" in first
    assert baseline_asm(problem, counting) == first == baseline_asm(problem, counting)
    assert len(calls) == 1  # the second and third calls read the cache
    assert len(list((cache_dir() / "baselines").glob(f"{problem.source_hash()}-*.s"))) == 1
    other = Problem(
        "cached", problem.source, problem.tests, settings=ProblemSettings(cflags="-DUNUSED=2")
    )
    assert baseline_asm(other, counting) == first and len(calls) == 2  # another build


def test_the_baseline_binary_is_built_once_and_cached(tmp_path):
    asm = baseline_asm(Problem("bin", DOUBLE + "/* binary */\n", ()))
    binary = baseline_binary(asm, tmp_path, isolation=False)
    assert binary.is_file() and binary.stat().st_mode & 0o111

    def no_build(*args, **kwargs):
        raise AssertionError("the cached binary must not be rebuilt")

    assert baseline_binary(asm, tmp_path, isolation=False, build=no_build) == binary
    with pytest.raises(AssertionError):  # other link flags
        baseline_binary(asm, tmp_path, ("-lgomp",), isolation=False, build=no_build)
