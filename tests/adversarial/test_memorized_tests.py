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
