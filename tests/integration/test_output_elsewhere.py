"""Programs whose result is not on their stdout as such (issue 42 items 3-4): one that
writes it to a file named ``/dev/stdout`` (MiBench susan: ``susan in.pgm /dev/stdout
-s``), one that prints it on stderr (Linpack: init says ``pass --stderr``, and with it
stderr is compared), one that writes its output file beside its input (a compressor:
``x.in`` -> ``x.in.out``, read back and compared). Real gcc, the real sandbox."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import sandbox_or_skip

SUSAN = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r"), *out = fopen(argv[2], "w");
    if (!in || !out) { perror("open"); return 1; }
    long s = 0; int c;
    while ((c = fgetc(in)) != EOF) s = s * 7 + c;
    fprintf(out, "%ld\n", s);
    return 0;
}
"""

LINPACK = r"""
#include <stdio.h>
int main(void) {
    double x = 0;
    for (int i = 1; i < 2000; i++) x += 1.0 / i;
    fprintf(stderr, "norm %.6f\n", x);
    return 0;
}
"""

COMPRESS = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    char name[256]; snprintf(name, sizeof name, "%s.out", argv[1]);
    FILE *in = fopen(argv[1], "r"), *out = fopen(name, "w");
    if (!in || !out) { perror(name); return 1; }
    int c; while ((c = fgetc(in)) != EOF) fputc(c == 'a' ? 'b' : c, out);
    puts("done");
    return 0;
}
"""


def sc(cwd, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "supercoder.cli", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_dev_stdout_is_the_runs_stdout(tmp_path):
    sandbox_or_skip()
    (tmp_path / "susan.c").write_text(SUSAN)
    (tmp_path / "in.pgm").write_text("P2 3 3\n" * 50)
    made = sc(tmp_path, "problem", "init", "susan.c", "--args", "in.pgm /dev/stdout", "-o", "P")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "P" / "tests" / "run.out").read_text().strip().lstrip("-").isdigit()


def test_a_result_on_stderr_is_refused_with_a_hint_that_works_and_is_then_compared(tmp_path):
    sandbox_or_skip()
    (tmp_path / "lin.c").write_text(LINPACK)
    first = sc(tmp_path, "problem", "init", "lin.c", "-o", "P")
    assert first.returncode != 0 and "pass --stderr (problem init)" in first.stderr
    made = sc(tmp_path, "problem", "init", "lin.c", "--stderr", "-o", "P")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "P" / "tests" / "run.out").read_text().startswith("norm 8.17")
    base = sc(tmp_path, "problem", "baseline", "P", "-o", "base.s")
    assert base.returncode == 0, base.stderr
    ok = sc(tmp_path, "check", "P", "base.s", "--json", "--no-time")
    assert json.loads(ok.stdout)["status"] == "ok", ok.stdout
    # a candidate whose stderr differs (one digit fewer): wrong
    asm = (tmp_path / "base.s").read_text()
    (tmp_path / "quiet.s").write_text(asm.replace("norm %.6f", "norm %.5f"))
    wrong = sc(tmp_path, "check", "P", "quiet.s", "--json", "--no-time")
    assert json.loads(wrong.stdout)["status"] == "wrong_output", wrong.stdout


def test_a_file_written_beside_the_input_is_compared(tmp_path):
    sandbox_or_skip()
    (tmp_path / "comp.c").write_text(COMPRESS)
    (tmp_path / "x.in").write_text("banana\n" * 20)
    made = sc(tmp_path, "problem", "init", "comp.c", "--args", "x.in", "-o", "P")
    assert made.returncode == 0, made.stderr
    out = (tmp_path / "P" / "tests" / "run.out").read_text()
    assert out.startswith("done\n\n[files the run wrote, after 5 bytes of stdout]\n")
    assert "== x.in.out (140 bytes) ==\n" + "bbnbnb\n" * 20 in out
    base = sc(tmp_path, "problem", "baseline", "P", "-o", "base.s")
    asm = (tmp_path / "base.s").read_text()
    assert base.returncode == 0 and "$97" in asm, asm[:2000]
    (tmp_path / "bad.s").write_text(asm.replace("$97", "$99"))  # 'c' for 'a': file differs
    wrong = sc(tmp_path, "check", "P", "bad.s", "--json", "--no-time")
    assert json.loads(wrong.stdout)["status"] == "wrong_output", wrong.stdout
