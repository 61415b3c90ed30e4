"""One string-aware lexer for assembly text: comments, strings, statements, digests."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from supercoder.toolchain.baseline import baseline_binary
from supercoder.toolchain.gcc import asm_digest, compile_to_asm, same_program

CASES = r"""
#include <stdio.h>
int main(void) {
    int t = 0;
    if (scanf("%d", &t) != 1) return 1;
    for (int i = 1; i <= t; i++) printf("Case #%d: MARK\n", i);
    return 0;
}
"""


def test_programs_differing_only_inside_a_string_have_different_digests():
    a = compile_to_asm(CASES)
    b = a.replace("MARK", "M#RK")
    assert a != b
    assert asm_digest(a) != asm_digest(b) and not same_program(a, b)
    c = a.replace("Case #", "Case  #")  # spacing inside a string is part of the program too
    assert asm_digest(a) != asm_digest(c)
    assert same_program(a, a.replace("\tmovl", "  movl") + "\n# a comment\n")


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
