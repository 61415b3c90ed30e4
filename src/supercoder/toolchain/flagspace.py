"""Builds of a C program: the flag space the build search (``--strategy builds``) searches.

A :class:`Build` is a compiler, an optimization level, a target (generic, ``native``
= ``-march=native -ffp-contract=off``, ``tune`` = ``-mtune=native``), a set of
modifiers (unroll families and knobs, vectorizer off, inlining params, ``-fno-plt``)
and whether it is profile-guided. ``search_space`` lists distinct builds, most
promising first (the order is what measurements on the bundled and real problems
favoured); ``combine`` crosses the best screened builds.

``-ffp-contract=off`` on native builds is a correctness fix: with FMA available, gcc
and clang fuse multiply-adds, which changes floating-point output. The link is PIE
and dynamic (a candidate is one ``.s`` linked with a fixed command), so ``-fno-pie``,
static linking, LTO and post-link layout are not in the space.

Under an ISA target (``--target x86-64-v2`` ...; ``toolchain/isa.py``) every build is
``retarget``-ed: ``native`` builds become ``-march=LEVEL -mtune=native
-ffp-contract=off`` (the most that level allows, tuned for this CPU), their ids say
the level, and generic builds (gcc's and clang's default, ``-march=x86-64``) stay.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from itertools import product

from supercoder.toolchain.gcc import CC
from supercoder.toolchain.isa import Target, cc_flags

TARGETS = {"": (), "native": ("-march=native", "-ffp-contract=off"), "tune": ("-mtune=native",)}
# modifier -> (group, flags); at most one modifier per group
MODS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "gcc": {
        "unroll": ("unroll", ("-funroll-loops",)),
        "unroll-all": ("unroll", ("-funroll-all-loops",)),
        "unroll2": ("unroll", ("-funroll-loops", "--param", "max-unroll-times=2")),
        "unroll4": ("unroll", ("-funroll-loops", "--param", "max-unroll-times=4")),
        "unroll16": ("unroll", ("-funroll-loops", "--param", "max-unroll-times=16")),
        "novec": ("vec", ("-fno-tree-vectorize",)),
        "inline": (
            "inline",
            (
                "--param",
                "max-inline-insns-auto=100",
                "--param",
                "inline-unit-growth=200",
                "--param",
                "large-function-growth=400",
            ),
        ),
        "inline-rec": (
            "inline",
            (
                "--param",
                "max-inline-recursive-depth-auto=12",
                "--param",
                "max-inline-insns-recursive-auto=1200",
            ),
        ),
        "noplt": ("plt", ("-fno-plt",)),
    },
    "clang": {
        "unroll": ("unroll", ("-funroll-loops",)),
        "nounroll": ("unroll", ("-fno-unroll-loops",)),
        "unroll2": ("unroll", ("-mllvm", "-unroll-count=2")),
        "unroll4": ("unroll", ("-mllvm", "-unroll-count=4")),
        "unroll8": ("unroll", ("-mllvm", "-unroll-count=8")),
        "novec": ("vec", ("-fno-vectorize", "-fno-slp-vectorize")),
        "noplt": ("plt", ("-fno-plt",)),
    },
}
# GNU as does not know clang's address-significance tables.
CC_EXTRA = {"clang": ("-fno-addrsig",)}


@dataclass(frozen=True)
class Build:
    """One way to compile the program; ``id`` names it among the fixed builds
    (``BuildsConfig.builds``)."""

    id: str
    cc: str
    flags: tuple[str, ...]
    pgo: bool = False
    opt: str = ""
    target: str = ""
    mods: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        extra = ""
        if self.pgo:
            extra = (
                " -fprofile-use -fprofile-correction"
                if self.cc == "gcc"
                else " -fprofile-instr-use"
            )
        return f"{self.cc} {' '.join(self.flags)}{extra}"

    @property
    def family(self) -> str:
        """A coarse name for reports: compiler, PGO, level, target, modifiers."""
        parts = [self.cc, *(["pgo"] if self.pgo else []), (self.opt or "O?").lstrip("-")]
        return "-".join(parts + ([self.target] if self.target else []) + list(self.mods))


def make(
    cc: str, opt: str, target: str = "", mods: tuple[str, ...] = (), pgo: bool = False
) -> Build:
    """A structured build; its flags follow from the parts."""
    mods = tuple(sorted(mods))
    flags = (opt, *TARGETS[target], *(f for m in mods for f in MODS[cc][m][1]))
    bid = "-".join(
        [cc, *(["pgo"] if pgo else []), opt.lstrip("-"), *([target] if target else []), *mods]
    )
    return Build(bid, cc, flags, pgo, opt, target, mods)


# The eight fixed builds of the first build proposer (kept for `builds=legacy`
# and benchmarks/compiler_search.py). Their native builds lack -ffp-contract=off.
NATIVE = ("-O3", "-march=native")
LEGACY = (
    Build("native", "gcc", NATIVE),
    Build("pgo-native", "gcc", NATIVE, pgo=True),
    Build("native-unroll", "gcc", (*NATIVE, "-funroll-loops")),
    Build("pgo", "gcc", ("-O3",), pgo=True),
    Build("clang-native", "clang", NATIVE),
    Build("unroll", "gcc", ("-O3", "-funroll-loops")),
    Build("clang", "clang", ("-O3",)),
    Build("O2", "gcc", ("-O2",)),
)

# Most promising first: what won on the bundled and real problems.
FIRST = (
    make("gcc", "-O3", "native"),
    make("clang", "-O3", pgo=True),
    make("gcc", "-O3", pgo=True),
    make("gcc", "-O2", mods=("unroll",)),
    make("clang", "-O3", mods=("unroll4",)),
    make("gcc", "-Os"),
    make("clang", "-O3", "native"),
    make("gcc", "-O2", "tune", ("unroll",)),
    make("gcc", "-O3", mods=("unroll",)),
    make("clang", "-O3"),
    make("gcc", "-O2", pgo=True),
    make("gcc", "-O3", mods=("inline-rec",)),
    make("gcc", "-O3", mods=("inline",)),
    make("gcc", "-O3", mods=("novec",)),
    make("gcc", "-O2"),
    make("gcc", "-O3", "native", pgo=True),
    make("clang", "-O3", "native", pgo=True),
    make("gcc", "-O3", mods=("unroll-all",)),
    make("gcc", "-O3", "tune"),
    make("clang", "-O2"),
    make("clang", "-O3", mods=("unroll2",)),
    make("clang", "-O3", mods=("unroll8",)),
    make("gcc", "-O3", mods=("noplt",)),
    make("gcc", "-O3", "native", ("unroll",)),
)


@cache
def _rest() -> tuple[Build, ...]:
    """Every other single-modifier build, generic then native, then PGO variants, then
    ``-mtune=native`` (most often the same code as generic) last."""
    out: list[Build] = []

    def level(target: str) -> None:
        for cc, opt in product(("clang", "gcc"), ("-O3", "-O2", "-Os")):
            out.append(make(cc, opt, target))
            out.extend(
                make(cc, opt, target, (m,)) for m in MODS[cc] if opt != "-Os" or m == "novec"
            )

    level("")
    level("native")
    out += [
        make(cc, opt, target, pgo=True)
        for cc, opt, target in product(("clang", "gcc"), ("-O2", "-O3"), ("", "native", "tune"))
    ]
    level("tune")
    return tuple(out)


def retarget(build: Build, isa: Target) -> Build:
    """``build`` for the ISA target ``isa``: ``-march=native`` (and the
    ``-ffp-contract=off`` beside it) becomes ``isa``'s flags; ``native`` in its id
    becomes the level's name. Builds without ``-march=native`` are unchanged."""
    if isa is Target.NATIVE or "-march=native" not in build.flags:
        return build
    at = build.flags.index("-march=native")
    rest = [f for f in build.flags[at + 1 :] if f != "-ffp-contract=off"]
    flags = (*build.flags[:at], *cc_flags(isa), *rest)
    bid = build.id.replace("native", isa.value)
    return Build(bid, build.cc, flags, build.pgo, build.opt, build.target, build.mods)


def search_space(tools: Tools, isa: Target = Target.NATIVE) -> list[Build]:
    """Distinct builds the installed tools can make for ``isa``, most promising first."""
    seen: set[tuple] = set()
    out = []
    for b in (retarget(b, isa) for b in (*FIRST, *_rest())):
        key = (b.cc, b.flags, b.pgo)
        if key not in seen and key != ("gcc", ("-O3",), False) and tools.can_build(b):
            seen.add(key)
            out.append(b)
    return out


def combine(best: list[Build], limit: int = 6, isa: Target = Target.NATIVE) -> list[Build]:
    """Crosses of the best builds of one compiler: one's level and target with the
    union of both's modifiers (one per group), profile-guided if either is."""
    out: list[Build] = []
    for a, b in product(best, best):
        if a is b or a.cc != b.cc or not a.opt or not b.opt:
            continue
        groups = {MODS[a.cc][m][0]: m for m in a.mods}
        for m in b.mods:
            groups.setdefault(MODS[b.cc][m][0], m)
        target = a.target or b.target
        c = retarget(make(a.cc, a.opt, target, tuple(groups.values()), a.pgo or b.pgo), isa)
        if c not in out and all((c.flags, c.pgo) != (x.flags, x.pgo) for x in best):
            out.append(c)
    return out[:limit]


# --- tools --------------------------------------------------------------------------


@dataclass(frozen=True)
class Tools:
    """What is installed: gcc, clang, and clang PGO's profile runtime + llvm-profdata."""

    gcc: str | None
    clang: str | None
    profdata: str | None
    clang_profile_rt: bool
    clang_major: str = ""

    def can_build(self, b: Build) -> bool:
        if b.cc == "gcc":
            return self.gcc is not None
        return self.clang is not None and (
            not b.pgo or (self.profdata is not None and self.clang_profile_rt)
        )

    def skipped(self) -> list[str]:
        """Families skipped for a missing tool, each with what to install."""
        v = self.clang_major or "N"
        if self.gcc is None:
            return ["every gcc build: gcc not found (apt-get install gcc)"]
        if self.clang is None:
            return ["clang builds: clang not found (apt-get install clang)"]
        out = []
        if not self.clang_profile_rt:
            out.append(
                f"clang PGO: no compiler-rt profile runtime (apt-get install libclang-rt-{v}-dev)"
            )
        if self.profdata is None:
            out.append(f"clang PGO: llvm-profdata not found (apt-get install llvm-{v})")
        return out

    def path(self, cc: str) -> str | None:
        return self.gcc if cc == "gcc" else self.clang


@cache
def find_tools() -> Tools:
    gcc = shutil.which(CC)
    clang = shutil.which("clang")
    if clang is None:
        return Tools(gcc, None, None, False)
    major = _clang_major(clang)
    profdata = shutil.which(f"llvm-profdata-{major}") or shutil.which("llvm-profdata")
    rt = _run([clang, "-print-file-name=libclang_rt.profile-x86_64.a"]).strip()
    return Tools(gcc, clang, profdata, rt.startswith("/") and os.path.isfile(rt), major)


def _clang_major(clang: str) -> str:
    for word in _run([clang, "--version"]).split():
        if word[:1].isdigit() and "." in word:
            return word.split(".")[0]
    return ""


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
