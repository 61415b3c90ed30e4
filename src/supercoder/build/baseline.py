"""The problem's baseline: gcc -O3 (+ its cflags) assembly, and that assembly's binary.

Both are cached under ``cache_dir()``: the assembly in ``baselines/`` by source hash
(and cflags), the binary in ``bin/`` by the assembly's digest and the link flags.
Every part of supercoder that needs a problem's -O3 baseline gets it here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from supercoder.build.toolchain import (
    BASELINE_FLAGS,
    asm_digest,
    assemble,
    compile_to_asm,
    is_link_failure,
    missing_symbols,
)
from supercoder.errors import UserError
from supercoder.paths import atomic_write_bytes, atomic_write_text, cache_dir
from supercoder.types import Problem

_TMP_SOURCE = re.compile(r"\S*/sc-cc-[^/\s]+/source\.c")


def compile_baseline(source: str, cflags: Sequence[str] = (), where: str | None = None) -> str:
    """gcc -O3 -S of ``source`` with ``cflags`` (uncached); UserError if it does not
    compile, naming ``where`` (the user's file) instead of our temporary copy."""
    try:
        return compile_to_asm(source, (*BASELINE_FLAGS, *cflags))
    except UserError as e:
        if where is None:
            raise
        raise UserError(_TMP_SOURCE.sub(lambda _: where, str(e))) from e


def baseline_asm(problem: Problem) -> str:
    """The problem's -O3 assembly: its own ``baseline.s`` or gcc -O3 -S with the problem's
    cflags (cached)."""
    if problem.baseline_asm:
        return problem.baseline_asm
    flags = (*BASELINE_FLAGS, *problem.cflags)
    key = problem.source_hash() + ("-" + asm_digest(" ".join(flags))[:12] if problem.cflags else "")
    path = cache_dir() / "baselines" / f"{key}.s"
    if path.is_file():
        return path.read_text()
    where = str(Path(problem.meta.get("path") or problem.name) / "source.c")
    asm = compile_baseline(problem.source, problem.cflags, where)
    atomic_write_text(path, asm)
    return asm


def baseline_binary(
    asm: str, workdir: Path, link_flags: tuple[str, ...] = (), isolation: bool = True
) -> Path:
    """The baseline's binary, cached by its digest and link flags; built like every
    candidate (in the build sandbox, under ``workdir``). The name is the assembly's
    digest, plus one of the link flags when there are any."""
    link = "-" + asm_digest(" ".join(link_flags))[:12] if link_flags else ""
    cached = cache_dir() / "bin" / (asm_digest(asm) + link)
    if not cached.is_file():
        build = assemble(asm, workdir / "baseline", link_flags, isolation=isolation)
        if not build.ok or build.binary is None:
            raise UserError(_build_error(build.log, link_flags))
        atomic_write_bytes(cached, build.binary.read_bytes(), mode=0o755)
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
