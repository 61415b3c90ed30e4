"""A program whose argument names a data file outside the working folder
(``../data/small.bin``, as MiBench's crc32 is run): init's hint names a command that
works, and that command makes the problem. Real gcc, the real sandbox."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import sandbox_or_skip

CRC = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (!f) { perror(argc > 1 ? argv[1] : "no file"); return 1; }
    unsigned long s = 0; int c;
    while ((c = fgetc(f)) != EOF) s = s * 31 + (unsigned long)c;
    printf("%lu\n", s);
    return 0;
}
"""


def init(cwd, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "supercoder.cli", "problem", "init", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_file_outside_the_working_folder_is_shipped_or_gets_a_hint_that_works(tmp_path):
    sandbox_or_skip()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "small.bin").write_bytes(b"abc\n" * 100)
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "crc.c").write_text(CRC)
    made = init(prog, "crc.c", "--args", "s=../data/small.bin", "-o", "P")
    assert made.returncode == 0, made.stderr
    assert "../data/small.bin -> small.bin" in made.stdout, made.stdout
    assert (prog / "P" / "tests" / "s.args").read_text() == "small.bin\n"
    assert (prog / "P" / "tests" / "s.files" / "small.bin").read_bytes() == b"abc\n" * 100
    # from a folder where ../data/small.bin is not there: the hint names --files PATH
    deeper = tmp_path / "a" / "b"
    deeper.mkdir(parents=True)
    (deeper / "crc.c").write_text(CRC)
    first = init(deeper, "crc.c", "--args", "s=../data/small.bin", "-o", "P")
    assert first.returncode != 0
    assert "give its path from here with --files PATH" in first.stderr, first.stderr
    assert "--exit-code" not in first.stderr
    again = init(deeper, "crc.c", "--args", "s=../data/small.bin", "--files",
                 "../../data/small.bin", "-o", "P")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert (deeper / "P" / "tests" / "s.args").read_text() == "small.bin\n"
