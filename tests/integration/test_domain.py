"""A problem's input domain: declared, extrapolated, judged against the visible inputs.

Before: the inferred model drew within the span the visible inputs show and nothing
else; a program with undefined behaviour the sanitizer reports on every input (the
visible ones too) had its model dropped without a word ("no test the model never
saw"); a jump in cost (graph_dijkstra: 60 sources from 5000 nodes) left it untimed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.verify.unseen import unseen_tests
from tests.conftest import sandbox_or_skip

UB = r"""
#include <stdio.h>
int main(void) {
    int n, x; long long s = 0; int h = 2147483000;
    if (scanf("%d", &n) != 1) return 1;
    h += 1000;  /* signed overflow on every input: the program's, not a draw's */
    for (int i = 0; i < n && scanf("%d", &x) == 1; i++) s += (long long)x * (i % 7) + (h & 1);
    printf("%lld\n", s);
    return 0;
}
"""


def test_undefined_behaviour_on_every_input_is_the_programs_not_the_draws() -> None:
    """The sanitizer reports the same signed overflow on the visible inputs: a draw is not
    held to it, and the model's draws are timed (before: every source dropped)."""
    sandbox_or_skip()
    from supercoder.toolchain.reference import reference_runs

    folder = Path(tempfile.mkdtemp()) / "ub"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(UB)
    inputs = [b"3\n1 2 3\n", b"6\n5 1 4 1 5 9\n", b"8\n2 7 1 8 2 8 1 8\n"]
    for i, (data, run) in enumerate(zip(inputs, reference_runs(UB, inputs), strict=True)):
        (folder / "tests" / f"t{i}.in").write_bytes(data)
        (folder / "tests" / f"t{i}.out").write_bytes(run.output)
    problem = load_problem(folder)
    from supercoder.problems.domain import Judge

    if not Judge(problem).visible().sanitizer:
        pytest.skip("no sanitizer build on this machine")
    assert Judge(problem).visible().signatures  # the visible inputs trigger it
    unseen = unseen_tests(problem)
    assert unseen.source == "model" and len(unseen.tests) >= 3, unseen.why
    assert not unseen.dropped


def test_init_says_the_domain_and_marks_one_too_small_to_time(tmp_path: Path) -> None:
    """``problem init --constraint`` maps the constraint, says the domain in one line
    and, where the whole domain runs under the meter's floor, marks the problem
    ``too_small``; ``problem show`` says the same."""
    sandbox_or_skip()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.in").write_text("3\n1 2 3\n")
    (tmp_path / "in" / "b.in").write_text("5\n5 4 3 2 1\n")
    from tests.conftest import SUM_SOURCE

    (tmp_path / "sum.c").write_text(SUM_SOURCE)
    env = {**os.environ, "SUPERCODER_DOMAIN_AT_INIT": "1"}
    cli = [sys.executable, "-m", "supercoder.cli"]
    init = subprocess.run(
        [*cli, "problem", "init", str(tmp_path / "sum.c"), "--inputs", str(tmp_path / "in")]
        + ["-o", str(tmp_path / "p"), "--constraint", "1<=N<=20", "--constraint", "A_i<=99"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert init.returncode == 0, init.stderr
    assert "constraint N -> v0 (line 1, value 1) [1, 20]" in init.stdout
    domain = [ln for ln in init.stdout.splitlines() if ln.startswith("domain: ")]
    assert len(domain) == 1 and "declared constraints (1<=N<=20; A_i<=99)" in domain[0]
    assert "too_small" in init.stdout
    assert json.loads((tmp_path / "p" / "problem.json").read_text())["too_small"] is True
    show = subprocess.run(
        [*cli, "problem", "show", str(tmp_path / "p")], capture_output=True, text=True, timeout=300
    )
    assert show.returncode == 0, show.stderr
    assert domain[0] in show.stdout and "too small to time" in show.stdout
