"""The offline `compiler` optimizer with real gcc and clang: the build space, PGO, the
budgeted build search through the real verification service (sandbox and meter), and
the first model's fixed builds."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.models import load_model
from supercoder.prompting.prompts import extract_assembly
from supercoder.runs.buildsearch import (
    BuildsConfig,
    build_of,
    build_search,
    builds_settings,
    fixed_builds,
    legacy_options,
)
from supercoder.runs.buildsearch.halving import FINAL_SCREENS, FIRST_SCREEN, search_builds
from supercoder.runs.buildsearch.records import SearchConfig, SearchRecord
from supercoder.runs.strategies import make_verifier
from supercoder.toolchain.flagspace import LEGACY as BUILDS
from supercoder.toolchain.flagspace import (
    Build,
    find_tools,
    make,
    search_space,
)
from supercoder.toolchain.gcc import assemble, compile_to_asm, same_program
from supercoder.toolchain.isa import Target
from supercoder.toolchain.pgo import build_asm
from supercoder.types import Problem, TestCase
from supercoder.verify.evaluate import CheckConfig
from tests.conftest import sandbox_or_skip
from tests.fakes.sizing import sized

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

# popcount: a library call at -O3, one instruction with -march=native: a gross speedup
POPCOUNT = r"""#include <stdio.h>
int main(void) {
    unsigned long n, x = 88172645463325252UL, total = 0;
    if (scanf("%lu", &n) != 1) return 1;
    for (unsigned long i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        total += __builtin_popcountl(x) + __builtin_popcountl(x >> 3);
    }
    printf("%lu\n", total);
    return 0;
}
"""


def run_binary(binary: Path, data: bytes) -> bytes:
    return subprocess.run([binary], input=data, capture_output=True, check=True).stdout


def reference_output(source: str, data: bytes, tmp_path) -> bytes:
    binary = tmp_path / "ref"
    assert assemble(compile_to_asm(source), binary).ok
    return run_binary(binary, data)


def problem_with(
    inputs: list[bytes], tmp_path, hidden: bytes | None = None, source=SOURCE
) -> Problem:
    tests = [
        TestCase(f"t{i}", reference_output(source, d, tmp_path), d) for i, d in enumerate(inputs)
    ]
    if hidden is not None:
        tests.append(TestCase("h", reference_output(source, hidden, tmp_path), hidden, hidden=True))
    return Problem("branchy", source, tuple(tests))


def numbers(values: list[int]) -> bytes:
    return f"{len(values)}\n{' '.join(map(str, values))}\n".encode()


MULTIPLES = numbers([3 * k for k in range(1, 400)])
OTHERS = numbers([3 * k + 1 for k in range(1, 400)])


# --- the build space -----------------------------------------------------------------


def test_the_search_space_is_distinct_safe_and_starts_with_the_best_families():
    tools = find_tools()
    space = search_space(tools)
    keys = [(b.cc, b.flags, b.pgo) for b in space]
    assert len(keys) == len(set(keys)) >= 40
    assert ("gcc", ("-O3",), False) not in keys  # that is the baseline
    assert space[0].flags == ("-O3", "-march=native", "-ffp-contract=off")
    for b in space:  # fused multiply-adds change float output: never without the flag
        assert ("-march=native" in b.flags) == ("-ffp-contract=off" in b.flags), b.label
        assert not {"-fno-pie", "-static", "-flto"} & set(b.flags)
    families = {b.family for b in space}
    assert {"gcc-pgo-O3", "gcc-O2-unroll", "gcc-Os", "gcc-O3-novec", "gcc-O3-inline"} <= families
    assert any("max-unroll-times=4" in b.flags for b in space)
    if tools.clang:
        assert any("-unroll-count=4" in b.flags for b in space)
        assert any(b.cc == "clang" and "-fno-vectorize" in b.flags for b in space)
    assert any(b.cc == "clang" and b.pgo for b in space) == (
        not tools.skipped() and bool(tools.clang)
    )


def test_fp_contract_off_keeps_native_float_output_exact(tmp_path):
    if "fma" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("no FMA on this CPU")
    source = (
        '#include <stdio.h>\nint main(void) { int n; double x = 0.1, a = 0; if (scanf("%d", &n) != 1)'
        " return 1;\nfor (int i = 0; i < n; i++) { a = a * x + 0.3; x = x * 1.0000001 + 1e-9; }\n"
        'printf("%.17g %.17g\\n", a, x); return 0; }\n'
    )
    want = reference_output(source, b"100000\n", tmp_path)
    fused = compile_to_asm(source, ("-O3", "-march=native"))
    ours = build_asm(make("gcc", "-O3", "native"), source, [])
    assert ours and assemble(ours, tmp_path / "ours").ok and assemble(fused, tmp_path / "fused").ok
    assert run_binary(tmp_path / "ours", b"100000\n") == want
    assert run_binary(tmp_path / "fused", b"100000\n") != want  # why the flag is there


# --- profile-guided builds -----------------------------------------------------------


def test_gcc_profile_guided_build_trains_on_the_given_inputs_only():
    pgo = make("gcc", "-O3", pgo=True)
    trained_a = build_asm(pgo, SOURCE, [MULTIPLES])
    trained_b = build_asm(pgo, SOURCE, [OTHERS])
    assert trained_a and trained_b
    assert not same_program(trained_a, trained_b)  # the profile changed the code
    assert build_asm(pgo, SOURCE, []) is None  # nothing to train on: no PGO build


def test_clang_profile_guided_build_assembles_with_gnu_as(tmp_path):
    tools = find_tools()
    if tools.clang is None or tools.skipped():
        pytest.skip(f"clang PGO unavailable: {tools.skipped()}")
    asm = build_asm(make("clang", "-O3", pgo=True), SOURCE, [MULTIPLES])
    assert asm and ".cg_profile" not in asm
    assert not same_program(asm, build_asm(make("clang", "-O3"), SOURCE, []) or "")
    built = assemble(asm, tmp_path / "clang-pgo")
    assert built.ok, built.log
    assert run_binary(built.binary, OTHERS) == reference_output(SOURCE, OTHERS, tmp_path)


# --- the search ----------------------------------------------------------------------


def test_the_search_chooses_a_faster_correct_build_and_keeps_every_build(tmp_path):
    sandbox_or_skip()
    n = sized(POPCOUNT, start=100_000)  # timed on this machine, whatever its speed
    inputs = [b"3\n", f"{n}\n".encode(), f"{n * 3 // 2}\n".encode()]
    problem = problem_with(inputs, tmp_path, hidden=f"{n * 5 // 4}\n".encode(), source=POPCOUNT)
    outcome = build_search(problem, builds_settings(BuildsConfig(25), 6))
    first, fallback = outcome.attempts
    assert first.origin.model.startswith("compiler:gcc -O3 -march=native") or (
        "popcnt" in (first.candidate.asm or "")
    )
    assert "popcnt" in (first.candidate.asm or "")
    assert same_program(fallback.candidate.asm or "", compile_to_asm(POPCOUNT))
    chose = build_of(first.origin)
    found = chose.search
    assert found is not None and found.chosen == chose.build and chose.family
    builds = {b.label: b for b in found.builds}
    assert len(builds) <= 6 + 6  # n bounds the builds tried (+ crosses of the best)
    chosen = builds[found.chosen]
    assert chosen.status == "chosen" and chosen.correct and chosen.speedup > 1.1
    low, high = chosen.speedup_ci
    assert 1.01 < low <= chosen.speedup <= high
    assert found.cpu_seconds < 25 * 1.5 + 10
    # judged like every candidate: on the tests the model never saw, then re-checked
    v = first.verdict
    assert v.significantly_faster and v.context.measurement.checks == 2
    assert v.unseen and v.unseen.timed and not v.timed_tests  # never a visible test
    assert fallback.verdict.correct and fallback.verdict.identical_to_baseline


def test_the_search_returns_the_baseline_when_nothing_is_faster(tmp_path):
    sandbox_or_skip()
    source = (
        r"#include <stdio.h>"
        + '\nint main(void) { int a, b; if (scanf("%d %d", &a, &b) != 2) return 1; printf("%d\\n", a + b); return 0; }\n'
    )
    problem = problem_with([b"1 2\n", b"40 2\n"], tmp_path, source=source)
    result = search_builds(problem, compile_to_asm(source), SearchConfig(budget=6, max_builds=5))
    statuses = {t.status for t in result.trials}
    assert result.chosen is None or result.chosen.fresh.low > 1.01
    assert statuses <= {
        "duplicate",
        "screened",
        "measured",
        "pruned",
        "not_significant",
        "faster",
        "chosen",
        "unbuilt",
        "unscreened",
        "failed",
        "no_training_inputs",
    }
    outcome = build_search(problem, builds_settings(BuildsConfig(4), 3))
    best = outcome.best
    assert best is not None and best.verdict.correct
    if build_of(best.origin).family == "baseline":
        assert same_program(best.candidate.asm or "", compile_to_asm(source))
        assert [build_of(a.origin).family for a in outcome.attempts] == ["baseline"]


def test_no_time_times_nothing_and_checks_builds_until_one_is_correct(tmp_path):
    sandbox_or_skip()
    problem = problem_with([MULTIPLES, OTHERS], tmp_path, hidden=OTHERS)
    untimed = make_verifier(CheckConfig(time=False))
    outcome = build_search(problem, builds_settings(samples=64), verify=untimed)
    assert 1 <= len(outcome.attempts) <= 2  # the first correct pair ends it
    assert outcome.best is not None and outcome.best.verdict.correct
    for a in outcome.attempts:
        assert a.verdict.speedup is None and not (a.verdict.unseen and a.verdict.unseen.timed)
        assert build_of(a.origin).search is None and "(not timed)" in (a.completion or "")


def test_a_search_that_runs_out_of_budget_says_what_it_left(tmp_path):
    sandbox_or_skip()
    problem = problem_with([MULTIPLES, OTHERS], tmp_path, hidden=OTHERS)
    result = search_builds(problem, compile_to_asm(SOURCE), SearchConfig(budget=0.5, max_builds=12))
    left = result.unfinished
    assert left and sum(left.values()) <= len(result.trials)
    note = result.budget_note
    assert note.startswith("budget spent: ") and "rerun with --budget " in note
    assert float(note.rsplit(" ", 1)[1]) > 0.5
    record = result.record()
    assert record.budget_spent and record.budget_note == note
    assert SearchRecord.from_json(record.to_json()) == record  # stored with the answer
    roomy = search_builds(problem, compile_to_asm(SOURCE), SearchConfig(budget=60, max_builds=3))
    assert roomy.unfinished == {} and roomy.budget_note == ""


def test_a_slow_program_screens_what_its_budget_has_room_for(tmp_path):
    sandbox_or_skip()
    # every run ~0.15 s: one build's screen (every test, one round of timing) costs about
    # the whole screening share of a 6 s budget, so the search screens the first group
    # only (the five builds compile well within the building share, 3.6 s, even on a
    # busy machine), re-measures one build at most, and says what it left and what a
    # screen costs
    n = sized(POPCOUNT, start=100_000, multiple=30)
    inputs = [f"{n}\n".encode(), f"{n * 5 // 4}\n".encode()]
    problem = problem_with(inputs, tmp_path, hidden=f"{n * 3 // 2}\n".encode(), source=POPCOUNT)
    builds = [
        make("gcc", "-O2"),
        make("gcc", "-O1"),
        make("gcc", "-Os"),
        make("gcc", "-O3", "native"),
        make("gcc", "-O2", mods=("unroll",)),
    ]
    result = search_builds(problem, compile_to_asm(POPCOUNT), SearchConfig(budget=6), builds=builds)
    statuses = [t.status for t in result.trials]
    assert statuses.count("unbuilt") == 0, statuses
    checked = [s for s in statuses if s not in ("unscreened", "duplicate", "failed")]
    assert len(checked) <= FIRST_SCREEN and "unscreened" in statuses, statuses
    assert result.screen_cost and result.screen_cost > 0.1
    assert "unscreened" in result.budget_note and "one build's screen costs" in result.budget_note
    # the first group and one re-measure, not every build: a gross bound
    assert result.cpu_seconds < 6 + (FIRST_SCREEN + FINAL_SCREENS) * result.screen_cost


def test_a_faster_wrong_build_is_never_chosen(tmp_path):
    sandbox_or_skip()
    # -DSHORTCUT does half the work: much faster, and wrong
    source = POPCOUNT.replace(
        "for (unsigned long", "\n#ifdef SHORTCUT\nn /= 2;\n#endif\nfor (unsigned long"
    )
    problem = problem_with([b"5\n", b"500000\n"], tmp_path, source=source)
    wrong = Build("shortcut", "gcc", ("-O3", "-march=native", "-DSHORTCUT"))
    right = make("gcc", "-O2")
    result = search_builds(
        problem, compile_to_asm(source), SearchConfig(budget=10), builds=[wrong, right]
    )
    by_id = {t.build.id: t for t in result.trials}
    assert by_id["shortcut"].status == "wrong_output" and "test t" in by_id["shortcut"].detail
    assert by_id["shortcut"].record().correct is False
    assert result.chosen is None or result.chosen.build == right


# --- the first model's fixed builds (builds=legacy; --model compiler:legacy before) -----


def test_legacy_builds_link_and_are_correct_and_one_differs_from_O3(tmp_path):
    problem = problem_with([MULTIPLES, OTHERS], tmp_path)
    out = fixed_builds(BUILDS, problem, compile_to_asm(SOURCE), 100)
    expected_count = sum(1 for b in BUILDS if b.cc == "gcc" or shutil.which(b.cc))
    assert 3 <= len(out) <= expected_count
    baseline = compile_to_asm(SOURCE)
    asms = [extract_assembly(c.text) for c in out]
    assert not any(same_program(a, baseline) for a in asms)
    assert out[0].model == "compiler:gcc -O3 -march=native"
    for i, (c, asm) in enumerate(zip(out, asms, strict=True)):
        built = assemble(asm, tmp_path / f"v{i}")
        assert built.ok, (c.model, built.log)
        for t in problem.tests:
            assert run_binary(built.binary, t.input_bytes) == t.expected, c.model


def test_legacy_ids_n_and_seed_select_distinct_builds_in_order(tmp_path):
    problem = problem_with([MULTIPLES], tmp_path, hidden=OTHERS)
    fixed = BuildsConfig(builds="native,pgo-native,O2").fixed(Target.NATIVE)
    base = compile_to_asm(SOURCE)
    assert [c.model for c in fixed_builds(fixed, problem, base, 2)] == [
        "compiler:gcc -O3 -march=native",
        "compiler:gcc -O3 -march=native -fprofile-use -fprofile-correction",
    ]
    [second] = fixed_builds(fixed, problem, base, 1, seed=1)
    assert "profiled on 1 inputs" in second.text  # the visible test only
    assert [c.model for c in fixed_builds(fixed, problem, base, 9)][-1] == "compiler:gcc -O2"
    assert fixed_builds(fixed, problem, base, 1, seed=5) == []


def test_the_older_spelling_options_and_no_model_named_compiler():
    assert legacy_options("budget=12.5") == (BuildsConfig(12.5), None)
    assert legacy_options("budget=3,legacy,target=x86-64") == (
        BuildsConfig(3, "legacy"),
        Target.X86_64,
    )
    assert BuildsConfig(3, "legacy").fixed(Target.NATIVE) == BUILDS
    assert BuildsConfig(4).label("x86-64") == "compiler:budget=4,target=x86-64"
    assert BuildsConfig().label() == "compiler"  # what runs of it were named
    for bad, why in (
        ("O9", "unknown option or build"),
        ("budget=x", "not a number"),
        ("budget=0", "positive"),
    ):
        with pytest.raises(UserError, match=why):
            legacy_options(bad)
    with pytest.raises(UserError, match="--strategy builds"):  # the build search is no model
        load_model("compiler")


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
    fixed = BuildsConfig(builds="clang,O2").fixed(Target.NATIVE)
    problem = Problem("gnu", nested, ())
    [only] = fixed_builds(fixed, problem, compile_to_asm(nested), 2)
    assert only.model == "compiler:gcc -O2"
