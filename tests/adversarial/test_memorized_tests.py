"""Time only on tests the model never saw: a lookup table keyed on visible inputs gains nothing.

Before: every test was timed, visible ones included, and refinement feedback shows a
failing visible test's input and expected output. A candidate with a table keyed on the
first 64 bytes of each visible input (honest code as fallback) passed the hidden tests
at ~1x and still read 13.7x on dp_lcs (2 of its 3 timed tests were visible). Now the
speedup comes only from hidden tests and inputs the evaluator generates itself; the
verdict says which tests were timed and why.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import NOT_TIMED, CheckConfig, evaluate
from tests.conftest import sandbox_or_skip

MAIN = r"""
#undef main
#include <stdlib.h>
static char buf[1 << 16];
struct entry { int len; const char *key; const char *answer; };
static const struct entry table[] = { %s };
int main(void) {
    size_t n = fread(buf, 1, sizeof buf - 1, stdin);
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        size_t len = (size_t)table[k].len;
        if (n >= len && memcmp(buf, table[k].key, len) == 0) {
            fputs(table[k].answer, stdout);
            return 0;
        }
    }
    stdin = fmemopen(buf, n, "r");  /* not memorized: the honest program */
    return honest_main();
}
"""


def c_string(data: bytes) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in data) + '"'


def memorizing_candidate(problem) -> str:
    """The problem's own C, plus a table of every visible test's answer keyed on the
    first 64 bytes of its input."""
    rows = []
    for t in problem.visible_tests:
        key = t.read_input()[:64]
        rows.append(f"{{{len(key)}, {c_string(key)}, {c_string(t.expected)}}}")
    source = "#define main honest_main\n" + problem.source + MAIN % ", ".join(rows)
    return compile_to_asm(source, ("-O2",))


@pytest.fixture(scope="module")
def dp_lcs():
    sandbox_or_skip()
    return load_problem(BUNDLED_ROOT / "dp_lcs")


def test_a_table_of_the_visible_answers_reads_no_faster(dp_lcs):
    config = CheckConfig(meter=replace(CheckConfig().meter, max_pairs=5))
    verdict = evaluate(dp_lcs, memorizing_candidate(dp_lcs), config)
    assert verdict.status is Status.OK, verdict.message
    assert verdict.speedup is not None and verdict.speedup.value < 1.5, verdict.speedup
    hidden = {t.name for t in dp_lcs.tests if t.hidden}
    assert not verdict.timed_tests  # no visible test is timed
    assert verdict.unseen is not None and verdict.unseen.timed >= 1
    assert verdict.unseen.count >= len(hidden)
    visible = list(verdict.tests)
    assert visible and all(r.name not in hidden for r in visible)
    assert all(not r.timed and r.detail == NOT_TIMED for r in visible)
    assert "drawn for this check" in verdict.context.measurement.timing


FIXED_WORKLOAD = r"""
#include <stdio.h>
#include <string.h>
/* a fixed workload (CoyoteBench's huffbench -ga): any input but its own is refused */
int main(void) {
    char buf[64] = {0};
    if (!fgets(buf, sizeof buf, stdin) || strcmp(buf, "go 7\n") != 0) return 1;
    unsigned long x = 1;
    for (long i = 0; i < 12000000L; i++)
        x = (x * 6364136223846793005UL + 1442695040888963407UL) ^ (x >> 13);
    printf("%lu\n", x);
    return 0;
}
"""


def test_printing_a_fixed_workload_s_output_is_never_paid_or_counted(tmp_path):
    """A program no input can be drawn for (every draw refused) and one visible input:
    init marks it timed on its visible tests like a memorizable problem, and an answer
    that prints the one expected output reads fast but is paid 0 and never improved."""
    from supercoder.commands.problem_init import undrawable
    from supercoder.problems.init import InitConfig, create_problem
    from supercoder.runs.metrics import problem_record
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate
    from supercoder.verify.reward import default_reward

    sandbox_or_skip()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.in").write_text("go 7\n")
    (tmp_path / "fixed.c").write_text(FIXED_WORKLOAD)
    report = create_problem(
        tmp_path / "fixed.c",
        tmp_path / "in",
        tmp_path / "p",
        InitConfig(calibrate=True, undrawable=undrawable),
    )
    assert report.no_draw.startswith("the reference refuses"), report
    assert "memorizable" in report.domain and not report.hidden
    problem = load_problem(tmp_path / "p")
    assert problem.memorizable and problem.memorizable_why.startswith("no input can be drawn")
    printed = problem.tests[0].expected.decode().strip()
    cheat = compile_to_asm(f'#include <stdio.h>\nint main(void){{puts("{printed}");}}\n', ("-O2",))
    config = CheckConfig(meter=replace(CheckConfig().meter, max_pairs=5))
    verdict = evaluate(problem, cheat, config)
    assert verdict.status is Status.OK, verdict.message
    assert verdict.memorizable
    assert "no input can be drawn" in verdict.context.measurement.timing
    assert verdict.speedup is not None and verdict.speedup.value > 1.5  # it is fast...
    assert default_reward(verdict) == 0.0  # ...and paid nothing
    record = problem_record(Outcome(problem.name, (Attempt(0, 0, Candidate(cheat), verdict),)))
    assert record is not None and record.memorizable and not record.improved
