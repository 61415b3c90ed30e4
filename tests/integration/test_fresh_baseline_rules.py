"""The fresh-sandbox re-run that decides whether a failing baseline is the machine's
fault (``baseline_fails_alone``) compares outputs as every check does: with the
problem's rules. A benchmark printing its own clock, with ``--ignore-line`` for it, is
not called broken there; a changed result still is. Real gcc, the real sandbox."""

from __future__ import annotations

import json
import subprocess
import sys

from supercoder.problems.outputs import expected_output, parse_mode
from supercoder.verify.evaluate import baseline_fails_alone, check_config
from tests.conftest import sandbox_or_skip


def cli(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "supercoder.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


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


def test_a_clock_printing_benchmarks_baseline_copy_passes_a_timed_check(tmp_path):
    """init with ``--ignore-line`` for the clock, then a timed check of the baseline's
    copy: every draw, those past the cut included, is compared with the rule."""
    sandbox_or_skip()
    (tmp_path / "in").mkdir()
    (tmp_path / "clk.c").write_text(
        "#include <stdio.h>\n#include <time.h>\nint main(void){long n;"
        'if(scanf("%ld",&n)!=1)return 1;clock_t a=clock();unsigned long s=0;'
        "for(long i=0;i<n;i++){s=s*6364136223846793005UL+(unsigned long)i;s^=s>>29;}"
        'printf("sum %lu\\nTotal ticks : %ld\\n",s,(long)(clock()-a));return 0;}\n'
    )
    (tmp_path / "in" / "a.in").write_text("3000000\n")
    (tmp_path / "in" / "b.in").write_text("6000000\n")
    folder = tmp_path / "P"
    init = cli(
        "problem", "init", str(tmp_path / "clk.c"), "--inputs", str(tmp_path / "in"),
        "--ignore-line", r"Total\s+ticks", "-o", str(folder),
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    copy = tmp_path / "copy.s"
    assert cli("problem", "baseline", str(folder), "-o", str(copy)).returncode == 0
    check = cli("check", str(folder), str(copy), "--json")
    verdict = json.loads(check.stdout)
    assert verdict["status"] == "ok", (verdict["status"], verdict.get("message"))
