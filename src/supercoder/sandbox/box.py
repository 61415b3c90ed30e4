"""Run untrusted binaries: bubblewrap namespaces + rlimits + seccomp, one sandbox per candidate.

One sandbox holds every binary of a comparison (baseline and candidate) and a
supervisor (``runner.c``) that runs them one at a time, so that timing runs pay no
sandbox start-up cost. Inside: no network, a read-only filesystem showing none of the
host's files but ``/sc`` (the binaries and the test inputs — never expected outputs,
kept in a tmpfs folder where the machine has one, ``/dev/shm``) and the binaries' own
loader and libraries (``sandbox.elf``: resolved from the binaries, copied into the
sandbox's memory), so that no file a run can touch has pages that are cached for one
run and not for another (a page-cache store between runs),
uid 65534 with no capabilities, a private pid namespace whose init is the runner
(signals from inside cannot kill it, its /proc entries are hidden; every run gets the
same pid and a root without /proc), per-run CPU/wall/memory/output/file limits, a
seccomp filter (no ptrace, sockets, process creation (threads: up to ``MAX_THREADS``,
their ids reset before every run), exec, SysV IPC, mqueues, pipes,
memfd, shared anonymous mappings or CPU moves: no kernel counter a later run reads;
calls that take a pid act only on the caller),
execute-only binaries, and after each run a sweep that kills any descendant left and
a check that the supervisor's own limits, priority and affinity are unchanged.

Started as root, bubblewrap never runs as root (``sandbox.bwrap``): it runs as an
unprivileged host user with no supplementary groups. Other sandboxes (the one-shot
build sandbox) reuse ``bwrap_argv_base()`` + ``unprivileged_popen_kwargs()``; what
they bind must be reachable by that user (folders 0755, files world-readable or
-executable: never under root's home).
"""

from __future__ import annotations

import hashlib
import os
import random
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import temp_prefix
from supercoder.sandbox.bwrap import (  # noqa: F401  (re-exported: one place to start bubblewrap)
    SANDBOX_UID,
    SANDBOX_USER,
    _bwrap_base,
    bwrap_argv_base,
    isolation_status,
    own_folders,
    runtime_argv_base,
    sandbox_host_ids,
    unprivileged_popen_kwargs,
)
from supercoder.sandbox.cgroup import enter_command, make_memory_cgroup, remove_cgroup
from supercoder.sandbox.elf import runtime_files
from supercoder.types import Files, split_run

RUNNER_SOURCE = Path(__file__).with_name("runner.c")
MAX_ARG_BYTES = (128 << 10) - 1  # a run's arguments in all (runner.c MAX_ARG_BYTES)
MAX_THREADS = 16  # threads a run may start besides its main one (runner.c MAX_THREADS)
OMP_THREADS = 2  # an OpenMP program's team (runner.c OMP_THREADS)


@dataclass(frozen=True)
class Limits:
    """What one run may use.

    Fields: ``cpu_seconds`` (CPU time), ``wall_seconds`` (wall clock), ``memory_mb``
    (address space), ``output_bytes`` (stdout), ``processes`` (extra processes a program
    may create; 0: fork denied, threads up to ``MAX_THREADS``), ``idle_seconds`` (wall time a run may spend
    asleep or blocked, neither running nor waiting for a CPU: past it the run is
    stopped as ``idle``, a timeout), ``idle_total_seconds`` (the same, summed over every
    run of one binary, its placement copies included, in one sandbox: once spent, that
    binary's further runs are refused as ``idle``); None: no such limit. Sleeping costs
    no CPU time, so without the last two a program could hold its machine's timing slot
    for nothing. The baseline (the problem's own program, trusted) is never held to
    them; where it blocks (a big output, a busy machine), the others may block twice as
    long as it did, on top.
    """

    cpu_seconds: float = 10.0
    wall_seconds: float = 20.0
    memory_mb: int = 2048
    output_bytes: int = 16 << 20
    processes: int = 0
    idle_seconds: float | None = 1.0
    idle_total_seconds: float | None = 2.0


@dataclass(frozen=True)
class RunResult:
    outcome: (
        str  # exited | signaled | timeout | output_limit | memory_limit | spawn_error | tampered
    )
    exit_code: int
    signal: int
    stdout: bytes = field(repr=False)
    stderr: bytes = field(repr=False)
    cpu_seconds: float
    wall_seconds: float
    max_rss_kb: int
    leftover: int  # descendants still alive when the program exited (killed)
    expected_exit: int = 0  # the exit status the problem's runs end with (problem.json)
    blocked_seconds: float = 0.0  # asleep or blocked (not running, not runnable); -1: unknown
    cpu_limit: float = 0.0  # the run's CPU and wall limits (0: not known)
    wall_limit: float = 0.0

    @property
    def exited_as_expected(self) -> bool:
        return self.outcome == "exited" and self.exit_code == self.expected_exit

    @property
    def clean_exit(self) -> bool:
        return self.exited_as_expected and self.leftover == 0

    def describe(self) -> str:
        if self.exited_as_expected and self.leftover:
            return f"left {self.leftover} process(es) running after exit"
        if self.outcome == "exited":
            wanted = (
                f" (the problem's runs exit {self.expected_exit})" if self.expected_exit else ""
            )
            return f"exit code {self.exit_code}{wanted}" + _stderr_tail(self.stderr)
        if self.outcome == "signaled":
            name = (
                signal.Signals(self.signal).name
                if self.signal in signal.Signals._value2member_map_
                else self.signal
            )
            return f"killed by signal {name}" + _stderr_tail(self.stderr)
        if self.outcome == "timeout":
            limit = (
                f" against limits of {self.cpu_limit:g}s cpu, {self.wall_limit:g}s wall"
                if self.cpu_limit
                else ""
            )
            return (
                f"time limit exceeded (ran cpu {self.cpu_seconds:.2f}s, wall "
                f"{self.wall_seconds:.2f}s{limit})"
            )
        if self.outcome == "idle":
            return (
                f"stopped for sleeping: {self.blocked_seconds:.2f}s asleep or blocked without "
                "using the CPU (a run's wall time is bounded by its CPU time)"
            )
        if self.outcome == "output_limit":
            return f"output limit exceeded ({len(self.stdout)} bytes)"
        if self.outcome == "tampered":
            return (
                "changed its sandbox (supervisor limits/priority/affinity or IPC objects)"
                + _stderr_tail(self.stderr)
            )
        if self.outcome == "memory_limit":
            return f"memory limit exceeded (peak {self.max_rss_kb // 1024} MiB)"
        return (
            f"could not start: {os.strerror(self.exit_code) if self.exit_code > 0 else 'unknown'}"
        )


STARVED_RETRIES = 2


def starved(run: RunResult) -> bool:
    """Was ``run`` stopped at its wall limit, well short of its CPU limit, having spent
    most of its wall time waiting for a CPU (neither running nor asleep: the machine was
    busy)? Unknown (no blocked figure): no."""
    if run.outcome != "timeout" or run.blocked_seconds < 0 or not run.cpu_limit:
        return False
    if run.cpu_seconds >= 0.9 * run.cpu_limit:
        return False
    waiting = run.wall_seconds - run.cpu_seconds - run.blocked_seconds
    return waiting > run.wall_seconds / 2


def _stderr_tail(err: bytes) -> str:
    text = err.decode(errors="replace").strip()
    return f": {text[-300:]}" if text else ""


@cache
def memory_folder() -> str | None:
    """A tmpfs folder for sandbox files (``/dev/shm``): their pages are always resident,
    so whether one is cached says nothing (None: the system temp folder)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        parts = line.split()
        tmpfs = len(parts) > 2 and parts[1] == "/dev/shm" and parts[2] == "tmpfs"
        if tmpfs and os.access("/dev/shm", os.W_OK | os.X_OK):
            return "/dev/shm"
    return None


class SandboxLost(InfraError):
    """The supervisor died or stopped answering."""


@cache
def runner_binary() -> Path:
    """Compile runner.c once per source version (cached, atomic)."""
    from supercoder.paths import cache_dir, sibling_temp

    source = RUNNER_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    target = cache_dir() / f"runner-{digest}"
    if target.is_file():
        return target
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise InfraError("gcc not found: install it (apt-get install gcc)")
    tmp = sibling_temp(target)
    proc = subprocess.run(
        [cc, "-O2", "-o", str(tmp), str(RUNNER_SOURCE)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise InfraError(f"could not build the sandbox runner:\n{proc.stderr[-2000:]}")
    tmp.replace(target)
    return target


class Sandbox:
    """A running supervisor holding named binaries; ``run`` executes one of them."""

    def __init__(
        self,
        binaries: dict[str, Path],
        limits: Limits = Limits(),
        isolation: bool = True,
        exit_code: int = 0,
        cpus: frozenset[int] | None = None,
    ):
        """``cpus``: bind the sandbox (bubblewrap, the supervisor, every run) to these
        CPUs (a timing slot's core); None: wherever this process may run."""
        if isolation:
            ok, why = isolation_status()
            if not ok:
                raise InfraError(
                    f"no sandbox available ({why}); refusing to run untrusted code. "
                    "Install bubblewrap, or pass --unsafe-no-sandbox to run without isolation."
                )
        self.limits = limits
        self.isolation = isolation
        self.exit_code = exit_code  # what a run that succeeds exits with
        self.cpus = cpus
        self._host = Path(tempfile.mkdtemp(prefix=temp_prefix("box"), dir=memory_folder()))
        self._inputs: dict[str, str] = {}
        self._names = set(binaries)
        self._blocked: dict[str, float] = {}  # blocked seconds per binary (copies together)
        self._most: dict[str, float] = {}  # the longest one run of it was blocked
        try:
            self._libs = runtime_files([*binaries.values(), runner_binary()]) if isolation else []
            self._fill_box(binaries)
            self._proc = self._start()
        except BaseException:
            remove_cgroup(getattr(self, "_cgroup", None))
            shutil.rmtree(self._host, ignore_errors=True)
            raise

    def _fill_box(self, binaries: dict[str, Path]) -> None:
        """Binaries execute-only (no program in the box can read or mmap another), the
        runner copied in (the cache may sit in root's home, unreachable), folders 0755."""
        (self._host / "bin").mkdir()
        (self._host / "in").mkdir()
        for name, path in binaries.items():
            if not name.isidentifier():
                raise UserError(f"binary name {name!r} must be an identifier")
            dest = self._host / "bin" / name
            shutil.copyfile(path, dest)
            dest.chmod(0o111)
        shutil.copyfile(runner_binary(), self._host / "runner")
        (self._host / "runner").chmod(0o111)
        for folder in (self._host, self._host / "bin"):
            folder.chmod(0o755)
        # inputs are reachable by name (a SHA-256 of the content) but not listable, by
        # the sandbox user or by the owner: a run cannot find other tests' inputs
        (self._host / "in").chmod(0o311)

    # -- lifecycle -----------------------------------------------------------
    def _start(self) -> subprocess.Popen:
        runner = self._host / "runner"
        fds: list[int] = []
        if self.isolation:
            base, fds = runtime_argv_base(self._libs)
            cmd = [
                *base,
                # the runner (pid 1) gives each run a fresh root of its own (runner.c,
                # --fresh-root), then drops every capability before exec
                *("--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SYS_CHROOT"),
                *("--cap-add", "CAP_SETPCAP", "--dir", "/sc/root", "--dir", "/sc/work"),
                "--as-pid-1",
                # the supervisor's /proc entries (CPU time, context switches, memory)
                # would let one run leave a message for the next: hidden
                "--tmpfs",
                "/proc/1",
                "--remount-ro",
                "/proc/1",
                "--ro-bind",
                str(self._host / "bin"),
                "/sc/bin",
                "--ro-bind",
                str(self._host / "in"),
                "/sc/in",
                "--ro-bind",
                str(runner),
                "/sc/runner",
                "--remount-ro",
                "/dev",
                "--remount-ro",
                "/",
                "--chdir",
                "/",
                "--",
                "/sc/runner",
                "--fresh-root",
            ]
        else:
            cmd = [str(runner)]
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        drop = unprivileged_popen_kwargs() if self.isolation else {}
        # kernel memory no rlimit counts is charged to a cgroup of the sandbox's own
        # (sandbox.cgroup: where the machine has one we may make)
        self._cgroup = (
            make_memory_cgroup(self.limits.memory_mb, sandbox_host_ids())
            if self.isolation
            else None
        )
        if self._cgroup is not None:
            cmd = enter_command(self._cgroup, cmd)
        try:
            with _pinned(self.cpus):
                proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                    cwd="/",
                    start_new_session=True,
                    pass_fds=fds,
                    umask=0o022,  # bubblewrap's folders (/sc/root...) whatever the user's umask
                    **drop,
                )
        except OSError as e:
            raise InfraError(f"could not start the sandbox: {e}") from e
        finally:
            for fd in fds:
                os.close(fd)
        self._proc = proc
        self._buffer = b""
        line = self._read_line(time.monotonic() + 30)
        if line != b"READY":
            self.close()
            raise SandboxLost(f"sandbox did not start (got {line[:200]!r})")
        return proc

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc and proc.poll() is None:
            try:
                proc.stdin.write(b"QUIT\n")
                proc.stdin.flush()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        remove_cgroup(getattr(self, "_cgroup", None))
        self._cgroup = None
        shutil.rmtree(getattr(self, "_host", ""), ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running -------------------------------------------------------------
    def _input_path(self, data: bytes) -> str:
        key = hashlib.sha256(data).hexdigest()
        if key not in self._inputs:
            path = self._host / "in" / key
            path.write_bytes(data)
            path.chmod(0o444)
            self._inputs[key] = f"/sc/in/{key}" if self.isolation else str(path)
        return self._inputs[key]

    def _args_path(self, args: tuple[str, ...]) -> str:
        """The file holding ``args`` for the supervisor (NUL-ended strings); ``-``: none."""
        if not args:
            return "-"
        data = b"".join(a.encode(errors="surrogateescape") + b"\0" for a in args)
        if len(data) > MAX_ARG_BYTES or any("\0" in a for a in args):
            raise UserError(f"a test's arguments are over {MAX_ARG_BYTES >> 10} KiB or hold NUL")
        return self._input_path(data)

    def _files_path(self, files: Files) -> str:
        """The folder holding a run's data files (``-``: none): one per set of files,
        named by their digest, read-only; the supervisor places each file in the run's
        working folder (``/box``, the same for every run)."""
        if not files:
            return "-"
        key = hashlib.sha256(repr(sorted(files)).encode()).hexdigest()
        folder = self._host / "in" / f"{key}.d"
        if key not in self._inputs:
            made: list[Path] = []
            for name, data in files:
                path = folder / name
                for parent in reversed(path.relative_to(self._host / "in").parents[:-1]):
                    where = self._host / "in" / parent
                    if not where.is_dir():
                        where.mkdir()
                        made.append(where)
                path.write_bytes(data)
                path.chmod(0o444)
            for where in made:
                where.chmod(0o555)
            self._inputs[key] = f"/sc/in/{key}.d" if self.isolation else str(folder)
        return self._inputs[key]

    def run(self, name: str, stdin: bytes, limits: Limits | None = None) -> RunResult:
        """Run binary ``name`` on ``stdin`` (a test's ``run_input``: arguments and data
        files, if any, lead it, ``types.with_args``; argv[0] is the same fixed name for
        every binary, the working folder holds the data files). Raises SandboxLost if the
        supervisor died. A run stopped at its wall limit well short of its CPU limit
        while it mostly waited for a CPU (``starved``: the machine was busy, not the
        program slow or asleep) is the machine's failure, not the program's: it runs
        again with a longer wall limit (twice, at most: its CPU limit stays)."""
        lim = limits or self.limits
        result = self._run(name, stdin, lim)
        for _ in range(STARVED_RETRIES):
            if not starved(result):
                break
            lim = replace(lim, wall_seconds=2 * lim.wall_seconds)
            result = self._run(name, stdin, lim)
        return result

    def _run(self, name: str, stdin: bytes, lim: Limits) -> RunResult:
        args, files, stdin = split_run(stdin)
        if name not in self._names:
            raise UserError(f"no binary named {name!r} in this sandbox")
        role = _role(name)
        allowance = self._allowance(role, lim)
        if allowance is not None and allowance <= 0:
            return RunResult(
                "idle", 0, 0, b"", b"", 0.0, 0.0, 0, 0, self.exit_code, self._blocked[role]
            )
        idle_ms = -1 if allowance is None else int(allowance * 1000)
        binary = f"/sc/bin/{name}" if self.isolation else str(self._host / "bin" / name)
        command = (
            f"RUN {binary} {self._input_path(stdin)} {int(lim.cpu_seconds * 1000)} "
            f"{int(lim.wall_seconds * 1000)} {lim.memory_mb} {lim.output_bytes} {lim.processes} "
            f"{idle_ms} {self._args_path(args)} {self._files_path(files)}\n"
        )
        try:
            self._proc.stdin.write(command.encode())
            self._proc.stdin.flush()
        except OSError as e:
            raise SandboxLost(f"sandbox supervisor is gone: {e}") from e
        deadline = time.monotonic() + lim.wall_seconds + 30
        header = self._read_line(deadline).split()
        if len(header) != 12 or header[0] != b"RES":
            raise SandboxLost(f"sandbox supervisor answered {b' '.join(header)[:200]!r}")
        outcome = header[1].decode()
        code, sig, user, sys_, wall, rss, alive, nout, nerr, blocked = (int(x) for x in header[2:])
        stdout = self._read_exact(nout, deadline)
        stderr = self._read_exact(nerr, deadline)
        blocked_s = blocked / 1e6 if blocked >= 0 else -1.0
        self._blocked[role] = self._blocked.get(role, 0.0) + max(0.0, blocked_s)
        self._most[role] = max(self._most.get(role, 0.0), blocked_s)
        result = RunResult(
            outcome,
            code,
            sig,
            stdout,
            stderr,
            (user + sys_) / 1e6,
            wall / 1e6,
            rss,
            alive,
            self.exit_code,
            blocked_s,
            lim.cpu_seconds,
            lim.wall_seconds,
        )
        return _classify_memory(result, lim)

    def _allowance(self, role: str, lim: Limits) -> float | None:
        """How long the next run of ``role`` may sleep (None: no limit): the baseline is
        never limited; the others get ``idle_seconds`` (or twice the baseline's longest
        sleep) per run, within what is left of ``idle_total_seconds`` (plus twice what
        the baseline slept in all)."""
        if role == "baseline" or lim.idle_seconds is None:
            return None
        per_run = max(lim.idle_seconds, 2 * self._most.get("baseline", 0.0))
        if lim.idle_total_seconds is None:
            return per_run
        total = lim.idle_total_seconds + 2 * self._blocked.get("baseline", 0.0)
        return min(per_run, total - self._blocked.get(role, 0.0))

    def share_idle(self, other: Sandbox) -> None:
        """Count sleeping against ``other``'s allowance: several instances together
        allow what one would (``Sandboxes``)."""
        self._blocked = other._blocked
        self._most = other._most

    def slept(self, name: str) -> bool:
        """Has binary ``name`` (with its copies) spent its sleeping allowance here?"""
        left = self._allowance(_role(name), self.limits)
        return left is not None and left <= 0

    def _fill(self, deadline: float) -> None:
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            if not sel.select(max(0.0, deadline - time.monotonic())):
                self._proc.kill()
                raise SandboxLost("sandbox supervisor stopped answering")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise SandboxLost("sandbox supervisor died")
        self._buffer += chunk

    def _read_line(self, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            self._fill(deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            self._fill(deadline)
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data


def _role(name: str) -> str:
    """The binary a sandbox name stands for: ``candidate_2`` is a copy of ``candidate``."""
    head, _, tail = name.rpartition("_")
    return head if head and tail.isdigit() else name


@contextmanager
def _pinned(cpus: frozenset[int] | None) -> Iterator[None]:
    """The calling thread bound to ``cpus`` while it starts a child (which inherits the
    mask, and its own children after it), then restored; no-op for None."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)  # pid 0: this thread only
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as e:
        raise InfraError(f"could not bind the sandbox to CPUs {sorted(cpus)}: {e}") from e
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


_OOM_HINTS = (b"Cannot allocate memory", b"bad_alloc", b"out of memory", b"memory exhausted")


def _classify_memory(r: RunResult, lim: Limits) -> RunResult:
    """rlimits don't say why a program died: call it a memory failure when it failed
    having used most of its memory, or said it could not allocate."""
    failed = r.outcome == "signaled" or (r.outcome == "exited" and not r.exited_as_expected)
    if failed and (
        r.max_rss_kb * 1024 >= 0.8 * (lim.memory_mb << 20) or any(h in r.stderr for h in _OOM_HINTS)
    ):
        return replace(r, outcome="memory_limit")
    return r


class Sandboxes:
    """Several instances of one sandbox (made by ``make``: the same binaries, limits and
    CPUs), each run going to one of them at random. What is fixed for the life of an
    instance (where its copies of the binaries and its supervisor landed in memory)
    then varies within a timing session, so it widens the interval instead of shifting
    one check against the next. Sleeping is counted once over all of them."""

    def __init__(self, make: Callable[[], Sandbox], count: int = 2):
        self.boxes: list[Sandbox] = []
        try:
            for _ in range(max(1, count)):
                box = make()
                if self.boxes:
                    box.share_idle(self.boxes[0])
                self.boxes.append(box)
        except BaseException:
            self.close()
            raise
        self._rng = random.Random()

    def run(self, name: str, stdin: bytes, limits: Limits | None = None) -> RunResult:
        """``Sandbox.run`` in one of the instances, picked at random."""
        return self._rng.choice(self.boxes).run(name, stdin, limits)

    def slept(self, name: str) -> bool:
        """``Sandbox.slept`` over all the instances (their allowance is shared)."""
        return self.boxes[0].slept(name)

    def close(self) -> None:
        for box in self.boxes:
            box.close()

    def __enter__(self) -> Sandboxes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_sandbox(
    binaries: dict[str, Path],
    limits: Limits = Limits(),
    isolation: bool = True,
    exit_code: int = 0,
    cpus: frozenset[int] | None = None,
) -> Sandbox:
    return Sandbox(binaries, limits, isolation, exit_code, cpus)
