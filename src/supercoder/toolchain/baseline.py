"""The problem's baseline: gcc -O3 (+ its cflags) assembly, and that assembly's binary.

Both are cached under ``cache_dir()``: the assembly in ``baselines/`` by source hash
(and cflags), the binary in ``bin/`` by the assembly's digest and the link flags.
Every part of supercoder that needs a problem's -O3 baseline gets it here. The reader
builds the yardstick: a ``baseline.s`` a problem folder or a record carries is used only
when byte-identical to this build (then it is the same text); else it is not used, and
``carried_baseline_note`` says so (``check``'s verdict, ``dataset import``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from supercoder.errors import UserError, machine_error, machine_trouble
from supercoder.paths import cache_dir, read_checked, write_checked
from supercoder.toolchain.flags import check_build_flags, check_flags
from supercoder.toolchain.gcc import (
    BASELINE_FLAGS,
    asm_digest,
    assemble,
    compile_to_asm,
    is_link_failure,
    missing_symbols,
)
from supercoder.types import Problem

log = logging.getLogger("supercoder")

_TMP_SOURCE = re.compile(r"^source\.c(?=:)", re.M)


def compile_baseline(
    source: str,
    cflags: Sequence[str] = (),
    where: str | None = None,
    compiler: Callable[[str, tuple[str, ...]], str] = compile_to_asm,
) -> str:
    """gcc -O3 -S of ``source`` with ``cflags`` (uncached; ``compiler``: what turns C and
    flags into assembly); UserError if it does not compile, naming ``where`` (the user's
    file) instead of our temporary copy."""
    cflags = check_build_flags(cflags, "cflags")
    try:
        return compiler(source, (*BASELINE_FLAGS, *cflags))
    except UserError as e:
        if where is None:
            raise
        raise UserError(_TMP_SOURCE.sub(lambda _: where, str(e))) from e


def baseline_asm(
    problem: Problem, compiler: Callable[[str, tuple[str, ...]], str] = compile_to_asm
) -> str:
    """The problem's -O3 assembly: the reader's own gcc -O3 -S of its source with its
    cflags (cached; ``compiler`` builds it on a miss). A ``baseline.s`` the problem
    carries (its folder's, a record's ``problem_files``) is never the yardstick: the
    reader builds it, and a carried one that differs is not used
    (``carried_baseline_note`` says so)."""
    if problem.baseline_asm and asm_digest(problem.baseline_asm) in _VOUCHED:
        return problem.baseline_asm
    built = built_baseline(problem, compiler)
    if problem.baseline_asm and problem.baseline_asm != built:
        _warn_once(problem)
    return built


_WARNED: set[str] = set()
_VOUCHED: set[str] = set()


def vouch(asm: str) -> None:
    """Take ``asm`` as a problem's -O3 baseline in this process: one a verification
    server (the reader that builds and pays) answered with (``verify.client``), for
    prompts on a machine with no gcc. Only this process can vouch; nothing a problem or
    a record carries does."""
    _VOUCHED.add(asm_digest(asm))


def _warn_once(problem: Problem) -> None:
    key = f"{problem.name}\n{asm_digest(problem.baseline_asm or '')}"
    if key not in _WARNED:
        _WARNED.add(key)
        log.warning("warning: %s: %s", problem.name, CARRIED_NOTE)


CARRIED_NOTE = (
    "its baseline.s is not this machine's gcc -O3 build of its source with its flags: "
    "not used; the baseline was rebuilt here"
)


def carried_baseline_note(
    problem: Problem, compiler: Callable[[str, tuple[str, ...]], str] = compile_to_asm
) -> str:
    """``CARRIED_NOTE`` when the problem carries a ``baseline.s`` that is not byte-identical
    to the reader's own -O3 build (which is used instead); "" otherwise."""
    if not problem.baseline_asm:
        return ""
    return CARRIED_NOTE if problem.baseline_asm != built_baseline(problem, compiler) else ""


def built_baseline(
    problem: Problem, compiler: Callable[[str, tuple[str, ...]], str] = compile_to_asm
) -> str:
    """gcc -O3 -S of the problem's source with its cflags, built here (cached by the
    source's and headers' digest and the flags); whatever the problem carries."""
    flags = (*BASELINE_FLAGS, *problem.cflags)
    key = problem.source_hash() + ("-" + asm_digest(" ".join(flags))[:12] if problem.cflags else "")
    # the include path's folder is not part of the key: the headers' digest is (source_hash)
    path = cache_dir() / "baselines" / f"{key}.s"
    cached = read_checked(path)  # verified: a damaged cache file is rebuilt, never used
    if cached is not None:
        return cached.decode()
    where = str(Path(problem.path or problem.name) / "source.c")
    asm = compile_baseline(problem.source, problem.compile_flags, where, compiler)
    write_checked(path, asm.encode())
    return asm


def unit_asms(problem: Problem) -> dict[str, str]:
    """The ``-O3`` assembly of each of the problem's other translation units
    (``Problem.units``: the program's further ``.c`` files, built apart as its
    repository builds them), by unit path, cached like the baseline; every link of the
    problem (baseline and candidates) assembles and links them beside ``program.s``.
    Empty for a one-unit program."""
    out: dict[str, str] = {}
    flags = (*BASELINE_FLAGS, *problem.cflags)
    for unit in problem.units:
        key = asm_digest(f"{problem.source_hash()} {unit} {' '.join(flags)}")[:32]
        path = cache_dir() / "baselines" / f"unit-{key}.s"
        cached = read_checked(path)
        if cached is not None:
            out[unit] = cached.decode()
            continue
        cflags = check_build_flags(problem.compile_flags, "cflags")
        asm = compile_to_asm(problem.source, (*BASELINE_FLAGS, *cflags), unit=unit)
        write_checked(path, asm.encode())
        out[unit] = asm
    return out


def baseline_binary(
    asm: str,
    workdir: Path,
    link_flags: tuple[str, ...] = (),
    isolation: bool = True,
    units: dict[str, str] | None = None,
    build: Callable[..., Any] = assemble,
) -> Path:
    """The baseline's binary, cached by its digest and link flags; built like every
    candidate (in the build sandbox, under ``workdir``, with the problem's other units:
    ``unit_asms``; ``build``: ``assemble`` or a stand-in). The name is the assembly's
    digest, plus one of the link flags and units when there are any."""
    link_flags = check_flags(link_flags, "cflags/ldflags")
    others = "".join(asm_digest(u) for u in (units or {}).values())
    link = "-" + asm_digest(" ".join(link_flags) + others)[:12] if link_flags or units else ""
    cached = cache_dir() / "bin" / (asm_digest(asm) + link)
    if read_checked(cached) is None:  # missing, or damaged (cut short, changed): rebuilt
        built = build(asm, workdir / "baseline", link_flags, isolation=isolation, units=units)
        if not built.ok or built.binary is None:
            if machine_trouble(built.log):
                raise machine_error("the baseline could not be built", built.log)
            raise UserError(_build_error(built.log, link_flags))
        write_checked(cached, built.binary.read_bytes(), mode=0o755)
    return cached


def _build_error(log: str, link_flags: tuple[str, ...]) -> str:
    if not is_link_failure(log):
        return f"the baseline assembly does not assemble:\n{log}"
    missing = ", ".join(missing_symbols(log)[:5]) or "see the log"
    flags = " ".join(link_flags) or "none"
    return (
        f"the baseline does not link (missing: {missing}; link flags: {flags}): add the library "
        f"to problem.json's ldflags (or cflags, e.g. -fopenmp)\n{log}"
    )
