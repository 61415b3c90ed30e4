"""Building programs: the assembly lexer and checks, gcc/as/ld in the build sandbox, the
problem's -O3 baseline and its reference run."""

from supercoder.toolchain.baseline import baseline_asm, baseline_binary

__all__ = ["baseline_asm", "baseline_binary"]
