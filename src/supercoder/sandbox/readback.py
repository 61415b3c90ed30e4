"""Reading back what a sandboxed process left behind: the one way the host touches it.

A one-shot sandbox's work folder (``oneshot.run_isolated``) is writable from inside: a
validator, a generator, a profiled or instrumented program, a tool may leave anything
there — a symbolic link to a root-only file, a FIFO (an ``open`` that never returns), a
device node, a file of gigabytes, a folder link that moves every path below it. The
host reads such a folder only through this module:

- ``read_back(folder, name, cap)``: every folder on the way is opened without following
  links (``openat`` component by component, ``O_NOFOLLOW | O_DIRECTORY``), the file is
  looked at before it is opened (``lstat``: only a regular file is opened at all, so a
  FIFO or a device is never opened), then opened ``O_NOFOLLOW | O_NONBLOCK``, checked
  again (``fstat``: the same regular file) and read up to ``cap`` bytes (``tail``: its
  last ``cap`` bytes). Anything else is a ``ReadBackError`` with a one-line reason
  ("err/0 is a FIFO, not a regular file"): the failure of whatever left it.
- ``regular_file(folder, name)``: is there a regular file (``False`` when nothing is
  there; a link, a FIFO or a device there is a ``ReadBackError``).
- ``move_back(folder, name, dest, cap)``: a product (a binary) out of the folder, the
  file checked as above and the inode moved checked after the move.
- ``write_into(folder, name, data)``: a file written into a folder a sandboxed process
  may have written before (PGO's build folder): created, never followed, never
  truncated through a link; ``remove_placed`` removes what it made, after the run,
  never through a link the run left (a test's data files in a one-shot run's folder).

A leaf of ``sandbox/``: the standard library and ``errors`` only.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath

from supercoder.errors import UserError, file_kind, printable

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class ReadBackError(UserError):
    """What a sandboxed process left is not a regular file within its cap (one line)."""


def _kind(mode: int) -> str:
    return "a symbolic link" if stat.S_ISLNK(mode) else file_kind(mode)


def _parts(name: str | PurePath) -> tuple[str, ...]:
    parts = PurePath(name).parts
    bad = any(p in ("..", ".", "") or "\0" in p for p in parts)
    if not parts or PurePath(name).is_absolute() or bad:
        raise ReadBackError(f"{printable(str(name))!r}: not a plain path inside the work folder")
    return parts


@contextlib.contextmanager
def _parent(
    folder: Path, parts: tuple[str, ...], create: bool = False, made: list[str] | None = None
) -> Iterator[int]:
    """A descriptor of the folder holding ``parts[-1]``, reached from ``folder`` without
    following a link on the way (``create``: missing folders are made, mode 0755, and
    their paths added to ``made``)."""
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        for k, part in enumerate(parts[:-1]):
            where = "/".join(parts[: k + 1])
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fds[-1])
                    if made is not None:
                        made.append(where)
            try:
                fds.append(os.open(part, _DIR_FLAGS, dir_fd=fds[-1]))
            except FileNotFoundError:
                raise
            except OSError as e:
                try:
                    mode = os.stat(part, dir_fd=fds[-1], follow_symlinks=False).st_mode
                except OSError:
                    raise ReadBackError(f"{where}: cannot be opened ({e.strerror})") from e
                raise ReadBackError(f"{where} is {_kind(mode)}, not a folder") from e
        yield fds[-1]
    finally:
        for fd in fds:
            os.close(fd)


def _open_regular(dfd: int, name: str, shown: str) -> tuple[int, os.stat_result]:
    """``name`` in the folder ``dfd`` opened for reading, only if a regular file."""
    before = os.stat(name, dir_fd=dfd, follow_symlinks=False)  # FileNotFoundError passes
    if not stat.S_ISREG(before.st_mode):
        raise ReadBackError(f"{shown} is {_kind(before.st_mode)}, not a regular file")
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dfd)
    except OSError as e:  # replaced between the two looks: a link (ELOOP) or worse
        raise ReadBackError(f"{shown} changed while it was read ({e.strerror})") from e
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise ReadBackError(f"{shown} changed while it was read")
    return fd, st


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_back(
    folder: Path,
    name: str | PurePath,
    cap: int,
    *,
    tail: bool = False,
    missing_ok: bool = False,
) -> bytes | None:
    """The bytes of the regular file ``folder/name`` left by a sandboxed process, at most
    ``cap`` (``tail``: its last ``cap`` bytes; else a bigger file is refused). Missing:
    ``None`` with ``missing_ok``, else ``ReadBackError``; a link anywhere on the way, a
    FIFO, a device, a socket or a folder: ``ReadBackError``. Never blocks."""
    parts = _parts(name)
    shown = "/".join(parts)
    try:
        with _parent(Path(folder), parts) as dfd:
            fd, st = _open_regular(dfd, parts[-1], shown)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise ReadBackError(f"{shown} is missing") from None
    try:
        start = 0
        if st.st_size > cap:
            if not tail:
                raise ReadBackError(f"{shown} is {_size(st.st_size)}, over its cap of {_size(cap)}")
            start = st.st_size - cap
        chunks, got = [], 0
        while got <= cap:
            chunk = os.pread(fd, min(1 << 20, cap + 1 - got), start + got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        data = b"".join(chunks)
        if len(data) > cap:  # it grew after the look
            if not tail:
                raise ReadBackError(f"{shown} is over its cap of {_size(cap)}")
            data = data[-cap:]
        return data
    finally:
        os.close(fd)


def read_back_text(folder: Path, name: str | PurePath, cap: int) -> str:
    """``read_back`` decoded as text (undecodable bytes replaced)."""
    return (read_back(folder, name, cap) or b"").decode(errors="replace")


def regular_file(folder: Path, name: str | PurePath) -> bool:
    """Whether ``folder/name`` is a regular file (``False``: nothing there); a link on
    the way, a FIFO, a device or a folder there is a ``ReadBackError``."""
    parts = _parts(name)
    try:
        with _parent(Path(folder), parts) as dfd:
            mode = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        raise ReadBackError(f"{'/'.join(parts)} is {_kind(mode)}, not a regular file")
    return True


def move_back(folder: Path, name: str | PurePath, dest: Path, cap: int) -> None:
    """Move the regular file ``folder/name`` (at most ``cap`` bytes) to ``dest`` (a host
    path of the caller's): renamed where it can be, the inode that arrives checked to
    be the one looked at, else copied from the open file."""
    parts = _parts(name)
    shown = "/".join(parts)
    try:
        with _parent(Path(folder), parts) as dfd:
            fd, st = _open_regular(dfd, parts[-1], shown)
            try:
                if st.st_size > cap:
                    raise ReadBackError(
                        f"{shown} is {_size(st.st_size)}, over its cap of {_size(cap)}"
                    )
                try:
                    os.rename(parts[-1], dest, src_dir_fd=dfd)
                except OSError:  # another file system: copy what was opened
                    _copy(fd, dest, cap, shown)
                    return
                moved = os.stat(dest, follow_symlinks=False)
                if (moved.st_dev, moved.st_ino) != (st.st_dev, st.st_ino):
                    os.unlink(dest)
                    raise ReadBackError(f"{shown} changed while it was moved")
            finally:
                os.close(fd)
    except FileNotFoundError:
        raise ReadBackError(f"{shown} is missing") from None


def _copy(fd: int, dest: Path, cap: int, shown: str) -> None:
    out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        done = 0
        while chunk := os.pread(fd, 1 << 20, done):
            done += len(chunk)
            if done > cap:
                raise ReadBackError(f"{shown} is over its cap of {_size(cap)}")
            os.write(out, chunk)
    except BaseException:
        os.close(out)
        with contextlib.suppress(OSError):
            os.unlink(dest)
        raise
    os.close(out)


def write_into(
    folder: Path,
    name: str | PurePath,
    data: bytes,
    mode: int = 0o644,
    made: list[str] | None = None,
) -> bool:
    """Write ``data`` as a new file ``folder/name`` (folders on the way made, and with
    the file added to ``made``), never through a link a sandboxed process left there: a
    name that already exists is left alone (``False``) when it is a regular file, else a
    ``ReadBackError``."""
    parts = _parts(name)
    with _parent(Path(folder), parts, create=True, made=made) as dfd:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(parts[-1], flags, mode, dir_fd=dfd)
        except FileExistsError:
            st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode):
                return False
            raise ReadBackError(
                f"{'/'.join(parts)} is {_kind(st.st_mode)}, not a regular file"
            ) from None
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    if made is not None:
        made.append("/".join(parts))
    return True


def remove_placed(folder: Path, names: list[str]) -> None:
    """Remove what ``write_into`` made (``made``, deepest last), after a sandboxed
    process ran in ``folder``: never through a link it left in their place or on the
    way (a folder swapped for a link to a host folder: nothing there is removed); what
    cannot be removed so is left to the folder's own removal."""
    for name in reversed(names):
        parts = _parts(name)
        with contextlib.suppress(OSError, ReadBackError), _parent(Path(folder), parts) as dfd:
            st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(parts[-1], dir_fd=dfd)
            else:  # a file, or what replaced it (a link itself, never its target)
                os.unlink(parts[-1], dir_fd=dfd)
