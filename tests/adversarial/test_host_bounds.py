"""Host work per candidate is bounded: what a candidate's text costs supercoder itself,
outside every sandbox (the directive check, the comparison with the baseline, digests,
analysis), is capped like what its run costs inside one.

Before: a 32.9 MB answer (a dense table, under the 64 MiB file cap) cost 39 s of host
CPU and 438 MB of memory before the assembler ever ran, and then earned the reward of
the compact table; a 6.6 MB answer of a 100,000-case compare chain held the host for
minutes (dominator sets grow with the square of a function's blocks) when its features
were computed for the evolve database.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
import tracemalloc

import pytest

from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import CANDIDATE_ASM_FLOOR, candidate_cap
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, check_candidate
from tests.conftest import make_sum_problem, sandbox_or_skip


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return load_problem(make_sum_problem(tmp_path_factory.mktemp("host-bounds") / "sum"))


def dense_table(base: str, megabytes: float) -> str:
    line = "\t.quad\t1234567890123456789\n"
    rows = int(megabytes * 1e6) // len(line)
    return base + "\t.section .rodata\n\t.align 8\ntable:\n" + line * rows


def test_a_33_mb_dense_table_is_refused_before_any_work_on_its_text(problem) -> None:
    base = baseline_asm(problem)
    answer = dense_table(base, 32.9)
    assert len(answer) < 64 << 20  # under the file cap that let it through before
    tracemalloc.start()
    cpu = time.process_time()
    try:
        untimed = check_candidate(problem, answer, CheckConfig(time=False))
        spent = time.process_time() - cpu
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    verdict = untimed.verdict
    assert verdict.status is Status.COMPILE_ERROR  # the candidate's failure, not infra
    assert "32.9 MB of assembly" in verdict.message and "cap of 8.0 MiB" in verdict.message
    assert spent < 2.0  # was 39 s of host CPU
    assert peak < 16 << 20  # was 438 MB


def test_the_cap_is_twice_the_baseline_and_never_under_8_mib() -> None:
    assert candidate_cap("x" * 100) == CANDIDATE_ASM_FLOOR
    assert candidate_cap("x" * (10 << 20)) == 20 << 20
    assert candidate_cap("é" * (3 << 20)) == 12 << 20  # bytes, not characters


def chain(base: str, cases: int) -> str:
    """main preceded by a compare chain of ``cases`` cases: two blocks each."""
    head = "\t.text\n\t.globl f\n\t.type f, @function\nf:\n"
    body = "".join(f"\tcmpq\t${k}, %rdi\n\tje\t.Lc{k}\n" for k in range(cases))
    tail = "".join(f".Lc{k}:\n\tmovq\t${k * 7}, %rax\n\tret\n" for k in range(cases))
    return base + head + body + "\tret\n" + tail + "\t.size f, .-f\n"


def test_analysis_of_a_listing_over_its_cap_is_refused_at_once(problem) -> None:
    from supercoder.analysis import analyze
    from supercoder.runs.programs import features

    big = chain(baseline_asm(problem), 100_000)  # 6.6 MB
    cpu = time.process_time()
    result = analyze(baseline_asm(problem), big)
    feats = features(big)
    assert time.process_time() - cpu < 1.0
    assert "not analysed" in result.note and result.labels == ()
    assert result.to_json()["note"] == result.note
    assert feats.instructions > 100_000 and feats.loops == 0


_FEATURES = """
import resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from supercoder.runs.programs import features
text = sys.stdin.read()
start = time.process_time()
print(features(text).instructions, time.process_time() - start)
"""


def test_a_function_of_thousands_of_blocks_is_not_searched_for_loops(problem) -> None:
    """12,000 cases (24,000 blocks, 0.76 MB): under the analysis cap, so parsed, but not
    searched for loops (its dominator sets would hold 10^8 entries); run in a process of
    its own under a 3 GiB address-space limit, so a regression fails instead of taking
    the machine's memory."""
    text = chain(baseline_asm(problem), 12_000)
    run = subprocess.run(
        [sys.executable, "-c", _FEATURES],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-500:]
    instructions, seconds = run.stdout.split()
    assert int(instructions) > 36_000
    assert float(seconds) < 30  # 0.8 s; quadratic, it would not end


def test_the_host_s_own_usage_is_what_is_measured() -> None:
    """The figures above are this process's own (the sandboxed assembler and runs are
    children, counted apart): the assertion would catch host work, not the build's."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    cpu = time.process_time()
    subprocess.run([sys.executable, "-c", "sum(range(10**7))"], check=True)
    assert time.process_time() - cpu < 0.5
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime > before


def test_megabytes_of_code_from_one_line_are_refused_before_the_scan(problem) -> None:
    """``.fill`` in ``.text`` makes 10 MB of instructions from 20 bytes of text: the host
    would decode every one (minutes); the code cap refuses it as the candidate's failure."""
    answer = baseline_asm(problem) + "\t.text\npadding:\n\t.fill 10000000, 1, 0x90\n"
    cpu = time.process_time()
    verdict = check_candidate(problem, answer, CheckConfig(time=False)).verdict
    assert time.process_time() - cpu < 2.0
    assert verdict.status is Status.COMPILE_ERROR
    assert "its code is 10.0 MB, over the 4 MiB cap" in verdict.message


MIXED = (
    "\t.text\n\t.globl main\nmain:\n\t.byte 0x0f,0x0b,0xff,0xff,0xc4\n"
    "\tvpaddd %ymm0,%ymm1,%ymm2\n\tpopcntq %rax,%rbx\n\tlock addl $1,(%rax)\n"
    "\txacquire lock incl (%rax)\n\tandn %rax,%rbx,%rcx\n\tpshufb %xmm0,%xmm1\n"
    "\tcrc32q %rax,%rbx\n\tmovq $0x62c4c58f, %rax\n\tvfmadd231ps %zmm1,%zmm2,%zmm3\n\tret\n"
)


def test_the_fast_scan_finds_what_the_full_decode_finds() -> None:
    """The scan decodes in full only what may need an extension: on code mixing every
    case (unknown bytes, VEX, EVEX, prefixes, legacy SSE4, BMI, an immediate holding
    VEX/EVEX/XOP bytes) it reports exactly what decoding every instruction does."""
    sandbox_or_skip()
    from supercoder.toolchain.gcc import object_code
    from supercoder.toolchain.isa import decode, executable_sections, needs

    built = object_code(MIXED)
    assert built.ok and built.binary is not None
    try:
        (code,) = executable_sections(built.binary.read_bytes())
    finally:
        import shutil

        shutil.rmtree(built.binary.parent, ignore_errors=True)
    full = [(text, exts) for text, exts in decode(code) if exts]
    assert list(needs(code)) == full
    found = {e for _, exts in full for e in exts}
    assert {"UNKNOWN", "AVX2", "BMI1", "SSSE3", "SSE4.2", "AVX512F"} <= found


def test_an_assembler_asked_for_gigabytes_is_the_candidate_s_failure(problem) -> None:
    """``.rept`` of 200 million makes gas ask for 4 GB at once, past the build's 1 GiB
    limit: the candidate's failure (compile_error), not the machine's (infra_error)."""
    answer = baseline_asm(problem) + "\t.text\n\t.rept 200000000\n\tnop\n\t.endr\n"
    verdict = check_candidate(problem, answer, CheckConfig(time=False)).verdict
    assert verdict.status is Status.COMPILE_ERROR, verdict.message
    assert "ran out" in verdict.message or "stopped" in verdict.message
