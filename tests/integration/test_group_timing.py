"""Group timing: k candidates of one problem against one stream of baseline runs.

Real gcc, the real sandbox: a group holding an identical copy, a 2x program and a 3x
slower one measures each as it reads checked alone; the baseline runs once per test
and round for the whole group; each candidate stops on its own; a candidate whose
output changes mid-session leaves with its mismatch while the others are measured.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.sandbox.box import Sandbox
from supercoder.timing.meter import Meter, MeterConfig
from supercoder.timing.slots import physical_cores
from supercoder.toolchain.baseline import baseline_asm, baseline_binary
from supercoder.toolchain.gcc import assemble, compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, check_candidate, evaluate, time_group
from tests.integration.test_evaluate import SLOW, SLOWER, primes  # noqa: F401  (fixture)

# trial division by 2, then by odd divisors only: about half the work of SLOW
HALF = SLOW.replace(
    "for (int d = 2; d < i; d++) if (i % d == 0) { p = 0; break; }",
    "if (i > 2 && i % 2 == 0) p = 0;\n"
    "        for (int d = 3; p && d < i; d += 2) if (i % d == 0) { p = 0; break; }",
)
CONFIG = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=6))


class CountingBox:
    """A real sandbox whose runs are counted per binary role."""

    def __init__(self, box: Sandbox) -> None:
        self.box, self.runs = box, {}

    def run(self, name, data, limits=None):
        role = name.rsplit("_", 1)[0] if name[-1].isdigit() and "_" in name else name
        self.runs[role] = self.runs.get(role, 0) + 1
        return self.box.run(name, data, limits)


@pytest.fixture(scope="module")
def programs(primes) -> dict[str, str]:  # noqa: F811
    problem = load_problem(primes)
    return {
        "copy": baseline_asm(problem),
        "half": compile_to_asm(HALF),
        "slower": compile_to_asm(SLOWER),
    }


def test_half_is_correct_and_about_twice_as_fast(primes, programs):  # noqa: F811
    verdict = evaluate(load_problem(primes), programs["half"], CONFIG)
    assert verdict.correct and 1.5 < verdict.speedup.value < 2.8


def test_a_group_measures_each_as_checked_alone(primes, programs):  # noqa: F811
    problem = load_problem(primes)
    kinds = ["copy", "half", "slower"]
    checked = [check_candidate(problem, programs[k], CONFIG) for k in kinds]
    assert all(c.verdict.correct and c.binary for c in checked)
    grouped = dict(zip(kinds, time_group(problem, checked, CONFIG), strict=True))
    alone = {k: evaluate(problem, programs[k], CONFIG) for k in kinds}
    for k in kinds:
        g, a = grouped[k].speedup, alone[k].speedup
        # each session draws its own inputs: as many timed as are long enough
        assert grouped[k].status is Status.OK and g.tests_timed >= 1 and a.tests_timed >= 1
        # the same figure within gross noise (timing here is noisy: no tight ratios)
        assert abs(math.log(g.value) - math.log(a.value)) < math.log(1.3), (k, g, a)
        assert g.low <= g.value <= g.high
        assert grouped[k].unseen.timed == g.tests_timed  # reported together: no test's own times
    assert grouped["copy"].identical_to_baseline and 0.85 < grouped["copy"].speedup.value < 1.15
    assert 1.5 < grouped["half"].speedup.value < 2.8
    assert grouped["slower"].speedup.value < 0.5 and grouped["slower"].speedup.high < 1.0
    # each keeps its own samples: the slower one's candidate times are ~3x the copy's
    slower, copy = grouped["slower"].unseen, grouped["copy"].unseen
    assert slower.candidate_seconds > 2 * copy.candidate_seconds


def test_the_baseline_runs_once_per_test_and_round_for_the_whole_group(
    primes,  # noqa: F811
    programs,
    tmp_path,
):
    problem = load_problem(primes)
    tests = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    base = baseline_binary(baseline_asm(problem), tmp_path)
    cands = {
        f"c{i}": assemble(programs[k], tmp_path / k).binary
        for i, k in enumerate(["copy", "half", "slower"])
    }
    cfg = MeterConfig(min_pairs=4, max_pairs=4, max_repeats=1, seed=3)
    meter = Meter(cfg)
    with Sandbox(meter.group_binaries(base, cands)) as box:
        counting = CountingBox(box)
        results = meter.compare_group(counting, tests, list(cands), base.name)
    pairs = [sum(len(t.base_cpu) for t in r.tests) for r in results]
    assert pairs == [5 + 3 * 2] * 3  # 5 tests in round 0, then the 2 timed ones x 3 rounds
    # one baseline run per pair slot of the group (+1 warm-up, + the timed-set decision
    # when it was not cached yet): k + 1 runs per test and round, not 2k
    # each candidate: one run per pair and one warm-up (as the baseline: none is warmer)
    assert counting.runs["c0"] == counting.runs["c1"] == counting.runs["c2"] == pairs[0] + 1
    assert pairs[0] + 1 <= counting.runs["baseline"] <= pairs[0] + 1 + 2 * 5
    # every candidate's pair i shares the baseline run of the same slot
    for t in range(len(tests)):
        assert results[0].tests[t].base_cpu == results[1].tests[t].base_cpu


def test_each_candidate_stops_on_its_own(primes, programs, tmp_path):  # noqa: F811
    """A loose target for a clearly decided program: it leaves once precise, while a
    candidate kept noisy by a tight target stays up to ``max_pairs``."""
    problem = load_problem(primes)
    tests = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    base = baseline_binary(baseline_asm(problem), tmp_path)
    cands = {"a": assemble(programs["half"], tmp_path / "a").binary}
    cfg = MeterConfig(min_pairs=2, max_pairs=8, max_repeats=1, target_halfwidth=1.0, seed=1)
    meter = Meter(cfg)
    with Sandbox(meter.group_binaries(base, cands)) as box:
        (loose,) = meter.compare_group(box, tests, ["a"], base.name)
    rounds = max(max(t.rounds) for t in loose.tests if t.timed) + 1
    assert rounds == 2  # decided at the first look: left early


def test_under_the_gated_reward_a_program_that_cannot_be_faster_leaves_at_once(
    primes,  # noqa: F811
    programs,
    tmp_path,
):
    """``stop_when_not_faster``: a 3x slower program leaves after ``min_pairs`` rounds
    (its reward is a copy's whatever more rounds say), a faster one stays for precision;
    without it both stay to ``max_pairs`` under a target nothing meets."""
    problem = load_problem(primes)
    tests = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    base = baseline_binary(baseline_asm(problem), tmp_path)
    cands = {k: assemble(programs[k], tmp_path / k).binary for k in ("half", "slower")}
    rounds = {}
    for flag in (True, False):
        cfg = MeterConfig(
            min_pairs=3,
            max_pairs=7,
            target_halfwidth=1e-4,
            noise_floor=0.0,  # no precision stop: only the rule under test
            stop_when_not_faster=flag,
        )
        meter = Meter(cfg)
        with Sandbox(meter.group_binaries(base, cands)) as box:
            half, slower = meter.compare_group(box, tests, ["half", "slower"], base.name)
        rounds[flag] = [max(max(t.rounds) for t in r.tests if t.timed) + 1 for r in (half, slower)]
        assert slower.speedup.high < 1.0 and half.speedup.value > 1.3
    assert rounds[True] == [7, 3]
    assert rounds[False] == [7, 7]


def test_a_candidate_whose_output_changes_leaves_alone(primes, programs, tmp_path):  # noqa: F811
    """Only the candidate whose output differs is marked; the others are measured."""
    problem = load_problem(primes)
    tests = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    base = baseline_binary(baseline_asm(problem), tmp_path)
    wrong = compile_to_asm(SLOW.replace('printf("%lld\\n", cnt)', 'printf("%lld\\n", cnt + 1)'))
    cands = {
        "good": assemble(programs["half"], tmp_path / "g").binary,
        "bad": assemble(wrong, tmp_path / "b").binary,
    }
    meter = Meter(MeterConfig(min_pairs=2, max_pairs=3))
    with Sandbox(meter.group_binaries(base, cands)) as box:
        good, bad = meter.compare_group(box, tests, ["good", "bad"], base.name)
    assert bad.mismatch and bad.speedup is None and bad.mismatch_test
    assert good.mismatch is None and good.speedup.value > 1.3


def test_a_pinned_sandbox_runs_on_its_core(tmp_path):
    """The supervisor and the run inherit the slot's CPU (the run reports its mask)."""
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()
    src = tmp_path / "aff.c"
    src.write_text(
        "#define _GNU_SOURCE\n#include <sched.h>\n#include <stdio.h>\n"
        "int main(void){cpu_set_t s; sched_getaffinity(0,sizeof s,&s);"
        'for(int i=0;i<CPU_SETSIZE;i++) if(CPU_ISSET(i,&s)) printf("%d ",i);'
        'puts("");return 0;}\n'
    )
    binary = assemble(compile_to_asm(src.read_text()), tmp_path / "aff").binary
    cpu = physical_cores()[-1][0]
    before = os.sched_getaffinity(0)
    with Sandbox({"aff": Path(binary)}, cpus=frozenset({cpu})) as box:
        assert box.run("aff", b"").stdout.split() == [str(cpu).encode()]
    assert os.sched_getaffinity(0) == before  # the caller's own mask is restored


def test_check_cli_takes_several_candidates(primes, programs, tmp_path):  # noqa: F811
    """`supercoder check P A.s B.s C.s --json`: a list of verdicts in argument order;
    the correct ones timed in one session, each with its own interval."""
    from tests.integration.test_evaluate import WRONG, run_cli

    files = []
    for name, asm in [
        ("half", programs["half"]),
        ("wrong", compile_to_asm(WRONG)),
        ("copy", programs["copy"]),
    ]:
        files.append(tmp_path / f"{name}.s")
        files[-1].write_text(asm)
    proc = run_cli("check", str(primes), *map(str, files), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, list) and [d["status"] for d in data] == [
        "ok",
        "wrong_output",
        "ok",
    ]
    assert 1.5 < data[0]["speedup"] < 2.8 and data[0]["reward"] == data[0]["speedup"]
    assert data[2]["identical_to_baseline"] and 0.85 < data[2]["speedup"] < 1.15
    assert data[2]["reward"] == 0.0 and data[1]["speedup"] is None
    text = run_cli("check", str(primes), *map(str, files[:2]))
    assert text.returncode == 0 and text.stdout.count("== ") == 2
    assert "wrong_output" in text.stdout


# burns CPU, prints nothing, exits 1: what a candidate that could tell its warm-up run
# (by any channel) would do there, to cost the check time or to learn its input
LIAR = """
int main(void) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 200000000UL; i++) x += i;
    return 1;
}
"""


class WarmUpLiar:
    """A real sandbox whose first run of ``candidate`` is a run of ``liar`` (a real
    binary in the same sandbox): the candidate that knows which run is the warm-up."""

    def __init__(self, box: Sandbox) -> None:
        self.box, self.runs = box, []

    def run(self, name, data, limits=None):
        if name.startswith("candidate") and "liar" not in self.runs:
            name = "liar"
        self.runs.append(name)
        return self.box.run(name, data, limits)


def test_the_warm_up_run_is_judged_like_every_run(primes, programs, tmp_path):  # noqa: F811
    """Before: the warm-up's output and exit were never looked at; a candidate that
    failed there (after burning CPU) still read ``ok``. Now it leaves at once with its
    mismatch, on the warm-up's test, like a run that changed its output in timing."""
    problem = load_problem(primes)
    tests = [(t.name, t.read_input(), t.expected) for t in problem.tests]
    base = baseline_binary(baseline_asm(problem), tmp_path)
    good = assemble(programs["half"], tmp_path / "good").binary
    liar = assemble(compile_to_asm(LIAR), tmp_path / "liar").binary
    meter = Meter(MeterConfig(min_pairs=2, max_pairs=3, max_repeats=1, seed=5))
    binaries = {**meter.group_binaries(base, {"candidate": good}), "liar": liar}
    with Sandbox(binaries) as box:
        lying = WarmUpLiar(box)
        (cmp,) = meter.compare_group(lying, tests, ["candidate"], base.name)
    warm = min(tests, key=lambda t: len(t[1]))[0]
    assert cmp.mismatch and cmp.mismatch_test == warm, cmp.mismatch
    assert "exit code 1" in cmp.mismatch and cmp.speedup is None
    assert [r for r in lying.runs if not r.startswith("baseline")] == ["liar"]  # then no more
    assert cmp.cpu_seconds > 0.05  # the warm-up's CPU is charged to it


def test_a_session_spreads_its_runs_over_sandbox_instances(tmp_path):
    """What one sandbox instance fixes (where its binaries landed) varies within a check:
    runs go to either instance at random, and sleeping is counted once over both."""
    import shutil

    from supercoder.sandbox.box import Limits, Sandboxes
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()

    binary = tmp_path / "true"
    binary.write_bytes(Path(shutil.which("true") or "/bin/true").read_bytes())
    binary.chmod(0o755)
    limits = Limits(idle_total_seconds=1.0)
    with Sandboxes(lambda: Sandbox({"candidate": binary}, limits), 2) as boxes:
        runs = [boxes.run("candidate", f"{i}\n".encode()) for i in range(24)]
        assert all(r.outcome == "exited" for r in runs)
        used = [len(box._inputs) for box in boxes.boxes]  # inputs each instance was given
        assert sum(used) == 24 and min(used) >= 1, used
        first, second = boxes.boxes
        first._blocked["candidate"] = 0.6  # asleep in one instance, then in the other
        second._blocked["candidate"] = second._blocked["candidate"] + 0.6
        assert boxes.slept("candidate") and second.slept("candidate")
    assert all(box._proc.poll() is not None for box in boxes.boxes)  # both closed
