"""A test's arguments, as every tool and view sees them: a validator gets them as its
own argv and the test's stdin alone; the LLM generator prompt, the MCP problem view,
evolve's parent prompt and the fuzzer show or keep them apart from stdin, and none of
them ever shows the internal form arguments travel in (``types.ARGS_MARK``)."""

from __future__ import annotations

from pathlib import Path

from supercoder.problems.loading import load_problem, write_problem
from supercoder.problems.validator import ValidatorConfig, run_validator, valid_inputs
from supercoder.types import ARGS_MARK, Problem, TestCase, with_args
from tests.conftest import sandbox_or_skip

PERFT = Path(__file__).resolve().parents[1] / "fixtures" / "args" / "perft.c"
MARK_WORD = "supercoder-args"

# the depth is argv[1] (1 to 5); stdin is one line "go"
VALIDATOR = """import sys
assert len(sys.argv) == 2, f"one argument expected, got {sys.argv[1:]!r}"
depth = int(sys.argv[1])
assert 1 <= depth <= 5, f"depth {depth} out of range"
data = sys.stdin.read()
assert data == "go\\n", f"stdin is {data!r}"
"""


def _problem(tmp_path: Path) -> Problem:
    tests = tuple(TestCase(f"d{d}", b"x\n", input_bytes=b"go\n", args=(str(d),)) for d in (1, 2, 3))
    folder = write_problem(Problem("perft", PERFT.read_text(), tests), tmp_path / "perft")
    (folder / "validate.py").write_text(VALIDATOR)
    return load_problem(folder)


def test_a_validator_gets_the_arguments_as_argv_and_stdin_alone():
    sandbox_or_skip()
    inputs = [with_args(("3",), b"go\n"), with_args(("9",), b"go\n"), b"go\n"]
    judged = run_validator(VALIDATOR, inputs, ValidatorConfig(seconds=2.0))
    assert [j.valid for j in judged] == [True, False, False], judged
    assert "depth 9 out of range" in judged[1].why
    assert "one argument expected, got []" in judged[2].why


def test_views_show_arguments_apart_and_never_the_internal_mark(tmp_path):
    sandbox_or_skip()
    problem = _problem(tmp_path)
    runs = [t.run_input() for t in problem.tests]
    assert all(r.startswith(ARGS_MARK) for r in runs)
    # a drawn input the problem's validator judges: arguments as argv
    assert valid_inputs(problem, [*runs, with_args(("7",), b"go\n")]) == runs

    from supercoder.prompting.inputgen import messages

    body = messages(problem.source, runs)[1]["content"]
    assert "Command line: `./program 2`" in body and "sys.argv[1:]" in body
    assert "\0" not in body and MARK_WORD not in body
    plain = messages(problem.source, [b"go\n"])[1]["content"]
    assert "Command line" not in plain and "sys.argv" not in plain

    from supercoder.verify.mcp import McpConfig, Toolbox

    box = Toolbox(McpConfig(benchmarks=(), allow_roots=(tmp_path,)))
    shown = box.show_problem(str(problem.path), tests=2)
    assert [t["args"] for t in shown.data["tests"]] == [["1"], ["2"]]
    assert [t["input"] for t in shown.data["tests"]] == ["go\n", "go\n"]
    assert "command line: `./program 1`" in shown.text
    assert "\0" not in shown.text and MARK_WORD not in shown.text

    from supercoder.prompting.parent_prompts import Parent, evolve_messages

    parent = Parent("main:\n\tret\n", "1.2x")
    text = evolve_messages(problem, [parent], show_inputs=2)[0]["content"]
    assert "Command line: `./program 1`" in text
    assert "\0" not in text and MARK_WORD not in text
