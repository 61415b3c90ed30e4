"""A test's data files in a one-shot run's folder are placed and removed without links.

Before: a one-shot run (a profile, coverage, a tool) with a test's data file in a
subfolder (``tests/NAME.files/sub/data.txt``) had it written by the host into the run's
folder, and removed after the run by its path: a run that swapped ``sub`` for a link to
a host folder had the host (root) delete that folder's ``data.txt``, and a link an
earlier run left there had the host write through it. Now both go through
``sandbox.readback`` (``write_into``, ``remove_placed``): never through a link. The
hostile command runs only in the project's sandbox, bounded.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated
from supercoder.types import with_args
from tests.conftest import sandbox_or_skip

LIMITS = Limits(
    cpu_seconds=5,
    wall_seconds=60,
    memory_mb=512,
    output_bytes=1 << 16,
    processes=4,
    idle_seconds=None,
    idle_total_seconds=None,
)


def _run(work: Path, script: str, files: list[tuple[str, bytes]]):
    return run_isolated(
        ["/bin/sh", "-c", script], work, limits=LIMITS, stdin=with_args((), b"", files)
    )


def test_a_data_folder_swapped_for_a_link_removes_no_host_file(tmp_path: Path) -> None:
    sandbox_or_skip()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "data.txt").write_text("the host's own file\n")
    work = Path(tempfile.mkdtemp())
    swap = f"cat sub/data.txt && mv sub sub.old && ln -s {victim} sub && echo swapped"
    run = _run(work, swap, [("sub/data.txt", b"the test's data\n")])
    assert run.stdout.decode() == "the test's data\nswapped\n", run.stderr
    assert (victim / "data.txt").read_text() == "the host's own file\n"  # before: deleted


def test_a_link_left_where_a_data_folder_goes_is_not_written_through(tmp_path: Path) -> None:
    sandbox_or_skip()
    victim = tmp_path / "victim"
    victim.mkdir()
    work = Path(tempfile.mkdtemp())
    assert _run(work, f"ln -s {victim} sub && echo planted", []).stdout == b"planted\n"
    with pytest.raises(UserError, match="clashes with a file of the run's folder"):
        _run(work, "true", [("sub/new.txt", b"written by the host\n")])
    assert list(victim.iterdir()) == []  # before: the host wrote victim/new.txt
