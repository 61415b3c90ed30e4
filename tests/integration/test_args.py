"""Issue 36: programs that take arguments (``tests/NAME.args``, a fixed ``argv[0]``),
multi-file programs built as their repositories build them (separate translation
units, ``"../x.h"`` includes), and a timeout that says where and how long."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

from supercoder.problems.loading import load_problem, write_problem
from supercoder.sandbox.box import Limits
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import ARGS_MARK, Status, split_args
from tests.conftest import sandbox_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ARGS = FIXTURES / "args"
REAL = FIXTURES / "real_builds"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def _baseline_check(tmp_path: Path, folder: Path) -> dict:
    from supercoder.toolchain.baseline import baseline_asm

    asm = tmp_path / f"{folder.name}.s"
    asm.write_text(baseline_asm(load_problem(folder)))
    proc = run_cli("check", str(folder), str(asm), "--no-time", "--json")
    verdict = json.loads(proc.stdout)
    return verdict[0] if isinstance(verdict, list) else verdict


def _knight_walks(depth: int) -> int:
    """What perft.c counts, computed here: knight walks of ``depth`` moves on 8x8."""
    moves = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    ways = {(r, c): 1 for r in range(8) for c in range(8)}
    for _ in range(depth):
        ways = {(r, c): sum(ways.get((r + a, c + b), 0) for a, b in moves) for r, c in ways}
    return sum(ways.values())


def test_a_perft_whose_depth_is_argv1_inits_checks_and_draws_its_depth(tmp_path):
    sandbox_or_skip()
    out = tmp_path / "perft"
    proc = run_cli(
        "problem",
        "init",
        str(ARGS / "perft.c"),
        "--args",
        "d1=1",
        "--args",
        "d2=2",
        "--args",
        "d5=5",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "reads its command line" not in proc.stderr  # it was given arguments
    assert (out / "tests" / "d5.args").read_text() == "5\n"
    assert (out / "tests" / "d5.out").read_text() == f"depth 5: {_knight_walks(5)}\n"
    problem = load_problem(out)
    assert {t.name: t.args for t in problem.tests} == {"d1": ("1",), "d2": ("2",), "d5": ("5",)}
    assert not problem.memorizable  # the arguments are its input
    assert _baseline_check(tmp_path, out)["status"] == "ok"
    # the depth is part of the input domain: drawn like any number, as a first line
    model = json.loads((out / "input_model.json").read_text())
    assert model["args"] is True and model["body"][0]["line"][0]["int"] == [1, 5]
    from supercoder.problems.inputmodel import model_for

    drawn = [d.encode() for d in model_for(problem).draw(random.Random(3), 6)]
    depths = {int(split_args(d)[0][0]) for d in drawn}
    assert all(d.startswith(ARGS_MARK) for d in drawn) and depths <= {1, 2, 3, 4, 5}
    assert depths - {1, 2, 5}  # depths the tests do not have
    from supercoder.prompting.prompts import question

    assert "argv[0] is always `./program`); for example: Command line: `./program 1`" in (
        question(problem, variant="c_only")
    )


def test_a_program_printing_argv0_passes_its_own_baseline_check(tmp_path):
    sandbox_or_skip()
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_text("1 2 3\n")
    (inputs / "b.txt").write_text("4 5\n")
    (inputs / "b.args").write_text("'two words' x\n")  # b's own arguments, beside it
    out = tmp_path / "argv0"
    proc = run_cli(
        "problem", "init", str(ARGS / "argv0.c"), "--inputs", str(inputs), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "tests" / "a.out").read_text() == "./program 1 6\n"
    assert (out / "tests" / "b.out").read_text() == "./program 3 9\n"
    assert not (out / "tests" / "a.args").exists()
    assert (out / "tests" / "b.args").read_text() == "'two words' x\n"
    assert "b.args" not in proc.stdout.split("inputs:")[1].splitlines()[0]  # not an input
    assert _baseline_check(tmp_path, out)["status"] == "ok"
    # a program that reads argv but is given none is told so
    (inputs / "b.args").unlink()
    proc = run_cli(
        "problem", "init", str(ARGS / "argv0.c"), "--inputs", str(inputs), "-o", str(tmp_path / "z")
    )
    assert proc.returncode == 0, proc.stderr
    assert "reads its command line (argc/argv) but no test has arguments" in proc.stderr
    assert "--args" in proc.stderr


def test_bad_arguments_are_one_line_errors(tmp_path):
    import pytest

    from supercoder.errors import UserError
    from supercoder.problems.init import InitConfig, create_from_sources

    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_text("1\n")
    for bad, says in (
        (("nosuch=3",), "no test named 'nosuch'"),
        (("'open",), "not a shell-quoted line"),
        (("1", "2"), "given twice"),
    ):
        with pytest.raises(UserError, match=re.escape(says)):
            create_from_sources([ARGS / "argv0.c"], inputs, tmp_path / "x", InitConfig(args=bad))
        assert not (tmp_path / "x").exists()
    proc = run_cli(  # the CLI: one line, exit 2, no traceback
        "problem", "init", str(ARGS / "argv0.c"), "--inputs", str(inputs), "--args", "'open"
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert '--args "\'open": not a shell-quoted line' in proc.stderr, proc.stderr
    folder = tmp_path / "b" / "p"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text("int main(void){return 0;}\n")
    (folder / "tests" / "t.in").write_text("")
    (folder / "tests" / "t.out").write_text("")
    (folder / "tests" / "t.args").write_text("a\nb\n")
    with pytest.raises(UserError, match="t.args: arguments are one shell-quoted line"):
        load_problem(folder)


def test_a_three_file_program_with_same_named_statics_builds_as_its_repository(tmp_path):
    sandbox_or_skip()
    rle = REAL / "rle"
    files = [str(rle / n) for n in ("main.c", "encode.c", "decode.c")]
    inputs = ["--inputs", str(rle / "tests")]
    out = tmp_path / "rle"
    proc = run_cli("problem", "init", *files, *inputs, "-o", str(out), "--answer-unit", "main.c")
    assert proc.returncode == 0, proc.stderr
    assert "encode.c (compiled apart, linked with source.c)" in proc.stdout
    meta = json.loads((out / "problem.json").read_text())
    assert meta["units"] == ["encode.c", "decode.c"]
    assert "rle_encode" not in (out / "source.c").read_text().split("int main")[0]
    assert (out / "tests" / "a.out").read_text().startswith("18 -> 10 -> 18 ok")
    verdict = _baseline_check(tmp_path, out)
    assert verdict["status"] == "ok", verdict
    # joined (only on request) the static helpers clash, and the user's own files'
    # diagnostics are shown
    proc = run_cli("problem", "init", *files, *inputs, "-o", str(tmp_path / "j"), "--join")
    assert proc.returncode == 2
    assert "decode.c:3:15: error: redefinition of 'emit'" in proc.stderr
    assert "a message about another file" not in proc.stderr


def test_a_driver_including_a_header_above_its_folder(tmp_path):
    sandbox_or_skip()
    example = REAL / "jsonish" / "example"
    out = tmp_path / "js"
    proc = run_cli(
        "problem",
        "init",
        str(example / "driver.c"),
        "--inputs",
        str(example / "tests"),
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "problem.json").read_text())["headers"] == ["lib/jsonish/jsmn.h"]
    assert '#include "lib/jsonish/jsmn.h"' in (out / "source.c").read_text()
    assert (out / "tests" / "one.out").read_text() == "8 tokens\n"  # { "a" [ 1 2 3 "b" "x\\"y"
    assert _baseline_check(tmp_path, out)["status"] == "ok"


LOOPS = r"""
#include <stdio.h>
int main(void) {
    long n = 0;
    if (scanf("%ld", &n) != 1) return 1;
    volatile long spin = 0;
    if (n == LOOP_ON) for (;;) spin++;
    printf("%ld\n", n * 2);
    return 0;
}
"""


def test_a_timeout_says_which_test_or_that_it_was_unseen_and_how_long(tmp_path):
    sandbox_or_skip()
    from supercoder.commands.eval import _timeout_note
    from supercoder.types import Problem, TestCase
    from supercoder.verify.evaluate import CheckConfig, evaluate

    source = LOOPS.replace("LOOP_ON", "-1")
    tests = (
        TestCase("small", b"2\n", input_bytes=b"1\n"),
        TestCase("secret", b"14\n", input_bytes=b"7\n", hidden=True),
    )
    problem = load_problem(write_problem(Problem("loops", source, tests), tmp_path / "loops"))
    config = CheckConfig(limits=Limits(cpu_seconds=0.3, wall_seconds=1.0), time=False)
    visible = evaluate(problem, compile_to_asm(LOOPS.replace("LOOP_ON", "1")), config)
    assert visible.status is Status.TIMEOUT
    note = _timeout_note(visible)
    # (a busy machine's run stopped at its wall limit runs again with a longer one)
    assert "test small" in note and re.search(r"against limits of 0.3s cpu, [124]s wall", note)
    assert re.search(r"ran cpu \d+\.\d\ds, wall \d+\.\d\ds against", note), note
    hidden = evaluate(problem, compile_to_asm(LOOPS.replace("LOOP_ON", "7")), config)
    assert hidden.status is Status.TIMEOUT
    note = _timeout_note(hidden)
    assert "never saw ran past the 0.3s cpu / 1s wall limit" in note, note
    assert "secret" not in note and "7" not in note.replace("0.3", "")


def test_a_generator_draws_a_program_s_arguments(tmp_path):
    sandbox_or_skip()
    from supercoder.problems.generator import run_generator

    source = "def generate(seed, size):\n    return [str(size), 'x y'], str(seed) + '\\n'\n"
    first, plain = run_generator(source, [(7, 4), (1, 0)])
    assert split_args(first) == (("4", "x y"), b"7\n") and first.startswith(ARGS_MARK)
    assert split_args(plain) == (("0", "x y"), b"1\n")
