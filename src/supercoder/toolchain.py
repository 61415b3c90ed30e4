"""gcc: build baselines, assemble candidates, describe the machine."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from supercoder.asmtext import collapse_space, statements
from supercoder.errors import InfraError, UserError

CC = os.environ.get("SUPERCODER_CC", "gcc")
BASELINE_FLAGS = ("-O3",)
LINK_FLAGS = ("-lm",)
COMPILE_TIMEOUT = 60.0


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    binary: Path | None
    log: str


def _require_cc() -> str:
    path = shutil.which(CC)
    if not path:
        raise InfraError(f"{CC} not found: install it (apt-get install gcc)")
    return path


def _run(
    cmd: list[str], cwd: Path | None = None, timeout: float = COMPILE_TIMEOUT
) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, "", f"timed out after {timeout}s: {e}")


def compile_to_asm(
    source: str, flags: tuple[str, ...] = BASELINE_FLAGS, cc: str | None = None
) -> str:
    """C source -> assembly text (gcc -S). Raises UserError if the C does not compile."""
    compiler = cc or _require_cc()
    with tempfile.TemporaryDirectory(prefix="sc-cc-") as tmp:
        src, out = Path(tmp) / "source.c", Path(tmp) / "out.s"
        src.write_text(source)
        proc = _run([compiler, *flags, "-S", str(src), "-o", str(out)])
        if proc.returncode != 0:
            raise UserError(
                f"the C source does not compile with {compiler} {' '.join(flags)}:\n{_trim(proc.stderr)}"
            )
        return out.read_text()


def compile_c(
    source: str, out: Path, flags: tuple[str, ...] = BASELINE_FLAGS, link_flags: Sequence[str] = ()
) -> BuildResult:
    """C source -> linked binary (``link_flags`` after ``-lm``)."""
    src = out.with_suffix(".c")
    src.write_text(source)
    proc = _run([_require_cc(), *flags, str(src), "-o", str(out), *LINK_FLAGS, *link_flags])
    return BuildResult(proc.returncode == 0, out if proc.returncode == 0 else None, proc.stderr)


def assemble(asm: str, out: Path, link_flags: Sequence[str] = ()) -> BuildResult:
    """Assemble and link like the paper: ``gcc cand.s -o bin -lm`` (+ the problem's flags)."""
    src = out.with_suffix(".s")
    src.write_text(asm)
    proc = _run([_require_cc(), str(src), "-o", str(out), *LINK_FLAGS, *link_flags])
    ok = proc.returncode == 0 and out.is_file()
    log = (proc.stderr or proc.stdout).replace(str(src), src.name)
    return BuildResult(ok, out if ok else None, _trim(log))


def _trim(text: str, limit: int = 4000) -> str:
    return (
        text
        if len(text) <= limit
        else text[:limit] + f"\n... ({len(text) - limit} more characters)"
    )


_UNDEFINED = re.compile(r"undefined reference to [`'\"]?([^'`\"\s]+)['`\"]?")
_LINKER = re.compile(r"(^|\s)(/\S*/)?(ld|collect2)(\.\w+)?: |ld returned \d+ exit status")


def missing_symbols(log: str) -> list[str]:
    """Symbols the linker could not find, in order of first mention."""
    return list(dict.fromkeys(_UNDEFINED.findall(log)))


def is_link_failure(log: str) -> bool:
    """Did the build fail in the linker (not the compiler or the assembler)?"""
    return bool(_LINKER.search(log))


_NOISE = re.compile(r"^\s*\.(ident|file|section\s+\.note\.GNU-stack.*|loc|cfi_\w+)\b.*$")


def is_noise_line(line: str) -> bool:
    """Directives that don't change the program: .ident, .file, .loc, .cfi_*, the GNU-stack note."""
    return bool(_NOISE.match(line))


def normalize_asm(asm: str) -> str:
    """One statement per line, comments, .ident/.file/.loc/.cfi and spacing removed;
    string literals untouched (``#`` and spaces inside them are part of the program)."""
    kept = (collapse_space(stmt) for _, stmt in statements(asm) if not is_noise_line(stmt))
    return "\n".join(kept)


def same_program(a: str, b: str) -> bool:
    return normalize_asm(a) == normalize_asm(b)


def asm_digest(asm: str) -> str:
    return hashlib.sha256(normalize_asm(asm).encode()).hexdigest()


@cache
def gcc_version() -> str:
    try:
        out = subprocess.run([CC, "--version"], capture_output=True, text=True, timeout=10).stdout
        return out.splitlines()[0].strip() if out else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


@cache
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_context() -> dict[str, str | int]:
    return {
        "gcc": gcc_version(),
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 0,
        "kernel": platform.release(),
        "python": platform.python_version(),
    }
