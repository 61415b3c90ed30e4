"""A problem whose reference takes most of a check's default CPU limit carries its own
(``problem.json`` ``cpu_limit``, written by ``problem init``): its baseline is never
stopped as a timeout on the tests it brought, on any path that checks it."""

from __future__ import annotations

import json

from supercoder.problems.init import check_cpu_limit
from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Status
from supercoder.verify.evaluate import check_config, evaluate
from tests.conftest import sandbox_or_skip

SPIN = r"""
#include <stdio.h>
int main(void) {
    long n = 0;
    if (scanf("%ld", &n) != 1) return 0;
    volatile unsigned long x = 1;
    for (long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    printf("%lu\n", (unsigned long)x);
    return 0;
}
"""


def _spin_problem(folder, own_limit=None):
    folder.mkdir(parents=True)
    (folder / "source.c").write_text(SPIN)
    (folder / "tests").mkdir()
    (folder / "tests" / "a.in").write_text("60000000\n")  # ~0.1-0.3 s of CPU
    meta = {"name": "spin"}
    if own_limit is not None:
        meta["cpu_limit"] = own_limit
    (folder / "problem.json").write_text(json.dumps(meta))
    return folder


def test_the_problems_own_cpu_limit_holds_on_every_check(tmp_path):
    sandbox_or_skip()
    import subprocess

    exe = tmp_path / "ref"
    src = tmp_path / "ref.c"
    src.write_text(SPIN)
    subprocess.run(["gcc", "-O3", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], input=b"60000000\n", capture_output=True, check=True).stdout
    tight = check_config(time=False, cpu_limit=0.02)  # far below what one run takes
    for own, expect in ((None, Status.TIMEOUT), (30.0, Status.OK)):
        folder = _spin_problem(tmp_path / f"p{own}", own)
        (folder / "tests" / "a.out").write_bytes(out)
        problem = load_problem(folder)
        assert problem.settings.cpu_limit == own
        verdict = evaluate(problem, baseline_asm(problem), tight)
        assert verdict.status is expect, verdict.message


def test_init_gives_a_slow_reference_its_own_limit_and_says_so():
    limit, said = check_cpu_limit(["a", "big"], [0.5, 9.6])
    assert limit == 24.0 and "big (9.6 s)" in said[0] and "24 s" in said[0]
    assert check_cpu_limit(["a"], [3.9]) == (None, [])
    assert check_cpu_limit(["a"], [1e9])[0] == 3600.0
