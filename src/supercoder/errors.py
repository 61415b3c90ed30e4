"""Error kinds: the user's mistake vs the machine's failure; safe text for terminals."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# What every command's exit code means: the top-level help lists this, and commands
# exit with these names, never with bare numbers.
EXIT_NOTHING_CORRECT = 1  # optimize: no answer was correct (also: an unexpected bug)
EXIT_BAD_INPUT = 2  # UserError
EXIT_MACHINE = 3  # InfraError; eval and optimize: unfinished work, rerun to retry
EXIT_INTERRUPTED = 130  # Ctrl-C
EXIT_TERMINATED = 143  # SIGTERM or SIGHUP
EXIT_CODES = {
    0: "done",
    EXIT_NOTHING_CORRECT: "done but no answer correct (optimize), or a bug",
    EXIT_BAD_INPUT: "bad input",
    EXIT_MACHINE: "machine trouble, or unfinished work (eval: rerun to retry)",
    EXIT_INTERRUPTED: "interrupted",
    EXIT_TERMINATED: "terminated",
}


def exit_codes_text() -> str:
    """``Exit codes: 0 done, 1 ..., ...`` for the top-level help."""
    return "Exit codes: " + "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items()) + "."


class SupercoderError(Exception):
    """Base class for errors the CLI reports without a traceback."""

    exit_code = EXIT_BAD_INPUT


class UserError(SupercoderError):
    """Bad input: a missing file, a malformed problem, a wrong option (exit code 2)."""


class InfraError(SupercoderError):
    """The machine failed (sandbox could not start, toolchain missing, runner died).

    Never scored as a wrong candidate: retried or dropped. Exit code 3.
    """

    exit_code = EXIT_MACHINE


# What a tool says when the machine, not the input, failed it (errno texts).
MACHINE_TROUBLE = (
    "No space left on device",
    "Disk quota exceeded",
    "Read-only file system",
    "Cannot allocate memory",
    "Too many open files",
    "Input/output error",
)
_MACHINE_ERRNOS = frozenset(
    {5, 12, 23, 24, 28, 30, 122}
)  # EIO ENOMEM ENFILE EMFILE ENOSPC EROFS EDQUOT


def machine_trouble(text: object) -> str | None:
    """The machine-trouble phrase in ``text`` (a tool's log, an error), or None."""
    if isinstance(text, OSError) and text.errno in _MACHINE_ERRNOS:
        return text.strerror or str(text)
    body = str(text)
    return next((phrase for phrase in MACHINE_TROUBLE if phrase in body), None)


def machine_error(what: str, log: object) -> InfraError:
    """An InfraError for ``what`` failing because of the machine (``log`` says how)."""
    phrase = machine_trouble(log) or "the machine failed"
    tail = str(log).strip().splitlines()[-1:] if str(log).strip() else []
    detail = f" ({tail[0][:300]})" if tail else ""
    return InfraError(
        f"{what}: {phrase} — machine trouble, not a problem with the program or its "
        f"options; free some space / resources and rerun{detail}"
    )


class MissingExtra(SupercoderError):
    """An optional dependency is not installed."""

    def __init__(self, extra: str, module: str):
        super().__init__(
            f"this needs the optional dependency {module!r}: pip install 'supercoder[{extra}]'"
        )
        self.extra = extra
        self.module = module


def require(module: str, extra: str):
    """Import an optional module lazily, or fail with the exact pip install line."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtra(extra, module) from e


# --- text from outside (servers, problem files, stored runs) ---------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_NL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, newlines: bool = True) -> str:
    """``text`` with control characters (ESC, NUL, CR, ...) and lone surrogates escaped
    as ``\\xNN``, so that nothing from outside can drive the terminal. Tabs are kept;
    newlines too unless ``newlines=False``."""
    return (_CONTROL if newlines else _CONTROL_NL).sub(_escape, str(text))


def argv_text(text: str) -> str:
    """A command-line word as the user typed it: under an ASCII locale Python reads the
    bytes of ``rün`` as lone surrogates (``r\\udcc3\\udcbcn``); where those bytes are
    UTF-8, the text they spell (``rün``). For names (a run), never for paths (a path
    keeps its bytes)."""
    if not _SURROGATE.search(text):
        return text
    try:
        return os.fsencode(text).decode("utf-8")
    except (UnicodeError, ValueError):
        return text


_SURROGATE = re.compile(r"[\udc80-\udcff]")


def parse_json(text: str | bytes, where: object) -> Any:
    """JSON from outside (a record, a problem.json, a file of runs): a value, or a one-line
    UserError naming ``where`` for text that is not JSON or is nested too deeply to
    read (Python's parser recurses: 50,000 ``[`` would otherwise be a RecursionError)."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"{where}: invalid JSON ({e})") from None
    except RecursionError:
        raise UserError(f"{where}: JSON nested too deeply to read") from None


SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def is_safe_name(name: object) -> bool:
    """A name usable as one path component: ``[A-Za-z0-9_.-]{1,100}``, not ``.``/``..``."""
    return isinstance(name, str) and bool(SAFE_NAME.fullmatch(name)) and name not in (".", "..")


def safe_slug(name: object, fallback: str = "problem") -> str:
    """A safe path component made from ``name`` (unsafe characters become ``_``)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:100].strip(".") or fallback
    return slug if is_safe_name(slug) else fallback


def inside(root: Path, path: Path) -> bool:
    """Does ``path`` (resolved, symlinks followed) stay inside ``root``?"""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def check_writable(path: Path, what: str = "output", keep_out: Iterable[Path] = ()) -> None:
    """Fail now (UserError), not after a whole run, when ``path`` cannot be written:
    creates its folder, opens it for appending (removed again if it did not exist).
    ``keep_out``: files and folders an output must never land in or replace (a
    problem's tests, its source): refused, naming the one it would overwrite."""
    path = Path(path)
    for kept in keep_out:
        if inside(Path(kept), path):
            raise UserError(
                f"{what} {path}: is inside {kept}, part of a problem (its tests or source); "
                "write the output somewhere else"
            )
    if path.is_dir():
        raise UserError(f"{what} {path}: is a folder, expected a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with open(path, "ab"):
            pass
        if not existed:
            path.unlink()
    except OSError as e:
        if e.errno in _MACHINE_ERRNOS and e.errno != 30:  # a full disk, an I/O error
            raise machine_error(f"{what} {path}", e) from e
        raise UserError(f"{what} {path}: cannot be written ({e.strerror or e})") from e


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` names, in words ("a regular file", "a FIFO (named pipe)", ...)."""
    return next((what for test, what in _KINDS if test(mode)), "a regular file")


def read_regular(path: Path, max_bytes: int, what: str = "") -> bytes:
    """The bytes of ``path`` (symbolic links followed), which must be a regular file of
    at most ``max_bytes``: a folder, FIFO, device or socket is refused (UserError, one
    line naming what it is) before anything is read, and opening never blocks (a FIFO
    with no writer, a terminal). ``what`` starts the message ("candidate")."""
    path = Path(path)
    name = f"{what} {path}" if what else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError as e:
        raise UserError(f"{name}: no such file") from e
    except IsADirectoryError as e:
        raise UserError(f"{name}: is a folder, not a file") from e
    except OSError as e:
        kind = _kind_of(path)
        if kind is not None:
            raise UserError(f"{name}: is {kind}, not a regular file") from e
        raise UserError(f"{name}: cannot be read ({e.strerror or e})") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{name}: is {file_kind(st.st_mode)}, not a regular file")
        if st.st_size > max_bytes:
            raise UserError(f"{name}: {st.st_size} bytes, over the {_size(max_bytes)} cap")
        chunks, total = [], 0
        while True:  # read to the end, never past the cap (the file may grow meanwhile)
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise UserError(f"{name}: over the {_size(max_bytes)} cap")
        return b"".join(chunks)
    except OSError as e:
        raise UserError(f"{name}: cannot be read ({e.strerror or e})") from e
    finally:
        os.close(fd)


def _kind_of(path: Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else file_kind(mode)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"
