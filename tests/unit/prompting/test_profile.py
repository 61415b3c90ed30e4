"""The profiler: cachegrind output parsing, a real profile in the sandbox (visible tests
only, cached, bounded), shares per loop and function, the hot view, the CLI, tokens.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_profile.py."""

from __future__ import annotations

from supercoder.prompting.profiling import parse_cachegrind

CACHEGRIND = """desc: I1 cache: none
cmd: ./prof
events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main
128 2
134 3
fl=/tmp/sc-prof-x/baseline.s
fn=main
17 1
20 5
fn=work
40 1000 7
fl=./stdio-common/printf.c
fn=printf
28 10
summary: 1021
"""


def test_cachegrind_counts_are_summed_per_line_of_the_assembly():
    lines, outside = parse_cachegrind(CACHEGRIND)
    assert lines == {17: 1, 20: 5, 40: 1000} and outside == 15
