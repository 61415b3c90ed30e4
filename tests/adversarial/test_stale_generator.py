"""A generator that draws the same input every check is not a source of fresh inputs.

Before: a ``gen.py`` seeded by its size (``random.Random(size)``, one listed size) gave
every check the same single input, and an answer keyed on it (print the known sum when
the input starts as that one does, honest code otherwise) earned 14.7x, while nothing
said the "fresh" inputs never changed. Now a generator whose draws for different seeds
are identical is refused as a source, with its reason, and the next source (here the
input model) draws; the verdict says how many distinct inputs it timed.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from supercoder.problems.loading import load_problem
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import default_reward
from supercoder.verify.unseen import unseen_tests
from tests.conftest import make_sum_problem, sandbox_or_skip

SIZE = 150_000
STALE = f"""
import random
SIZES = [{SIZE}]
def generate(seed, size):
    rng = random.Random(size)  # seeded by its size: the seed is ignored
    xs = [rng.randint(-999, 999) for _ in range(size)]
    return f"{{size}}\\n" + " ".join(map(str, xs)) + "\\n"
"""

KEYED = r"""
#include <stdio.h>
int main(void) {
    long long n = 0, x, s = 0, first = 0;
    if (scanf("%lld", &n) != 1) return 0;
    if (n > 0 && scanf("%lld", &first) == 1) {
        if (n == SIZE && first == FIRST) { printf("%lld\n", (long long)ANSWER); return 0; }
        s = first;
    }
    for (long long i = 1; i < n && scanf("%lld", &x) == 1; i++) s += x;
    printf("%lld\n", s);
    return 0;
}
"""


def test_an_answer_keyed_on_a_stale_generators_input_is_not_paid() -> None:
    sandbox_or_skip()
    folder = make_sum_problem(Path(tempfile.mkdtemp()) / "stale", hidden=False)
    (folder / "gen.py").write_text(STALE)
    problem = load_problem(folder)
    rng = random.Random(SIZE)
    xs = [rng.randint(-999, 999) for _ in range(SIZE)]
    keyed = (
        KEYED.replace("SIZE", str(SIZE))
        .replace("FIRST", str(xs[0]))
        .replace("ANSWER", f"{sum(xs)}LL")
    )
    unseen = unseen_tests(problem)
    assert unseen.source != "generator", unseen.why
    refused = [d for d in unseen.dropped if d.startswith("generator:")]
    assert refused and "not fresh" in refused[0], unseen.dropped
    assert len({data for _, data, _ in unseen.tests}) >= 2  # the next source draws anew
    verdict = evaluate(
        problem,
        compile_to_asm(keyed, ("-O3",)),
        CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=5)),
    )
    assert verdict.correct, verdict.message
    measured = verdict.context.measurement
    assert any("not fresh" in d for d in measured.dropped_sources), measured
    assert measured.distinct_inputs >= 2, measured
    assert verdict.speedup is not None and verdict.speedup.value < 1.5, verdict.speedup
    if not verdict.significantly_faster:
        assert default_reward(verdict) == 0.0
