"""The offline `compiler` optimizer with real gcc (and clang when installed)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from supercoder.errors import UserError
from supercoder.models import load_model
from supercoder.models.compiler import BUILDS, CompilerModel, build_asm
from supercoder.prompts import build_messages, extract_assembly
from supercoder.toolchain import assemble, compile_to_asm, same_program
from supercoder.types import Problem, TestCase

SOURCE = r"""#include <stdio.h>
int main(void) {
    long n, s = 0, x;
    if (scanf("%ld", &n) != 1) return 0;
    for (long i = 0; i < n; i++) {
        if (scanf("%ld", &x) != 1) return 1;
        if (x % 3 == 0) s += x * x; else s -= x / 7;
    }
    long acc = 0;
    for (long r = 0; r < 2000; r++) for (long j = 0; j < n; j++) acc += (s ^ j) & r;
    printf("%ld %ld\n", s, acc);
    return 0;
}
"""


def reference_output(data: bytes, tmp_path) -> bytes:
    binary = tmp_path / "ref"
    assert assemble(compile_to_asm(SOURCE), binary).ok
    return subprocess.run([binary], input=data, capture_output=True, check=True).stdout


def problem_with(inputs: list[bytes], tmp_path, hidden: bytes | None = None) -> Problem:
    tests = [TestCase(f"t{i}", reference_output(d, tmp_path), d) for i, d in enumerate(inputs)]
    if hidden is not None:
        tests.append(TestCase("h", reference_output(hidden, tmp_path), hidden, hidden=True))
    return Problem("branchy", SOURCE, tuple(tests))


def numbers(values: list[int]) -> bytes:
    return f"{len(values)}\n{' '.join(map(str, values))}\n".encode()


MULTIPLES = numbers([3 * k for k in range(1, 400)])
OTHERS = numbers([3 * k + 1 for k in range(1, 400)])


def test_every_build_links_and_is_correct_and_one_differs_from_O3(tmp_path):
    problem = problem_with([MULTIPLES, OTHERS], tmp_path)
    out = CompilerModel().complete([], n=100, context=problem)
    expected_count = sum(1 for b in BUILDS if b.cc == "gcc" or shutil.which(b.cc))
    assert 3 <= len(out) <= expected_count
    baseline = compile_to_asm(SOURCE)
    asms = [extract_assembly(c.text) for c in out]
    assert all(a is not None for a in asms)
    assert not any(same_program(a, baseline) for a in asms)
    assert len({c.model for c in out}) == len(out)
    assert out[0].model == "compiler:gcc -O3 -march=native"
    for i, (c, asm) in enumerate(zip(out, asms, strict=True)):
        built = assemble(asm, tmp_path / f"v{i}")
        assert built.ok, (c.model, built.log)
        for t in problem.tests:
            got = subprocess.run([built.binary], input=t.input_bytes, capture_output=True).stdout
            assert got == t.expected, c.model


def test_profile_guided_build_uses_the_visible_inputs(tmp_path):
    pgo = next(b for b in BUILDS if b.id == "pgo")
    trained_a = build_asm(pgo, SOURCE, [MULTIPLES])
    trained_b = build_asm(pgo, SOURCE, [OTHERS])
    assert trained_a and trained_b
    assert not same_program(trained_a, trained_b)  # the profile changed the code
    assert build_asm(pgo, SOURCE, []) is None  # nothing to train on: no PGO build
    # hidden inputs never train the profile
    visible_only = problem_with([MULTIPLES], tmp_path)
    with_hidden = problem_with([MULTIPLES], tmp_path, hidden=OTHERS)
    model = CompilerModel("pgo")
    [a] = model.complete([], context=visible_only)
    [b] = model.complete([], context=with_hidden)
    assert "profiled on 1 inputs" in a.text
    assert same_program(extract_assembly(a.text), extract_assembly(b.text))


def test_n_and_seed_select_distinct_builds_in_order(tmp_path):
    problem = problem_with([MULTIPLES], tmp_path)
    model = CompilerModel("native,pgo-native,O2")
    assert [c.model for c in model.complete([], n=2, context=problem)] == [
        "compiler:gcc -O3 -march=native",
        "compiler:gcc -O3 -march=native -fprofile-use -fprofile-correction",
    ]
    [second] = model.complete([], n=1, seed=1, context=problem)
    assert second.model.endswith("-fprofile-correction")
    assert [c.model for c in model.complete([], n=9, context=problem)][-1] == "compiler:gcc -O2"
    assert model.complete([], n=1, seed=5, context=problem) == []


def test_source_from_the_prompt_without_a_problem():
    messages = build_messages(
        Problem("p", SOURCE, (TestCase("t", b"", b"1\n3\n"),)), baseline_asm="main:\n ret\n"
    )
    [c] = load_model("compiler").complete(messages)
    assert c.model == "compiler:gcc -O3 -march=native"
    assert "main:" in extract_assembly(c.text)
    with pytest.raises(UserError, match="needs the C source"):
        load_model().complete([{"role": "user", "content": "no code here"}])
    with pytest.raises(UserError, match="unknown build"):
        load_model("compiler:O9")


def test_a_build_that_fails_is_skipped():
    nested = (  # nested functions are GNU C only
        "#include <stdio.h>\nint main(void) { int f(int a) { return a * 3 + 1; }\n"
        'int v[1000], n = 0, s = 0; if (scanf("%d", &n) != 1 || n > 1000) return 1;\n'
        "for (int i = 0; i < n; i++) v[i] = f(i); for (int i = 0; i < n; i++) s += v[i];\n"
        'printf("%d\\n", s); return 0; }\n'
    )
    clang = next(b for b in BUILDS if b.id == "clang")
    assert build_asm(BUILDS[0], nested, []) is not None
    assert build_asm(clang, nested, []) is None
    assert build_asm(BUILDS[0], "int main(void) { return undeclared; }\n", []) is None
    model = CompilerModel("clang,O2")
    [only] = model.complete([], n=2, context=Problem("gnu", nested, ()))
    assert only.model == "compiler:gcc -O2"
