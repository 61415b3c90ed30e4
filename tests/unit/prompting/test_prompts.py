"""Prompts, refinement feedback and answer extraction.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_prompts.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from supercoder.prompting.prompts import (
    build_messages,
    extract_assembly,
    feedback_for,
    fenced_blocks,
    refinement_messages,
)
from supercoder.types import (
    Problem,
    Speedup,
    Status,
    TestResult,
    UnseenResult,
    Verdict,
)
from tests.integration.test_prompts import PROBLEM, SECRET_IN, SECRET_OUT, SOURCE  # noqa: F401

BASELINE = "\t.text\n\t.globl\tmain\nmain:\n\tmovl\t$0, %eax\n\tret\n"


def test_asm_prompt_holds_code_baseline_and_instructions():
    [msg] = build_messages(PROBLEM, baseline_asm=BASELINE)
    assert msg["role"] == "user"
    text = msg["content"]
    blocks = fenced_blocks(text)
    assert [b.lang for b in blocks] == ["c", "assembly"]
    assert blocks[0].body.strip() == SOURCE.strip() and blocks[1].body.strip() == BASELINE.strip()
    for phrase in ("x86-64", "AT&T", "complete program", "```assembly", "no comments"):
        assert phrase in text
    assert "777000" not in text and "2 3" not in text  # no tests at all by default


def test_visible_inputs_shown_trimmed_and_hidden_never():
    [msg] = build_messages(PROBLEM, baseline_asm=BASELINE, show_inputs=5)
    text = msg["content"]
    assert "2 3" in text and "more characters" in text and "9" * 2000 not in text
    assert "777000" not in text and "900456" not in text


def test_fewshot_pairs_come_first_as_turns():
    from supercoder.toolchain.baseline import vouch

    vouch(BASELINE)  # a shot's carried baseline is shown only when vouched (or built here)
    other = Problem("other", "int main(void){return 0;}\n", (), baseline_asm=BASELINE)
    messages = build_messages(PROBLEM, baseline_asm=BASELINE, fewshot=[(other, BASELINE)])
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "return 0" in messages[0]["content"]
    assert extract_assembly(messages[1]["content"]) == BASELINE.strip("\n") + "\n"
    assert SOURCE.strip() in messages[2]["content"]


def test_refinement_appends_answer_and_feedback_without_mutating():
    first = build_messages(PROBLEM, baseline_asm=BASELINE)
    nxt = refinement_messages(first, "```assembly\nbad\n```", "it failed")
    assert [m["role"] for m in nxt] == ["user", "assistant", "user"]
    assert nxt[1]["content"] == "```assembly\nbad\n```" and nxt[2]["content"] == "it failed"
    assert len(first) == 1


def verdict(status, tests=(), **kw):
    return Verdict(problem="add", status=status, tests=tuple(tests), **kw)


def test_feedback_compile_error_is_trimmed():
    text = feedback_for(
        verdict(Status.COMPILE_ERROR, message="x.s:3: Error: no such instruction\n" * 500)
    )
    assert "no such instruction" in text and "more characters" in text and len(text) < 2500
    assert "```assembly" in text


def test_feedback_shows_first_failing_visible_test():
    tests = [
        TestResult("secret", Status.WRONG_OUTPUT, detail="expected 900456"),
        TestResult("small", Status.OK),
        TestResult("big", Status.WRONG_OUTPUT, detail="first difference at byte 0"),
    ]
    text = feedback_for(verdict(Status.WRONG_OUTPUT, tests), PROBLEM)
    assert "'big'" in text and "Expected output" in text and "more characters" in text
    assert "first difference at byte 0" in text
    assert "It also failed on tests whose data cannot be shown." in text
    assert "secret" not in text and "777000" not in text and "900456" not in text


def test_feedback_for_wrong_output_on_a_visible_test_word_for_word():
    tests = [
        TestResult("small", Status.WRONG_OUTPUT, detail="line 1: expected '5', got '6'"),
        TestResult("secret", Status.WRONG_OUTPUT, detail="line 1: expected '900456'"),
    ]
    assert feedback_for(verdict(Status.WRONG_OUTPUT, tests), PROBLEM) == (
        "Your program printed the wrong output on test 'small'.\n\n"
        "Input:\n```\n2 3\n```\n\nExpected output:\n```\n5\n```\n\n"
        "Details: line 1: expected '5', got '6'\n\n"
        "It also failed on tests whose data cannot be shown.\n\n"
        "Reply with the complete corrected program: the assembly only, no explanation, "
        "in one ```assembly fenced block."
    )


def test_feedback_hidden_only_failure_reveals_nothing():
    tests = [
        TestResult("small", Status.OK),
        TestResult("secret", Status.RUNTIME_ERROR, "got 900456"),
    ]
    text = feedback_for(verdict(Status.RUNTIME_ERROR, tests), PROBLEM)
    assert "cannot be shown" in text and "crashed" in text
    assert "900456" not in text and "777000" not in text


def test_feedback_without_problem_reveals_nothing_from_tests():
    tests = [TestResult("small", Status.WRONG_OUTPUT, detail="line 1: expected '900456'")]
    text = feedback_for(verdict(Status.WRONG_OUTPUT, tests, message="first: small: 900456"))
    assert "printed the wrong output" in text and "900456" not in text
    timeout = [TestResult("small", Status.TIMEOUT, detail="time limit exceeded (cpu 10.00s)")]
    assert "ran out of time" in feedback_for(verdict(Status.TIMEOUT, timeout), PROBLEM)
    assert "cpu 10.00s" in feedback_for(verdict(Status.TIMEOUT, timeout), PROBLEM)


def test_feedback_speed():
    slow = Speedup(value=0.98, low=0.95, high=1.01, samples=10, tests_timed=2)
    text = feedback_for(verdict(Status.OK, speedup=slow))
    assert "not faster" in text and "0.980x" in text and "0.950x" in text
    fast = Speedup(value=1.5, low=1.4, high=1.6, samples=10, tests_timed=2)
    assert "1.500x" in feedback_for(verdict(Status.OK, speedup=fast))
    assert "same as the gcc -O3" in feedback_for(verdict(Status.OK, identical_to_baseline=True))
    assert "did not contain" in feedback_for(verdict(Status.NO_ANSWER))
    assert "unrelated" in feedback_for(verdict(Status.INFRA_ERROR))


PROGRAM = "\t.text\n\t.globl\tmain\nmain:\n\txorl\t%eax, %eax\n\tret\n"


@pytest.mark.parametrize(
    "answer",
    [
        f"Here it is:\n```assembly\n{PROGRAM}```\nDone.",
        f"```asm\n{PROGRAM}```",
        f"```s\n{PROGRAM}```",
        f"```x86asm\n{PROGRAM}```",
        f"```\n{PROGRAM}```",
        f"```assembly\n{PROGRAM}",  # cut off before the closing fence
        f"<think>maybe ```assembly\nmain:\n nop\n``` no</think>\n```assembly\n{PROGRAM}```",
        f"```c\nint main(){{}}\n```\n```assembly\nfoo: nop\n```\n```assembly\n{PROGRAM}```",
        f"```assembly\n{PROGRAM}```\nand a fragment:\n```assembly\n  addl $1, %eax\n```",
        PROGRAM,  # an unfenced answer that is nothing but a program
        f"````assembly\n{PROGRAM}````",
    ],
)
def test_extract_finds_the_program(answer):
    assert extract_assembly(answer) == PROGRAM


@pytest.mark.parametrize(
    "answer",
    [
        None,
        "",
        "I cannot help with that.",
        "The main: idea is to unroll loops.",
        "```c\nint main(void) { return 0; }\n```",
        "```assembly\n# just a comment\n```",
        "```assembly\nhelper:\n\tret\n```",  # no main
        f"<think>\n```assembly\n{PROGRAM}```\n (still thinking, then cut off",
        "<think>planning</think>\nsorry, out of time.",
    ],
)
def test_extract_returns_none_without_a_usable_program(answer):
    assert extract_assembly(answer) is None


def test_feedback_says_only_that_the_unseen_tests_failed_together():
    tests = (TestResult("small", Status.WRONG_OUTPUT, detail="line 1: expected '5', got '6'"),)
    v = replace(
        verdict(Status.RUNTIME_ERROR, list(tests)), unseen=UnseenResult(4, Status.RUNTIME_ERROR)
    )
    text = feedback_for(v, PROBLEM)
    assert "'small'" in text and "It also failed on tests whose data cannot be shown." in text
    assert "4" not in text.split("Input:")[0]  # not even how many of them failed
    alone = replace(v, tests=(TestResult("small", Status.OK),))
    assert "on tests whose data cannot be shown" in feedback_for(alone, PROBLEM)


def test_an_answer_unit_without_main_is_extracted_for_it_alone():
    from supercoder.prompting.answers import resolve_answer

    unit = "\t.text\n\t.globl\twalksub\nwalksub:\n\tret\n"  # Olden bh's profiled unit
    answer = f"```assembly\n{unit}```"
    assert extract_assembly(answer) is None  # a whole program needs its main
    assert extract_assembly(answer, needs_main=False) == unit
    # the problem's baseline says which: the answer unit's has no main, so neither do
    # its answers (the build search's baseline copy and every model's answer)
    assert resolve_answer(answer, baseline=unit).asm == unit
    assert resolve_answer(answer, baseline=PROGRAM).asm is None
