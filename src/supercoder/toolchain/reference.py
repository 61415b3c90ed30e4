"""The reference run: build the user's C program and run it on inputs to learn the outputs.

The reference is the user's own C (not model output); it still runs in the sandbox,
under the limits candidates get, with ``timeout`` CPU seconds per run (twice that of
wall time). It is built once per optimisation level (``-O3``, and ``-O0`` where a
caller cross-checks for undefined behaviour) with the problem's cflags, linked with
its cflags then ldflags, and each build runs ``runs[level]`` times on every input.

Per input the result is the first build's output and each build's CPU seconds, or
why there is none: ``timeout`` or ``runtime_error`` (a run did not exit cleanly),
``nondeterministic`` (two runs of one build printed different output) or
``mismatch`` (another build printed something else). ``problem init`` and
``dataset import`` refuse on the first failure (``reference_runs``); ``fuzz`` and the
CodeNet build count failures as reasons to drop an input (``run_reference``).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.errors import UserError, machine_error, machine_trouble
from supercoder.paths import temp_prefix
from supercoder.sandbox.box import Limits, RunResult, open_sandbox
from supercoder.toolchain.flags import check_build_flags, check_flags
from supercoder.toolchain.gcc import compile_c, is_link_failure, missing_symbols

TIMEOUT, RUNTIME_ERROR = "timeout", "runtime_error"
NONDETERMINISTIC, MISMATCH = "nondeterministic", "mismatch"
DEFAULT_LABEL = "the reference C program"


@dataclass(frozen=True)
class RefResult:
    """The reference on one input (see the module docstring)."""

    name: str
    output: bytes = b""  # the first build's output (all builds agree when ok)
    cpu_seconds: Mapping[str, float] = field(default_factory=dict)  # build -> fastest run
    failure: str = ""  # "" when ok; else TIMEOUT, RUNTIME_ERROR, NONDETERMINISTIC, MISMATCH
    level: str = ""  # the build that failed ("O3", "O0")
    detail: str = ""  # the failed run, described (TIMEOUT, RUNTIME_ERROR)
    stderr_bytes: int = 0  # what the first build's first run wrote on stderr

    @property
    def ok(self) -> bool:
        return not self.failure

    def message(self, label: str = DEFAULT_LABEL) -> str:
        """What a user is told when this input stops ``problem init``."""
        if self.failure in (TIMEOUT, RUNTIME_ERROR):
            return f"{label} failed on {self.name}: {self.detail}"
        if self.failure == NONDETERMINISTIC:
            return (
                f"{label} is non-deterministic on {self.name}: two runs printed different "
                "output; fix the program or drop that input"
            )
        return f"{label} built at -{self.level} prints different output on {self.name}"


class ReferenceBuildError(UserError):
    """The reference does not build at ``level``; ``log`` is gcc's own text."""

    def __init__(self, message: str, level: str, log: str):
        super().__init__(message)
        self.level, self.log = level, log


def build_reference(
    source: str,
    folder: Path,
    levels: Sequence[str] = ("O3",),
    cflags: Sequence[str] = (),
    ldflags: Sequence[str] = (),
    label: str = DEFAULT_LABEL,
    units: Sequence[str] = (),
) -> dict[str, Path]:
    """One binary per level (``gcc -LEVEL cflags ... -lm cflags ldflags``) in ``folder``;
    ReferenceBuildError (naming ``label``, with a hint for link failures) if one fails."""
    cflags, ldflags = check_build_flags(cflags, "cflags"), check_flags(ldflags, "ldflags")
    binaries = {}
    for level in levels:
        flags = (f"-{level}", *cflags)
        build = compile_c(source, folder / level, flags, (*cflags, *ldflags), units=units)
        if not build.ok or build.binary is None:
            if machine_trouble(build.log):
                raise machine_error(f"{label} could not be built at -{level}", build.log)
            raise ReferenceBuildError(
                _build_error(build.log, folder / level, flags, ldflags, label, source),
                level,
                build.log,
            )
        binaries[level] = build.binary
    return binaries


def run_reference(
    source: str,
    inputs: Sequence[bytes],
    *,
    names: Sequence[str] | None = None,
    runs: Mapping[str, int] | None = None,
    cflags: Sequence[str] = (),
    ldflags: Sequence[str] = (),
    timeout: float = 20.0,
    label: str = DEFAULT_LABEL,
    stop_at_failure: bool = True,
    exit_code: int = 0,
    units: Sequence[str] = (),
) -> list[RefResult]:
    """Build the reference at each level of ``runs`` (default ``{"O3": 2}``; the first
    level's output is the one kept) and run it on every input; with ``stop_at_failure``
    the list ends at the first failing input."""
    runs = dict(runs or {"O3": 2})
    names = list(names or [f"input #{i}" for i in range(len(inputs))])
    results: list[RefResult] = []
    with tempfile.TemporaryDirectory(prefix=temp_prefix("ref")) as tmp:
        binaries = build_reference(
            source, Path(tmp), tuple(runs), cflags, ldflags, label, units=units
        )
        # the user's own program: trusted to sleep if it must (no sleeping allowance)
        limits = Limits(cpu_seconds=timeout, wall_seconds=2 * timeout, idle_seconds=None)
        with open_sandbox(binaries, limits=limits, exit_code=exit_code) as box:
            for data, name in zip(inputs, names, strict=True):
                results.append(_run_input(box, data, name, runs))
                if stop_at_failure and not results[-1].ok:
                    break
    return results


def reference_runs(
    source: str,
    inputs: Sequence[bytes],
    timeout: float = 20.0,
    *,
    cflags: Sequence[str] = (),
    ldflags: Sequence[str] = (),
    source_path: Path | None = None,
    names: Sequence[str] | None = None,
    repeat: int = 2,
    exit_code: int = 0,
    units: Sequence[str] = (),
) -> list[RefResult]:
    """``run_reference`` at -O3, ``repeat`` runs per input, raising UserError (naming
    ``source_path`` and the input) if it does not build, fails, times out, or prints
    different output on two runs."""
    label = str(source_path) if source_path else DEFAULT_LABEL
    results = run_reference(
        source,
        inputs,
        names=names,
        runs={"O3": repeat},
        cflags=cflags,
        ldflags=ldflags,
        units=units,
        timeout=timeout,
        label=label,
        exit_code=exit_code,
    )
    if results and not results[-1].ok:
        failed = results[-1]
        hint = thread_hint(source) if failed.failure in (TIMEOUT, RUNTIME_ERROR) else ""
        raise UserError(failed.message(label) + hint)
    return results


# a program that starts threads (POSIX or C11 threads, OpenMP)
_THREADS = re.compile(r"\b(pthread_create|thrd_create)\s*\(|^\s*#\s*pragma\s+omp\b", re.M)


def thread_hint(source: str) -> str:
    """Why a program that starts threads may crash or hang in the sandbox ("" if it starts
    none): every program runs there on one thread (thread creation fails, OpenMP gets
    ``OMP_NUM_THREADS=1``), so one that ignores a failed ``pthread_create`` or waits on a
    second thread fails there though it runs on the user's machine."""
    if not _THREADS.search(source):
        return ""
    return (
        " (the program starts threads: programs run on one thread in the sandbox, where "
        "creating a thread fails and OpenMP gets OMP_NUM_THREADS=1, so one that needs a "
        "second thread crashes or waits there; give it a single-threaded build)"
    )


def _run_input(box, data: bytes, name: str, runs: Mapping[str, int]) -> RefResult:
    outputs: dict[str, bytes] = {}
    seconds: dict[str, float] = {}
    stderr_bytes = -1
    for level, count in runs.items():
        done = [box.run(level, data) for _ in range(max(1, count))]
        stderr_bytes = len(done[0].stderr) if stderr_bytes < 0 else stderr_bytes
        failed = _failed(done)
        if failed is not None:
            kind = TIMEOUT if failed.outcome == "timeout" else RUNTIME_ERROR
            detail = failed.describe()
            if failed.outcome == "exited" and failed.stdout:  # it ran, and said so
                detail += (
                    f" (if the program ends with status {failed.exit_code} by design, pass "
                    f"--exit-code {failed.exit_code})"
                )
            return RefResult(name, failure=kind, level=level, detail=detail)
        if any(r.stdout != done[0].stdout for r in done[1:]):
            return RefResult(name, failure=NONDETERMINISTIC, level=level)
        outputs[level], seconds[level] = done[0].stdout, min(r.cpu_seconds for r in done)
    first = next(iter(outputs))
    other = next((level for level, out in outputs.items() if out != outputs[first]), None)
    if other is not None:
        return RefResult(name, failure=MISMATCH, level=other)
    return RefResult(name, outputs[first], seconds, stderr_bytes=stderr_bytes)


def _failed(done: list[RunResult]) -> RunResult | None:
    """The run that did not exit cleanly (a timeout first), or None."""
    bad = [r for r in done if not r.clean_exit]
    return next((r for r in bad if r.outcome == "timeout"), bad[0] if bad else None)


def _build_error(
    log: str,
    stem: Path,
    flags: tuple[str, ...],
    ldflags: Sequence[str],
    label: str,
    source: str = "",
) -> str:
    log = re.sub(r"^source\.c(?=:)", lambda _: label, log, flags=re.M)
    log = log.replace(str(stem.with_suffix(".c")), label).replace(str(stem), "a.out")
    log = _TMP_OBJECT.sub(Path(label).name, log).strip()
    if is_link_failure(log):
        return _link_error(label, log, flags[1:], tuple(ldflags), source)
    macros = list(dict.fromkeys(_UNDECLARED_MACRO.findall(log)))
    hint = (
        f" ({', '.join(macros[:3])} undeclared: if the build defines it, pass "
        f"-D {macros[0]}=VALUE, e.g. --cflags '-D{macros[0]}=1')"
        if macros
        else ""
    )
    return f"{label} does not compile with gcc {' '.join(flags)}{hint}:\n{_tail(log)}"


def build_failure(
    log: str, flags: Sequence[str], ldflags: Sequence[str], label: str, source: str = ""
) -> str:
    """What a user is told when ``label`` does not build with ``flags``: gcc's messages
    and the flag that fixes the usual causes (``-fgnu89-inline``, ``-D``, a library)."""
    return _build_error(log, Path("a.out"), tuple(flags), ldflags, label, source)


# an undeclared all-capitals name: a macro the repository's build defines (-DN=100)
_UNDECLARED_MACRO = re.compile(r"'([A-Z][A-Z0-9_]*)' undeclared")


def _c99_inline(source: str, symbols: Sequence[str]) -> list[str]:
    """The missing symbols ``source`` defines ``inline`` without ``static`` or ``extern``
    (C99: such a definition provides no symbol to link against; gnu89 and C++ differ)."""
    found = []
    for name in symbols:
        head = re.compile(rf"^[^;{{}}#]*\binline\b[^;{{}}]*\b{re.escape(name)}\s*\(", re.M)
        m = head.search(source)
        if m and not re.search(r"\b(static|extern)\b", m.group(0)):
            found.append(name)
    return found


def _link_error(
    label: str,
    log: str,
    cflags: tuple[str, ...],
    ldflags: tuple[str, ...],
    source: str = "",
) -> str:
    symbols = missing_symbols(log)
    what = f"undefined reference to {', '.join(symbols[:5])}" if symbols else "the linker failed"
    inline = _c99_inline(source, symbols)
    if inline:
        hint = (
            f"{', '.join(inline[:3])} is defined 'inline' without 'static' (C99: that makes "
            "no symbol to link); pass --cflags -fgnu89-inline (or --cflags -std=gnu89), or "
            "make it 'static inline'"
        )
    elif any(s.startswith(("omp_", "GOMP_")) for s in symbols):
        hint = "it uses OpenMP: pass --cflags -fopenmp"
    elif "main" in symbols:
        hint = "a problem is a whole program: it needs a main function"
    elif any(s.startswith("pthread_") for s in symbols):
        hint = "pass --ldflags -pthread"
    else:
        hint = 'pass the library that defines it with --ldflags (e.g. --ldflags "-lgmp")'
    used = " ".join((*cflags, *ldflags)) or "none"
    return f"{label} does not link: {what} (extra flags: {used}); {hint}\n{_tail(log)}"


def _tail(log: str, lines: int = 20) -> str:
    rows = log.splitlines()
    return "\n".join(
        rows[:lines] + ([f"... ({len(rows) - lines} more lines)"] if len(rows) > lines else [])
    )


_TMP_OBJECT = re.compile(r"\S*\bcc[A-Za-z0-9]{6}\.o\b")
