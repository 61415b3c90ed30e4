"""The offline `compiler` optimizer with real gcc and clang: the build space, PGO, the
budgeted build search through the real verification service (sandbox and meter), and
the first model's fixed builds.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_compiler_model.py."""

from __future__ import annotations

from supercoder.toolchain.flagspace import (
    TARGETS,
    Tools,
    combine,
    make,
    search_space,
)


def test_missing_tools_skip_families_and_say_what_to_install():
    no_rt = Tools("/usr/bin/gcc", "/usr/bin/clang", None, False, "14")
    assert not any(b.cc == "clang" and b.pgo for b in search_space(no_rt))
    assert any(b.cc == "clang" and not b.pgo for b in search_space(no_rt))
    said = " ".join(no_rt.skipped())
    assert "libclang-rt-14-dev" in said and "llvm-14" in said
    no_clang = Tools("/usr/bin/gcc", None, None, False)
    assert all(b.cc == "gcc" for b in search_space(no_clang))
    assert "clang not found" in no_clang.skipped()[0]


def test_crosses_of_the_best_take_one_modifier_per_group():
    a = make("gcc", "-O2", mods=("unroll",))
    b = make("gcc", "-O3", "tune", ("unroll4", "novec"))
    c = make("clang", "-O3", mods=("unroll4",))
    crosses = combine([a, b, c])
    assert make("gcc", "-O2", "tune", ("unroll", "novec")) in crosses
    assert make("gcc", "-O3", "tune", ("unroll4", "novec")) not in crosses  # b itself
    assert all(x.cc == "gcc" for x in crosses)
    for x in crosses:
        assert sum(m.startswith("unroll") for m in x.mods) <= 1
    assert TARGETS["native"] == ("-march=native", "-ffp-contract=off")
