"""The unit that holds the hot loop: a multi-unit program's answer is the unit the
profile (or ``--answer-unit``) points at, the others linked as gcc -O3 builds them; the
baseline, the sandboxed check, the prompt and records follow. Real gcc, the real sandbox
and valgrind's profile, on a small interpreter (``fixtures/real_builds/interp``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm
from tests.conftest import sandbox_or_skip

INTERP = Path(__file__).resolve().parents[1] / "fixtures" / "real_builds" / "interp"
FILES = [str(INTERP / n) for n in ("main.c", "src/vm.c", "parse.c")]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _check(folder: Path, *asms: Path) -> list[dict]:
    proc = run_cli("check", str(folder), *map(str, asms), "--no-time", "--json")
    assert proc.returncode == 0, proc.stderr
    verdicts = json.loads(proc.stdout)
    return verdicts if isinstance(verdicts, list) else [verdicts]


@pytest.fixture(scope="module")
def profiled(tmp_path_factory) -> Path:
    """The interpreter made into a problem with no answer unit named: the profile's."""
    sandbox_or_skip()
    out = tmp_path_factory.mktemp("interp") / "p"
    proc = run_cli("problem", "init", *FILES, "--inputs", str(INTERP / "tests"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "profiling which of the 3 units the time goes in" in proc.stderr  # progress
    assert "running the reference on 3 test(s)" in proc.stderr
    assert "the time goes in src/vm.c: it is the answer unit; building again" in proc.stderr
    assert "answer unit: src/vm.c (the profile puts" in proc.stdout, proc.stdout
    return out


def test_the_profile_makes_the_dispatch_loop_unit_the_answer(profiled, tmp_path):
    meta = json.loads((profiled / "problem.json").read_text())
    assert meta["answer_unit"] == "src/vm.c" and meta["main_unit"] == "main.c"
    assert sorted(meta["units"]) == ["main.c", "parse.c"]
    assert "the profile puts" in meta["answer_why"]
    assert "long run(" in (profiled / "source.c").read_text()
    assert "int main(" in (profiled / "main.c").read_text()
    problem = load_problem(profiled)
    base = baseline_asm(problem)
    assert "run:" in base and "main:" not in base and "parse:" not in base
    # the baseline passes its own tests with main.c and parse.c linked beside it; a
    # wrong dispatch loop (acc starts at 2) is wrong: the answer really is vm.c
    good = tmp_path / "good.s"
    good.write_text(base)
    wrong_c = (profiled / "source.c").read_text().replace("long acc = 1;", "long acc = 2;")
    assert wrong_c != (profiled / "source.c").read_text()
    wrong = tmp_path / "wrong.s"
    wrong.write_text(compile_to_asm(wrong_c, ("-O3", *problem.compile_flags)))
    verdicts = _check(profiled, good, wrong)
    assert verdicts[0]["status"] == "ok", verdicts[0]
    assert verdicts[1]["status"] == "wrong_output", verdicts[1]
    shown = run_cli("problem", "show", str(profiled))
    assert "answer unit: src/vm.c (the profile puts" in shown.stdout, shown.stdout


def test_the_prompt_shows_the_answer_unit_and_names_main_s(profiled):
    from supercoder.prompting.prompts import question

    problem = load_problem(profiled)
    text = question(problem)
    assert "Here is src/vm.c, the translation unit" in text and "`main` is in main.c" in text
    assert "long run(" in text and "int main(" not in text
    assert "vm.h, which it includes:" in text and "typedef struct" in text  # its context
    assert "The source shown is src/vm.c" in text


def test_a_named_unit_is_the_answer_and_a_wrong_name_is_one_line(tmp_path):
    sandbox_or_skip()
    out = tmp_path / "named"
    inputs = ["--inputs", str(INTERP / "tests")]
    proc = run_cli("problem", "init", *FILES, *inputs, "-o", str(out), "--answer-unit", "parse.c")
    assert proc.returncode == 0, proc.stderr
    assert "answer unit: parse.c (named by --answer-unit)" in proc.stdout
    assert "profiling" not in proc.stderr  # named: no profile
    assert json.loads((out / "problem.json").read_text())["answer_unit"] == "parse.c"
    assert _check(out, _asm(tmp_path, out))[0]["status"] == "ok"
    # two units named: the answer covers both (one translation unit), parse.c stays apart
    two = tmp_path / "two"
    proc = run_cli(
        "problem", "init", *FILES, *inputs, "-o", str(two),
        "--answer-unit", "vm.c", "--answer-unit", "main.c",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "answer units: src/vm.c, main.c (named by --answer-unit: one translation unit)" in (
        proc.stdout
    )
    meta = json.loads((two / "problem.json").read_text())
    assert meta["units"] == ["parse.c"] and meta["answer_joined"] == ["main.c"]
    base = baseline_asm(load_problem(two))
    assert "run:" in base and "main:" in base and "parse:" not in base
    assert _check(two, _asm(tmp_path, two))[0]["status"] == "ok"
    clash = run_cli(
        "problem", "init", *FILES, *inputs, "-o", str(tmp_path / "c"),
        "--answer-unit", "vm.c", "--answer-unit", "parse.c",
    )  # fmt: skip
    assert clash.returncode == 2 and "'step'" in clash.stderr, clash.stderr
    bad = run_cli(
        "problem", "init", *FILES, *inputs, "-o", str(tmp_path / "x"), "--answer-unit", "lexer.c"
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--answer-unit lexer.c is not one of the program's units (they are: main.c" in bad.stderr
    assert not (tmp_path / "x").exists()
    both = run_cli(
        "problem",
        "init",
        *FILES,
        *inputs,
        "-o",
        str(tmp_path / "y"),
        "--answer-unit",
        "vm.c",
        "--join",
    )
    assert both.returncode == 2 and "give one or the other" in both.stderr
    # the statics clash when joined: why the units must stay apart
    joined = run_cli("problem", "init", *FILES, *inputs, "-o", str(tmp_path / "j"), "--join")
    assert joined.returncode == 2 and "previous definition of 'step'" in joined.stderr, (
        joined.stderr
    )


def _asm(tmp_path: Path, folder: Path) -> Path:
    path = tmp_path / f"{folder.name}.s"
    path.write_text(baseline_asm(load_problem(folder)))
    return path


def test_an_include_folder_given_with_dash_i_survives_the_rebuild_for_the_hot_unit(tmp_path):
    """The sources include ``"vm.h"`` from a folder named by ``-I include``: the first
    build copies it into the problem (``-Ilib/include``); the rebuild for the hot unit
    starts again from the user's own ``-I``, not from the problem folder's."""
    sandbox_or_skip()
    src = tmp_path / "src"
    (tmp_path / "include").mkdir()
    src.mkdir()
    (tmp_path / "include" / "vm.h").write_text((INTERP / "vm.h").read_text())
    for name in ("main.c", "src/vm.c", "parse.c"):
        text = (INTERP / name).read_text().replace('#include "../vm.h"', '#include "vm.h"')
        (src / Path(name).name).write_text(text)
    out = tmp_path / "p"
    files = [str(src / n) for n in ("main.c", "vm.c", "parse.c")]
    proc = run_cli(
        "problem", "init", *files, "-I", str(tmp_path / "include"),
        "--inputs", str(INTERP / "tests"), "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "the time goes in vm.c: it is the answer unit; building again" in proc.stderr
    assert json.loads((out / "problem.json").read_text())["answer_unit"] == "vm.c"
    copy = tmp_path / "copy.s"
    copy.write_text(baseline_asm(load_problem(out)))
    assert _check(out, copy)[0]["status"] == "ok"
