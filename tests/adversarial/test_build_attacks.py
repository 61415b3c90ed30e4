"""Build-time attacks: a candidate's assembly must not read anything while it is built.

Every candidate is checked through the evaluator (or ``assemble``) only; the build runs
in the one-shot sandbox, so even a trick that slips past the directive check reads
nothing of the host. Each attack would have produced a correct answer, leaked hidden
data into a message, or filled the disk before the build was sandboxed.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from supercoder.models.scripted import ScriptedModel
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.prompting.prompts import fence
from supercoder.runs.strategies import make_verifier, refine
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import BUILD_LIMITS, assemble, compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import evaluate
from tests.adversarial.test_adversarial import CONFIG, fixture_asm
from tests.conftest import make_sum_problem, sandbox_or_skip

HERE = Path(__file__).parent
BUNDLED = "bit_reverse_hash"
PROGRAM = "\t.text\n\t.globl main\nmain:\n\txorl %eax, %eax\n\tret\n"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    sandbox_or_skip()
    return make_sum_problem(tmp_path_factory.mktemp("build-attacks") / "sum")


@pytest.fixture(scope="module")
def problem(folder):
    return load_problem(folder)


def hidden_output(problem) -> str:
    return next(t for t in problem.tests if t.hidden).expected.decode().strip()


def test_incbin_of_the_expected_outputs_is_refused(problem, folder):
    """Before: a 'correct' program that printed the stored answers (50-185x)."""
    asm = fixture_asm("incbin_answers", f'DIR="{folder}"')
    verdict = evaluate(problem, asm, CONFIG)
    assert verdict.status is Status.COMPILE_ERROR, verdict.message
    assert "`.incbin` reads a file at build time" in verdict.message


@pytest.fixture(scope="module")
def bundled():
    """A bundled problem whose hidden outputs are distinctive text (hex hashes)."""
    sandbox_or_skip()
    return load_problem(BUNDLED_ROOT / BUNDLED)


def hidden_lines(problem) -> list[str]:
    return [ln for t in problem.tests if t.hidden for ln in t.expected.decode().splitlines() if ln]


@pytest.mark.parametrize("spelling", [".include", ".INCLUDE", "  .Include\t"])
def test_include_of_hidden_outputs_is_refused_without_quoting_them(bundled, spelling):
    """Before: the assembler's errors quoted the hidden outputs line by line."""
    path = BUNDLED_ROOT / BUNDLED / "hidden" / "g01.out"
    verdict = evaluate(bundled, PROGRAM + f'{spelling} "{path}"\n', CONFIG)
    assert verdict.status is Status.COMPILE_ERROR
    assert "reads a file at build time" in verdict.message
    assert not any(line in verdict.message for line in hidden_lines(bundled))


def test_no_prompt_of_a_refinement_round_shows_hidden_data(bundled):
    """Every prompt the model sees while its answers try to read the hidden outputs."""
    hidden = BUNDLED_ROOT / BUNDLED / "hidden"
    attacks = [
        PROGRAM + f'\t.include "{hidden / "g01.out"}"\n',
        PROGRAM
        + f'\t.macro m a, b\n\tnop \\a\\b\n.endm\n\tm ";.inc", "lude ""{hidden / "g02.out"}"""\n',
        PROGRAM + f'\t.section .rodata\n\t.incbin "{hidden / "g01.out"}"\n',
        PROGRAM + f'\t# 1 "{hidden / "g01.out"}"\n\tfrobnicate\n',
    ]
    model = ScriptedModel(
        lambda messages, i: fence(attacks[min(len(messages) // 2, 3)], "assembly")
    )
    out = refine(bundled, model, rounds=len(attacks), verify=make_verifier(CONFIG))
    assert [a.verdict.status for a in out.attempts] == [Status.COMPILE_ERROR] * len(attacks)
    prompts = "\n".join(m["content"] for call in model.calls for m in call)
    assert len(model.calls) == len(attacks) and "reads a file at build time" in prompts
    leaked = [line for line in hidden_lines(bundled) if line in prompts]
    assert not leaked


@pytest.mark.parametrize(
    "trick",
    [
        '.macro m a, b\n\tnop \\a\\b\n.endm\n\tm ";.inc", "lude ""{path}"""\n',
        '.irp x, clude\n\t.in\\x "{path}"\n.endr\n',
        ".altmacro\n.macro m a\n\tnop a\n.endm\n\tm <;.inc>\n",
        '.macro m d="{path}"\n\t.incbin \\d\n.endm\n\tm\n',
    ],
)
def test_macro_routes_to_a_file_reading_directive_are_refused(problem, folder, trick):
    asm = PROGRAM + trick.format(path=folder / "hidden" / "t0.out")
    verdict = evaluate(problem, asm, CONFIG)
    assert verdict.status is Status.COMPILE_ERROR
    assert "not allowed" in verdict.message
    assert hidden_output(problem) not in verdict.message


def test_the_build_sandbox_holds_where_the_directive_check_misses(folder, tmp_path):
    """No check at all: gcc on ``.incbin``/``.include`` of host files, in the build sandbox."""
    sandbox_or_skip()
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-4242\n")
    hidden = folder / "hidden" / "t0.out"
    work = Path(tempfile.mkdtemp(prefix="sc-test-build-"))
    try:
        for directive in (".incbin", ".include"):
            for path in (secret, hidden, Path.home() / ".bashrc"):
                (work / "program.s").write_text(PROGRAM + f'\t{directive} "{path}"\n')
                run = run_isolated(
                    ["gcc", "-c", "program.s", "-o", "program.o"], work, limits=BUILD_LIMITS
                )
                assert run.exit_code != 0, (directive, path)
                assert b"not found" in run.stderr or b"No such file" in run.stderr
                assert b"TOPSECRET" not in run.stderr and not (work / "program.o").exists()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_huge_fill_is_stopped_by_the_size_cap(problem):
    """Before: .fill of 256 MiB wrote 0.5 GB to disk and took 270 MB of memory."""
    asm = PROGRAM + "\t.data\n\t.fill 268435456, 1, 7\n"
    start = time.monotonic()
    verdict = evaluate(problem, asm, CONFIG)
    assert verdict.status is Status.COMPILE_ERROR
    assert "MiB cap" in verdict.message
    assert time.monotonic() - start < 60


def test_an_assembler_loop_is_stopped_by_the_cpu_limit(tmp_path):
    sandbox_or_skip()
    asm = PROGRAM + "\t.rept 200000000\n\tnop\n\t.endr\n"
    limits = Limits(
        cpu_seconds=1, wall_seconds=20, memory_mb=512, output_bytes=1 << 16, processes=8
    )
    build = assemble(asm, tmp_path / "loop", limits=limits)
    assert not build.ok
    assert "stopped" in build.log or "ran out" in build.log, build.log


def test_a_string_twin_of_the_baseline_is_not_called_identical(tmp_path):
    """Before: normalize_asm cut lines at '#' inside strings, so a candidate differing
    from the baseline only after a '#' in a string shared its digest ("identical")."""
    sandbox_or_skip()
    source = (
        "#include <stdio.h>\nint main(void) { long long n = 0, x, s = 0;\n"
        'if (scanf("%lld", &n) != 1) return 0;\n'
        'for (long long i = 0; i < n && scanf("%lld", &x) == 1; i++) s += x;\n'
        'printf("Case #1: %lld\\n", s); return 0; }\n'
    )
    folder = make_sum_problem(tmp_path / "cases")
    (folder / "source.c").write_text(source)
    for out in list(folder.glob("*/*.out")):
        out.write_text("Case #1: " + out.read_text())
    problem = load_problem(folder)
    twin = baseline_asm(problem).replace("Case #1: ", "Case #1! ")
    verdict = evaluate(problem, twin, replace(CONFIG, time=False))
    assert verdict.status is Status.WRONG_OUTPUT
    assert not verdict.identical_to_baseline
    assert evaluate(problem, compile_to_asm(source), CONFIG).identical_to_baseline
