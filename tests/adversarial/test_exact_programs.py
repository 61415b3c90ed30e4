"""One timing per exact program: near-twins never share a verdict.

Before: group timing (``verify/service.py`` ``_sessions``) keyed the programs of one
check by a *normalized* assembly digest that collapsed the whitespace inside character
constants: ``movl $'<TAB>', %esi`` (9) and ``movl $' ', %esi`` (32) normalized alike.
A program right only on the visible inputs, checked in one group (a GRPO group of
near-duplicate samples is the normal case) with its near-twin that is right everywhere,
was never timed and received the twin's verdict: ok, ~10x, rewarded. Now every
decision keys on the exact program that runs (its executable's bytes, or its exact
text): the wrong one is timed on drawn inputs of its own, reads ``wrong_output`` and
earns 0.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import compile_to_asm, normalize_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig, score_verdict, verify_batch
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import tiny_problem

BIG = 2_000_000
VISIBLE = (0, 1, 13, 1000, BIG)  # tiny_problem's tests

# the closed form of tiny_sum, plus (k - 9) times "not one of the visible inputs": the
# character constant k is 9 (a tab) in the right program, 32 (a space) in its twin
TWIN = r"""#include <stdio.h>
int main(void) {
    long n, k;
    if (scanf("%%ld", &n) != 1) return 1;
    __asm__ volatile("movl $'%s', %%k0" : "=r"(k));
    long q = n / 7, r = n %% 7;
    long seen = %s;
    printf("%%ld\n", q * 21 + r * (r - 1) / 2 + (seen ? 0 : (k - 9)));
    return 0;
}
"""


def twin(char: str) -> str:
    seen = " || ".join(f"n == {v}" for v in VISIBLE)
    return compile_to_asm(TWIN % (char, seen))


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return tiny_problem(tmp_path_factory.mktemp("twins") / "tiny_sum", big=BIG)


def test_a_near_twin_right_only_on_visible_inputs_gets_its_own_verdict(problem):
    right, wrong = twin("\t"), twin(" ")
    assert right != wrong and normalize_asm(right) == normalize_asm(wrong)  # lossy alike
    config = CheckConfig(meter=replace(MeterConfig(), min_pairs=3, max_pairs=4))
    reward = RewardConfig(kind="paper", eval_config=config)
    fence = "```assembly\n{}```"
    verdicts = verify_batch(
        [problem, problem], [fence.format(right), fence.format(wrong)], reward, infra_retries=0
    )
    good, bad = verdicts
    assert good.status is Status.OK and good.speedup is not None, good.message
    assert good.speedup.value > 1.5  # the closed form against a volatile loop
    # the twin was timed on drawn inputs of its own: wrong there, and paid nothing
    assert bad.status is Status.WRONG_OUTPUT, (bad.status, bad.message)
    assert score_verdict(bad, reward) == 0.0
    assert score_verdict(bad, RewardConfig(eval_config=config)) == 0.0
