"""Hidden data never leaves the evaluator: a verdict names a hidden test and its status only.

Before: a candidate that printed a wrong answer got a diff hint quoting the hidden
test's expected line, and one that echoed its stdin to stderr got ~300 bytes of the
hidden input into ``TestResult.detail`` and ``Verdict.message`` (which ``check --json``
prints and the run store keeps). Visible tests may still be quoted.
"""

from __future__ import annotations

import json

import pytest

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.types import Status
from supercoder.verify.evaluate import HIDDEN_DETAIL, evaluate
from tests.adversarial.test_adversarial import CONFIG, fixture_asm
from tests.conftest import sandbox_or_skip


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
