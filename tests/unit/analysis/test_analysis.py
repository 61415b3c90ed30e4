"""Transformation analysis on pairs built by compiling hand-improved C with real gcc.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_analysis.py."""

from __future__ import annotations

import textwrap

from supercoder.analysis.asm import Imm, Mem, Reg, Target, normalize_mnemonic, parse_operand
from supercoder.analysis.cfg import build_program


def test_operands_and_mnemonics():
    assert normalize_mnemonic("addl") == ("add", None)
    assert normalize_mnemonic("shl") == ("shl", None)
    assert normalize_mnemonic("cmovl") == ("cmov", "l")
    assert normalize_mnemonic("cmovgeq") == ("cmov", "ge")
    assert normalize_mnemonic("jz") == ("jcc", "e")
    assert normalize_mnemonic("setb") == ("set", "b")
    assert normalize_mnemonic("movzbl") == ("movzx", None)
    assert normalize_mnemonic("cltq") == ("cdqe", None)
    assert parse_operand("-8(%rbp,%rax,4)") == Mem(-8, None, "rbp", "rax", 4)
    assert parse_operand("2048+a(%rip)") == Mem(2048, "a", "rip", None, 1)
    assert parse_operand("%fs:40") == Mem(40, None, None, None, 1, "fs")
    assert parse_operand("$-1640531535") == Imm(-1640531535, "-1640531535")
    assert parse_operand("%r9d") == Reg("r9d") and Reg("r9d").family == "r9"
    assert parse_operand("printf@PLT") == Target("printf@PLT")


def test_cfg_finds_nested_loops_and_entry_in_the_middle():
    asm = textwrap.dedent("""\
        .globl f
        .type f, @function
    f:
        movl $0, %eax
        jmp .L2
    .L3:
        movl $0, %ecx
    .L4:
        addl $1, %ecx
        cmpl $10, %ecx
        jne .L4
        addl $1, %eax
    .L2:
        cmpl %edi, %eax
        jl .L3
        ret
        .size f, .-f
    """)
    fn = build_program(asm).functions[0]
    loops = {lp.header: lp for lp in fn.loops}
    assert set(loops) == {".L2", ".L4"}  # the header is the jmp target, not .L3
    assert loops[".L2"].depth == 1 and loops[".L4"].depth == 2 and loops[".L4"].innermost
    assert loops[".L4"].size == 3
