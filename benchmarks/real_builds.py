"""Real programs as their repositories build them, through the CLI as a user runs it.

The set (``tests/fixtures/real_builds``): a PolyBench/C-style kernel (``gemver``, its
``polybench.c`` a second source file, ``-I utilities``, sized by ``-D*_DATASET``, dumps on
stderr unless told otherwise), an Embench-style fixed-size benchmark that reads no input,
a program whose helpers live in a second ``.c`` file, a unity build that includes a ``.c``
file, and a program that prints only on stderr. Each goes through ``supercoder problem
init`` the way its repository documents the build (relative ``-o``, ``-I DIR``, extra
``.c`` files), then one ``supercoder eval --model compiler`` over the problems that init
made (timed, or ``--no-time``), and the table says per program: what init made of it
(the kind: reads input, memorizable, refused), what the speedup was measured on, and the
speedup [95% CI] or why there is none; then the run's headline figures, with the
memorizable problems apart.

usage: python benchmarks/real_builds.py [--no-time] [--samples 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real_builds"

# (name, folder the build runs in, problem init arguments) as each repository builds it
PROGRAMS: list[tuple[str, str, list[str]]] = [
    (
        "gemver_large",
        "polybench",
        [
            "utilities/polybench.c",
            "kernels/gemver/gemver.c",
            "-I",
            "utilities",
            "-I",
            "kernels/gemver",
            "-DLARGE_DATASET",
            "-DPOLYBENCH_DUMP_ARRAYS",
            "-DPOLYBENCH_DUMP_TARGET=stdout",
        ],
    ),
    (
        "gemver_small",
        "polybench",
        [
            "utilities/polybench.c",
            "kernels/gemver/gemver.c",
            "-I",
            "utilities",
            "-I",
            "kernels/gemver",
            "-DPOLYBENCH_DUMP_ARRAYS",
            "-DPOLYBENCH_DUMP_TARGET=stdout",
        ],
    ),
    (
        "gemver_unedited",
        "polybench",
        [
            "utilities/polybench.c",
            "kernels/gemver/gemver.c",
            "-I",
            "utilities",
            "-I",
            "kernels/gemver",
            "-DPOLYBENCH_DUMP_ARRAYS",
        ],
    ),
    ("embench_fixed", ".", ["noinput.c", "-DREPEAT=3000"]),
    ("stats_twofile", "twofile", ["main.c", "stats.c", "--inputs", "tests"]),
    ("crc_unity", "unity", ["crc.c", "--inputs", "tests"]),
    ("stderr_only", ".", ["stderr_only.c"]),
]


def _large_inputs(repo: Path) -> None:
    """A test of the size these programs are run at (the fixtures' own are small)."""
    import random

    rng = random.Random(7)
    n = 400_000
    numbers = " ".join(str(rng.randint(-1000, 1000)) for _ in range(n))
    (repo / "twofile" / "tests" / "large.txt").write_text(f"{n}\n{numbers}\n")
    lines = (
        "".join(rng.choice("abcdefghij") for _ in range(rng.randint(20, 200)))
        for _ in range(20_000)
    )
    (repo / "unity" / "tests" / "large.txt").write_text("\n".join(lines) + "\n")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=3600,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-time", action="store_true", help="eval without timing")
    parser.add_argument("--samples", type=int, default=3, help="compiler builds per problem")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sc-realbuilds-") as tmp_name:
        tmp = Path(tmp_name)
        repo = tmp / "repo"
        shutil.copytree(REAL, repo)
        _large_inputs(repo)
        bench = tmp / "bench"
        kinds: dict[str, str] = {}
        for name, where, init_args in PROGRAMS:
            # a relative -o, from the folder the repository's build runs in
            out = Path("../" * len(Path(where).parts)) / ".." / "bench" / name
            proc = cli("problem", "init", *init_args, "-o", str(out), cwd=repo / where)
            if proc.returncode != 0:
                why = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
                if "prints nothing on stdout" in why:
                    hint = "; names the -D fix" if "--cflags -D" in why else ""
                    why = f"stdout empty, output on stderr{hint}"
                kinds[name] = "refused: " + why[:50]
                continue
            meta = json.loads((bench / name / "problem.json").read_text())
            kinds[name] = "memorizable" if meta.get("reads_input") is False else "reads input"
        started = time.perf_counter()
        summary_path = tmp / "summary.json"
        proc = cli(
            "eval",
            "--benchmark",
            str(bench),
            "--model",
            "compiler",
            "--samples",
            str(args.samples),
            "--db",
            str(tmp / "runs.sqlite"),
            "--json",
            str(summary_path),
            *(["--no-time"] if args.no_time else []),
        )
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            print(proc.stdout[-2000:], proc.stderr[-2000:])
            raise SystemExit(proc.returncode)
        s = json.loads(summary_path.read_text())
        ctx = s["context"]
        print(
            f"{ctx.get('gcc')} | {ctx.get('cpu')} | eval {'--no-time' if args.no_time else 'timed'}"
        )
        print(f"{'program':<16} {'kind':<40} {'timed on':<30} speedup [95% CI]")
        for name, _, _ in PROGRAMS:
            row = s["per_problem"].get(name)
            if row is None:
                print(f"{name:<16} {kinds[name]:<40} {'-':<30} n/a")
                continue
            on = "visible tests (memorizable)" if row["memorizable"] else "tests it never saw"
            if row["timed"]:
                lo, hi = row["speedup_ci"]
                speed = f"{row['speedup']:.3f}x [{lo:.3f}, {hi:.3f}] {row['origin']}"
            else:
                why = row["timed_reason"]
                why = "every test under 5 ms" if "under 5 ms" in why else why[:60]
                on, speed = "-", f"n/a ({why})"
            print(f"{name:<16} {kinds[name]:<40} {on:<30} {speed}")
        geo = s["geomean_speedup"]
        mem = s["memorizable_geomean_speedup"]
        print(
            f"{len(PROGRAMS)} programs, {s['problems']} problems: accuracy {s['accuracy']}%, "
            f"geomean {geo if geo is not None else 'n/a'} (reading programs), "
            f"memorizable {s['problems_memorizable']} apart (geomean "
            f"{mem if mem is not None else 'n/a'}, improved {s['memorizable_improved']}), "
            f"improved {s['improved']}, untimed "
            f"{s['problems_untimed']}, timed_share {s['timed_share']}%; eval {seconds:.0f}s"
        )


if __name__ == "__main__":
    main()
