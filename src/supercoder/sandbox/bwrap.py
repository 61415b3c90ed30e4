"""Starting bubblewrap: the options every sandbox shares, and never as host root.

Started as root, bubblewrap runs as an unprivileged host user (``supercoder-sandbox``,
created by scripts/setup.sh, else ``nobody``) with no supplementary groups, so the
sandbox's user namespace maps to an unprivileged host uid. Every sandbox (the runtime
one in ``supercoder.sandbox.box``, the one-shot build sandbox) uses ``bwrap_argv_base()``
and starts it with ``unprivileged_popen_kwargs()``.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
from functools import cache
from pathlib import Path

from supercoder.errors import InfraError
from supercoder.paths import cache_dir
from supercoder.sandbox.elf import path_chain

SANDBOX_UID = 65534  # uid/gid inside the sandbox's user namespace
SANDBOX_USER = "supercoder-sandbox"  # host user bubblewrap runs as when we are root


@cache
def sandbox_host_ids() -> tuple[int, int] | None:
    """(uid, gid) of the unprivileged host user bubblewrap runs as; None when we are
    not root (then bubblewrap runs as ourselves). ``SUPERCODER_SANDBOX_USER`` picks
    another user; root is refused."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("SUPERCODER_SANDBOX_USER", SANDBOX_USER)
    try:
        entry = pwd.getpwnam(name)
        uid, gid = entry.pw_uid, entry.pw_gid
    except KeyError:
        uid = _lookup(pwd.getpwnam, "nobody", 65534, "pw_uid")
        gid = _lookup(grp.getgrnam, "nogroup", None, "gr_gid") or _lookup(
            grp.getgrnam, "nobody", 65534, "gr_gid"
        )
    if uid == 0 or gid == 0:
        raise InfraError(
            f"the sandbox user {name!r} is root: choose an unprivileged one (SUPERCODER_SANDBOX_USER)"
        )
    return uid, gid


def _lookup(fn, name: str, default: int | None, attr: str) -> int | None:
    try:
        return getattr(fn(name), attr)
    except KeyError:
        return default


def unprivileged_popen_kwargs() -> dict:
    """Keyword arguments for ``subprocess.Popen``/``run`` that start bubblewrap as an
    unprivileged host user with no supplementary groups when we are root ({} otherwise)."""
    ids = sandbox_host_ids()
    if ids is None:
        return {}
    return {"user": ids[0], "group": ids[1], "extra_groups": []}


def bwrap_argv_base() -> list[str]:
    """``bwrap`` and the options every sandbox shares: all namespaces unshared, no
    capabilities, uid/gid 65534, read-only /usr (+ /lib*, /bin, /sbin, ld.so.cache),
    a private /proc whose /proc/sys is read-only, a minimal /dev, no /sys. Append
    binds, ``--remount-ro /``, ``--``, the command; start it with
    ``unprivileged_popen_kwargs()``."""
    return [shutil.which("bwrap") or "bwrap", *_bwrap_base()]


@cache
def isolation_status() -> tuple[bool, str]:
    """(available, reason). Isolation needs bubblewrap and user/pid/net namespaces."""
    if not shutil.which("bwrap"):
        return False, "bubblewrap is not installed (apt-get install bubblewrap)"
    try:
        proc = subprocess.run(
            [*bwrap_argv_base(), "--remount-ro", "/", "--", "/usr/bin/true"],
            capture_output=True,
            text=True,
            timeout=30,
            cwd="/",
            **unprivileged_popen_kwargs(),
        )
    except (OSError, subprocess.TimeoutExpired, InfraError) as e:
        return False, f"bubblewrap failed to start: {e}"
    if proc.returncode != 0:
        who = " as an unprivileged user (root never runs it; allow unprivileged user namespaces)"
        return False, (
            f"bubblewrap cannot create namespaces here{who if sandbox_host_ids() else ''}: "
            f"{proc.stderr.strip()[:300]}"
        )
    return True, "bubblewrap" + (" (as an unprivileged user)" if sandbox_host_ids() else "")


RUNTIME_DEVICES = ("/dev/null", "/dev/full", "/dev/random", "/dev/urandom")


def _namespaces(devices: tuple[str, ...] | None = None) -> list[str]:
    """What every sandbox starts from: every namespace unshared, uid/gid 65534, no
    capabilities, a private /proc (its /proc/sys read-only), a minimal /dev (bubblewrap's
    ``--dev``; with ``devices``: a tmpfs holding only those host device nodes)."""
    dev = ["--dev", "/dev"]
    if devices is not None:
        dev = ["--tmpfs", "/dev"]
        for node in devices:
            if os.path.exists(node):
                dev += ["--dev-bind", node, node]
    return [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--cap-drop",
        "ALL",
        "--proc",
        "/proc",
        "--ro-bind",
        "/proc/sys",
        "/proc/sys",
        "--ro-bind-try",
        "/proc/sysrq-trigger",
        "/proc/sysrq-trigger",
        *dev,
    ]


def runtime_argv_base(paths: list[str]) -> tuple[list[str], list[int]]:
    """``bwrap`` and the options of the runtime sandbox, which shows none of the host's
    files: only ``paths`` (the binaries' loader and libraries, ``sandbox.elf``) and
    ``/etc/ld.so.cache``, each *copied* into the sandbox's own memory (``--file``:
    a tmpfs file, always resident, gone with the sandbox), with the links that lead to
    them. No run can change what another run finds cached, and no file of the host is a
    store. Its /dev holds ``RUNTIME_DEVICES`` only, bound from the host: bubblewrap's own
    ``--dev`` (devpts) would put the sandbox in a second user namespace, and the
    supervisor could then not choose its runs' pids (``runner.c`` ``spawn``).
    Returns (argv, the file descriptors to pass: close them once it started)."""
    args = [shutil.which("bwrap") or "bwrap", *_namespaces(RUNTIME_DEVICES)]
    fds: list[int] = []
    done: set[str] = set()
    extra = ["/etc/ld.so.cache"] if Path("/etc/ld.so.cache").is_file() else []
    for path in [*paths, *extra]:
        for kind, source, where in path_chain(path):
            if where in done:
                continue
            done.add(where)
            if kind == "symlink":
                args += ["--symlink", source, where]
                continue
            try:
                fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            fds.append(fd)
            mode = "0555" if os.stat(fd).st_mode & 0o111 else "0444"
            args += ["--perms", mode, "--file", str(fd), where]
    return args, fds


def _bwrap_base() -> list[str]:
    """The build and tool sandbox's start: ``_namespaces`` plus the toolchain (/usr)."""
    args = [*_namespaces(), "--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "bin", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), f"/{name}"]
        elif p.is_dir():
            args += ["--ro-bind", str(p), f"/{name}"]
    if Path("/etc/ld.so.cache").is_file():
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def own_folders() -> list[Path]:
    """supercoder's package (bundled problems, hidden outputs included) and its cache,
    where they sit under a folder every sandbox shows (a system-wide install puts them
    under /usr): each sandbox sees them empty."""
    shown = [Path(p).resolve() for p in ("/usr", "/lib", "/lib64", "/bin", "/sbin")]
    ours = [Path(__file__).resolve().parents[1], cache_dir().resolve()]
    return [p for p in ours if any(p.is_relative_to(root) for root in shown)]
