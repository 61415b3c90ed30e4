"""The reference run: build the user's C program and run it on inputs to learn the outputs.

The reference is the user's own C (not model output); it still runs in the sandbox,
under the limits candidates get, with ``timeout`` CPU seconds per run (twice that of
wall time). It is built once per optimisation level (``-O3``, and ``-O0`` where a
caller cross-checks for undefined behaviour) with the problem's cflags, linked with
its cflags then ldflags, and each build runs ``runs[level]`` times on every input.

Per input the result is the first build's output and each build's CPU seconds, or
why there is none: ``timeout`` or ``runtime_error`` (a run did not exit cleanly),
``nondeterministic`` (two runs of one build printed different output, or ended with
different exit statuses; ``detail`` shows the first differing lines and names a clock or
an address when that is the cause: ``problems/outputs.py`` ``diagnose``, given as
``differ``) or
``mismatch`` (another build printed something else). ``problem init`` and
``dataset import`` refuse on the first failure (``reference_runs``); ``fuzz`` and the
CodeNet build count failures as reasons to drop an input (``run_reference``).
"""

from __future__ import annotations

import re
import shlex
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.errors import UserError, machine_error, machine_trouble
from supercoder.paths import temp_prefix
from supercoder.sandbox.box import MAX_THREADS, OMP_THREADS, Limits, RunResult, open_sandbox
from supercoder.toolchain.flags import check_build_flags, check_flags
from supercoder.toolchain.gcc import c99_inline, compile_c, is_link_failure, missing_symbols
from supercoder.types import split_run

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
        if self.failure == TIMEOUT:
            return (
                f"{label} failed on {self.name}: {self.detail}; a test must run within the "
                f"limit: leave {self.name} out or give a smaller one (a check times inputs "
                "drawn at sizes that run in milliseconds), or raise problem init --timeout"
            )
        if self.failure == RUNTIME_ERROR:
            return f"{label} failed on {self.name}: {self.detail}"
        if self.failure == NONDETERMINISTIC:
            head = f"{label} is non-deterministic on {self.name}: two runs printed different output"
            if self.detail.startswith("two runs ended differently"):
                return f"{label} is non-deterministic on {self.name}: {self.detail}"
            fix = (
                ""
                if "the runs differ only there" in self.detail
                else "\nfix the program, drop that input, or leave the part that differs "
                "out of the comparison (problem init --ignore-line REGEX, --mask REGEX, "
                "--ignore-field [REGEX@]N)"
            )
            return f"{head}:\n{self.detail}{fix}" if self.detail else head + fix.replace("\n", "; ")
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
    notes: list[str] | None = None,
) -> dict[str, Path]:
    """One binary per level (``gcc -LEVEL cflags ... -lm cflags ldflags``) in ``folder``;
    ReferenceBuildError (naming ``label``, with a hint for link failures) if one fails.
    How a build adapted to build what ``gcc -O3`` builds (``compile_c``) is added to
    ``notes``."""
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
        if build.adapted and notes is not None:
            notes.append(f"{label} at -{level}: {build.adapted}")
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
    differ: Differ | None = None,
    notes: list[str] | None = None,
) -> list[RefResult]:
    """Build the reference at each level of ``runs`` (default ``{"O3": 2}``; the first
    level's output is the one kept) and run it on every input; with ``stop_at_failure``
    the list ends at the first failing input. ``differ`` says how two outputs differ
    (None when they match: the problem's comparison; default: exact bytes). A program
    that reads the wall clock has its repeated runs of the first inputs straddle a
    second boundary, so that output depending on ``time()`` shows every time."""
    runs = dict(runs or {"O3": 2})
    names = list(names or [f"input #{i}" for i in range(len(inputs))])
    results: list[RefResult] = []
    with tempfile.TemporaryDirectory(prefix=temp_prefix("ref")) as tmp:
        binaries = build_reference(
            source, Path(tmp), tuple(runs), cflags, ldflags, label, units=units, notes=notes
        )
        # the user's own program: trusted to sleep if it must (no sleeping allowance)
        limits = Limits(cpu_seconds=timeout, wall_seconds=2 * timeout, idle_seconds=None)
        clocked = {level for level, path in binaries.items() if reads_clock(path)}
        with open_sandbox(binaries, limits=limits, exit_code=exit_code) as box:
            for i, (data, name) in enumerate(zip(inputs, names, strict=True)):
                straddle = clocked if i < CLOCK_STRADDLED else set()
                results.append(_run_input(box, data, name, runs, differ, straddle))
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
    differ: Differ | None = None,
    notes: list[str] | None = None,
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
        differ=differ,
        notes=notes,
    )
    if results and not results[-1].ok:
        failed = results[-1]
        hint = thread_hint(source) if failed.failure in (TIMEOUT, RUNTIME_ERROR) else ""
        raise UserError(failed.message(label) + hint)
    return results


# a program that starts threads (POSIX or C11 threads, OpenMP)
_THREADS = re.compile(r"\b(pthread_create|thrd_create)\s*\(|^\s*#\s*pragma\s+omp\b", re.M)


def starts_threads(source: str) -> bool:
    """Does this C source start threads (``pthread_create``, ``thrd_create``, OpenMP)?"""
    return bool(_THREADS.search(source))


THREADS_MEASURED = (
    f"the program starts threads: in the sandbox a run may start up to {MAX_THREADS} "
    f"(OpenMP: a team of {OMP_THREADS}), all on its timing slot's one CPU, and the time "
    "measured is CPU time summed over every thread (wall time is recorded, not compared)"
)


def thread_hint(source: str) -> str:
    """Why a program that starts threads may crash or hang in the sandbox ("" if it starts
    none): a run may start at most ``MAX_THREADS`` threads besides its main one, all on
    one CPU (creating more fails), and OpenMP gets a team of ``OMP_THREADS``; a program
    that ignores a failed ``pthread_create`` or waits on more threads than that fails
    there though it runs on the user's machine."""
    if not _THREADS.search(source):
        return ""
    return (
        f" (the program starts threads: a run in the sandbox may start at most "
        f"{MAX_THREADS} besides its main one, all on one CPU, where creating more fails, "
        f"and OpenMP gets OMP_NUM_THREADS={OMP_THREADS}; one that needs more threads "
        "crashes or waits there: make its thread count a -D define and pass a smaller "
        f"one (--cflags -DTHREADS={MAX_THREADS}), or give it a single-threaded build)"
    )


Differ = Callable[..., "str | None"]
"""How two outputs of one program differ, as lines to show (None: they match); further
outputs of it, if given, are for the fix it suggests to cover too."""
MORE_RUNS = 3  # runs more of a program found non-deterministic, for its fix to cover

CLOCK_STRADDLED = 2  # inputs whose repeated runs straddle a second (a clock-reading program)
_CLOCK_SYMBOLS = (b"time", b"gettimeofday", b"clock_gettime", b"clock", b"ftime", b"localtime")


def reads_clock(binary: Path) -> bool:
    """Does ``binary`` call a wall-clock or CPU-clock function of the C library (its
    dynamic symbols name one)?"""
    try:
        data = binary.read_bytes()
    except OSError:
        return False
    return any(b"\0" + name + b"\0" in data for name in _CLOCK_SYMBOLS)


def _exact_differ(a: bytes, b: bytes, *more: bytes) -> str | None:
    if a == b:
        return None
    rows_a, rows_b = a.splitlines(), b.splitlines()
    at = next((i for i, (x, y) in enumerate(zip(rows_a, rows_b, strict=False)) if x != y), None)
    if at is None:
        return f"run 1 printed {len(rows_a)} lines, run 2 {len(rows_b)}"
    return f"run 1, line {at + 1}: {rows_a[at][:120]!r}\nrun 2, line {at + 1}: {rows_b[at][:120]!r}"


def _next_second() -> None:
    """Wait until the wall clock's second changes (at most a second)."""
    now = time.time()
    time.sleep(max(0.0, 1.0 - (now - int(now))) + 0.01)


def _run_input(
    box,
    data: bytes,
    name: str,
    runs: Mapping[str, int],
    differ: Differ | None = None,
    straddle: set[str] | frozenset[str] = frozenset(),
) -> RefResult:
    differ = differ or _exact_differ
    outputs: dict[str, bytes] = {}
    seconds: dict[str, float] = {}
    stderr_bytes = -1
    for level, count in runs.items():
        done = []
        for k in range(max(1, count)):
            if k and level in straddle:
                _next_second()
            done.append(box.run(level, data))
        stderr_bytes = len(done[0].stderr) if stderr_bytes < 0 else stderr_bytes
        statuses = {(r.outcome, r.exit_code) for r in done if r.outcome in ("exited", "signaled")}
        if len(statuses) > 1 and any(r.clean_exit for r in done):
            shown = " in one, ".join(
                sorted(
                    {
                        f"exit code {r.exit_code}" if r.outcome == "exited" else r.describe()[:60]
                        for r in done
                    }
                )
            )
            return RefResult(
                name,
                failure=NONDETERMINISTIC,
                level=level,
                detail=f"two runs ended differently ({shown} in another)",
            )
        failed = _failed(done)
        if failed is not None:
            kind = TIMEOUT if failed.outcome == "timeout" else RUNTIME_ERROR
            detail = failed.describe() + _wall_hint(failed)
            missing = _unshipped_files(data)
            if missing:  # it names a file its runs do not have: not an exit status
                detail += f" (it may read {missing[0]}, named in its arguments, which its runs do not have: {_ship_hint(missing[0])})"
            elif failed.outcome == "exited" and failed.stdout:  # it ran, and said so
                detail += (
                    f" (if the program ends with status {failed.exit_code} by design, pass "
                    f"--exit-code {failed.exit_code} (problem init))"
                )
            return RefResult(name, failure=kind, level=level, detail=detail)
        for other in done[1:]:
            if differ(done[0].stdout, other.stdout) is not None:
                more = [box.run(level, data) for _ in range(MORE_RUNS)]
                how = differ(
                    done[0].stdout, other.stdout, *(r.stdout for r in more if r.clean_exit)
                )
                return RefResult(name, failure=NONDETERMINISTIC, level=level, detail=how)
        outputs[level], seconds[level] = done[0].stdout, min(r.cpu_seconds for r in done)
    first = next(iter(outputs))
    other = next(
        (level for level, out in outputs.items() if differ(outputs[first], out) is not None),
        None,
    )
    if other is not None:
        return RefResult(name, failure=MISMATCH, level=other)
    return RefResult(name, outputs[first], seconds, stderr_bytes=stderr_bytes)


def _unshipped_files(data: bytes) -> list[str]:
    """Arguments of a run that look like file names (``input.dat``, ``data/x``) but are
    not among the data files it ships (``types.with_args``)."""
    args, files, _ = split_run(data)
    shipped = {name for name, _ in files}
    return [
        a
        for a in args
        if not a.startswith("-")
        and a not in shipped
        and not a.startswith("/dev/")
        and re.fullmatch(r"[\w.+/-]*[A-Za-z_][\w+-]*\.[A-Za-z0-9]{1,8}|[\w.+-]+/[\w.+/-]+", a)
    ]


def _wall_hint(run: RunResult) -> str:
    """Why a run stopped at the wall limit well short of its CPU limit ("" otherwise): it
    got little of a CPU, so either the machine was busy or the program waited."""
    if run.outcome != "timeout" or not run.cpu_limit or run.cpu_seconds >= 0.5 * run.cpu_limit:
        return ""
    share = run.cpu_seconds / run.wall_seconds if run.wall_seconds > 0 else 0.0
    return (
        f" (it got {share:.0%} of a CPU: the machine was busy, or the program waited on a "
        "sleep, a thread or input; on a busy machine rerun later or with a higher --timeout)"
    )


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
    unquoted = _unquoted_define(flags, macros)
    hint = (
        unquoted
        or (
            f" ({', '.join(macros[:3])} undeclared: if the build defines it, pass "
            f"-D {macros[0]}=VALUE, e.g. --cflags '-D{macros[0]}=1')"
        )
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


def _unquoted_define(flags: Sequence[str], names: Sequence[str]) -> str:
    """A hint when an undeclared name is a word of a define's value (``-DFLAGS_STR=-O2``
    leaves ``O2`` undeclared): the define lost the quotes that made it a C string."""
    for flag in flags:
        if not flag.startswith("-D") or "=" not in flag:
            continue
        name, _, value = flag[2:].partition("=")
        hit = next((m for m in names if re.search(rf"\b{re.escape(m)}\b", value)), None)
        if hit is None or value.startswith('"'):
            continue
        flag_text = shlex.quote(f'-D{name}="{value}"')
        return (
            f" ({hit} undeclared: it is part of -D{name}={value}, a define whose value "
            f"lost its quotes; a string define keeps them, as one flag: {flag_text})"
        )
    return ""


# an undeclared all-capitals name: a macro the repository's build defines (-DN=100)
_UNDECLARED_MACRO = re.compile(r"'([A-Z][A-Z0-9_]*)' undeclared")


def _link_error(
    label: str,
    log: str,
    cflags: tuple[str, ...],
    ldflags: tuple[str, ...],
    source: str = "",
) -> str:
    symbols = missing_symbols(log)
    what = f"undefined reference to {', '.join(symbols[:5])}" if symbols else "the linker failed"
    inline = c99_inline(source, symbols)
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


def _ship_hint(name: str) -> str:
    """How to give a run the file ``name`` its arguments name: a name outside the
    working folder (absolute, or through ``..``) cannot be placed as it is, so the hint
    names it by its file name in the arguments and ships it under that name."""
    parts = name.split("/")
    if name.startswith("/") or ".." in parts:
        base = shlex.quote(parts[-1] or "data")
        return (
            f"it is not there from this folder: give its path from here with --files PATH "
            f"(the run's folder gets it as {base}, and the arguments name it so)"
        )
    return (
        f"ship the file with --files {shlex.quote(name)}, placed in the working folder of every run"
    )
