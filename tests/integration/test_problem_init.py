"""Real programs in, as a user brings them: input layouts, flags, atomic init, comparisons."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.problems.layouts import discover
from supercoder.problems.loading import load_problem
from tests.conftest import sandbox_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
KATTIS = FIXTURES / "kattis_hypot"
CODENET = FIXTURES / "codenet_p00002"
OPENMP = FIXTURES / "openmp_harmonic"


ECHO = r"""#include <stdio.h>
int main(void) { int c; while ((c = getchar()) != EOF) putchar(c); return 0; }
"""


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args], capture_output=True, text=True, timeout=300
    )


# --- layouts (no sandbox needed) ---------------------------------------------------


# --- compare modes --------------------------------------------------------------------


# --- problem init (real gcc, real sandbox) ---------------------------------------------


def test_kattis_init_reports_answer_disagreements_then_float_compare_accepts(tmp_path):
    sandbox_or_skip()
    source = KATTIS / "submissions" / "accepted" / "hypot.c"
    out = tmp_path / "hypot"
    proc = run_cli("problem", "init", str(source), "--inputs", str(KATTIS), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "kattis layout: 1 visible, 2 hidden" in proc.stdout
    assert proc.stderr.count("differs from") == 3 and "1.ans" in proc.stderr  # %.9f vs %.6f
    problem = load_problem(out)
    assert [(t.name, t.hidden) for t in problem.tests] == [
        ("1", False),
        ("hidden/2", True),
        ("hidden/group1_1", True),
    ]
    assert problem.tests[0].expected == b"5.000000000\n1.414213562\n"
    proc = run_cli(
        "problem",
        "init",
        str(source),
        "--inputs",
        str(KATTIS),
        "-o",
        str(out),
        "--compare",
        "float:1e-6",
        "--force",
    )
    assert proc.returncode == 0 and "differs" not in proc.stderr, proc.stderr
    assert json.loads((out / "problem.json").read_text())["compare"] == "float:1e-06"


def test_codenet_init(tmp_path):
    sandbox_or_skip()
    out = tmp_path / "p00002"
    proc = run_cli(
        "problem", "init", str(CODENET / "s123456.c"), "--inputs", str(CODENET), "-o", str(out)
    )
    assert proc.returncode == 0 and "differs" not in proc.stderr, proc.stderr
    assert sorted(p.name for p in (out / "tests").iterdir()) == ["1.in", "1.out", "2.in", "2.out"]
    assert (out / "tests" / "2.out").read_bytes() == (CODENET / "output_2.txt").read_bytes()


def test_failed_init_leaves_nothing_and_names_the_users_file(tmp_path):
    sandbox_or_skip()
    bad = tmp_path / "broken.c"
    bad.write_text("int main(void) { return x; }\n")
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "1.txt").write_text("1\n")
    out = tmp_path / "new" / "deeper" / "broken"
    proc = run_cli("problem", "init", str(bad), "--inputs", str(inputs), "-o", str(out))
    assert proc.returncode == 2 and "does not compile" in proc.stderr
    assert (
        str(bad) in proc.stderr and "sc-ref-" not in proc.stderr and "Traceback" not in proc.stderr
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "broken.c",
        "in",
    ]  # no new/, no temp folder


def test_existing_problem_needs_force_and_survives_a_failed_replace(tmp_path):
    sandbox_or_skip()
    out = tmp_path / "p"
    args = ("problem", "init", str(CODENET / "s123456.c"), "--inputs", str(CODENET), "-o", str(out))
    assert run_cli(*args).returncode == 0
    proc = run_cli(*args)
    assert proc.returncode == 2 and "--force" in proc.stderr
    broken = tmp_path / "broken.c"
    broken.write_text("int main(void) { return *(volatile int *)0; }\n")
    proc = run_cli(
        "problem", "init", str(broken), "--inputs", str(CODENET), "-o", str(out), "--force"
    )
    assert proc.returncode == 2 and "failed on" in proc.stderr and "input_1.txt" in proc.stderr
    assert load_problem(out).source == (CODENET / "s123456.c").read_text()  # the old one is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.c", "p"]


def test_openmp_needs_fopenmp_and_then_works_through_check(tmp_path):
    sandbox_or_skip()
    source, out = OPENMP / "harmonic.c", tmp_path / "harmonic"
    proc = run_cli(
        "problem", "init", str(source), "--inputs", str(OPENMP / "inputs"), "-o", str(out)
    )
    assert (
        proc.returncode == 2
        and "does not link" in proc.stderr
        and "omp_get_max_threads" in proc.stderr
    )
    assert "--cflags -fopenmp" in proc.stderr and not out.exists()
    proc = run_cli(
        "problem",
        "init",
        str(source),
        "--inputs",
        str(OPENMP / "inputs"),
        "-o",
        str(out),
        "--cflags",
        "-fopenmp",
    )
    assert proc.returncode == 0, proc.stderr
    problem = load_problem(out)
    assert (
        problem.cflags == ("-fopenmp",) and json.loads((out / "problem.json").read_text())["cflags"]
    )
    from supercoder.toolchain.baseline import baseline_asm

    cand = tmp_path / "cand.s"
    cand.write_text(baseline_asm(problem))
    assert "GOMP_parallel" in cand.read_text()  # built with -fopenmp
    proc = run_cli("check", str(out), str(cand), "--json", "--no-time")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "ok"


def test_check_applies_the_problems_compare_mode(tmp_path):
    sandbox_or_skip()
    out = tmp_path / "hypot"
    source = KATTIS / "submissions" / "accepted" / "hypot.c"
    args = ("problem", "init", str(source), "--inputs", str(KATTIS), "-o", str(out))
    assert run_cli(*args, "--compare", "float:1e-6").returncode == 0
    from supercoder.toolchain.gcc import compile_to_asm

    cand = tmp_path / "six.s"  # prints 6 decimals instead of 9: within 1e-6
    cand.write_text(compile_to_asm(source.read_text().replace("%.9f", "%.7f")))
    proc = run_cli("check", str(out), str(cand), "--json", "--no-time")
    assert json.loads(proc.stdout)["status"] == "ok", proc.stdout[-2000:]
    meta = json.loads((out / "problem.json").read_text())
    (out / "problem.json").write_text(json.dumps({**meta, "compare": "exact"}))
    proc = run_cli("check", str(out), str(cand), "--json", "--no-time")
    assert json.loads(proc.stdout)["status"] == "wrong_output"
    shutil.rmtree(out)


def test_flags_and_compare_travel_through_records_and_prompts(tmp_path):
    from supercoder.dataset.records import load_records, write_records
    from supercoder.prompting.prompts import question
    from supercoder.settings import ProblemSettings
    from supercoder.types import Problem, TestCase

    meta = ProblemSettings(cflags="-fopenmp -DN=3", ldflags="-lgomp", compare="float:1e-6")
    source = (OPENMP / "harmonic.c").read_text()
    problem = Problem("omp", source, (TestCase("1", b"1.000000 1\n", b"1\n"),), settings=meta)
    assert problem.cflags == ("-fopenmp", "-DN=3") and problem.link_flags[-1] == "-lgomp"
    text = question(problem)
    assert "`gcc -O3 -fopenmp -DN=3`" in text and "-lm -fopenmp -DN=3 -lgomp`" in text
    assert "GOMP_parallel" in text  # the shown baseline is built with the cflags
    (back,) = load_records(write_records([problem], tmp_path / "r.jsonl"))
    assert (back.cflags, back.ldflags, back.compare) == (problem.cflags, ("-lgomp",), "float:1e-6")


def test_check_names_the_problems_source_when_it_does_not_compile(tmp_path):
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.types import Problem, TestCase

    folder = tmp_path / "prob"
    from supercoder.settings import ProblemSettings

    problem = Problem(
        "p",
        "int main(void) { return nope; }\n",
        (TestCase("1", b""),),
        settings=ProblemSettings(path=str(folder)),
    )
    with pytest.raises(UserError) as e:
        baseline_asm(problem)
    assert f"{folder}/source.c:1" in str(e.value) and "sc-cc-" not in str(e.value)


def test_answers_pair_by_name_extensionless_too_and_init_says_which_are_inputs(tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    for i in (1, 2):
        (flat / f"in{i}").write_text(f"{i}\n")  # no extension: still paired
        (flat / f"out{i}").write_text(f"{i}\n")
    (flat / "sample-in-3").write_text("3\n")
    (flat / "sample-out-3").write_text("3\n")
    (flat / "extra").write_text("4\n")  # nothing pairs with it: an input of its own
    layout = discover(flat)
    assert layout.kind == "in/out names"
    assert sorted((t.name, t.input.name, t.answer and t.answer.name) for t in layout.tests) == [
        ("1", "in1", "out1"),
        ("2", "in2", "out2"),
        ("extra", "extra", None),
        ("sample_3", "sample-in-3", "sample-out-3"),
    ]
    lines = layout.describe(flat)
    assert lines[0].startswith("inputs: ") and "out1" not in lines[0] and "in1" in lines[0]
    assert "out1" in lines[1]
    folders = tmp_path / "folders"  # in/NAME with out/NAME of the same name
    (folders / "in").mkdir(parents=True)
    (folders / "out").mkdir()
    for name in ("a", "b"):
        (folders / "in" / name).write_text("1\n")
        (folders / "out" / name).write_text("1\n")
    layout = discover(folders)
    assert layout.kind == "input/output folders"
    assert [(t.name, t.answer.parent.name) for t in layout.tests] == [("a", "out"), ("b", "out")]
    hr = tmp_path / "hackerrank"  # HackerRank's input/ + output/ is not CodeNet's layout
    for sub in ("input", "output"):
        (hr / sub).mkdir(parents=True)
        (hr / sub / f"{sub}00.txt").write_text("0\n")
    assert discover(hr).kind == "input/output folders"
    assert discover(CODENET).kind == "codenet"
    sandbox_or_skip()
    source = tmp_path / "echo.c"
    source.write_text(ECHO)
    proc = run_cli("problem", "init", str(source), "--inputs", str(flat), "-o", str(tmp_path / "p"))
    assert proc.returncode == 0, proc.stderr
    assert "inputs: " in proc.stdout and "answers: " in proc.stdout
    assert "in/out names layout: 4 visible" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "p" / "tests").iterdir()) == [
        f"{n}.{x}" for n in ("1", "2", "extra", "sample_3") for x in ("in", "out")
    ]


SHA_SOURCE = r"""#include <stdio.h>
#include "sha.h"
int main(void) { int x; if (scanf("%d", &x) != 1) return 1; printf("%d\n", MIX(x)); return 0; }
"""


def test_headers_beside_the_source_are_found_by_init_and_every_build(tmp_path):
    from supercoder.toolchain.baseline import baseline_asm

    sandbox_or_skip()
    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "prog.c").write_text(SHA_SOURCE)
    (src / "sha.h").write_text('#include "lib/mix.h"\n#define MIX(x) (mix(x) + 1)\n')
    (src / "lib" / "mix.h").write_text("static int mix(int x) { return 3 * x; }\n")
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "t1").write_text("5\n")
    proc = run_cli(
        "problem", "init", str(src / "prog.c"), "--inputs", str(inputs), "-o", str(tmp_path / "p")
    )
    assert proc.returncode == 0, proc.stderr
    assert "files copied into the problem: sha.h, lib/mix.h" in proc.stdout
    folder = tmp_path / "p"
    assert (folder / "tests" / "t1.out").read_text() == "16\n"
    assert (folder / "lib" / "mix.h").is_file()
    # the problem folder moves; its builds still find the headers (and a changed header
    # is a changed problem: the cached baseline is not reused)
    moved = folder.rename(tmp_path / "moved")
    problem = load_problem(moved)
    old = baseline_asm(problem)  # compiled where the folder now is
    (moved / "lib" / "mix.h").write_text("static int mix(int x) { return 4 * x; }\n")
    changed = load_problem(moved)
    assert changed.source_hash() != problem.source_hash() and baseline_asm(changed) != old


EXITS_3 = r"""#include <stdio.h>
int main(void) { int x; if (scanf("%d", &x) != 1) return 1; printf("%d\n", 2 * x); return 3; }
"""


def test_an_exit_status_by_design_is_part_of_the_answer(tmp_path):
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.toolchain.gcc import compile_to_asm

    sandbox_or_skip()
    source = tmp_path / "three.c"
    source.write_text(EXITS_3)
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "t1").write_text("21\n")
    refused = run_cli(
        "problem", "init", str(source), "--inputs", str(inputs), "-o", str(tmp_path / "x")
    )
    assert refused.returncode == 2 and "exit code 3" in refused.stderr
    out = tmp_path / "p"
    made = run_cli(
        "problem", "init", str(source), "--inputs", str(inputs), "-o", str(out), "--exit-code", "3"
    )
    assert made.returncode == 0, made.stderr
    assert json.loads((out / "problem.json").read_text())["exit_code"] == 3
    problem = load_problem(out)
    assert problem.exit_code == 3 and (out / "tests" / "t1.out").read_text() == "42\n"
    same = tmp_path / "same.s"
    same.write_text(baseline_asm(problem))
    ok = run_cli("check", str(out), str(same), "--no-time", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "ok", ok.stdout
    exits_0 = tmp_path / "zero.s"
    exits_0.write_text(compile_to_asm(EXITS_3.replace("return 3;", "return 0;")))
    bad = run_cli("check", str(out), str(exits_0), "--no-time", "--json")
    verdict = json.loads(bad.stdout)
    assert verdict["status"] == "runtime_error" and "exit 3" in json.dumps(verdict["tests"])
