"""Hidden data never leaves the evaluator: the tests the model never saw are reported
together, a count and one status, never one by one.

Before: a candidate that printed a wrong answer got a diff hint quoting the hidden
test's expected line, and one that echoed its stdin to stderr got ~300 bytes of the
hidden input into ``TestResult.detail`` and ``Verdict.message`` (which ``check --json``
prints and the run store keeps). Visible tests may still be quoted. Then each hidden
and generated test was still named with its own status: a candidate that fails in a
different way (ok / wrong output / crash / output limit) depending on two bits of the
input recovered every generated input in 13 failing checks. Now they share one status.
"""

from __future__ import annotations

import json

import pytest

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import HIDDEN_DETAIL, evaluate
from tests.adversarial.test_adversarial import CONFIG, fixture_asm
from tests.conftest import make_sum_problem, sandbox_or_skip


@pytest.fixture(scope="module")
def bundled():
    sandbox_or_skip()
    return load_problem(BUNDLED_ROOT / "bit_reverse_hash")


def hidden_fragments(problem) -> list[str]:
    """Distinctive pieces of every hidden input and expected output (16+ characters)."""
    out = []
    for t in problem.tests:
        if t.hidden:
            for blob in (t.read_input(), t.expected):
                out += [ln.decode()[:16] for ln in blob.splitlines() if len(ln) >= 12][:20]
    return out


@pytest.mark.parametrize(
    ("defines", "status"), [(("ECHO",), Status.RUNTIME_ERROR), ((), Status.WRONG_OUTPUT)]
)
def test_a_verdict_quotes_no_hidden_data(bundled, defines, status):
    verdict = evaluate(bundled, fixture_asm("echo_hidden", *defines), CONFIG)
    assert verdict.status is status
    text = json.dumps(verdict.to_json())
    fragments = hidden_fragments(bundled)
    assert fragments and not [f for f in fragments if f in text]
    hidden = {t.name for t in bundled.tests if t.hidden}
    # the tests the model never saw: not named, one status for all of them together
    assert not [r for r in verdict.tests if r.name in hidden]
    assert not [name for name in hidden if name in text]
    assert verdict.unseen is not None and verdict.unseen.count >= len(hidden)
    assert verdict.unseen.status is status and verdict.unseen.candidate_seconds is None
    visible = [r for r in verdict.tests if r.status is status]
    assert visible and all(r.detail and r.detail != HIDDEN_DETAIL for r in visible)


# Answers honestly on the visible inputs (their first numbers are small); on any other
# input, fails in one of four ways chosen by two bits of the input: an oracle if a
# verdict said how each test failed.
BIT_ORACLE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    long long n = 0, x, s = 0, h = 0;
    if (scanf("%lld", &n) != 1) return 0;
    for (long long i = 0; i < n && scanf("%lld", &x) == 1; i++) { s += x; h = h * 31 + x; }
    if (n <= 200) { printf("%lld\n", s); return 0; }
    switch ((h >> 3) & 3) {
    case 0: printf("%lld\n", s); return 0;
    case 1: printf("%lld\n", s + 1); return 0;
    case 2: return 3;
    default: for (;;) fputs("flood flood flood flood\n", stdout);
    }
}
"""


def test_a_failure_mode_oracle_learns_nothing_per_test(tmp_path):
    sandbox_or_skip()
    folder = make_sum_problem(tmp_path / "sum", hidden=False)
    hidden = folder / "hidden"
    hidden.mkdir()
    for k in range(8):  # inputs with n > 200: the candidate picks a failure mode for each
        xs = [(k * 7919 + i * 104729) % 1000 for i in range(201 + k)]
        (hidden / f"h{k}.in").write_text(f"{len(xs)}\n{' '.join(map(str, xs))}\n")
        (hidden / f"h{k}.out").write_text(f"{sum(xs)}\n")
    problem = load_problem(folder)
    verdict = evaluate(problem, compile_to_asm(BIT_ORACLE), CONFIG)
    assert not verdict.correct
    names = {f"h{k}" for k in range(8)}
    data = verdict.to_json()
    assert [t["name"] for t in data["tests"]] == [t.name for t in problem.visible_tests]
    assert all(t["status"] == "ok" for t in data["tests"])  # the visible ones, honestly
    unseen = data["unseen"]
    assert unseen["count"] >= 8 and unseen["status"] in {
        "wrong_output",
        "runtime_error",
        "output_limit",
    }
    assert unseen["candidate_seconds"] is None and unseen["timed"] == 0
    text = json.dumps(data)
    assert not [n for n in names if f'"{n}"' in text or f"test {n}" in text]
