"""ISA targets with the real gcc/gas, capstone and the real sandbox: the assembler
refuses instructions beyond a level (one line naming the instruction and the level),
the object scan catches what the text check cannot see, every verdict says what its
program needs, a SIGILL names the extension this CPU lacks, and the compiler model
builds for the target."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.models import Sampling
from supercoder.runs.buildsearch.records import SearchRecord
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.flagspace import find_tools as find_build_tools
from supercoder.toolchain.flagspace import retarget, search_space
from supercoder.toolchain.gcc import object_code
from supercoder.toolchain.isa import (
    CPU_FLAGS,
    Target,
    cpu_flags,
    missing_here,
    scan_object,
)
from supercoder.types import IsaUse, Problem, Status, TestCase, Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.conftest import sandbox_or_skip
from tests.integration.test_compiler_model import (
    POPCOUNT as SOURCE,  # popcount: a gross -march gain
)

AVX2 = "\tvpaddd %ymm0,%ymm1,%ymm2\n\tvzeroupper\n"


def _expected(data: int) -> bytes:
    x, total = 88172645463325252, 0
    mask = (1 << 64) - 1
    for _ in range(data):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        total += bin(x).count("1") + bin(x >> 3).count("1")
    return f"{total}\n".encode()


def _problem() -> Problem:
    tests = tuple(
        TestCase(f"t{n}", _expected(n), f"{n}\n".encode(), hidden=n == 700) for n in (5, 300, 700)
    )
    return Problem("popcount_isa", SOURCE, tests)


def _with(asm: str, extra: str) -> str:
    """``asm`` with ``extra`` at the start of ``main``."""
    assert "main:\n" in asm
    return asm.replace("main:\n", "main:\n" + extra, 1)


def _check(problem: Problem, asm: str, target: Target) -> Verdict:
    return evaluate(problem, asm, CheckConfig(time=False, target=target))


def _needs_cpu(*flags: str) -> None:
    have = cpu_flags()
    if not set(flags) <= have:
        pytest.skip(f"this CPU lacks {set(flags) - have}")


def test_the_object_scan_names_each_extension_and_the_level():
    sandbox_or_skip()
    text = (
        "\t.text\nf:\n\tpaddd %xmm0,%xmm1\n\tpopcnt %rax,%rbx\n\tvpaddd %ymm0,%ymm1,%ymm2\n"
        "\tshlx %eax,%ebx,%ecx\n\trep bsf %eax,%ebx\n\tret\n"
    )
    built = object_code(text)
    assert built.ok and built.binary is not None, built.log
    try:
        use = scan_object(built.binary.read_bytes())
    finally:
        shutil.rmtree(built.binary.parent)
    assert use.extensions == ("AVX2", "BMI2", "POPCNT")  # paddd: SSE2, baseline
    assert use.level == "x86-64-v3"
    assert "vpaddd" in dict(use.examples)["AVX2"]
    assert "runs on x86-64-v3" in use.summary()


def test_an_avx2_candidate_is_refused_below_v3_with_the_instruction_named():
    sandbox_or_skip()
    problem = _problem()
    asm = _with(baseline_asm(problem), AVX2)
    for target in (Target.X86_64, Target.V2):
        v = _check(problem, asm, target)
        assert v.status is Status.COMPILE_ERROR
        line = v.message.splitlines()[0]
        assert "vpaddd %ymm0,%ymm1,%ymm2" in line, line
        assert f"--target {target.value}" in line and "AVX2 (x86-64-v3)" in line, line
        assert len(v.message.splitlines()) == 1
    _needs_cpu("avx2")
    for target in (Target.V3, Target.NATIVE):
        v = _check(problem, asm, target)
        assert v.status is Status.OK, v.message
        assert v.isa is not None and v.isa.level == "x86-64-v3" and "AVX2" in v.isa.extensions
        assert v.isa.target == target.value and v.context.provenance.target == target.value


def test_avx512_is_refused_under_v3_though_the_assembler_calls_it_a_bad_register():
    sandbox_or_skip()
    problem = _problem()
    asm = _with(baseline_asm(problem), "\tvpaddd %zmm0,%zmm1,%zmm2\n\tvzeroupper\n")
    v = _check(problem, asm, Target.V3)
    assert v.status is Status.COMPILE_ERROR
    assert "`vpaddd %zmm0,%zmm1,%zmm2` is outside --target x86-64-v3" in v.message, v.message
    assert "AVX512F (x86-64-v4)" in v.message and len(v.message.splitlines()) == 1
    broken = _with(baseline_asm(problem), "\tvpaddd %ymm0,%ymm1\n")  # a real error
    v = _check(problem, broken, Target.V3)
    assert v.status is Status.COMPILE_ERROR and "outside --target" not in v.message


def test_bytes_and_arch_directives_do_not_get_past_the_scan():
    """The assembler's level check reads the text; ``.byte`` encodings and ``.arch``
    switch it off, and the scan of the object's code still refuses them."""
    sandbox_or_skip()
    problem = _problem()
    base = baseline_asm(problem)
    raw = _with(base, "\t.byte 0xc5,0xf5,0xfe,0xd0\n")  # vpaddd %ymm0,%ymm1,%ymm2
    arch = _with(base, "\t.arch .avx2\n" + AVX2)
    for asm in (raw, arch):
        v = _check(problem, asm, Target.X86_64)
        assert v.status is Status.COMPILE_ERROR, v.message
        assert "vpaddd %ymm0, %ymm1, %ymm2" in v.message or "vzeroupper" in v.message
        assert "outside --target x86-64" in v.message
        assert v.isa is not None and v.isa.level == "x86-64-v3"


def test_a_verdict_states_its_extensions_and_old_records_still_read():
    sandbox_or_skip()
    problem = _problem()
    v = _check(problem, baseline_asm(problem), Target.X86_64)
    assert v.status is Status.OK, v.message
    assert v.isa == IsaUse((), "x86-64", "x86-64")  # gcc -O3 with no -march: the baseline
    d = json.loads(json.dumps(v.to_json()))
    assert d["isa"]["level"] == "x86-64" and d["isa"]["extensions"] == []
    assert d["format_version"] >= 4  # 4 added isa
    assert Verdict.from_json(d).isa == v.isa
    old = {k: val for k, val in d.items() if k != "isa"}
    old["format_version"] = 3
    assert Verdict.from_json(old).isa is None


def test_a_sigill_names_the_extension_this_cpu_lacks():
    sandbox_or_skip()
    lacking = [
        (flag, ins)
        for flag, ins in (
            ("fma4", "vfmaddps %xmm0,%xmm1,%xmm2,%xmm3"),
            ("xop", "vpcmov %xmm0,%xmm1,%xmm2,%xmm3"),
            ("tbm", "blcfill %eax,%ebx"),
        )
        if flag not in cpu_flags()
    ]
    if not cpu_flags() or not lacking:
        pytest.skip("this CPU has every extension the test could use")
    flag, ins = lacking[0]
    ext = next(e for e, f in CPU_FLAGS.items() if f == flag)
    problem = _problem()
    v = _check(problem, _with(baseline_asm(problem), f"\t{ins}\n"), Target.NATIVE)
    if v.status is Status.OK:
        pytest.skip(f"this CPU runs {ins} though it does not report {flag}")
    assert v.status is Status.RUNTIME_ERROR
    assert "SIGILL" in v.message and f"this CPU lacks {ext}" in v.message, v.message
    assert v.isa is not None and missing_here(v.isa) == [ext]


def test_builds_for_a_level_replace_march_native():
    tools = find_build_tools()
    native = search_space(tools)
    portable = search_space(tools, Target.X86_64)
    assert any("-march=native" in b.flags for b in native)
    assert not any("-march=native" in b.flags for b in portable)
    assert any("-march=x86-64" in b.flags for b in portable)
    b = next(b for b in native if "-march=native" in b.flags)
    v3 = retarget(b, Target.V3)
    assert "-march=x86-64-v3" in v3.flags and "-ffp-contract=off" in v3.flags
    assert "x86-64-v3" in v3.id and "native" not in v3.id


def test_the_build_search_answers_with_a_portable_build_under_x86_64():
    sandbox_or_skip()
    problem = _problem()
    from supercoder.runs.buildsearch import (
        BuildsConfig,
        build_of,
        build_search,
        builds_settings,
    )
    from supercoder.runs.strategies import make_verifier

    settings = builds_settings(BuildsConfig(6), 8, "x86-64")
    verify = make_verifier(CheckConfig(target=Target.X86_64))
    answers = build_search(problem, settings, verify=verify).attempts
    assert answers
    found = build_of(answers[0].origin).search or SearchRecord()
    labels = [b.label for b in found.builds]
    assert labels and not any("-march=native" in label for label in labels)
    for answer in answers:
        v = _check(problem, answer.candidate.asm or "", Target.X86_64)
        assert v.status is Status.OK, v.message
        assert v.isa is not None and v.isa.level == "x86-64", v.isa
        assert "POPCNT" not in v.isa.extensions


def test_the_cli_refuses_avx2_under_x86_64_and_reports_the_level(tmp_path):
    sandbox_or_skip()
    problem = tmp_path / "p"
    from supercoder.problems.loading import write_problem

    write_problem(_problem(), problem)
    cand = tmp_path / "a.s"
    cand.write_text(_with(baseline_asm(_problem()), AVX2))
    runner = CliRunner()
    out = runner.invoke(app, ["check", str(problem), str(cand), "--no-time", "--target", "x86-64"])
    assert out.exit_code == 0, out.output
    assert "compile_error" in out.output and "vpaddd %ymm0,%ymm1,%ymm2" in out.output
    bad = runner.invoke(app, ["check", str(problem), str(cand), "--target", "x86-64-v9"])
    assert bad.exit_code == 2
    _needs_cpu("avx2")
    ok = runner.invoke(app, ["check", str(problem), str(cand), "--no-time", "--json"])
    assert ok.exit_code == 0, ok.output
    d = json.loads(ok.output)
    assert d["status"] == "ok" and d["isa"]["level"] == "x86-64-v3"
    assert d["isa"]["target"] == "native"


def test_eval_and_optimize_under_x86_64_answer_portably_and_say_so(tmp_path):
    """The held-out check: ``--target x86-64`` answers with a portable build, and the
    eval JSON, the stored run and the optimize JSON state the extensions and level."""
    sandbox_or_skip()
    from supercoder.problems.loading import write_problem

    write_problem(_problem(), tmp_path / "bench" / "popcount_isa")
    out, db = tmp_path / "s.json", tmp_path / "r.sqlite"
    args = ["eval", "--benchmark", str(tmp_path / "bench"), "--db", str(db), "--no-time"]
    result = CliRunner().invoke(
        app, [*args, "--budget", "4", "--target", "x86-64", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    s = json.loads(out.read_text())
    record = s["per_problem"]["popcount_isa"]
    assert record["status"] == "ok" and record["isa_level"] == "x86-64"
    assert "POPCNT" not in record["extensions"]
    assert s["context"]["target"] == "x86-64" and s["isa_levels"] == {"x86-64": 1}
    assert s["level_needed"] == "x86-64"
    board = CliRunner().invoke(app, ["leaderboard", "--db", str(db)])
    assert board.exit_code == 0 and "runs on" in board.output, board.output
    assert "x86-64" in board.output.split("runs on", 1)[1]
    assert s["context"]["model"] == "compiler:budget=4,target=x86-64"
    assert "lowest x86-64 level they run on: x86-64: 1" in result.output
    opt = CliRunner().invoke(
        app,
        [
            "optimize",
            str(tmp_path / "bench" / "popcount_isa"),
            "--budget",
            "4",
            "--no-time",
            "--target",
            "x86-64",
            "-o",
            str(tmp_path / "a.s"),
            "--json",
        ],
    )
    assert opt.exit_code == 0, opt.output
    d = json.loads(opt.output)
    assert d["isa"]["level"] == "x86-64" and d["isa"]["target"] == "x86-64"
    assert all(a["verdict"]["isa"]["level"] == "x86-64" for a in d["attempts"])


def _timed_problem(tmp_path) -> Problem:
    """The popcount program with inputs long enough to time on this machine."""
    import subprocess

    from supercoder.toolchain.gcc import assemble, compile_to_asm
    from tests.fakes.sizing import sized

    n = sized(SOURCE, start=100_000)
    binary = tmp_path / "ref"
    assert assemble(compile_to_asm(SOURCE), binary).ok
    tests = []
    for name, size, hidden in (("small", 5, False), ("big", n, False), ("h", n * 5 // 4, True)):
        data = f"{size}\n".encode()
        out = subprocess.run([binary], input=data, capture_output=True, check=True).stdout
        tests.append(TestCase(name, out, data, hidden=hidden))
    return Problem("popcount_timed", SOURCE, tuple(tests))


def test_the_compiler_answer_header_names_the_level_it_runs_on(tmp_path):
    sandbox_or_skip()
    from supercoder.runs.buildsearch import BuildsConfig
    from supercoder.runs.dispatch import search
    from supercoder.runs.strategies import StrategyConfig, make_verifier
    from supercoder.verify.service import VerifyConfig

    problem = _timed_problem(tmp_path)
    verify = make_verifier(VerifyConfig(CheckConfig(target=Target.V2)))
    settings = StrategyConfig(
        Sampling(n=8), strategy="builds", config=BuildsConfig(4), target="x86-64-v2"
    )
    outcome = search(problem, [], settings, verify=verify)
    first = outcome.attempts[0]
    header = (first.candidate.asm or "").splitlines()[0]
    assert header.startswith("# supercoder compiler:"), header
    assert "-march=x86-64-v2" in header and "runs on x86-64-v2" in header, header
    assert "POPCNT" in header and "-march=native" not in header
    assert first.verdict.isa is not None and first.verdict.isa.level == "x86-64-v2"


def test_a_model_is_told_the_target_and_the_refusal_is_fed_back():
    sandbox_or_skip()
    from supercoder.models.scripted import ScriptedModel
    from supercoder.runs.dispatch import search
    from supercoder.runs.strategies import StrategyConfig, make_verifier

    problem = _problem()
    avx2 = _with(baseline_asm(problem), AVX2)
    seen: list[str] = []

    def respond(messages, sample):
        seen.append(messages[-1]["content"])
        return f"```assembly\n{avx2}\n```"

    settings = StrategyConfig(Sampling(n=1), rounds=2, target="x86-64")
    verify = make_verifier(CheckConfig(time=False, target=Target.X86_64))
    outcome = search(problem, ScriptedModel(respond), settings, verify=verify)
    assert "It must run on every x86-64 CPU" in seen[0] and "SSE2" in seen[0]
    assert len(seen) == 2 and "vpaddd %ymm0,%ymm1,%ymm2" in seen[1]  # the refusal, fed back
    assert all(a.verdict.status is Status.COMPILE_ERROR for a in outcome.attempts)
