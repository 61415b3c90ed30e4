"""A table over the range the visible inputs span gains nothing: the domain reaches past it.

Before: the inferred input model drew every number within the [min, max] the visible
inputs span (``"int": [0, 6000000]``), never above, and every word from the seen
alphabet at the seen lengths. A candidate correct on every input, with a small table
covering exactly that span and honest code elsewhere, read 10.1x on a dependent 64-bit
mixing chain (no honest speedup at all), 99.3x on a Collatz problem, and 6.7x with a
table of every 12-letter word over "ab". Now the model is extrapolated (sizes grown
while the reference runs within its budget, values beyond the range seen, whole letter
classes) and a check's draws are stratified over that domain from the sizes worth
timing up: the span the visible inputs show is a corner no draw lands in, and each
table gains nothing.

Each case: the old model's draws all fall in the table (what paid), the new ones do not,
and a real check of the table reads no significant speedup. Bounded: a few 25 ms inputs,
at most 5 rounds of pairs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import model_for
from supercoder.problems.loading import load_problem
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.toolchain.reference import reference_runs as run_c
from supercoder.types import Problem, Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import default_reward
from supercoder.verify.unseen import unseen_tests
from tests.conftest import sandbox_or_skip

CONFIG = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=5))

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

WORDS = r"""
#include <stdio.h>
#include <string.h>
#include <stdint.h>
static uint64_t value(const char *w) {
    uint64_t h = 1469598103934665603ULL;
    for (int r = 0; r < 400; r++)
        for (const char *p = w; *p; p++) { h ^= (uint64_t)*p + r; h *= 1099511628211ULL; }
    return h;
}
int main(void) {
    int n; char w[4096]; uint64_t s = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n && scanf("%4095s", w) == 1; i++) {
        LOOKUP
        s += value(w);
    }
    printf("%llu\n", (unsigned long long)s);
    return 0;
}
"""


def _make(name: str, source: str, inputs: list[str]) -> Problem:
    base = Path(tempfile.mkdtemp())
    (base / "in").mkdir()
    for i, text in enumerate(inputs):
        (base / "in" / f"{i}.in").write_text(text)
    (base / "prog.c").write_text(source)
    report = create_problem(base / "prog.c", base / "in", base / name, InitConfig(calibrate=True))
    return load_problem(report.folder)


def _old_draws(problem: Problem, k: int = 40) -> list[str]:
    """What the model drew before: the visible span (no domain section)."""
    import random

    model = model_for(problem)
    assert model is not None and model.domain  # init found and stored the domain
    spec = {key: v for key, v in model.spec.items() if key != "domain"}
    from supercoder.problems.inputmodel import InputModel

    return InputModel(spec).draw(random.Random(0), k)


def _no_gain(problem: Problem, hostile: str) -> None:
    """The table gains nothing: the answer is built with the baseline's own -O3, so the
    table is all that differs (built with -O2, the honest Collatz loop alone read
    1.11-1.18x against gcc -O3 on a loaded machine, below the cut and past it alike: an
    honest codegen gain, not the table's, which is what paid 1.22x at load 6-10)."""
    verdict = evaluate(problem, compile_to_asm(hostile, ("-O3",)), CONFIG)
    assert verdict.status is Status.OK, verdict.message
    assert verdict.speedup is not None, verdict.context.measurement.timing
    measured = verdict.context.measurement
    assert "extrapolated" in measured.domain, verdict.context
    assert verdict.speedup.value < 1.5, verdict.speedup
    assert not verdict.speedup.low > 1.1, verdict.speedup  # not significantly faster
    if measured.beyond_cut is not None:  # past the cut the budget makes: nothing either
        assert measured.beyond_cut.value < 1.5, measured.beyond_cut
    assert (default_reward(verdict) or 0.0) < 1.1


def test_a_checkpoint_table_of_a_mixing_chain_gains_nothing() -> None:
    sandbox_or_skip()
    visible = [20000, 60000, 110000, 150000]
    problem = _make("chain", CHAIN.replace("START", ""), [f"{n}\n" for n in visible])
    step, top = 2048, max(visible)
    marks = list(range(0, top + 1, step))
    honest = CHAIN.replace("START", "")
    outs = run_c(honest, [f"{m}\n".encode() for m in marks])
    # the state after m steps is what the program prints for n = m
    table = ", ".join(f"{int(r.output)}ULL" for r in outs)
    start = (
        f"static const uint64_t ck[] = {{{table}}};\n"
        f"    if (n <= {top}) {{ x = ck[n / {step}]; i = (n / {step}) * {step}; }}"
    )
    hostile = CHAIN.replace("START", start)
    old = [int(x) for x in _old_draws(problem)]
    assert all(n <= top for n in old)  # before: every draw inside the table
    new = [int(x[1]) for _ in range(2) for x in unseen_tests(problem).tests]
    assert sum(n <= top for n in new) <= 1  # now: past it
    _no_gain(problem, hostile)


def _collatz_records(limit: int) -> list[tuple[int, int]]:
    memo = {1: 1}

    def steps(k: int) -> int:
        path = []
        while k not in memo:
            path.append(k)
            k = 3 * k + 1 if k & 1 else k >> 1
        s = memo[k]
        for p in reversed(path):
            s += 1
            memo[p] = s
        return s

    out, best = [(1, 1)], 1
    for k in range(2, limit + 1):
        s = steps(k)
        if s > best:
            best = s
            out.append((k, s))
    return out


def test_a_table_of_collatz_record_holders_gains_nothing() -> None:
    sandbox_or_skip()
    visible = [1000, 3000, 9000, 20000]
    problem = _make("collatz", COLLATZ.replace("START", ""), [f"{n}\n" for n in visible])
    top = max(visible)
    records = _collatz_records(top)
    rows = ", ".join(f"{{{k}, {s}}}" for k, s in records)
    start = (
        f"static const long long rec[][2] = {{{rows}}};\n"
        f"    if (n <= {top}) {{ for (unsigned j = 0; j < sizeof rec / sizeof rec[0] && "
        "rec[j][0] <= n; j++) { best = rec[j][0]; len = rec[j][1]; } "
        'printf("%lld %lld\\n", best, len); return 0; }'
    )
    hostile = COLLATZ.replace("START", start)
    assert all(int(x) <= top for x in _old_draws(problem))
    _no_gain(problem, hostile)


def test_a_table_of_every_seen_word_gains_nothing() -> None:
    """Every visible word has 12 letters over "ab": the old model drew only those 4,096
    words, so a table of them all paid 6.7x."""
    sandbox_or_skip()
    import random

    rng = random.Random(3)
    visible = []
    for n in (40, 90, 150):
        words = ["".join(rng.choice("ab") for _ in range(12)) for _ in range(n)]
        visible.append(f"{n}\n" + "\n".join(words) + "\n")
    problem = _make("words", WORDS.replace("LOOKUP", ""), visible)
    every = ["".join("ab"[(k >> b) & 1] for b in range(12)) for k in range(4096)]
    runs = run_c(
        WORDS.replace("LOOKUP", "").replace(
            "s += value(w);", 'printf("%llu\\n", (unsigned long long)value(w));'
        ),
        [("4096\n" + "\n".join(every) + "\n").encode()],
    )
    values = runs[0].output.decode().split()
    lookup = (
        f"static const uint64_t tab[4096] = {{{', '.join(v + 'ULL' for v in values)}}};\n"
        '        if (strlen(w) == 12 && strspn(w, "ab") == 12) { unsigned k = 0;\n'
        "            for (int b = 0; b < 12; b++) k |= (unsigned)(w[b] == 'b') << b;\n"
        "            s += tab[k]; continue; }"
    )
    hostile = WORDS.replace("LOOKUP", lookup)
    old = _old_draws(problem, 10)
    assert all(set("".join(x.split()[1:])) <= set("ab") for x in old)
    _no_gain(problem, hostile)


@pytest.mark.parametrize("n", [3])
def test_the_domain_is_said_in_one_line(n: int) -> None:
    """``problem show`` (and init, and check) say the domain and its source in one line;
    a domain that is only the visible span says so."""
    import random

    from supercoder.problems.domain import describe
    from supercoder.problems.inputmodel import infer

    model = infer([b"5\n1 2 3 4 5\n", b"3\n7 8 9\n"])
    assert "the visible span only" in describe(model)
    grown = model.with_domain({"version": 1, "grow": 64.0, "top_seconds": 0.02})
    assert "extrapolated" in describe(grown) and "64x" in describe(grown)
    refused = model.with_domain({"version": 1, "refused": "4 of 4 drawn inputs ..."})
    assert "refused by the reference" in describe(refused)
    assert len(grown.draw(random.Random(1), n)) == n
