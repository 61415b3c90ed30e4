"""Search/replace answers: parsing, matching rules, failures that name the block, diffs
produced from programs, elided functions put back, refinement feedback.

The diffs a model copies from a hot-context prompt (which profiles the baseline in the
sandbox) are tested in tests/integration/test_diff_answers.py."""

from __future__ import annotations

import pytest

from supercoder.prompting.answers import failure_verdict, resolve_answer
from supercoder.prompting.diffedit import (
    ERROR_PREFIX,
    DiffError,
    apply_diff,
    elision_marker,
    make_diff,
    significant_text,
    strip_comment,
)
from supercoder.prompting.prompts import feedback_for
from supercoder.types import Status

BASE = """\t.file\t"x.c"
\t.section\t.rodata.str1.1,"aMS",@progbits,1
.LC0:
\t.string\t"%d # not a comment"
\t.text
\t.globl\tmain
\t.type\tmain, @function
main:
.LFB0:
\t.cfi_startproc
\tsubq\t$8, %rsp
\t.cfi_def_cfa_offset 16
\tmovl\t$3, %esi
\tleaq\t.LC0(%rip), %rdi
\txorl\t%eax, %eax
\tcall\tprintf@PLT
\txorl\t%eax, %eax
\taddq\t$8, %rsp
\t.cfi_def_cfa_offset 8
\tret
\t.cfi_endproc
.LFE0:
\t.size\tmain, .-main
"""


def block(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def test_a_block_matches_ignoring_comments_and_whitespace_and_replaces_in_place():
    answer = block("  movl $3, %esi   # 41.0%\n leaq .LC0(%rip),%rdi", "\tmovl\t$4, %esi")
    with pytest.raises(DiffError):  # the operand spacing differs inside the operands
        apply_diff(BASE, answer)
    answer = block(
        "  movl $3, %esi   # 41.0%\n leaq .LC0(%rip), %rdi",
        "\tmovl\t$4, %esi\n\tleaq\t.LC0(%rip), %rdi",
    )
    out = apply_diff(BASE, answer)
    assert "$4, %esi" in out and "$3, %esi" not in out
    assert out.count("\n") == BASE.count("\n") and ".cfi_startproc" in out


def test_blocks_apply_in_order_each_to_the_result_of_the_last():
    answer = (
        block("movl $3, %esi", "movl $5, %esi") + "text\n" + block("movl $5, %esi", "movl $6, %esi")
    )
    assert "movl $6, %esi" in apply_diff(BASE, answer)


def test_a_block_spanning_cfi_lines_drops_all_unwind_directives():
    answer = block("subq $8, %rsp\nmovl $3, %esi", "\tsubq\t$8, %rsp\n\tmovl\t$7, %esi")
    out = apply_diff(BASE, answer)
    assert ".cfi" not in out and "$7, %esi" in out and "main:" in out


@pytest.mark.parametrize(
    ("search", "why"),
    [
        ("movl $9, %esi", "match nothing"),
        ("xorl %eax, %eax", "match 2 places"),
        ("# only a comment", "no instruction"),
        ("movl $4, %esi\nmovl $4, %esi", "then 'movl $4, %esi' differs"),
    ],
)
def test_a_failing_block_is_named_and_quoted(search, why):
    answer = block("movl $3, %esi", "movl $4, %esi") + block(search, "nop")
    with pytest.raises(DiffError) as e:
        apply_diff(BASE, answer)
    assert "block 2 of 2" in str(e.value) and why in str(e.value)
    assert "<<<<<<< SEARCH\n" + search in str(e.value)


def test_a_hash_inside_a_string_is_not_a_comment():
    assert strip_comment('\t.string\t"%d # x"  # c') == '\t.string\t"%d # x"  '
    assert strip_comment('\t.string\t"a\\"#"  # c') == '\t.string\t"a\\"#"  '
    answer = block('.string "%d # not a comment"', '\t.string\t"%d!"')
    assert '"%d!"' in apply_diff(BASE, answer)
    with pytest.raises(DiffError):
        apply_diff(BASE, block('.string "%d', "nop"))


def test_unterminated_blocks_are_errors():
    with pytest.raises(DiffError, match="no '======='"):
        apply_diff(BASE, "<<<<<<< SEARCH\nret\n")
    with pytest.raises(DiffError, match="REPLACE"):
        apply_diff(BASE, "<<<<<<< SEARCH\nret\n=======\nret\n")
    with pytest.raises(DiffError, match="no '<<<<<<< SEARCH'"):
        apply_diff(BASE, "nothing here")


def test_make_diff_reproduces_a_program_with_unique_blocks():
    lines = BASE.splitlines()
    lines[12] = "\tmovl\t$11, %esi"
    lines.insert(16, "\tnop")
    del lines[17]  # xorl after the call: the line alone occurs twice
    program = "\n".join(lines) + "\n"
    diff = make_diff(BASE, program)
    assert diff.count("<<<<<<< SEARCH") >= 1
    assert significant_text(apply_diff(BASE, diff)) == significant_text(program)
    assert make_diff(BASE, BASE) == ""


def test_resolve_answer_diff_whole_fallback_and_failure_verdict():
    diff = "Here:\n" + block("movl $3, %esi", "movl $8, %esi")
    r = resolve_answer(diff, BASE)
    assert r.kind == "diff" and "$8, %esi" in r.asm and r.error is None
    whole = f"```assembly\n{BASE}```"
    r = resolve_answer(whole, BASE)
    assert r.kind == "whole" and r.asm.strip() == BASE.strip()
    r = resolve_answer(block("movl $99, %esi", "nop"), BASE)
    assert r.asm is None and r.error.startswith(ERROR_PREFIX)
    v = failure_verdict("p", r)
    assert v.status is Status.COMPILE_ERROR and "block 1 of 1" in v.message
    assert failure_verdict("p", resolve_answer("no code", BASE)).status is Status.NO_ANSWER
    r = resolve_answer("<think>" + block("movl $3, %esi", "x") + "</think>" + diff, BASE)
    assert r.kind == "diff" and "$8, %esi" in r.asm


HELPER = """\t.globl\thelper
\t.type\thelper, @function
helper:
\t.cfi_startproc
\tleal\t1(%rdi), %eax
\tret
\t.cfi_endproc
\t.size\thelper, .-helper
"""


def test_elided_function_markers_are_expanded_in_whole_answers():
    from supercoder.prompting.hotspots import hot_view

    base = BASE + HELPER
    shown = base.split("helper:\n")[0] + "helper:\n" + elision_marker("helper", 2) + "\n"
    r = resolve_answer(f"```assembly\n{shown}\t.size\thelper, .-helper\n```", base)
    assert significant_text(r.asm) == significant_text(base)
    assert (
        hot_view(base, None)
        == "\n".join(ln for ln in base.splitlines() if ".cfi" not in ln and ".file" not in ln)
        + "\n"
    )


def test_feedback_in_diff_mode_quotes_the_block_and_asks_for_blocks():
    r = resolve_answer(block("movl $99, %esi", "nop"), BASE)
    text = feedback_for(failure_verdict("p", r), answer="diff")
    assert "could not be applied" in text and "movl $99, %esi" in text
    assert "SEARCH" in text and "```assembly" not in text and "first message" in text
    whole = feedback_for(failure_verdict("p", resolve_answer("no", BASE)))
    assert "```assembly" in whole


def test_a_block_of_only_cfi_or_file_lines_applies_when_unambiguous_as_written():
    out = apply_diff(
        BASE, "<<<<<<< SEARCH\n\t.cfi_startproc\n=======\n\t.cfi_startproc\n\tnop\n>>>>>>> REPLACE"
    )
    assert 0 < out.index("\tnop") < out.index("\tsubq")  # where the model put it
    assert ".cfi" not in out  # it replaced a .cfi line: the unwind directives go
    ambiguous = "<<<<<<< SEARCH\n\t.cfi_def_cfa_offset 16\n\t.cfi_def_cfa_offset 16\n=======\n>>>>>>> REPLACE"
    with pytest.raises(DiffError, match="match nothing"):
        apply_diff(BASE, ambiguous)
    twice = BASE + BASE.replace("main", "other")
    with pytest.raises(DiffError, match="match 2 places"):
        apply_diff(twice, "<<<<<<< SEARCH\n\t.cfi_startproc\n=======\n\tnop\n>>>>>>> REPLACE")
    # lines that only the ignorable directives tell apart are matched as written
    two = "f:\n\t.cfi_startproc\n\tret\n\t.cfi_endproc\ng:\n\t.cfi_startproc\n"
    two += "\t.cfi_def_cfa_offset 16\n\tret\n\t.cfi_endproc\n"
    out = apply_diff(two, block("\t.cfi_def_cfa_offset 16\n\tret", "\tnop\n\tret"))
    assert out.index("nop") > out.index("g:") and out.count("ret") == 2
