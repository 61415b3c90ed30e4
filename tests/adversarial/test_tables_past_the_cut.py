"""A speedup that lives only below the time budget's cut is not paid.

Before: where the reference's time budget (~25 ms), not the problem's own bounds, cut
the domain, the cut was predictable: a table of checkpoints up to it (correct for every
n, honest past it) earned 12.4x on a dependent chain with no honest gain, a table of
Collatz record holders 112-156x, a sieve's prime counts at checkpoints 105x; the
Collatz table (2 x 176 bytes) was under the 512 bytes at which ``check`` mentions data
growth, so its verdict named nothing. Now each check also times a draw past the cut (``unseen.BEYOND``), the verdict reports the
speedup per stratum, the default reward pays nothing that does not hold past the cut,
and every table an answer adds is named in the verdict whatever its size.

Each problem's generator lists sizes far past what the reference runs within the
budget, so the cut is the budget's; each table covers exactly up to it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from supercoder.problems.loading import generator_source, load_problem
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.toolchain.reference import reference_runs as run_c
from supercoder.types import Problem, Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import RewardConfig, default_reward, holds_past_cut, score_verdict
from supercoder.verify.unseen import generator_timed_range
from tests.conftest import sandbox_or_skip

CONFIG = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=5))

GEN = """
import random
SIZES = [1000, HIGH]
def generate(seed, size):
    rng = random.Random(seed)
    return f"{size - rng.randrange(max(1, size // 8))}\\n"
"""

CHAIN = r"""
#include <stdio.h>
#include <stdint.h>
static uint64_t mix(uint64_t x) {
    x ^= x >> 31; x *= 0x7fb5d329728ea185ULL; x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL; x ^= x >> 33; return x;
}
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1 || n < 0) return 1;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    long long i = 0;
    START
    for (; i < n; i++) x = mix(x + (uint64_t)i);
    printf("%llu\n", (unsigned long long)x);
    return 0;
}
"""

# every STEP-th state of the chain up to TOP, printed in one run
MARKS = CHAIN.replace(
    "for (; i < n; i++) x = mix(x + (uint64_t)i);",
    'for (; i <= n; i++) { if (i % STEP == 0) printf("%llu\\n", '
    "(unsigned long long)x); x = mix(x + (uint64_t)i); }\n    return 0;",
)

COLLATZ = r"""
#include <stdio.h>
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1 || n < 1) return 1;
    long long best = 1, len = 1;
    START
    for (long long k = best + 1; k <= n; k++) {
        unsigned long long c = (unsigned long long)k; long long s = 1;
        while (c != 1) { c = (c & 1) ? 3 * c + 1 : c >> 1; s++; }
        if (s > len) { len = s; best = k; }
    }
    printf("%lld %lld\n", best, len);
    return 0;
}
"""


SIEVE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    long n;
    if (scanf("%ld", &n) != 1 || n < 0) return 1;
    START
    char *s = calloc((size_t)n + 1, 1);
    if (!s) return 1;
    long c = 0;
    for (long i = 2; i <= n; i++)
        if (!s[i]) { c++; for (long j = i * i; j <= n; j += i) s[j] = 1; }
    printf("%ld\n", c);
    free(s);
    return 0;
}
"""


def _problem(source: str, visible: list[int], high: int) -> tuple[Problem, int]:
    """The problem (its generator listing sizes up to ``high``, far past the budget) and
    the cut: the largest size the reference runs within the budget."""
    folder = Path(tempfile.mkdtemp()) / "p"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(source)
    (folder / "gen.py").write_text(GEN.replace("HIGH", str(high)))
    outs = run_c(source, [f"{n}\n".encode() for n in visible])
    for i, (n, out) in enumerate(zip(visible, outs, strict=True)):
        (folder / "tests" / f"t{i}.in").write_text(f"{n}\n")
        (folder / "tests" / f"t{i}.out").write_bytes(out.output)
    problem = load_problem(folder)
    top = generator_timed_range(problem, generator_source(problem.settings))[1]
    assert top < high // 2  # the budget cuts the domain, not the listed sizes
    return problem, top


def _checkpoints(top: int, step: int) -> str:
    honest = CHAIN.replace("START", "")
    source = MARKS.replace("START", "").replace("STEP", str(step))
    assert "if (i % " in source and honest
    (run,) = run_c(source, [f"{top}\n".encode()], timeout=60.0, repeat=1)
    values = run.output.decode().split()
    table = ", ".join(f"{v}ULL" for v in values)
    start = (
        f"static const uint64_t ck[] = {{{table}}};\n"
        f"    if (n <= {top}) {{ x = ck[n / {step}]; i = (n / {step}) * {step}; }}"
    )
    return CHAIN.replace("START", start)


def _records(top: int) -> str:
    memo = {1: 1}
    rows, best = [(1, 1)], 1
    for k in range(2, top + 1):
        path, c = [], k
        while c not in memo:
            path.append(c)
            c = 3 * c + 1 if c & 1 else c >> 1
        s = memo[c]
        for p in reversed(path):
            s += 1
            if p <= top:
                memo[p] = s
        if s > best:
            best = s
            rows.append((k, s))
    table = ", ".join(f"{{{k}, {s}}}" for k, s in rows)
    start = (
        f"static const long long rec[][2] = {{{table}}};\n"
        f"    if (n <= {top}) {{ for (unsigned j = 0; j < sizeof rec / sizeof rec[0] && "
        "rec[j][0] <= n; j++) { best = rec[j][0]; len = rec[j][1]; } "
        'printf("%lld %lld\\n", best, len); return 0; }'
    )
    return COLLATZ.replace("START", start)


def _prime_counts(top: int, step: int) -> str:
    sieve = bytearray([1]) * (top + 1)
    sieve[0:2] = b"\0\0"
    for i in range(2, int(top**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytes(len(range(i * i, top + 1, i)))
    counts, c = [], 0
    for k in range(top + 1):
        c += sieve[k]
        if k % step == 0:
            counts.append(c)
    table = ", ".join(map(str, counts))
    start = (
        f"static const long pc[] = {{{table}}};\n"
        f"    if (n <= {top}) {{ long c = pc[n / {step}];\n"
        f"        for (long k = (n / {step}) * {step} + 1; k <= n; k++) {{\n"
        "            int p = k >= 2; for (long d = 2; d * d <= k; d++) if (k % d == 0) "
        "{ p = 0; break; }\n"
        '            c += p; }\n        printf("%ld\\n", c); return 0; }'
    )
    return SIEVE.replace("START", start)


@pytest.mark.parametrize("case", ["checkpoints", "collatz-records", "prime-count"])
def test_a_table_up_to_the_cut_is_not_paid(case: str) -> None:
    sandbox_or_skip()
    if case == "checkpoints":
        problem, top = _problem(CHAIN.replace("START", ""), [2000, 30000, 90000], 1 << 29)
        hostile = _checkpoints(top, max(64, top // 2048))
    elif case == "collatz-records":
        problem, top = _problem(COLLATZ.replace("START", ""), [500, 3000, 9000], 1 << 22)
        hostile = _records(top)
    else:
        problem, top = _problem(SIEVE.replace("START", ""), [1000, 50000, 200000], 1 << 26)
        hostile = _prime_counts(top, 256)
    # built with the baseline's own -O3: the table is all that differs
    verdict = evaluate(problem, compile_to_asm(hostile, ("-O3",)), CONFIG)
    assert verdict.status is Status.OK, verdict.message
    measured = verdict.context.measurement
    assert measured.cut and "budget cuts" in measured.cut, measured
    assert measured.beyond_cut is not None, measured.timing
    assert measured.beyond_cut.value < 1.5, measured.beyond_cut  # no gain past the cut
    assert not holds_past_cut(verdict)
    assert default_reward(verdict) == 0.0, (verdict.speedup, measured.beyond_cut)
    # the table is named in the verdict, whatever its size (the records: a few hundred
    # bytes, under the 512 at which data growth is flagged)
    assert verdict.data is not None and verdict.data.tables, verdict.data
    name = {"checkpoints": "ck", "collatz-records": "rec", "prime-count": "pc"}[case]
    assert any(t.startswith(f"table {name}") for t in verdict.data.tables), verdict.data
    assert score_verdict(verdict, RewardConfig(pay_tables=False)) == 0.0
