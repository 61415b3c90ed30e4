"""Issue 42: programs with a handful of sizes (a depth in ``argv``, ``fannkuch N``) and
generators that list their sizes are timed on inputs the model never saw.

Before: ``binarytrees 10 12 14`` drew only the visible depths ("it drew no new input")
and then a quarter of them ("too small to time", depth 3); ``fannkuch 7 8 9`` was
refused and untimed; a generator's listed powers of two were interpolated to sizes the
program rejects. Small real-shaped programs here, with real init and the real sandbox."""

from __future__ import annotations

import random
from pathlib import Path

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import model_for
from supercoder.problems.loading import load_problem
from supercoder.types import split_args
from supercoder.verify.unseen import sources, unseen_tests
from tests.conftest import sandbox_or_skip

TREES = r"""
#include <stdio.h>
#include <stdlib.h>
/* a binary-trees-like workload: cost doubles with each step of the depth argv[1] */
static long leaf(long x) { for (int i = 0; i < 2000; i++) x = x * 1103515245 + 12345; return x & 7; }
static long walk(int d, long x) { return d == 0 ? leaf(x) : walk(d - 1, 2 * x) + walk(d - 1, 2 * x + 1); }
int main(int argc, char **argv) {
    int d = argc > 1 ? atoi(argv[1]) : 0;
    if (d < 1 || d > 30) return 1;
    printf("depth %d: %ld\n", d, walk(d, 1));
    return 0;
}
"""

PERM = r"""
#include <stdio.h>
#include <stdlib.h>
/* a fannkuch-like workload: every permutation of 1..n (n! of them) */
static int p[16];
static long go(int k, int n) {
    if (k == n) { long s = 0; for (int i = 0; i < n; i++) s += (long)p[i] * (i + 1); return s & 255; }
    long s = 0;
    for (int i = k; i < n; i++) {
        int t = p[k]; p[k] = p[i]; p[i] = t;
        s += go(k + 1, n);
        t = p[k]; p[k] = p[i]; p[i] = t;
    }
    return s;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 1 || n > 12) return 1;
    for (int i = 0; i < n; i++) p[i] = i;
    printf("%d: %ld\n", n, go(0, n));
    return 0;
}
"""

FFT = r"""
#include <stdio.h>
/* reads n (a power of two, else refused) and n numbers */
int main(void) {
    int n; long s = 0, x;
    if (scanf("%d", &n) != 1 || n < 1 || (n & (n - 1)) || n > 4096) return 1;
    for (int i = 0; i < n && scanf("%ld", &x) == 1; i++) s += x * (i ^ (n - 1));
    printf("%ld\n", s);
    return 0;
}
"""

WIDTH = r"""
#include <stdio.h>
#include <stdlib.h>
/* a mandelbrot-like width: rows of w/8 bytes, refused unless a multiple of 8 */
int main(int argc, char **argv) {
    int w = argc > 1 ? atoi(argv[1]) : 0;
    if (w < 8 || w % 8) return 1;
    unsigned long s = 0;
    for (long y = 0; y < w; y++) for (long x = 0; x < w * 40L; x++) s = s * 31 + (x ^ y);
    printf("P4 %d %lu\n", w, s);
    return 0;
}
"""

GEN = """SIZES = [16, 64, 256, 1024, 8192]

def generate(seed, size):
    import random
    r = random.Random(seed)
    return f"{size}\\n" + " ".join(str(r.randint(0, 99)) for _ in range(size)) + "\\n"
"""


def _init(tmp_path: Path, source: str, args: list[str], **kw) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "prog.c").write_text(source)
    opts = InitConfig(args=tuple(args), **kw)
    return create_problem(tmp_path / "prog.c", None, tmp_path / "p", opts).folder


def _depths(problem, k: int = 30) -> set[int]:
    model = model_for(problem)
    drawn = [d.encode() for d in model.draw(random.Random(5), k)]
    return {int(split_args(d)[0][0]) for d in drawn}


def test_depths_in_argv_are_drawn_between_and_one_step_beyond_the_visible(tmp_path):
    sandbox_or_skip()
    folder = _init(tmp_path, TREES, ["a=10", "b=12", "c=14"], calibrate=True)
    problem = load_problem(folder)
    domain = model_for(problem).domain
    assert domain.get("steps") and not domain.get("refused"), domain
    depths = _depths(problem)
    assert {11, 13} <= depths  # between the visible depths
    assert min(depths) >= 7 and max(depths) <= 16  # never a quarter of the depth
    assert not any(t.hidden for t in problem.tests)  # fresh draws: nothing kept hidden


def test_a_handful_of_sizes_keeps_the_largest_input_hidden_and_times_it(tmp_path):
    sandbox_or_skip()
    folder = _init(tmp_path, PERM, ["a=8", "b=9", "c=10"], calibrate=False)
    problem = load_problem(folder)
    assert [t.name for t in problem.tests if t.hidden] == ["hidden/c"]  # the largest, kept hidden
    assert (folder / "hidden" / "c.args").read_text() == "10\n"
    found = unseen_tests(problem)
    assert "hidden/c" in found.names, found.why  # timed on the input the model never saw
    shown = _init(tmp_path / "all", PERM, ["a=8", "b=9", "c=10"], calibrate=False, show_all=True)
    assert not any(t.hidden for t in load_problem(shown).tests)


def test_a_generator_s_listed_sizes_are_drawn_as_listed(tmp_path):
    sandbox_or_skip()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.in").write_text("4\n1 2 3 4\n")
    (tmp_path / "gen.py").write_text(GEN)
    (tmp_path / "fft.c").write_text(FFT)
    opts = InitConfig(generator=tmp_path / "gen.py", calibrate=True)
    folder = create_problem(tmp_path / "fft.c", tmp_path / "in", tmp_path / "p", opts).folder
    problem = load_problem(folder)
    from supercoder.problems.gensizes import listed_timed_sizes

    probed = [n for n, _ in listed_timed_sizes(problem, (folder / "gen.py").read_text())]
    assert 8192 not in probed  # the program refuses it: a failed probe is no clean size
    src = next(s for s in sources(problem) if s.name == "generator")
    drawn = src.draw(random.Random(1), 8)
    sizes = {int(d.split(b"\n")[0]) for d in drawn}
    assert sizes <= {16, 64, 256, 1024}, sizes  # as listed, never interpolated


def test_widths_seen_only_as_multiples_are_drawn_as_multiples(tmp_path):
    sandbox_or_skip()
    # on the command line (a benchmark's sizes): multiples from the start
    folder = _init(tmp_path, WIDTH, ["a=200", "b=1000", "c=2000"], calibrate=True)
    problem = load_problem(folder)
    assert not model_for(problem).domain.get("refused")
    widths = _depths(problem)
    assert widths and all(w % 200 == 0 for w in widths), widths  # every draw a multiple
    assert widths - {200, 1000, 2000}, widths  # and new ones among them
    # read from stdin: the refused draws refine the model to multiples
    (tmp_path / "in").mkdir()
    for name, w in (("a", 200), ("b", 1000), ("c", 2000)):
        (tmp_path / "in" / name).write_text(f"{w}\n")
    (tmp_path / "w.c").write_text(
        WIDTH.replace("argc > 1 ? atoi(argv[1]) : 0", '0; if (scanf("%d", &w) != 1) return 1')
    )
    opts = InitConfig(calibrate=True)
    stdin = create_problem(tmp_path / "w.c", tmp_path / "in", tmp_path / "q", opts).folder
    model = model_for(load_problem(stdin))
    assert "multiples" in model.domain.get("refine", []), model.domain
    drawn = {int(d.split()[0]) for d in model.draw(random.Random(3), 20)}
    assert drawn and all(w % 200 == 0 for w in drawn), drawn


SONGS = r"""
#include <stdio.h>
/* a jazz-playlist-like program: n songs and a pause c, then n durations m:ss */
int main(void) {
    int n, c, m, s, read = 0;
    long t = 0;
    if (scanf("%d %d", &n, &c) != 2) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%d:%d", &m, &s) != 2) break;
        read++;
        t += 60L * m + s + c;
    }
    printf("%d %ld\n", read, t);
    return 0;
}
"""


def test_times_like_m_ss_are_drawn_whole_so_the_program_reads_every_line(tmp_path):
    """Before: ``m:ss`` was drawn as a word over ``0123456789:``; the program stopped at
    the first ``9:1:`` and every drawn input ran under 5 ms (init also narrowed the sizes
    on a sanitizer report from the garbage), so a program whose large visible input runs
    long was untimed."""
    sandbox_or_skip()
    import subprocess

    rng = random.Random(3)
    (tmp_path / "in").mkdir()
    for name, n in (("sample", 3), ("large", 20000)):
        rows = [f"{rng.randint(0, 9)}:{rng.randint(0, 59):02d}" for _ in range(n)]
        (tmp_path / "in" / name).write_text(f"{n} 5\n" + "\n".join(rows) + "\n")
    (tmp_path / "songs.c").write_text(SONGS)
    report = create_problem(
        tmp_path / "songs.c", tmp_path / "in", tmp_path / "p", InitConfig(calibrate=False)
    )
    assert "sanitizer" not in report.domain, report.domain
    exe = tmp_path / "songs"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(tmp_path / "songs.c")], check=True)
    for text in model_for(load_problem(report.folder)).draw(random.Random(4), 4):
        n = int(text.split()[0])
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
        assert int(out.stdout.split()[0]) == n  # every drawn line read, none stopped at
