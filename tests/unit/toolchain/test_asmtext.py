"""One string-aware lexer for assembly text: comments, strings, statements, digests.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_asmtext.py."""

from __future__ import annotations

from supercoder.analysis.asm import Directive, parse
from supercoder.toolchain.asmtext import blank_strings, collapse_space, statements, strip_comments
from supercoder.toolchain.gcc import asm_digest, normalize_asm


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


def test_noise_joined_to_code_by_semicolon_is_not_dropped():
    one = "main:\n\t.loc 1 2; movl $1, %eax\n\tret\n"
    two = "main:\n\t.loc 1 2; movl $2, %eax\n\tret\n"
    assert asm_digest(one) != asm_digest(two)
    assert normalize_asm(one) == "main:\nmovl $1, %eax\nret"


def test_analysis_parser_uses_the_same_lexer():
    items = parse('\t.string "a;b # c"  # comment\nmain: movl $1, %eax; ret\n')
    assert items[0] == Directive(".string", '"a;b # c"', 1)
    assert [type(i).__name__ for i in items] == [
        "Directive",
        "LabelDef",
        "Instruction",
        "Instruction",
    ]
