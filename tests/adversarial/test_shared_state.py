"""No channel through shared kernel state: one run cannot leave anything for the next.

Before: the runtime sandbox showed all of ``/usr``, hundreds of MB of files no test
needs. Whether a page of such a file is cached can be read by timing one page fault,
and any run makes a page cached by touching it: a candidate kept its answers in the
page cache of a big read-only file (``page_cache_channel.c``: computed honestly and
written in the correctness pass, read back at once in every timing run), 26-30x on
popcount, 17-18x on a sieve, ``significantly_faster``; this fixture read 9.7x
[9.2, 10.8] on its problem. Now a run sees only its binary's loader and libraries,
copied into the sandbox's memory (always resident), its inputs and binaries sit in a
tmpfs, and ``mincore``, ``MADV_PAGEOUT``/``MADV_COLD`` and ``POSIX_FADV_DONTNEED`` are
refused: no page a run can touch changes state, so the channel carries nothing.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.adversarial.test_adversarial import CONFIG, fixture_asm, problem, refused
from tests.fakes.tiny_model import SLOW_SOURCE, expected_output

__all__ = ["problem"]
SLOTS = 12  # as in the fixture


def slot(data: bytes) -> int:
    """The fixture's slot for an input (FNV-1a of its bytes, mod SLOTS)."""
    key = 1469598103934665603
    for b in data:
        key = ((key ^ b) * 1099511628211) % (1 << 64)
    return key % SLOTS


def channel_file() -> str | None:
    """A big file under /usr that runs did see before (the fixture needs ~20 MB)."""
    roots = [Path("/usr/lib/gcc/x86_64-linux-gnu"), Path("/usr/libexec/gcc/x86_64-linux-gnu")]
    for root in roots:
        for path in sorted(root.glob("*/lto1")) + sorted(root.glob("*/cc1plus")):
            if path.is_file() and path.stat().st_size > 24 << 20:
                return str(path)
    return None


@pytest.fixture(scope="module")
def slow_problem(tmp_path_factory):
    """Two long tests whose inputs fall in different slots of the fixture's cache."""
    folder = tmp_path_factory.mktemp("channel") / "slow"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SLOW_SOURCE)
    ns = [20_000_000]
    n = 16_000_000
    while slot(f"{n}\n".encode()) == slot(f"{ns[0]}\n".encode()):
        n += 1
    ns.append(n)
    for i, n in enumerate(ns):
        (folder / "tests" / f"t{i}.in").write_text(f"{n}\n")
        (folder / "tests" / f"t{i}.out").write_text(expected_output(n))
    return load_problem(folder)


def test_an_answer_cache_in_the_page_cache_earns_nothing(slow_problem):
    path = channel_file()
    if path is None:
        pytest.skip("no big gcc file under /usr to stand in for the channel's file")
    fd = os.open(path, os.O_RDONLY)  # host side: start from uncached pages, as before
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    asm = fixture_asm("page_cache_channel", f'FILE_PATH="{path}"')
    verdict = evaluate(
        slow_problem, asm, CheckConfig(meter=replace(CheckConfig().meter, max_pairs=6))
    )
    assert verdict.status is Status.OK, verdict.message  # the fallback is honest
    assert verdict.speedup is not None and verdict.speedup.value < 1.5, verdict.speedup
    assert not verdict.significantly_faster


def test_no_run_can_read_or_change_what_is_cached(problem):
    """mincore says whether pages are cached; MADV_PAGEOUT/MADV_COLD and FADV_DONTNEED
    evict them: all refused (the fixture answers only if one worked)."""
    for kind in range(3):
        verdict = evaluate(problem, fixture_asm("cache_state", f"KIND={kind}"), CONFIG)
        assert refused(verdict), (kind, verdict.status, verdict.message)


def test_each_run_has_a_root_of_its_own(problem):
    """Before: every run of a sandbox shared one filesystem (``/sc/in``, ``/sc/runner``,
    the other binaries, ``/dev``): the names a run looked up stayed in the kernel's
    dentry cache for the next run to time. Now each run gets a fresh tmpfs root with its
    own binary, libraries and device nodes only (its input is the open stdin)."""
    verdict = evaluate(problem, fixture_asm("fresh_root"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)
