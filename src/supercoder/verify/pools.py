"""Reference pools: what the ``percentile`` reward ranks an answer against.

A problem's pool is a set of other correct programs for it and their speedups over its
``gcc -O3`` baseline, measured on this machine: the problem's reference solutions where
its folder holds several (``references/*.c``, as a dataset with many accepted
submissions per problem brings them: each built at ``-O3`` with the problem's flags),
else (and with ``pool=builds``) the build search's compiler builds of the source
(``POOL_BUILDS``: -O0, -O1, -O2, -Os, native, unrolled, profile-guided, clang), which
every problem has. The pool is measured once per problem, machine and meter protocol
(its programs timed together in one session of the verification service, as ``check
P a.s b.s ...`` times them) and kept in the cache (``reward-pools/``), so scoring an
answer costs what a ``gated`` check costs. A member that fails a test is left out; a
member that is the baseline's own assembly counts as the baseline (1.0x, exactly).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from supercoder import codec
from supercoder.paths import atomic_write_text, cache_dir
from supercoder.timing.meter import PROTOCOL
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.flagspace import Build, make
from supercoder.toolchain.gcc import asm_digest, cpu_model
from supercoder.toolchain.pgo import build_asm, training_inputs
from supercoder.types import Problem, Speedup
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.service import verify_together

POOL_VERSION = 1
POOL_BUILDS: tuple[Build, ...] = (
    make("gcc", "-O0"),
    make("gcc", "-O1"),
    make("gcc", "-O2"),
    make("gcc", "-Os"),
    make("gcc", "-O3", "native"),
    make("gcc", "-O3", mods=("unroll",)),
    make("gcc", "-O3", pgo=True),
    make("clang", "-O3"),
)
"""The default pool: the build search's builds of the source, slow to fast."""

_LOCK = threading.Lock()


@dataclass(frozen=True)
class PoolMember:
    """One program of a pool: its label (a build or a reference file) and its speedup
    over the baseline (``1.0`` exactly for the baseline's own assembly)."""

    label: str
    speedup: Speedup


@dataclass(frozen=True)
class Pool:
    """A problem's reference pool as measured.

    Fields:
        problem: the problem's name.
        source: ``builds`` or ``references``.
        members: the correct members and their speedups.
        dropped: members left out, each with why (a failed build or test).
        meter: the meter protocol they were measured under.
    """

    problem: str
    source: str
    members: tuple[PoolMember, ...] = ()
    dropped: tuple[str, ...] = ()
    meter: str = PROTOCOL

    @property
    def speedups(self) -> tuple[Speedup, ...]:
        return tuple(m.speedup for m in self.members)


def references(problem: Problem) -> list[tuple[str, str]]:
    """The problem folder's reference solutions (``references/*.c``): (name, C text)."""
    folder = problem.path
    refs = Path(str(folder)) / "references" if folder else None
    if refs is None or not refs.is_dir():
        return []
    out = []
    for f in sorted(refs.glob("*.c")):
        if f.is_file() and not f.is_symlink():
            out.append((f.name, f.read_text(encoding="utf-8", errors="replace")))
    return out


def pool_source(problem: Problem, pool: str) -> str:
    """Which pool ``pool`` (``auto``, ``builds``, ``references``) means for ``problem``:
    ``auto`` is its references where it has at least two, else the builds."""
    if pool == "auto":
        return "references" if len(references(problem)) >= 2 else "builds"
    return pool


def _programs(problem: Problem, source: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(label, assembly) of each member, and the members that did not build."""
    programs: list[tuple[str, str]] = []
    dropped: list[str] = []
    if source == "references":
        o3 = make("gcc", "-O3")
        for name, text in references(problem):
            asm = build_asm(o3, text, [], cflags=problem.compile_flags, units=problem.units)
            (programs.append((name, asm)) if asm else dropped.append(f"{name}: did not build"))
        return programs, dropped
    for label, asm in source_builds(problem, POOL_BUILDS):
        (programs.append((label, asm)) if asm else dropped.append(f"{label}: did not build"))
    return programs, dropped


def pool_key(problem: Problem, source: str, evaluation: CheckConfig) -> str:
    """What a measured pool is valid for: the problem (source, flags, tests' baseline
    assembly), the pool's members, the meter protocol, the CPU and the target."""
    members = [r[0] for r in references(problem)] if source == "references" else []
    ids = [b.id for b in POOL_BUILDS] if source == "builds" else members
    text = json.dumps(
        [
            POOL_VERSION,
            problem.name,
            problem.source_hash(),
            list(problem.compile_flags),
            asm_digest(baseline_asm(problem)),
            source,
            ids,
            PROTOCOL,
            cpu_model(),
            str(evaluation.target),
            evaluation.sandbox,
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def measure_pool(problem: Problem, source: str, evaluation: CheckConfig) -> Pool:
    """The pool measured now: its programs checked and timed together (one session)."""
    programs, dropped = _programs(problem, source)
    base = asm_digest(baseline_asm(problem))
    members: list[PoolMember] = []
    timed = [(label, asm) for label, asm in programs if asm_digest(asm) != base]
    for label, asm in programs:
        if asm_digest(asm) == base:
            members.append(PoolMember(label, Speedup(1.0, 1.0, 1.0, 0, 0, method="the baseline")))
    if timed:
        verdicts = verify_together(problem, [asm for _, asm in timed], evaluation)
        for (label, _), v in zip(timed, verdicts, strict=True):
            if v.correct and v.speedup is not None:
                members.append(PoolMember(label, v.speedup))
            else:
                dropped.append(f"{label}: {v.status.value}")
    return Pool(problem.name, source, tuple(members), tuple(dropped))


def reward_pool(problem: Problem, pool: str, evaluation: CheckConfig) -> Pool:
    """The problem's pool (``pool``: ``auto``, ``builds``, ``references``), from the
    cache when this machine measured it before, else measured now and kept."""
    source = pool_source(problem, pool)
    key = pool_key(problem, source, evaluation)
    path = cache_dir() / "reward-pools" / f"{key}.json"
    with _LOCK:
        cached = _read(path)
        if cached is not None:
            return cached
        measured = measure_pool(problem, source, evaluation)
        if measured.members:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(codec.encode(measured)))
        return measured


def cached_pool(problem: Problem, pool: str, evaluation: CheckConfig) -> Pool | None:
    """The problem's pool if this machine measured it before (nothing is run)."""
    source = pool_source(problem, pool)
    return _read(cache_dir() / "reward-pools" / f"{pool_key(problem, source, evaluation)}.json")


def _read(path: Path) -> Pool | None:
    try:
        return codec.decode(Pool, json.loads(path.read_text()))
    except (OSError, ValueError, TypeError, codec.FormatError):
        return None


def source_builds(problem: Problem, builds: Sequence[Build]) -> list[tuple[str, str | None]]:
    """(build id, assembly or None where it did not build) of the problem's source under
    each of ``builds``, PGO builds trained on its training inputs."""
    inputs = training_inputs(problem)
    return [
        (
            b.id,
            build_asm(
                b,
                problem.source,
                inputs,
                None,
                True,
                problem.compile_flags,
                problem.link_flags,
                problem.units,
            ),
        )
        for b in builds
    ]
