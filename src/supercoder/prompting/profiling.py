"""Where the baseline spends its instructions: an instruction-level profile per .s line.

``profile_problem(problem)`` assembles the baseline with line info (``gcc -g
baseline.s``: every machine instruction maps back to its line of the .s text), runs it
on the *visible* tests (never the hidden ones), smallest input first, under valgrind's
cachegrind (deterministic instruction counts, no cache simulation) inside the sandbox,
and sums the executed instructions per line of the .s. ``summarize`` turns that into
shares per line, per loop (natural loops of ``analysis.cfg``) and per function.

Bounded: the whole profile stops after ``budget_seconds`` (valgrind runs a program
~20-50x slower); tests not reached are listed in ``skipped`` and ``gave_up`` says why.
Cached per (baseline digest, visible tests) under the cache folder.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.codec import decode, encode, versioned
from supercoder.errors import InfraError
from supercoder.paths import atomic_write_text, cache_dir, temp_prefix
from supercoder.sandbox.box import Limits
from supercoder.sandbox.readback import ReadBackError, read_back, regular_file
from supercoder.toolchain.baseline import baseline_asm, unit_asms
from supercoder.toolchain.flags import check_flags
from supercoder.toolchain.gcc import CC, LINK_FLAGS, asm_digest
from supercoder.types import Problem, TestCase

SOURCE_NAME = "baseline.s"
BINARY_NAME = "prof"
VALGRIND = ("valgrind", "-q", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no")
PROFILE_VERSION = 2
PROFILE_MAX_BYTES = 64 << 20  # one cachegrind output, as read back from the sandbox


@dataclass(frozen=True)
class ProfileMeta:
    """How a profile was made: the budget in CPU seconds it ran under."""

    budget: float = 0.0


@versioned(PROFILE_VERSION, name="profile", write=False)
@dataclass(frozen=True)
class Profile:
    """Executed instructions per line of the baseline .s, summed over the profiled tests
    (cached as the codec's JSON: ``lines`` keyed by the line number as text)."""

    digest: str
    lines: dict[int, int]  # 1-based .s line -> instructions executed there
    outside: int  # instructions executed outside the program's code (libc, loader)
    tests: tuple[str, ...] = ()  # profiled, in order
    skipped: tuple[str, ...] = ()  # not profiled: the budget ran out
    gave_up: str | None = None
    seconds: float = 0.0
    meta: ProfileMeta = field(default_factory=ProfileMeta, compare=False)
    files: dict[str, int] = field(default_factory=dict)  # instructions per file built

    @property
    def total(self) -> int:
        """Instructions executed in the program's own code."""
        return sum(self.lines.values())

    def share(self, line: int) -> float:
        total = self.total
        return self.lines.get(line, 0) / total if total else 0.0


# --- cachegrind output --------------------------------------------------------------


def parse_cachegrind(text: str, source_name: str = SOURCE_NAME) -> tuple[dict[int, int], int]:
    """(instructions per line of ``source_name``, instructions elsewhere) from a
    cachegrind output file (``fl=``/``fn=`` headers, then ``LINE Ir ...`` rows)."""
    lines: dict[int, int] = {}
    outside = 0
    ours = False
    for row in text.splitlines():
        if row.startswith("fl="):
            ours = row[3:].strip().endswith(source_name)
            continue
        if not row or not row[0].isdigit():
            continue
        parts = row.split()
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        count = int(parts[1])
        if ours:
            number = int(parts[0])
            lines[number] = lines.get(number, 0) + count
        else:
            outside += count
    return lines, outside


def instructions_per_file(text: str) -> dict[str, int]:
    """Executed instructions per source file (cachegrind's ``fl=`` names, as built:
    ``baseline.s``, ``unit0.s``, ...; libc and the loader under their own names)."""
    out: dict[str, int] = {}
    name = ""
    for row in text.splitlines():
        if row.startswith("fl="):
            name = row[3:].strip()
            continue
        if not name or not row or not row[0].isdigit():
            continue
        parts = row.split()
        if len(parts) >= 2 and parts[1].isdigit():
            out[name] = out.get(name, 0) + int(parts[1])
    return out


# --- running ----------------------------------------------------------------------


Runner = Callable[..., Any]


def _run_isolated() -> Runner:
    try:
        from supercoder.sandbox.oneshot import run_isolated
    except ImportError as e:  # pragma: no cover - until the one-shot sandbox lands
        raise InfraError(f"the one-shot sandbox is not available: {e}") from e
    return run_isolated


def profile_key(asm: str, tests: tuple[TestCase, ...]) -> str:
    h = hashlib.sha256(asm_digest(asm).encode())
    for t in tests:
        h.update(t.name.encode() + b"\0" + hashlib.sha256(t.run_input()).digest())
    return f"v{PROFILE_VERSION}-{h.hexdigest()[:24]}"


def profile_problem(
    problem: Problem,
    *,
    budget_seconds: float = 120.0,
    isolation: bool = True,
    use_cache: bool = True,
    asm: str | None = None,
) -> Profile:
    """The profile of ``asm`` (default: the problem's baseline) on the visible tests
    (cached; see the module docstring)."""
    asm = asm or baseline_asm(problem)
    tests = tuple(sorted(problem.visible_tests, key=lambda t: (len(t.read_input()), t.name)))
    units = unit_asms(problem) if problem.units else None
    linked = "".join(f"\n# unit {k}: {asm_digest(v)}" for k, v in (units or {}).items())
    key = profile_key(asm + "\n# link: " + " ".join(problem.link_flags) + linked, tests)
    path = cache_dir() / "profiles" / f"{key}.json"
    if use_cache and path.is_file():
        cached = decode(Profile, json.loads(path.read_text()))
        if cached.gave_up is None or cached.meta.budget >= budget_seconds:
            return cached  # a profile cut short is redone only with a larger budget
    result = run_profile(
        asm,
        tests,
        key,
        budget_seconds=budget_seconds,
        isolation=isolation,
        link_flags=problem.link_flags,
        units=units,
    )
    if use_cache:
        atomic_write_text(path, json.dumps(encode(result)))
    return result


def run_profile(
    asm: str,
    tests: tuple[TestCase, ...],
    digest: str,
    *,
    budget_seconds: float = 120.0,
    isolation: bool = True,
    link_flags: tuple[str, ...] = (),
    units: dict[str, str] | None = None,
) -> Profile:
    """Build ``asm`` with line info (linked with the problem's other translation units,
    ``units``) and run the tests in order under cachegrind."""
    run = _run_isolated()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=temp_prefix("prof")) as tmp:
        work = Path(tmp)
        (work / SOURCE_NAME).write_text(asm)
        others = [f"unit{k}.s" for k in range(len(units or {}))]
        for name, text in zip(others, (units or {}).values(), strict=True):
            (work / name).write_text(text)
        _build(run, work, isolation, link_flags, others)
        lines: dict[int, int] = {}
        files: dict[str, int] = {}
        outside, done, gave_up = 0, [], None
        for k, test in enumerate(tests):
            left = budget_seconds - (time.monotonic() - start)
            if left < 1.0:
                gave_up = f"time budget of {budget_seconds:.0f}s spent"
                break
            counts, why = _profile_test(run, work, test, k, left, isolation)
            if counts is None:
                gave_up = why
                break
            for line, n in counts[0].items():
                lines[line] = lines.get(line, 0) + n
            outside += counts[1]
            for name, n in counts[2].items():
                files[name] = files.get(name, 0) + n
            done.append(test.name)
    skipped = tuple(t.name for t in tests[len(done) :])
    return Profile(
        digest,
        lines,
        outside,
        tuple(done),
        skipped,
        gave_up,
        round(time.monotonic() - start, 3),
        ProfileMeta(budget_seconds),
        files,
    )


def _limits(seconds: float):
    return Limits(
        cpu_seconds=seconds,
        wall_seconds=2 * seconds + 5,
        memory_mb=8192,
        processes=8,
        output_bytes=64 << 20,
    )


def _build(
    run: Runner,
    work: Path,
    isolation: bool,
    link_flags: tuple[str, ...],
    others: Sequence[str] = (),
) -> None:
    link = check_flags(link_flags, "cflags/ldflags")
    argv = [CC, "-g", SOURCE_NAME, *others, "-o", BINARY_NAME, *LINK_FLAGS, *link]
    result = run(argv, work, limits=_limits(60.0), isolation=isolation)
    if not result.clean_exit or not regular_file(work, BINARY_NAME):
        log = result.stderr.decode(errors="replace")[-2000:]
        raise InfraError(f"the baseline does not assemble with line info:\n{log}")


def _profile_test(
    run: Runner, work: Path, test: TestCase, k: int, seconds: float, isolation: bool
) -> tuple[tuple[dict[int, int], int, dict[str, int]] | None, str | None]:
    out = f"cg.{k}.out"
    argv = [*VALGRIND, f"--cachegrind-out-file={out}", f"./{BINARY_NAME}"]
    result = run(argv, work, limits=_limits(seconds), stdin=test.run_input(), isolation=isolation)
    if result.outcome == "timeout":
        return None, f"test {test.name} did not finish under valgrind in the time left"
    try:  # the profiled program ran in ``work``: what it left is read back, never followed
        text = read_back(work, out, PROFILE_MAX_BYTES, missing_ok=True)
    except ReadBackError as e:
        return None, f"test {test.name} left a bad profile: {e}"
    if text is None:
        tail = result.stderr.decode(errors="replace")[-500:]
        return None, f"valgrind wrote no profile for test {test.name} ({result.describe()}): {tail}"
    decoded = text.decode(errors="replace")
    (work / out).unlink()
    return (*parse_cachegrind(decoded), instructions_per_file(decoded)), None


def hot_unit(folder: Path, budget_seconds: float = 30.0) -> tuple[str, str] | None:
    """Which translation unit of the multi-unit problem at ``folder`` the time goes in:
    (``source.c`` or one of ``Problem.units``, why), from a profile of the ``-O3``
    build (every unit as gcc -O3 builds it) on the visible tests, smallest first, within
    ``budget_seconds``; None for a one-unit problem. ``problem init`` makes that unit
    the answer (``problems.init.InitConfig.hot_unit``)."""
    from supercoder.problems.loading import load_problem

    problem = load_problem(folder)
    if not problem.units:
        return None
    try:
        profile = profile_problem(problem, budget_seconds=budget_seconds, use_cache=False)
    except InfraError as e:
        return "source.c", f"the unit with main; no profile could be made: {str(e)[:120]}"
    names = {"baseline.s": "source.c"} | {f"unit{k}.s": u for k, u in enumerate(problem.units)}
    counts = {names[Path(f).name]: n for f, n in profile.files.items() if Path(f).name in names}
    total = sum(counts.values())
    if not total:
        why = " ".join((profile.gave_up or "no instructions counted").split())[:120]
        return "source.c", f"the unit with main; the profile found nothing ({why})"
    best = max(counts, key=lambda u: (counts[u], u == "source.c"))
    share = counts[best] / total
    where = "" if not profile.skipped else f", {len(profile.tests)} of the tests profiled"
    lead = "the unit with main: " if best == "source.c" else ""
    return best, f"{lead}the profile puts {share:.0%} of the program's instructions there{where}"
