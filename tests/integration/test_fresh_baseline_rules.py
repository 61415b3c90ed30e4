"""The fresh-sandbox re-run that decides whether a failing baseline is the machine's
fault (``baseline_fails_alone``) compares outputs as every check does: with the
problem's rules. A benchmark printing its own clock, with ``--ignore-line`` for it, is
not called broken there; a changed result still is. Real gcc, the real sandbox."""

from __future__ import annotations

import subprocess

from supercoder.problems.outputs import expected_output, parse_mode
from supercoder.verify.evaluate import baseline_fails_alone, check_config
from tests.conftest import sandbox_or_skip

CLOCK = r"""
#include <stdio.h>
#include <time.h>
int main(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    printf("result: 42\nTime: %ld.%09ld\n", (long)t.tv_sec, t.tv_nsec);
    return 0;
}
"""


def test_the_fresh_rerun_of_the_baseline_reads_outputs_with_the_problems_rules(tmp_path):
    sandbox_or_skip()
    (tmp_path / "clock.c").write_text(CLOCK)
    binary = tmp_path / "clock"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(tmp_path / "clock.c")], check=True)
    mode = parse_mode("exact", [{"ignore_line": "^Time:"}])
    config = check_config(time=False)
    seen = b"result: 42\nTime: 1.000000000\n"  # the clock of a run long gone
    ok = [("t", b"", expected_output(seen, mode))]
    assert baseline_fails_alone(binary, ok, config) is None
    wrong = [("t", b"", expected_output(b"result: 41\nTime: 1.000000000\n", mode))]
    assert baseline_fails_alone(binary, wrong, config) == "test t: a different output"
