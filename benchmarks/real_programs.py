"""Real programs in, as a user brings them: init, optimize with the compiler model, honest result.

Each program goes through ``problem init`` from its C file and raw inputs (a Kattis
package, CodeNet files, an OpenMP program with ``--cflags -fopenmp``, plain folders),
then ``optimize``'s search with the offline ``compiler`` model. Side by side, from the
same verified answers: what the old rule (write the best correct answer) would have
handed back, and what ``optimize`` writes now (the answer only if significantly faster
on a test long enough to time, else the -O3 baseline).

usage: python benchmarks/real_programs.py [--builds native,native-unroll,O2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.loading import load_problem
from supercoder.runs.buildsearch import BuildsConfig, answer_fixed, builds_settings
from supercoder.runs.metrics import answer_origin, long_enough, problem_timed
from supercoder.runs.strategies import make_verifier
from supercoder.toolchain.gcc import cpu_model, gcc_version
from supercoder.verify.evaluate import CheckConfig

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"

SPECTRAL = r"""#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static double A(int i, int j) { return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1); }
static void mul_Av(int n, const double *v, double *out) {
    for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A(i, j) * v[j]; out[i] = s; }
}
static void mul_Atv(int n, const double *v, double *out) {
    for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A(j, i) * v[j]; out[i] = s; }
}
int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++) u[i] = 1;
    for (int k = 0; k < 10; k++) { mul_Av(n, u, t); mul_Atv(n, t, v); mul_Av(n, v, t); mul_Atv(n, t, u); }
    double vBv = 0, vv = 0;
    for (int i = 0; i < n; i++) { vBv += u[i] * v[i]; vv += v[i] * v[i]; }
    printf("%.9f\n", sqrt(vBv / vv));
    return 0;
}
"""
FANNKUCH = r"""#include <stdio.h>
int main(void) {
    int n, perm[16], perm1[16], count[16], maxflips = 0, checksum = 0, r, permcount = 0;
    if (scanf("%d", &n) != 1 || n < 1 || n > 12) return 1;
    for (int i = 0; i < n; i++) perm1[i] = i;
    r = n;
    for (;;) {
        while (r != 1) { count[r - 1] = r; r--; }
        for (int i = 0; i < n; i++) perm[i] = perm1[i];
        int flips = 0, k;
        while ((k = perm[0]) != 0) {
            for (int i = 0, j = k; i < j; i++, j--) { int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            flips++;
        }
        if (flips > maxflips) maxflips = flips;
        checksum += permcount % 2 == 0 ? flips : -flips;
        for (;;) {
            if (r == n) { printf("%d\nPfannkuchen(%d) = %d\n", checksum, n, maxflips); return 0; }
            int p0 = perm1[0];
            for (int i = 0; i < r; i++) perm1[i] = perm1[i + 1];
            perm1[r] = p0;
            if (--count[r] > 0) break;
            r++;
        }
        permcount++;
    }
}
"""


def programs(tmp: Path) -> list[tuple[str, Path, Path, InitConfig]]:
    """(name, C file, inputs folder, init options) for every program of the set."""
    out = [
        (
            "kattis_hypot",
            FIXTURES / "kattis_hypot/submissions/accepted/hypot.c",
            FIXTURES / "kattis_hypot",
            InitConfig(compare="float:1e-6"),
        ),
        (
            "codenet_digits",
            FIXTURES / "codenet_p00002/s123456.c",
            FIXTURES / "codenet_p00002",
            InitConfig(),
        ),
        (
            "openmp_harmonic",
            FIXTURES / "openmp_harmonic/harmonic.c",
            FIXTURES / "openmp_harmonic/inputs",
            InitConfig(cflags="-fopenmp"),
        ),
    ]
    for name, source, inputs in (
        ("spectral_norm", SPECTRAL, ["100", "400"]),
        ("fannkuch", FANNKUCH, ["7", "9"]),
    ):
        folder = tmp / "src" / name
        (folder / "in").mkdir(parents=True)
        (folder / f"{name}.c").write_text(source)
        for i, text in enumerate(inputs):
            (folder / "in" / f"{i}.txt").write_text(text + "\n")
        out.append((name, folder / f"{name}.c", folder / "in", InitConfig()))
    return out


def run_one(
    name: str, source: Path, inputs: Path, opts: InitConfig, tmp: Path, builds: str
) -> dict:
    start = time.perf_counter()
    report = create_problem(source, inputs, tmp / "problems" / name, opts)
    problem = load_problem(report.folder)
    outcome = answer_fixed(
        problem,
        builds_settings(BuildsConfig(builds=builds)),
        verify=make_verifier(CheckConfig()),
    )
    best = outcome.best
    v = best.verdict if best else None
    sp = v.speedup if v and v.correct else None
    improved = bool(v and v.significantly_faster and long_enough(v))
    return {
        "name": name,
        "layout": report.layout,
        "tests": report.visible + report.hidden,
        "disagree": len(report.disagreements),
        "best": answer_origin(best) if best else "-",
        "speedup": sp,
        "timed": problem_timed(outcome),
        "old_slower": bool(sp and sp.value < 1),
        "written": "candidate" if improved else "baseline",
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", default="native,native-unroll,O2")
    args = parser.parse_args()
    print(f"{gcc_version()} | {cpu_model()} | compiler builds: {args.builds}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="sc-real-") as tmp:
        for name, source, inputs, opts in programs(Path(tmp)):
            r = run_one(name, source, inputs, opts, Path(tmp), args.builds)
            rows.append(r)
            sp = r["speedup"]
            speed = f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}]" if sp else "-"
            print(
                f"{name:<16} {r['layout']:<8} tests {r['tests']:<2} answers-disagree {r['disagree']}"
                f"  best {r['best']:<28} {speed:<26} timed {str(r['timed']):<5}"
                f"  old rule wrote a slower program: {'yes' if r['old_slower'] else 'no ':<3}"
                f"  now writes {r['written']:<9} {r['seconds']:.0f}s"
            )
    slower_old = sum(r["old_slower"] for r in rows)
    slower_new = sum(r["old_slower"] and r["written"] == "candidate" for r in rows)
    print(
        f"{len(rows)} programs: the old rule hands back a slower program for {slower_old}, "
        f"optimize now for {slower_new}; untimed: {sum(r['timed'] is False for r in rows)}"
    )


if __name__ == "__main__":
    main()
