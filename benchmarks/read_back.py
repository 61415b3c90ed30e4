"""What reading back a sandbox's files safely costs, before and now, side by side.

Before, the host read what a sandboxed helper left with a plain ``open`` (or moved a
built binary with ``shutil.move``); now every such file goes through
``sandbox/readback.py`` (a walk without links, ``lstat``, ``O_NOFOLLOW | O_NONBLOCK``,
``fstat``, a capped read). This times both on the files a check reads back: a
validator's stderr tail (4 KiB of a small file), an ``out.s`` listing (200 KiB), a
binary moved out of its build folder (1 MiB), each ``--repeat`` times, and prints the
microseconds per file and the ratio. Host work only: no sandbox is started.

usage: python benchmarks/read_back.py [--repeat 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from supercoder.sandbox.readback import move_back, read_back


def _time(fn, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    try:
        (work / "err").mkdir()
        (work / "err" / "0").write_bytes(b"x" * 3000 + b"\nwhy\n")
        (work / "out.s").write_bytes(b"\tmovl\t$1, %eax\n" * 14000)
        binary = os.urandom(1 << 20)

        def tail_before() -> bytes:
            return (work / "err" / "0").read_bytes()[-4096:]

        def tail_now() -> bytes:
            return read_back(work, "err/0", 4096, tail=True) or b""

        def listing_before() -> bytes:
            return (work / "out.s").read_bytes()

        def listing_now() -> bytes:
            return read_back(work, "out.s", 64 << 20) or b""

        def move_before() -> None:
            (work / "program").write_bytes(binary)
            shutil.move(work / "program", work / "moved")

        def move_now() -> None:
            (work / "program").write_bytes(binary)
            move_back(work, "program", work / "moved", 64 << 20)

        assert tail_before() == tail_now() and listing_before() == listing_now()
        rows = [
            ("validator stderr tail", tail_before, tail_now, args.repeat),
            ("out.s listing, 200 KiB", listing_before, listing_now, args.repeat),
            ("binary moved out, 1 MiB (write included)", move_before, move_now, args.repeat // 10),
        ]
        print(f"{'file read back':44} {'before us':>10} {'now us':>10} {'now/before':>11}")
        for name, before, now, n in rows:
            b, a = _time(before, n), _time(now, n)
            b, a = min(b, _time(before, n)), min(a, _time(now, n))  # ABAB: the better of two
            print(f"{name:44} {b:10.1f} {a:10.1f} {a / b:11.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
