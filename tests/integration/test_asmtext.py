"""One string-aware lexer for assembly text: comments, strings, statements, digests."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from supercoder.analysis.asm import Directive, parse
from supercoder.toolchain.asmtext import blank_strings, collapse_space, statements, strip_comments
from supercoder.toolchain.baseline import baseline_binary
from supercoder.toolchain.gcc import asm_digest, compile_to_asm, normalize_asm, same_program

CASES = r"""
#include <stdio.h>
int main(void) {
    int t = 0;
    if (scanf("%d", &t) != 1) return 1;
    for (int i = 1; i <= t; i++) printf("Case #%d: MARK\n", i);
    return 0;
}
"""


def test_hash_inside_a_string_is_not_a_comment():
    text = '\t.string "Case #%d: %d\\n"  # a comment\n\tmovl $1, %eax # x\n'
    assert strip_comments(text) == '\t.string "Case #%d: %d\\n"  \n\tmovl $1, %eax \n'


def test_c_comments_char_constants_and_escapes():
    text = "\tmovl $1, %eax /* # */ ; movl $2, %ebx\n/* a\n # b */ movl $3, %ecx\n"
    assert [s for _, s in statements(text)] == ["movl $1, %eax", "movl $2, %ebx", "movl $3, %ecx"]
    assert [n for n, _ in statements(text)] == [1, 1, 3]  # line numbers survive
    assert strip_comments("\tmovb $'#, %al # c\n") == "\tmovb $'#, %al \n"
    assert strip_comments('\t.ascii "a\\"#b" # c\n') == '\t.ascii "a\\"#b" \n'
    assert strip_comments('\t.ascii "a\\\\" # c\n') == '\t.ascii "a\\\\" \n'
    assert strip_comments("\tmovb $'\", %al # c\n") == "\tmovb $'\", %al \n"


def test_statements_split_at_semicolons_outside_strings_only():
    assert [s for _, s in statements('\t.ascii "a;b"; nop\n')] == ['.ascii "a;b"', "nop"]
    assert collapse_space('  .ascii   "a  b"  ') == '.ascii "a  b"'
    assert blank_strings('.ascii "x.incbin" , "y"') == '.ascii "" , ""'


def test_programs_differing_only_inside_a_string_have_different_digests():
    a = compile_to_asm(CASES)
    b = a.replace("MARK", "M#RK")
    assert a != b
    assert asm_digest(a) != asm_digest(b) and not same_program(a, b)
    c = a.replace("Case #", "Case  #")  # spacing inside a string is part of the program too
    assert asm_digest(a) != asm_digest(c)
    assert same_program(a, a.replace("\tmovl", "  movl") + "\n# a comment\n")


def test_noise_joined_to_code_by_semicolon_is_not_dropped():
    one = "main:\n\t.loc 1 2; movl $1, %eax\n\tret\n"
    two = "main:\n\t.loc 1 2; movl $2, %eax\n\tret\n"
    assert asm_digest(one) != asm_digest(two)
    assert normalize_asm(one) == "main:\nmovl $1, %eax\nret"


def test_cached_baseline_binaries_of_string_twins_are_not_shared():
    """The baseline binary cache is keyed by the digest: twins must not share a binary."""
    a = compile_to_asm(CASES)
    b = a.replace("MARK", "M#RK")
    with tempfile.TemporaryDirectory() as tmp:
        outputs = []
        for asm in (a, b):
            binary = baseline_binary(asm, Path(tmp))
            run = subprocess.run([str(binary)], input=b"1\n", capture_output=True, timeout=10)
            outputs.append(run.stdout)
    assert outputs == [b"Case #1: MARK\n", b"Case #1: M#RK\n"]


def test_analysis_parser_uses_the_same_lexer():
    items = parse('\t.string "a;b # c"  # comment\nmain: movl $1, %eax; ret\n')
    assert items[0] == Directive(".string", '"a;b # c"', 1)
    assert [type(i).__name__ for i in items] == [
        "Directive",
        "LabelDef",
        "Instruction",
        "Instruction",
    ]
