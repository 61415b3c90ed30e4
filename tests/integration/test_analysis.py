"""Transformation analysis on pairs built by compiling hand-improved C with real gcc."""

from __future__ import annotations

import shutil

import pytest

from supercoder.analysis import TRANSFORMATION_KINDS, analyze
from supercoder.toolchain.gcc import compile_to_asm

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")

POP_LOOP = """
#include <stdio.h>
static int bits(unsigned x) { int c = 0; while (x) { c += x & 1u; x >>= 1; } return c; }
int main(void) { unsigned n; long s = 0; if (scanf("%u", &n) != 1) return 1;
  for (unsigned i = 0; i < n; i++) s += BITS(i * 2654435761u);
  printf("%ld\\n", s); return 0; }
"""
CANARY = """
#include <stdio.h>
int main(void) { char buf[64]; int n; if (scanf("%d", &n) != 1) return 1;
  for (int i = 0; i < 64; i++) buf[i] = (char)(i * n);
  long s = 0; for (int i = 0; i < 64; i++) s += buf[i]; printf("%ld\\n", s); return 0; }
"""
INTERCHANGE = """
#include <stdio.h>
#define N 512
static int a[N][N];
int main(void) { int n; if (scanf("%d", &n) != 1) return 1;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) a[i][j] = (i ^ j) + n;
  long s = 0; for (int OUTER = 0; OUTER < N; OUTER++) for (int INNER = 0; INNER < N; INNER++)
  s += a[i][j]; printf("%ld\\n", s); return 0; }
"""
MAX = """
#include <stdio.h>
int a[100000];
int main(void) { int n; if (scanf("%d", &n) != 1 || n > 100000) return 1;
  for (int i = 0; i < n; i++) if (scanf("%d", &a[i]) != 1) return 1;
  long s = 0; for (int i = 1; i < n; i++) { int m = a[i]; if (a[i-1] > m) m = a[i-1]; s += m; }
  printf("%ld\\n", s); return 0; }
"""
DIV = """
#include <stdio.h>
int main(void) { int n, d; if (scanf("%d %d", &n, &d) != 2) return 1; long s = 0;
  for (int i = 0; i < n; i++) s += (i * 7 + 3) / DIVISOR; printf("%ld\\n", s); return 0; }
"""
INLINE = """
#include <stdio.h>
ATTR static long mix(long x) { return (x * x) ^ (x >> 3); }
int main(void) { int n; if (scanf("%d", &n) != 1) return 1; long s = 0;
  for (long i = 0; i < n; i++) s += mix(i); printf("%ld\\n", s); return 0; }
"""
UNROLL = """
#include <stdio.h>
int a[4096];
int main(void) { int n; if (scanf("%d", &n) != 1) return 1;
  for (int i = 0; i < 4096; i++) a[i] = i * n; long s = 0;
  PRAGMA
  for (int i = 0; i < 4096; i++) s += a[i] ^ n; printf("%ld\\n", s); return 0; }
"""
SPILL = """
#include <stdio.h>
int main(void) { int n; if (scanf("%d", &n) != 1) return 1; VOL long s = 0;
  for (int i = 0; i < n; i++) s += i ^ (s >> 3); printf("%ld\\n", (long)s); return 0; }
"""
PLAIN = ("-O2", "-fno-tree-vectorize")


def build(source: str, flags: tuple[str, ...] = PLAIN, **defs: str) -> str:
    for key, value in defs.items():
        source = source.replace(key, value)
    return compile_to_asm(source, flags)


def pair(source: str, base: dict, cand: dict) -> tuple[str, str]:
    return build(source, **base), build(source, **cand)


def assert_kind(base: str, cand: str, kind: str, *words: str) -> None:
    result = analyze(base, cand)
    assert kind in result.kinds, result.to_json()
    text = " | ".join(result.evidence(kind))
    for word in words:
        assert word in text, text
    assert analyze(cand, cand).labels == ()  # an identical pair yields no labels
    assert analyze(base, base).labels == ()


def test_popcount_builtin_replaces_bit_loop():
    base = build(POP_LOOP, ("-O3",), BITS="bits")
    cand = build(POP_LOOP, ("-O3", "-mpopcnt"), BITS="__builtin_popcount")
    assert_kind(base, cand, "instruction_selection", "popcnt", "main", "replacing the")
    assert "algorithmic_simplification" not in analyze(base, cand).kinds  # explained by popcnt


def test_stack_protector_removed():
    base = compile_to_asm(CANARY, ("-O2", "-fstack-protector-all"))
    cand = compile_to_asm(CANARY, ("-O2", "-fno-stack-protector"))
    assert_kind(
        base, cand, "stack_canary_removal", "__stack_chk_fail no longer called in main", "%fs:40"
    )
    assert analyze(base, cand).kinds == ("stack_canary_removal",)


def test_loop_interchange_changes_stride():
    base = build(INTERCHANGE, OUTER="j", INNER="i")  # column-major walk
    cand = build(INTERCHANGE, OUTER="i", INNER="j")  # row-major walk
    assert_kind(base, cand, "loop_restructuring", "stride 4 bytes (was 2048)")


def test_branchy_max_becomes_cmov():
    base = build(MAX, ("-O1", "-fno-ssa-phiopt", "-fno-if-conversion", "-fno-if-conversion2"))
    cand = build(MAX, ("-O1",))
    assert_kind(base, cand, "branch_elimination", "cmov", "jg", "main")


def test_division_by_constant_becomes_multiply_shift():
    base, cand = pair(DIV, {"DIVISOR": "d"}, {"DIVISOR": "10"})
    assert_kind(base, cand, "arithmetic_simplification", "idivl", "imul", "shr", "divisions 1 -> 0")


def test_inlined_helper():
    attr = "__attribute__((noinline))"
    base, cand = pair(INLINE, {"ATTR": attr}, {"ATTR": "inline"})
    assert_kind(
        base, cand, "function_call_optimization", "call to mix removed from main", "inlined"
    )
    assert "loop_restructuring" not in analyze(base, cand).kinds


def test_unrolled_loop():
    base, cand = pair(UNROLL, {"PRAGMA": ""}, {"PRAGMA": "#pragma GCC unroll 4"})
    assert_kind(base, cand, "loop_restructuring", "unrolled 4x")


def test_volatile_accumulator_spills():
    base, cand = pair(SPILL, {"VOL": "volatile"}, {"VOL": ""})
    assert_kind(base, cand, "register_allocation", "stack accesses (spills)", "-> 0")


def test_labels_are_known_kinds_and_serialisable():
    base, cand = pair(INLINE, {"ATTR": "__attribute__((noinline))"}, {"ATTR": "inline"})
    result = analyze(base, cand)
    assert set(result.kinds) <= set(TRANSFORMATION_KINDS)
    js = result.to_json()
    assert js["functions"][0]["function"] in ("mix", "main")
    assert any(d["loop"] for d in js["loops"])


def test_parser_agrees_with_capstone_on_object_code():
    pytest.importorskip("capstone")
    from supercoder.analysis.binary import crosscheck

    for source, flags in (
        (POP_LOOP.replace("BITS", "bits"), ("-O0",)),
        (MAX, ("-O3",)),
        (CANARY, ("-O2", "-fstack-protector-all")),
    ):
        assert crosscheck(compile_to_asm(source, flags)) == ()
