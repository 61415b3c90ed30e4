"""Which unit the answer covers, and how much of the program's work that is.

    python benchmarks/answer_unit.py [PROGRAM_DIR FILE.c ... -- INIT_ARGS...]

For a multi-unit program (default: the interpreter fixture, ``main.c src/vm.c
parse.c``), makes it a problem twice through the real CLI — with ``--answer-unit`` naming
main's unit (what every earlier version did), and with the default (the profile's
choice) — then profiles each problem's ``-O3`` build under cachegrind (the same profile
``problem profile`` shows) and prints, side by side, the share of the program's own
executed instructions inside the answer unit: what a model's rewrite can reach.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTERP = ROOT / "tests" / "fixtures" / "real_builds" / "interp"


def _init(folder: Path, files: list[str], extra: list[str]) -> tuple[float, str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "supercoder.cli",
            "problem",
            "init",
            *files,
            "-o",
            str(folder),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return _share(folder), json.loads((folder / "problem.json").read_text()).get(
        "answer_unit"
    ) or "main's"


def _share(folder: Path) -> float:
    from supercoder.problems.loading import load_problem
    from supercoder.prompting.profiling import profile_problem

    profile = profile_problem(load_problem(folder), budget_seconds=60, use_cache=False)
    own = {
        f: n for f, n in profile.files.items() if Path(f).name.startswith(("baseline.s", "unit"))
    }
    total = sum(own.values())
    answer = sum(n for f, n in own.items() if Path(f).name == "baseline.s")
    return answer / total if total else 0.0


def main(argv: list[str]) -> None:
    if argv:
        where = Path(argv[0])
        rest = argv[1:]
        cut = rest.index("--") if "--" in rest else len(rest)
        files, extra = [str(where / f) for f in rest[:cut]], rest[cut + 1 :]
        main_file = rest[0]
    else:
        files = [str(INTERP / n) for n in ("main.c", "src/vm.c", "parse.c")]
        extra, main_file = ["--inputs", str(INTERP / "tests")], "main.c"
    with tempfile.TemporaryDirectory() as tmp:
        old, _ = _init(Path(tmp) / "main", files, [*extra, "--answer-unit", main_file])
        new, unit = _init(Path(tmp) / "profiled", files, extra)
    print(f"{'answer unit':<28} {'share of instructions':>22}")
    print(f"{'main (--answer-unit ' + main_file + ')':<28} {old:>21.2%}")
    print(f"{unit + ' (the profile)':<28} {new:>21.2%}")
    if old >= 0.001:
        print(f"ratio: the profile's answer covers {new / old:.1f}x the work main's did")
    else:
        print("main's unit holds under 0.1% of the work: an answer there can speed up nothing")


if __name__ == "__main__":
    main(sys.argv[1:])
