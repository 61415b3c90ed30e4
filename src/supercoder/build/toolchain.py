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

from supercoder.build.asmcheck import forbidden_directive
from supercoder.build.asmtext import collapse_space, statements
from supercoder.errors import InfraError, UserError
from supercoder.sandbox.box import Limits, RunResult
from supercoder.sandbox.oneshot import run_isolated

CC = os.environ.get("SUPERCODER_CC", "gcc")
BASELINE_FLAGS = ("-O3",)
LINK_FLAGS = ("-lm",)
COMPILE_TIMEOUT = 60.0
# Building untrusted assembly: per-process CPU, address space, output, processes (gcc
# starts as, collect2, ld), and a cap on every file written (object, binary).
BUILD_LIMITS = Limits(
    cpu_seconds=10.0, wall_seconds=30.0, memory_mb=1024, output_bytes=256 << 10, processes=8
)
MAX_BINARY_BYTES = 64 << 20


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


def assemble(
    asm: str,
    out: Path,
    link_flags: Sequence[str] = (),
    *,
    isolation: bool = True,
    limits: Limits = BUILD_LIMITS,
) -> BuildResult:
    """Assemble and link like the paper, ``gcc program.s -o program -lm [link_flags]``,
    in a fresh sandbox that sees only the program text and the toolchain (see
    ``build_in_sandbox``): libraries named by ``link_flags`` (problem.json ``ldflags``)
    must be installed under ``/usr``. The binary lands at ``out``."""
    built = build_in_sandbox(asm, ["-o", "program", *LINK_FLAGS, *link_flags], isolation, limits)
    if built.ok and built.binary is not None:
        shutil.move(built.binary, out)
        out.chmod(0o755)
        shutil.rmtree(built.binary.parent, ignore_errors=True)
        return BuildResult(True, out, built.log)
    return built


def object_code(asm: str, *, isolation: bool = True, limits: Limits = BUILD_LIMITS) -> BuildResult:
    """``gcc -c`` of the program text, under the same rules; the ``.o`` bytes in a
    BuildResult whose ``binary`` is a temporary file the caller reads then deletes."""
    return build_in_sandbox(asm, ["-c", "-o", "program"], isolation, limits)


def build_in_sandbox(
    asm: str, args: Sequence[str], isolation: bool = True, limits: Limits = BUILD_LIMITS
) -> BuildResult:
    """``gcc program.s *args`` on untrusted assembly text: refused up front if it uses a
    file-reading directive (``asmcheck``); else run in a one-shot sandbox holding only
    a fresh folder with ``program.s`` and the toolchain, under ``limits`` and the
    ``MAX_BINARY_BYTES`` file-size cap. The log names only ``program.s`` and never
    quotes another file. On success ``binary`` is ``<fresh folder>/program`` (the
    caller moves it and removes the folder)."""
    refused = forbidden_directive(asm)
    if refused:
        return BuildResult(False, None, refused)
    cc = _require_cc()
    readonly = () if cc.startswith(("/usr/", "/bin/")) else (Path(cc).resolve().parent.parent,)
    work = Path(tempfile.mkdtemp(prefix="sc-build-"))
    try:
        try:
            (work / "program.s").write_text(asm)
        except OSError as e:  # the machine's disk, not the candidate
            raise InfraError(f"cannot prepare a build folder: {e}") from e
        run = run_isolated(
            [cc, "program.s", *args],
            work,
            limits=limits,
            readonly=readonly,
            isolation=isolation,
            file_bytes=MAX_BINARY_BYTES,
        )
        failure = _build_failure(run, work, limits)
        if failure:
            shutil.rmtree(work, ignore_errors=True)
            return BuildResult(False, None, failure)
        return BuildResult(True, work / "program", build_log(run, work, limits))
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _build_failure(run: RunResult, work: Path, limits: Limits) -> str | None:
    """Why the build in ``work`` does not count (None: it does)."""
    log = build_log(run, work, limits)
    product = work / "program"
    if not run.clean_exit or not product.is_file():
        return log or "the build failed without a message"
    if product.stat().st_size > MAX_BINARY_BYTES:
        return f"the binary is over the {MAX_BINARY_BYTES >> 20} MiB cap"
    return None


_NOT_SHOWN = "(a message about another file, not shown)"
_TMP_OBJECT = re.compile(r"\bcc[A-Za-z0-9]{6}\.o\b")
_FOREIGN = re.compile(r"^(?!program\.s:)[^\s:]+:\d+:")
_STOPPED = {
    "timeout": "the assembler or linker ran out of time ({cpu:.0f} s of CPU, {wall:.0f} s wall)",
    "output_limit": "the assembler or linker printed too much",
    "memory_limit": "the assembler or linker ran out of memory ({mem} MiB)",
}
_KILLED = re.compile(
    r"(File size limit exceeded|CPU time limit exceeded|Killed) signal terminated program (\w+)"
)


def build_log(run: RunResult, work: Path, limits: Limits = BUILD_LIMITS) -> str:
    """gcc's messages about ``program.s`` only: the folder's path removed, temporary
    object names made stable, any line about another file (``FILE:LINE: ...``, the form
    in which the assembler quotes a file's text) replaced by a notice."""
    text = (run.stderr + run.stdout).decode(errors="replace").replace(f"{work}/", "")
    text = _TMP_OBJECT.sub("program.o", text.replace(str(work), "."))
    killed = _KILLED.search(text)
    if killed:
        what = {
            "File size": f"an output file would exceed the {MAX_BINARY_BYTES >> 20} MiB cap",
            "CPU time": "it ran out of CPU time",
            "Killed": "it was killed (memory or time limit)",
        }
        reason = next(v for k, v in what.items() if killed.group(1).startswith(k))
        return f"{killed.group(2)} was stopped: {reason}"
    if run.outcome in _STOPPED:
        return _STOPPED[run.outcome].format(
            cpu=limits.cpu_seconds, wall=limits.wall_seconds, mem=limits.memory_mb
        )
    lines = [_NOT_SHOWN if _FOREIGN.match(ln) else ln for ln in text.splitlines()]
    return _trim("\n".join(lines))


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
