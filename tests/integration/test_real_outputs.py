"""Issue 42 (3-5): real programs as users bring them, with real gcc and the real sandbox:
a benchmark that prints its own clock (refused showing both runs' lines, made with the
rule init suggests), a data file named in the arguments (shipped to every run, drawn as
a file), ``/dev/stdin``, a quoted define that survives every build, and the binary's
path the same for every binary of a sandbox."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from supercoder.problems.loading import load_problem
from supercoder.problems.outputs import problem_mode
from supercoder.sandbox.box import open_sandbox
from supercoder.types import with_args
from tests.conftest import sandbox_or_skip

CLOCK = r"""#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    time_t start = time(0);
    unsigned long long s = 0;
    for (int i = 0; i < n * 1000; i++) s += (unsigned)i * 2654435761u % 1000;
    printf("Result: %llu\n", s);
    printf("Time: %ld s since the epoch at start\n", (long)start);
    return 0;
}
"""

SUMF = r"""#include <stdio.h>
int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: sumf FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { printf("cannot open %s\n", argv[1]); return 1; }
    int n; long long s = 0;
    if (fscanf(f, "%d", &n) != 1) return 2;
    for (int i = 0; i < n; i++) { long long v; if (fscanf(f, "%lld", &v) != 1) return 3; s += v * (i % 5); }
    printf("%lld\n", s);
    return 0;
}
"""

STDIN = r"""#include <stdio.h>
int main(void) {
    FILE *f = fopen("/dev/stdin", "r");
    long s = 0; int v;
    if (!f) { printf("no /dev/stdin\n"); return 1; }
    while (fscanf(f, "%d", &v) == 1) s += v;
    printf("%ld\n", s);
    return 0;
}
"""

FLAGS = r"""#include <stdio.h>
int main(void) { long s = 0; for (long i = 0; i < 1000; i++) s += i % 7; printf("built with %s: %ld\n", FLAGS_STR, s); return 0; }
"""


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def _baseline_passes(tmp_path: Path, folder: Path) -> dict:
    """The problem's own -O3 baseline, checked (correctness only): it must pass."""
    from supercoder.toolchain.baseline import baseline_asm

    asm = tmp_path / f"{folder.name}.s"
    asm.write_text(baseline_asm(load_problem(folder)))
    proc = run_cli("check", str(folder), str(asm), "--no-time", "--json")
    verdict = json.loads(proc.stdout)
    verdict = verdict[0] if isinstance(verdict, list) else verdict
    assert verdict["status"] == "ok", proc.stdout[-2000:]
    return verdict


def test_a_benchmark_printing_its_clock_is_refused_with_both_lines_then_made_by_the_rule(
    tmp_path,
):
    sandbox_or_skip()
    (tmp_path / "clock.c").write_text(CLOCK)
    init = ("problem", "init", str(tmp_path / "clock.c"), "--args", "50")
    refused = run_cli(*init, "-o", str(tmp_path / "p1"))
    # its two runs straddle a second (it reads the clock): refused every time, never at random
    assert refused.returncode == 2, refused.stdout + refused.stderr
    err = " ".join(refused.stderr.split())
    assert "non-deterministic" in err and "run 1, line 2: 'Time: " in err
    assert "run 2, line 2: 'Time: " in err and "a clock" in err
    assert "pass --ignore-line Time:" in err and not (tmp_path / "p1").exists()
    made = run_cli(*init, "--ignore-line", "Time:", "-o", str(tmp_path / "p2"))
    assert made.returncode == 0, made.stderr
    meta = json.loads((tmp_path / "p2" / "problem.json").read_text())
    assert meta["compare_rules"] == [{"ignore_line": "Time:"}]
    # the baseline's Time line differs from the expected one; it still passes
    _baseline_passes(tmp_path, tmp_path / "p2")
    mode = problem_mode(load_problem(tmp_path / "p2").settings)
    assert mode.describe() == "exact after --ignore-line Time:"  # what problem show prints


def test_a_data_file_named_in_the_arguments_reaches_every_run_and_draws_are_files(tmp_path):
    sandbox_or_skip()
    (tmp_path / "sumf.c").write_text(SUMF)
    numbers = " ".join(str(7 * i % 101) for i in range(400))
    (tmp_path / "data.txt").write_text(f"400\n{numbers}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # without the file: the hint ships it (never "pass --exit-code 1")
    missing = run_cli(
        "problem", "init", "../sumf.c", "--args", "data.txt", "-o", "p0", cwd=elsewhere
    )
    assert missing.returncode == 2
    err = " ".join(missing.stderr.split())
    assert "--files data.txt" in err and "--exit-code" not in err
    made = run_cli("problem", "init", "sumf.c", "--args", "data.txt", "-o", "p", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "data files named in the arguments" in made.stdout
    folder = tmp_path / "p"
    shipped = folder / "tests" / "run.files" / "data.txt"
    assert shipped.read_text() == (tmp_path / "data.txt").read_text()
    want = sum(7 * i % 101 * (i % 5) for i in range(400))
    assert (folder / "tests" / "run.out").read_text() == f"{want}\n"
    _baseline_passes(tmp_path, folder)
    # drawn inputs are data files of that name, the arguments naming them kept
    import random

    from supercoder.problems.inputmodel import model_for
    from supercoder.types import split_run

    model = model_for(load_problem(folder))
    assert model is not None and model.spec.get("data_file") == "data.txt"
    drawn = [d.encode() for d in model.draw(random.Random(5), 3)]
    for data in drawn:
        args, files, stdin = split_run(data)
        assert args == ("data.txt",) and [n for n, _ in files] == ["data.txt"] and stdin == b""
    # a NAME=PATH ships another file under the name the arguments use
    (tmp_path / "big.txt").write_text("3\n1 2 3\n")
    renamed = run_cli(
        "problem",
        "init",
        "sumf.c",
        "--args",
        "data.txt",
        "--files",
        "data.txt=big.txt",
        "-o",
        "q",
        cwd=tmp_path,
    )
    assert renamed.returncode == 0, renamed.stderr
    assert (tmp_path / "q" / "tests" / "run.out").read_text() == "8\n"


def test_dev_stdin_is_the_runs_input_inside_the_sandbox(tmp_path):
    sandbox_or_skip()
    (tmp_path / "s.c").write_text(STDIN)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.in").write_text("1 2 3\n")
    (tmp_path / "in" / "b.in").write_text("4 5 6 7\n")
    made = run_cli(
        "problem",
        "init",
        str(tmp_path / "s.c"),
        "--inputs",
        str(tmp_path / "in"),
        "-o",
        str(tmp_path / "p"),
    )
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "p" / "tests" / "a.out").read_text() == "6\n"
    assert (tmp_path / "p" / "tests" / "b.out").read_text() == "22\n"


def test_a_quoted_define_survives_init_problem_json_and_every_build(tmp_path):
    sandbox_or_skip()
    (tmp_path / "f.c").write_text(FLAGS)
    made = run_cli(
        "problem",
        "init",
        str(tmp_path / "f.c"),
        "-D",
        'FLAGS_STR="-O2 -lrt"',
        "-o",
        str(tmp_path / "p"),
    )
    assert made.returncode == 0, made.stderr
    meta = json.loads((tmp_path / "p" / "problem.json").read_text())
    assert meta["cflags"] == ['-DFLAGS_STR="-O2 -lrt"']  # one flag, a list: never re-split
    assert (tmp_path / "p" / "tests" / "run.out").read_text().startswith("built with -O2 -lrt:")
    _baseline_passes(tmp_path, tmp_path / "p")
    # --cflags as the Makefile writes it (one shell-quoted line, split once)
    again = run_cli(
        "problem",
        "init",
        str(tmp_path / "f.c"),
        "--cflags",
        '-DFLAGS_STR="\\"-O2 -lrt\\""',
        "-o",
        str(tmp_path / "q"),
    )
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "q" / "problem.json").read_text())["cflags"] == meta["cflags"]
    # the shell ate the quotes: the hint keeps them, and never names -D O2=VALUE
    lost = run_cli(
        "problem", "init", str(tmp_path / "f.c"), "-D", "FLAGS_STR=-O2", "-o", str(tmp_path / "r")
    )
    assert lost.returncode == 2
    err = " ".join(lost.stderr.split())
    assert "lost its quotes" in err and "'-DFLAGS_STR=\"-O2\"'" in err
    assert "-D O2=VALUE" not in err


GETAUX = r"""#include <stdio.h>
#include <sys/auxv.h>
int main(void) { printf("%s\n", (const char *)getauxval(AT_EXECFN)); return 0; }
"""


def test_every_binary_of_a_sandbox_runs_from_one_path_so_its_stack_is_the_same(tmp_path):
    """The exec path is copied onto the new stack: a binary's own name would shift the
    stack of every run (baseline against its copy baseline_2)."""
    sandbox_or_skip()
    (tmp_path / "a.c").write_text(GETAUX)
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "a"), str(tmp_path / "a.c")], check=True)
    binaries = {
        "baseline": tmp_path / "a",
        "baseline_2": tmp_path / "a",
        "candidate": tmp_path / "a",
    }
    with open_sandbox(binaries) as box:
        seen = {box.run(name, with_args((), b"")).stdout for name in binaries}
    assert seen == {b"/sc/program\n"}
