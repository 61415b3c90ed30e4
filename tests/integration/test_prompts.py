"""Prompts, refinement feedback and answer extraction."""

from __future__ import annotations

import pytest

from supercoder.prompting.prompts import (
    build_messages,
    extract_assembly,
    fenced_blocks,
)
from supercoder.toolchain.gcc import assemble, compile_to_asm
from supercoder.types import (
    Problem,
    TestCase,
)

SOURCE = '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n'
SECRET_IN, SECRET_OUT = b"777000 123456\n", b"900456\n"
PROBLEM = Problem(
    "add",
    SOURCE,
    (
        TestCase("small", b"5\n", b"2 3\n"),
        TestCase("big", b"0\n", b"1 " + b"9" * 2000 + b"\n"),
        TestCase("secret", SECRET_OUT, SECRET_IN, hidden=True),
    ),
)


def test_c_only_variant_and_default_baseline_from_gcc():
    [msg] = build_messages(PROBLEM, variant="c_only")
    assert [b.lang for b in fenced_blocks(msg["content"])] == ["c"]
    [msg] = build_messages(PROBLEM)  # no baseline given or stored: gcc -O3 builds it
    assert fenced_blocks(msg["content"])[1].body.strip() == compile_to_asm(SOURCE).strip()
    with pytest.raises(ValueError):
        build_messages(PROBLEM, variant="poem")


def test_extract_then_assemble(tmp_path):
    asm = compile_to_asm(SOURCE)
    text = f"<think>x</think>Sure!\n```assembly\n{asm}```"
    built = assemble(extract_assembly(text), tmp_path / "p")
    assert built.ok, built.log
