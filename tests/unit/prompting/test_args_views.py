"""A test's arguments, as every tool and view sees them: a validator gets them as its
own argv and the test's stdin alone; the LLM generator prompt, the MCP problem view,
evolve's parent prompt and the fuzzer show or keep them apart from stdin, and none of
them ever shows the internal form arguments travel in (``types.ARGS_MARK``).

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_args_views.py."""

from __future__ import annotations

import random

from supercoder.types import ARGS_MARK, Problem, TestCase, split_args, with_args


def test_the_fuzzer_keeps_a_test_s_arguments_and_mutates_its_stdin():
    from supercoder.problems.fuzz import FuzzHint, fuzz_inputs, mutate

    rng = random.Random(5)
    source = with_args(("4", "x y"), b"3\n10 20 30\n").decode()
    for _ in range(40):
        args, stdin = split_args(mutate(source, rng, FuzzHint(shuffle_lines_after=1)).encode())
        assert args == ("4", "x y") and not stdin.startswith(ARGS_MARK)
    tests = (TestCase("a", b"", input_bytes=b"3\n10 20 30\n", args=("4",)),)
    drawn = fuzz_inputs(Problem("p", "int main(void){return 0;}\n", tests), 8, seed=1)
    assert drawn and all(split_args(d)[0] == ("4",) for d in drawn)
