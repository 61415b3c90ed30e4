"""``sandbox.readback``: what a sandboxed process leaves is read without following a
link, opening a FIFO or a device, or reading past a cap (planted here by hand; the
sandboxed helpers that plant them: ``tests/adversarial/test_read_back.py``)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from supercoder.sandbox.readback import (
    ReadBackError,
    move_back,
    read_back,
    regular_file,
    write_into,
)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_text("HOST-SECRET\n")
    path.chmod(0o600)
    return path


def test_a_regular_file_is_read_and_a_tail_is_its_last_bytes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f").write_bytes(b"a" * 100 + b"END")
    assert read_back(tmp_path, "sub/f", 1 << 10) == b"a" * 100 + b"END"
    assert read_back(tmp_path, "sub/f", 3, tail=True) == b"END"
    assert read_back(tmp_path, "nothing", 10, missing_ok=True) is None
    assert regular_file(tmp_path, "sub/f") and not regular_file(tmp_path, "nothing")
    with pytest.raises(ReadBackError, match="is missing"):
        read_back(tmp_path, "nothing", 10)


def test_links_are_never_followed_on_the_way_or_at_the_end(tmp_path: Path, secret: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "err").symlink_to(secret)
    (work / "dir").symlink_to(secret.parent)
    for name, what in (("err", "symbolic link"), ("dir/secret", "dir is a symbolic link")):
        with pytest.raises(ReadBackError, match=what) as e:
            read_back(work, name, 1 << 10)
        assert "HOST-SECRET" not in str(e.value)
        with pytest.raises(ReadBackError):
            regular_file(work, name)
    for bad in ("../secret", "/etc/passwd", "a/../../secret", "a\0b"):
        with pytest.raises(ReadBackError, match="not a plain path"):
            read_back(work, bad, 10)


def test_fifos_and_devices_are_refused_without_being_opened(tmp_path: Path) -> None:
    """A FIFO with no writer would block a plain open forever; it is never opened."""
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ReadBackError, match=r"a FIFO \(named pipe\), not a regular file"):
        read_back(tmp_path, "fifo", 10, tail=True)
    if os.geteuid() == 0:  # only root can make a device node (as root in CI)
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with pytest.raises(ReadBackError, match="a character device"):
            read_back(tmp_path, "null", 10)
    (tmp_path / "folder").mkdir()
    with pytest.raises(ReadBackError, match="a folder"):
        read_back(tmp_path, "folder", 10)


def test_an_oversized_file_is_refused_or_cut_to_its_tail(tmp_path: Path) -> None:
    with open(tmp_path / "big", "wb") as f:
        f.truncate(1 << 40)  # a terabyte, sparse: never read
        f.seek((1 << 40) - 4)
        f.write(b"last")
    with pytest.raises(ReadBackError, match="over its cap of 1.0 MiB"):
        read_back(tmp_path, "big", 1 << 20)
    assert read_back(tmp_path, "big", 4, tail=True) == b"last"


def test_move_back_moves_only_a_regular_file(tmp_path: Path, secret: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "program").write_bytes(b"\x7fELF")
    move_back(work, "program", tmp_path / "out", 1 << 20)
    assert (tmp_path / "out").read_bytes() == b"\x7fELF"
    (work / "program").symlink_to(secret)
    with pytest.raises(ReadBackError, match="symbolic link"):
        move_back(work, "program", tmp_path / "out2", 1 << 20)
    assert not (tmp_path / "out2").exists()


def test_write_into_never_writes_through_a_link(tmp_path: Path) -> None:
    """A dangling link where a header will be copied (left by a sandboxed run) would
    have the host create the file it points to."""
    work, target = tmp_path / "work", tmp_path / "planted.h"
    (work / "lib").mkdir(parents=True)
    (work / "sha.h").symlink_to(target)
    (work / "inc").symlink_to(tmp_path)
    with pytest.raises(ReadBackError, match="symbolic link"):
        write_into(work, "sha.h", b"#define X 1\n")
    with pytest.raises(ReadBackError, match="inc is a symbolic link"):
        write_into(work, "inc/planted.h", b"#define X 1\n")
    assert not target.exists()
    assert write_into(work, "lib/util.h", b"int f(void);\n")
    assert not write_into(work, "lib/util.h", b"other")  # the first copy stays
    assert (work / "lib" / "util.h").read_bytes() == b"int f(void);\n"
