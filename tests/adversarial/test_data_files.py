"""Hostile data files (issue 42 item 4): a test's ``NAME.files/`` is part of an untrusted
problem folder, and a run sees its working folder.

A link in ``NAME.files/`` (to a host file) is refused at load like any link in a problem
folder, so no host file becomes a test's data; a run sees exactly its own test's files,
writable copies in a working folder of its own (it cannot leave a file for a later run,
nor read another test's)."""

from __future__ import annotations

import os
import subprocess

import pytest

from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from supercoder.sandbox.box import open_sandbox
from supercoder.types import with_args
from tests.conftest import make_sum_problem, sandbox_or_skip

PROBE = r"""#include <stdio.h>
int main(int argc, char **argv) {
    FILE *w = fopen("left.txt", "w");          /* leave a file for the next run */
    if (w) { fputs("mark", w); fclose(w); puts("wrote left.txt"); }
    FILE *o = fopen("a.dat", "r");             /* the first test's data file */
    if (o) puts("read a.dat");
    FILE *l = fopen("left.txt", "r");          /* what an earlier run left */
    if (l) puts("found left.txt");
    FILE *m = fopen(argv[1], "r");             /* its own file: there */
    int c = m ? fgetc(m) : -1;
    printf("own %c\n", c);
    return 0;
}
"""


def test_a_link_in_a_tests_data_files_is_refused_at_load(tmp_path):
    folder = tmp_path / "p"
    make_sum_problem(folder)
    files = folder / "tests" / "t0.files"
    files.mkdir(parents=True)
    os.symlink("/etc/hostname", files / "data.txt")
    with pytest.raises(UserError, match="symbolic link"):
        load_problem(folder)
    os.unlink(files / "data.txt")
    (files / ".hidden").write_text("x")  # a name a run's folder may not hold
    with pytest.raises(UserError, match="data file's name"):
        load_problem(folder)


def test_a_run_sees_only_its_own_data_files_and_leaves_nothing(tmp_path):
    sandbox_or_skip()
    (tmp_path / "probe.c").write_text(PROBE)
    subprocess.run(
        ["gcc", "-O2", "-o", str(tmp_path / "probe"), str(tmp_path / "probe.c")], check=True
    )
    with open_sandbox({"candidate": tmp_path / "probe"}) as box:
        first = box.run("candidate", with_args(("a.dat",), b"", (("a.dat", b"A"),)))
        second = box.run("candidate", with_args(("b.dat",), b"", (("b.dat", b"B"),)))
    # its own file; what it wrote stays in its own working folder, read back as output
    assert first.stdout.startswith(b"wrote left.txt\nread a.dat\nfound left.txt\nown A\n")
    assert b"== left.txt (4 bytes) ==\nmark\n" in first.stdout, first.stdout
    # no a.dat, and what the first run left is gone
    assert second.stdout.startswith(b"wrote left.txt\nfound left.txt\nown B\n"), second.stdout
