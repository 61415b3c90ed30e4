"""Run one untrusted *tool* (gcc, valgrind, an instrumented binary) in a fresh sandbox.

``run_isolated(argv, workdir, limits=...)`` starts one bubblewrap per call: no
network, every namespace unshared, a read-only root showing only ``/usr`` (with the
``/lib*``/``/bin`` links and ``/etc/ld.so.cache``), a private ``/proc``, a minimal
``/dev``, ``workdir`` bind-mounted read-write **at its own host path** (so paths under
it mean the same inside and out), ``readonly`` paths bind-mounted read-only at their
own paths, ``hide`` folders shown empty, an unprivileged uid without capabilities, a
new session, and ``--die-with-parent``. Nothing else of the host is visible: no
home, no cache, no problem folder, no tests (where supercoder itself or its cache is
installed under ``/usr``, those folders are shown empty too: ``own_folders``).

Limits, applied to the command inside (``prlimit``, so RLIMIT_NPROC counts only this
sandbox's processes): CPU seconds per process, address space, file size, open files,
processes (``limits.processes`` *extra* processes beyond the command itself; gcc
needs about 4), no core files. The wall-clock limit kills the whole tree (bubblewrap
and, with it, the pid namespace); stdout and stderr are each capped at
``limits.output_bytes``. Started as root, bubblewrap runs as the unprivileged
sandbox user (``sandbox.unprivileged_popen_kwargs``): ``workdir`` is handed to that
user (chown) and must be reachable by it, like every ``readonly`` path (make folders
with ``tempfile.mkdtemp()``; pytest's ``tmp_path`` is private to root).

With ``isolation=False`` (``--unsafe-no-sandbox`` only) the command runs as a plain
subprocess of its own session under the same rlimits (RLIMIT_NPROC then counts the
whole host uid, so it is only approximate) and sees the whole host.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.sandbox.box import (
    Limits,
    RunResult,
    _classify_memory,
    bwrap_argv_base,
    isolation_status,
    own_folders,
    sandbox_host_ids,
    unprivileged_popen_kwargs,
)
from supercoder.sandbox.readback import ReadBackError, remove_placed, write_into
from supercoder.types import split_run

FILE_BYTES = 256 << 20  # default cap on any one file the tool writes
OPEN_FILES = 256
_BASE_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def run_isolated(
    argv: Sequence[str],
    workdir: Path,
    *,
    limits: Limits,
    stdin: bytes = b"",
    readonly: Sequence[Path] = (),
    isolation: bool = True,
    env: dict[str, str] | None = None,
    hide: Sequence[Path] = (),
    file_bytes: int = FILE_BYTES,
    open_files: int = OPEN_FILES,
) -> RunResult:
    """Run ``argv`` (cwd ``workdir``) under ``limits``; see the module docstring.

    Never raises for anything the command does (its failures are outcomes); raises
    ``InfraError`` only when no sandbox can be started at all.
    """
    args, files, stdin = split_run(stdin)  # a test's arguments lead its input (with_args)
    argv = [*argv, *args]
    workdir = Path(workdir).resolve()
    placed = _place_files(workdir, files)  # its data files, in the working folder
    try:
        return _run(
            argv, workdir, limits, stdin, readonly, isolation, env, hide, file_bytes, open_files
        )
    finally:
        remove_placed(workdir, placed)


def _place_files(workdir: Path, files) -> list[str]:
    """A run's data files written into ``workdir`` (names checked by ``split_run``:
    relative, inside it), never through a link an earlier run left there; what was
    made, for ``remove_placed`` after the run (which never follows a link the run left:
    a folder of data files swapped for a link to a host folder removes nothing there).
    A name the folder already holds (the tool's own file) is refused."""
    made: list[str] = []
    for name, data in files:
        try:
            placed = write_into(workdir, name, data, 0o444, made=made)
        except ReadBackError:
            placed = False
        if not placed:
            remove_placed(workdir, made)
            raise UserError(f"a test's data file {name!r} clashes with a file of the run's folder")
    return made


def _run(
    argv: list[str],
    workdir: Path,
    limits: Limits,
    stdin: bytes,
    readonly: Sequence[Path],
    isolation: bool,
    env: dict[str, str] | None,
    hide: Sequence[Path],
    file_bytes: int,
    open_files: int,
) -> RunResult:
    environment = {**_BASE_ENV, "HOME": str(workdir), "TMPDIR": str(workdir), **(env or {})}
    rlimits = _rlimits(limits, file_bytes, open_files)
    if isolation:
        # + the command (pid 1)
        rlimits[resource.RLIMIT_NPROC] = min(limits.processes + 1, _hard(resource.RLIMIT_NPROC))
        cmd, preexec = _bwrap_command(argv, workdir, readonly, hide, rlimits), None
        drop = unprivileged_popen_kwargs()
    else:
        cmd, preexec, drop = list(argv), _preexec(rlimits, limits.processes), {}
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=environment,
            start_new_session=True,
            preexec_fn=preexec,
            umask=0o022,  # what the tool and bubblewrap make is readable whatever the umask
            **drop,
        )
    except OSError as e:
        if isolation:
            raise InfraError(f"could not start bubblewrap: {e}") from e
        return RunResult("spawn_error", e.errno or 0, 0, b"", b"", 0.0, 0.0, 0, 0)
    deadline = start + limits.wall_seconds
    try:
        stdout, stderr, why = _communicate(proc, stdin, deadline, limits.output_bytes)
        status, usage, late = _wait(proc, deadline if not why else 0.0)
    except BaseException:  # Ctrl-C or a signal: the tool stops with us, at once
        _kill(proc)
        raise
    why = why or late
    wall = time.monotonic() - start
    return _result(status, usage, stdout, stderr, wall, why, limits, isolation)


def _rlimits(limits: Limits, file_bytes: int, open_files: int) -> dict[int, int]:
    """The limits of the command, each at most what this process may still set (its own
    hard limit: under ``ulimit -n 64`` or ``ulimit -v 1G`` the tool gets those, where
    asking for more would stop it from starting at all)."""
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    wanted = {
        resource.RLIMIT_CPU: cpu,
        resource.RLIMIT_AS: limits.memory_mb << 20,
        resource.RLIMIT_FSIZE: file_bytes,
        resource.RLIMIT_NOFILE: open_files,
        resource.RLIMIT_CORE: 0,
    }
    return {res: min(value, _hard(res)) for res, value in wanted.items()}


def _hard(res: int) -> int:
    """This process's hard limit of ``res`` (a very large number when unlimited)."""
    try:
        hard = resource.getrlimit(res)[1]
    except (OSError, ValueError):
        return 1 << 62
    return 1 << 62 if hard == resource.RLIM_INFINITY else hard


_PRLIMIT_NAMES = {
    resource.RLIMIT_CPU: "cpu",
    resource.RLIMIT_AS: "as",
    resource.RLIMIT_FSIZE: "fsize",
    resource.RLIMIT_NOFILE: "nofile",
    resource.RLIMIT_CORE: "core",
    resource.RLIMIT_NPROC: "nproc",
}


def _bwrap_command(
    argv: Sequence[str],
    workdir: Path,
    readonly: Sequence[Path],
    hide: Sequence[Path],
    rlimits: dict,
) -> list[str]:
    isolated, why = isolation_status()
    if not isolated:
        raise InfraError(
            f"no sandbox available ({why}); refusing to run untrusted code. "
            "Install bubblewrap, or pass --unsafe-no-sandbox to run without isolation."
        )
    prlimit = shutil.which("prlimit", path="/usr/bin:/bin")
    if not prlimit:
        raise InfraError("prlimit not found: install util-linux")
    _open_to_sandbox(workdir)
    binds = []
    for path in [*own_folders(), *hide]:  # first: what is bound below stays visible
        if Path(path).is_dir():
            binds += ["--tmpfs", str(Path(path).resolve())]
    binds += ["--bind", str(workdir), str(workdir)]
    for path in readonly:
        p = str(Path(path).resolve())
        _reachable(Path(p))
        binds += ["--ro-bind", p, p]
    limit_args = [f"--{_PRLIMIT_NAMES[r]}={_soft_hard(r, v)}" for r, v in rlimits.items()]
    return [
        *bwrap_argv_base(),
        *binds,
        "--as-pid-1",
        "--remount-ro",
        "/",
        "--chdir",
        str(workdir),
        "--",
        prlimit,
        *limit_args,
        "--",
        *argv,
    ]


def private_folder_message(workdir: Path, folder: Path) -> str:
    """Why the sandbox user cannot reach ``workdir`` (``folder`` above it is private), in
    the words of whoever set it up: TMPDIR for a CLI user, else the programmer."""
    temp = Path(tempfile.gettempdir())
    if workdir.is_relative_to(temp) and temp.is_relative_to(folder):
        where = "TMPDIR" if os.environ.get("TMPDIR") else "the temporary folder"
        return (
            f"the sandbox cannot reach the temporary folder {temp} ({where}): {folder} is "
            f"private (mode {folder.stat().st_mode & 0o777:o}), and the sandbox runs as "
            "another user; point TMPDIR at a folder every user can enter (e.g. unset it to "
            f"use /tmp, or 'chmod o+x {folder}')"
        )
    return (
        f"{workdir} is not reachable by the sandbox user ({folder} is private): "
        "make the folder with tempfile.mkdtemp() in the system temp folder"
    )


def _open_to_sandbox(workdir: Path) -> None:
    """Started as root, bubblewrap runs as an unprivileged host user: ``workdir`` must be
    reachable by it (every folder above it world-searchable) and becomes its own, with
    every file in it (written under any umask: 077 would leave them root's alone)."""
    ids = sandbox_host_ids()
    if ids is None:
        return
    for folder in workdir.parents:
        if not folder.stat().st_mode & 0o001:
            raise InfraError(private_folder_message(workdir, folder))
    try:
        os.chown(workdir, *ids)
        for root, dirs, files in os.walk(workdir):
            for name in (*dirs, *files):
                os.chown(os.path.join(root, name), *ids, follow_symlinks=False)
    except OSError as e:
        raise InfraError(f"cannot hand {workdir} to the sandbox user: {e}") from e


def _reachable(path: Path) -> None:
    """A read-only path the sandbox user must reach (the toolchain's folder): every folder
    above it world-searchable, else InfraError naming the private one."""
    if sandbox_host_ids() is None:
        return
    for folder in [path, *path.parents][::-1]:
        try:
            mode = folder.stat().st_mode
        except OSError:
            return
        if folder != path and not mode & 0o001:
            raise InfraError(
                f"{path} cannot be shown to the sandbox, which runs as another user: "
                f"{folder} is private (mode {mode & 0o777:o}); move it to a folder every "
                f"user can enter, or 'chmod o+x {folder}'"
            )


def _preexec(rlimits: dict[int, int], processes: int):
    nproc = _host_processes() + processes + 1 if os.geteuid() != 0 else None

    def apply() -> None:
        for res, value in rlimits.items():
            hard = min(value + 1, _hard(res)) if res == resource.RLIMIT_CPU else value
            resource.setrlimit(res, (value, hard))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    return apply


def _host_processes() -> int:
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            continue
    return count


def _soft_hard(res: int, value: int) -> str:
    """CPU: SIGXCPU at the limit, SIGKILL a second later; others: one hard value (never
    above this process's own hard limit)."""
    if res == resource.RLIMIT_CPU:
        return f"{value}:{min(value + 1, _hard(res))}"
    return str(value)


def _communicate(
    proc: subprocess.Popen, data: bytes, deadline: float, cap: int
) -> tuple[bytes, bytes, str]:
    """Feed stdin, collect stdout/stderr until both close. Returns (out, err, why):
    ``why`` is "timeout" or "output_limit" when the run must be killed, else ""."""
    bufs = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    pending, stdin_fd = memoryview(data), proc.stdin.fileno()
    with selectors.DefaultSelector() as sel:
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        if pending:
            os.set_blocking(stdin_fd, False)
            sel.register(stdin_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return _close(proc, bufs, "timeout")
            for key, _ in sel.select(left):
                if key.fd == stdin_fd:
                    pending = _feed(proc, sel, pending)
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                bufs[key.fd] += chunk
                if len(bufs[key.fd]) > cap:
                    return _close(proc, bufs, "output_limit")
    return _close(proc, bufs, "")


def _feed(proc: subprocess.Popen, sel: selectors.BaseSelector, pending: memoryview) -> memoryview:
    try:
        pending = pending[os.write(proc.stdin.fileno(), pending[: 1 << 16]) :]
    except (BrokenPipeError, BlockingIOError) as e:
        if isinstance(e, BlockingIOError):
            return pending
        pending = pending[len(pending) :]
    if not pending:
        sel.unregister(proc.stdin.fileno())
        proc.stdin.close()
    return pending


def _close(proc: subprocess.Popen, bufs: dict, why: str) -> tuple[bytes, bytes, str]:
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if not stream.closed:
            stream.close()
    out, err = (bytes(b) for b in bufs.values())
    return out, err, why


def _wait(proc: subprocess.Popen, deadline: float) -> tuple[int, resource.struct_rusage, str]:
    """Reap the command (its rusage covers every process it waited for); past the
    deadline, kill the tree first. Returns (status, rusage, "timeout" or "")."""
    pause, why = 0.001, ""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() >= deadline:
            _kill(proc)
            _, status, usage = os.wait4(proc.pid, 0)
            why = "timeout" if deadline else ""
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    proc.returncode = status  # reaped here: keep Popen from waiting again
    return status, usage, why


def _kill(proc: subprocess.Popen) -> None:
    """Kill the whole tree: bubblewrap's death takes its pid namespace with it
    (``--die-with-parent``); the session kill covers the unsandboxed mode."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _result(
    status: int,
    usage,
    out: bytes,
    err: bytes,
    wall: float,
    why: str,
    limits: Limits,
    isolation: bool,
) -> RunResult:
    cpu = usage.ru_utime + usage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    sig = -code if code < 0 else 0
    if isolation and 128 < code < 128 + 65:  # bubblewrap reports a signal as 128 + n
        sig = code - 128
    cpu_out = sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= 0.95 * limits.cpu_seconds)
    outcome = why or ("timeout" if cpu_out else "signaled" if sig else "exited")
    result = RunResult(
        outcome,
        max(code, 0) if not sig else 0,
        sig,
        out[: limits.output_bytes],
        err[: limits.output_bytes],
        cpu,
        wall,
        usage.ru_maxrss,
        0,
    )
    return _classify_memory(result, limits)
