"""Timed inputs nobody can predict: drawn afresh every check, across the inputs' range.

Before: the timed inputs were fuzz mutations made once per machine and reused by every
check; a header number or a line of numbers was never changed (``3000001 12345`` came
back five times unchanged) and a lone size shrank by at most 5%, so a candidate that
keyed a table on a visible test's first line read 13.9x, and a third of real programs
got no timed input at all.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import FILE, infer, model_for
from supercoder.problems.loading import load_problem
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.unseen import DRAWS, sanitizer_clean, unseen_tests
from tests.conftest import make_sum_problem, sandbox_or_skip

# a lone-number problem: n then a seed; work grows with n
PAIR = r"""
#include <stdio.h>
int main(void) {
    unsigned long long n, seed, x, acc = 0;
    if (scanf("%llu %llu", &n, &seed) != 2) return 1;
    x = seed;
    for (unsigned long long i = 0; i < n; i++) { x = x * 6364136223846793005ULL + 1; acc ^= x >> 33; }
    printf("%llu\n", acc);
    return 0;
}
"""

# the first output line depends only on the header n (and is the costly part); the second
# on the n numbers that follow
HEADER = r"""
#include <stdio.h>
static unsigned long long work(long long n) {
    unsigned long long x = (unsigned long long)n, acc = 0;
    for (long long i = 0; i < n * 400; i++) { x = x * 6364136223846793005ULL + 1; acc += x >> 40; }
    return acc;
}
int main(void) {
    long long n, v, s = 0;
    if (scanf("%lld", &n) != 1) return 1;
    for (long long i = 0; i < n && scanf("%lld", &v) == 1; i++) s += v;
    printf("%llu\n%lld\n", work(n), s);
    return 0;
}
"""


def _problem(folder: Path, source: str, inputs: list[str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "source.c").write_text(source)
    (folder / "tests").mkdir()
    from supercoder.toolchain.reference import reference_runs

    outs = reference_runs(source, [x.encode() for x in inputs])
    for i, (data, run) in enumerate(zip(inputs, outs, strict=True)):
        (folder / "tests" / f"t{i}.in").write_text(data)
        (folder / "tests" / f"t{i}.out").write_bytes(run.output)
    return folder


def test_every_check_draws_new_inputs(tmp_path: Path) -> None:
    sandbox_or_skip()
    problem = load_problem(make_sum_problem(Path(tempfile.mkdtemp()) / "sum"))
    first, second = unseen_tests(problem), unseen_tests(problem)
    assert first.source == second.source == "model"
    a, b = {x[1] for x in first.tests}, {x[1] for x in second.tests}
    assert len(a) == len(b) == DRAWS and not a & b  # nothing reused between checks
    own = {t.read_input() for t in problem.tests}
    assert not (a | b) & own
    assert first.names == {f"unseen/u{i}" for i in range(1, DRAWS + 1)}
    assert "drawn for this check" in first.why


def test_a_line_of_numbers_and_a_lone_number_vary_across_the_range() -> None:
    sandbox_or_skip()
    folder = _problem(Path(tempfile.mkdtemp()) / "pair", PAIR, ["3000001 12345\n", "1000003 7\n"])
    problem = load_problem(folder)
    checks = [unseen_tests(problem) for _ in range(3)]
    drawn = [x[1] for u in checks for x in u.tests]
    firsts = [int(d.split()[0]) for d in drawn]
    seconds = [int(d.split()[1]) for d in drawn]
    assert len(set(firsts)) == len(firsts) == 3 * DRAWS
    assert len(set(seconds)) >= 3 * DRAWS - 1
    # the domain reaches past the visible span (grown while the reference runs within
    # its budget; on a machine too slow for that, shrunk to it): never the span alone
    domain = checks[0].domain
    assert "grown" in domain or "shrunk" in domain, domain
    if "grown" in domain:
        assert max(firsts) > 3000001
    assert max(firsts) - min(firsts) > 0.3 * max(firsts)  # across the range
    assert not {3000001, 1000003} & set(firsts)
    # a lone number seen with one value: drawn from half of it up to it, never itself
    model = infer([b"5000000\n"])
    lone = [int(x) for x in model.draw(random.Random(3), 12)]
    assert len(set(lone)) == 12 and all(2500000 <= n < 5000000 for n in lone)


def test_a_visible_header_answer_gains_nothing() -> None:
    """A candidate that answers the costly first line from a table of the visible tests'
    headers (honest otherwise) was timed on inputs that kept a visible header: 13.9x.
    Drawn headers are new: it is honest on every timed input, or wrong."""
    sandbox_or_skip()
    inputs = []
    rng = random.Random(5)
    for n in (2000, 2600, 3100, 3900):
        inputs.append(f"{n}\n" + " ".join(str(rng.randint(0, 99)) for _ in range(n)) + "\n")
    folder = _problem(Path(tempfile.mkdtemp()) / "header", HEADER, inputs)
    problem = load_problem(folder)
    rows = []
    for t in problem.tests:
        n = int(t.read_input().split()[0])
        rows.append(f"if (n == {n}) return {t.expected.split()[0].decode()}ULL;")
    hostile = HEADER.replace(
        "static unsigned long long work(long long n) {",
        "static unsigned long long work(long long n) {\n" + "\n".join(rows),
    )
    config = CheckConfig(meter=MeterConfig(min_pairs=3, max_pairs=5))
    verdict = evaluate(problem, compile_to_asm(hostile), config)
    if verdict.status is Status.OK:
        assert verdict.speedup is not None and verdict.speedup.value < 1.3, verdict.speedup
        assert not verdict.speedup.low > 1.1
    else:
        assert verdict.status is Status.WRONG_OUTPUT
    assert verdict.context.measurement.timed_inputs in ("", "model")


def test_a_program_that_reads_no_input_is_timed_on_its_visible_tests() -> None:
    sandbox_or_skip()
    folder = make_sum_problem(Path(tempfile.mkdtemp()) / "noin", hidden=False)
    meta = {"reads_input": False}
    (folder / "problem.json").write_text(json.dumps(meta))
    unseen = unseen_tests(load_problem(folder))
    assert unseen.source == "memorizable" and "memorizable" in unseen.why
    assert unseen.names == {"t0", "t1", "t2", "t3"} and not unseen.generated_tests


def test_the_sanitizer_rejects_an_input_that_overflows_the_reference() -> None:
    """A drawn ``9 aabbcdefgh`` made the reference overflow its heap buffer (-O3 and -O0
    agreed): the sanitizer build of the reference rejects such an input."""
    sandbox_or_skip()
    source = r"""
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    int main(void) {
        int n; char s[128];
        if (scanf("%d %127s", &n, s) != 2) return 1;
        char *b = malloc(n);
        strcpy(b, s);
        printf("%s\n", b);
        free(b);
        return 0;
    }
    """
    folder = _problem(Path(tempfile.mkdtemp()) / "ovf", source, ["20 hello\n"])
    problem = load_problem(folder)
    clean = sanitizer_clean(problem, [b"20 hello\n", b"9 aabbcdefgh\n", b"30 abc\n"])
    assert clean == [b"20 hello\n", b"30 abc\n"]


def test_init_stores_an_input_model_and_copies_a_generator(tmp_path: Path) -> None:
    sandbox_or_skip()
    base = Path(tempfile.mkdtemp())
    (base / "in").mkdir()
    (base / "in" / "a.in").write_text("3\n1 2 3\n")
    (base / "in" / "b.in").write_text("5\n1 2 3 4 5\n")
    (base / "sum.c").write_text(make_sum_source())
    report = create_problem(base / "sum.c", base / "in", base / "p", InitConfig())
    assert (report.folder / FILE).is_file() and "input model" in report.timed
    problem = load_problem(report.folder)
    model = model_for(problem)
    assert model is not None and json.loads((report.folder / FILE).read_text()) == model.spec
    gen = base / "mygen.py"
    gen.write_text(
        "import random\nSIZES = [10, 400]\n"
        "def generate(seed, size):\n    r = random.Random(seed)\n"
        "    return f'{size}\\n' + ' '.join(str(r.randint(-9, 9)) for _ in range(size)) + '\\n'\n"
    )
    opts = InitConfig(generator=gen)
    report = create_problem(base / "sum.c", base / "in", base / "q", opts)
    assert (report.folder / "gen.py").read_text() == gen.read_text()
    assert not (report.folder / FILE).exists()
    unseen = unseen_tests(load_problem(report.folder))
    assert unseen.source == "generator"
    assert all(200 <= int(x[1].split()[0]) <= 400 for x in unseen.tests)  # the upper half
    bad = base / "bad.py"
    bad.write_text("def generate(seed, size):\n    while True:\n        pass\n")
    with pytest.raises(Exception, match="limit"):
        create_problem(
            base / "sum.c", base / "in", base / "r", InitConfig(generator=bad, timeout=1.0)
        )


def make_sum_source() -> str:
    from tests.conftest import SUM_SOURCE

    return SUM_SOURCE


SPIN = r"""
#include <stdio.h>
int main(void) {
    long long n = 0;
    if (scanf("%lld", &n) != 1) return 1;
    unsigned long long x = 1;
    for (long long i = 0; i < n * 2000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    printf("%llu\n", x);
    return 0;
}
"""


def _spin_problem(tmp_path):
    folder = tmp_path / "spin"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SPIN)
    (folder / "problem.json").write_text(json.dumps({"name": "spin"}))
    (folder / "gen.py").write_text(
        # the seed on a second line the program does not read: fresh draws (a generator
        # that ignores its seed is refused), the same work for the same size
        "SIZES = [1, 100000]\ndef generate(seed, size):\n    return f'{size}\\n{seed}\\n'\n"
    )
    for n in (1, 2, 3):
        x = 1
        for _ in range(n * 2000):
            x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        (folder / "tests" / f"t{n}.in").write_text(f"{n}\n")
        (folder / "tests" / f"t{n}.out").write_text(f"{x}\n")
    return load_problem(folder)


def test_checks_draw_the_same_sizes_however_busy_the_machine(tmp_path, monkeypatch):
    """The sizes a check draws are the problem's (fitted once, ``unseen.size_fit``), not
    the load's: a check on a machine 6x slower (every reference run reads 6x the CPU)
    draws the very inputs a quiet check draws with the same seed. Before, each check
    drew again smaller whatever ran over 24 ms in its own runs, so a busy eval timed
    smaller inputs than a quiet check."""
    sandbox_or_skip()
    from supercoder.verify import unseen

    problem = _spin_problem(tmp_path)
    quiet = unseen.draw_from_sources(problem, DRAWS, seed=11)
    assert quiet.source == "generator" and len(quiet.tests) == DRAWS
    real = unseen.reference_runs

    def slow(problem, inputs, *rest):
        outputs, cpu = real(problem, inputs, *rest)
        return outputs, [6 * t for t in cpu]

    monkeypatch.setattr(unseen, "reference_runs", slow)
    busy = unseen.draw_from_sources(problem, DRAWS, seed=11)
    assert [d for _, d, _ in busy.tests] == [d for _, d, _ in quiet.tests]
    assert busy.round_seconds > 3 * quiet.round_seconds  # it did read the slow runs


def test_a_draw_that_runs_long_is_drawn_again_smaller(tmp_path):
    """A generator's draws at the top of its range that take the reference well over
    ``TARGET_SECONDS`` are drawn again at a smaller size: a check's few timed inputs
    cost about what timing one largest test did, and still run long enough to time."""
    sandbox_or_skip()
    from supercoder.verify.unseen import TARGET_SECONDS, reference_runs

    problem = _spin_problem(tmp_path)
    top, _ = reference_runs(problem, [b"100000\n"])
    if top[0] is None:
        pytest.skip("the machine could not run the reference")
    _, (top_cpu,) = reference_runs(problem, [b"100000\n"])
    if top_cpu < 4 * TARGET_SECONDS:
        pytest.skip(f"this machine spins too fast to test the resize ({top_cpu:.3f}s)")
    unseen = unseen_tests(problem)
    assert unseen.source == "generator" and len(unseen.tests) == DRAWS
    sizes = sorted(int(data.split()[0]) for _, data, _ in unseen.tests)
    assert sizes[0] < 50000  # below the upper half: drawn again, smaller
    assert sizes[0] * 2000 > 1_000_000  # still a real workload, not a trivial input


def test_draws_under_the_floor_are_drawn_again_at_the_top(tmp_path):
    """The one rule eval, check and init's timed check read (``unseen.REACH``): a check
    whose draws all land under the meter's 5 ms floor draws again at the top of the
    source's domain, the longer draws taking the shortest ones' places, until ``REACH``
    of them reach it; a domain none of whose draws reaches the floor stays under it (so
    every path says "untimed" alike). Before, heatshrink's and Ptrdist bc's draws at
    3.5-5.9 ms made eval untimed and a fresh check timed, or the other way round."""
    sandbox_or_skip()
    from supercoder.verify import unseen

    problem = load_problem(_problem(tmp_path / "pair", PAIR, ["1000 1\n", "2000 2\n"]))

    def small(rng: random.Random, k: int) -> list[bytes]:
        return [f"{rng.randint(100, 900)} {rng.getrandbits(30)}\n".encode() for _ in range(k)]

    def large(rng: random.Random, k: int) -> list[bytes]:
        return [
            f"{30_000_000 + rng.randint(0, 99)} {rng.getrandbits(30)}\n".encode() for _ in range(k)
        ]

    rng = random.Random(1)
    inputs = small(rng, DRAWS)
    outputs, took = unseen.reference_runs(problem, inputs)
    kept = list(zip(inputs, outputs, took, strict=True))
    assert all(o is not None and t < unseen.FLOOR_SECONDS for _, o, t in kept)
    src = unseen.Source("model", small, "test", validate=False, top=large)
    again, cpu = unseen._reach_floor(problem, src, rng, set(), kept, DRAWS, {}, 0.0)
    reached = [t for _, _, t in again if t >= unseen.FLOOR_SECONDS]
    assert len(again) == DRAWS and len(reached) == unseen.REACH
    assert cpu >= sum(reached)  # the redraws' runs are counted
    assert len({d for d, _, _ in again} & set(inputs)) == DRAWS - unseen.REACH
    flat = unseen.Source("model", small, "test", validate=False)  # nothing reaches it
    same, _ = unseen._reach_floor(problem, flat, rng, set(), kept, DRAWS, {}, 0.0)
    assert len(same) == DRAWS and all(t < unseen.FLOOR_SECONDS for _, _, t in same)
