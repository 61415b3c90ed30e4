"""What a portable answer costs: the `compiler` model under each ``--target``, side by side.

For each problem (default: the bundled ``val`` split) and each target (default
``native`` and ``x86-64``), the compiler model searches builds for that target the way
``eval`` runs it (``compiler:budget=B,target=T``, every build judged by the verification
service under ``CheckConfig(target=T)``), and its chosen answer is re-checked fresh under
the same target (``evaluate`` with ``CheckConfig(target=T)``: the assembler refuses anything the
target does not allow). Printed per problem: the fresh speedup [95% CI] and the lowest
x86-64 level the answer runs on, per target; then the geometric mean of each target's
speedups (a wrong answer would count as 0: none was) and the ratio to the first target.

usage: python benchmarks/targets.py [--budget 20] [--targets native,x86-64] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import math

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.runs.buildsearch import BuildsConfig, builds_settings
from supercoder.runs.dispatch import search
from supercoder.runs.strategies import make_verifier
from supercoder.toolchain.gcc import cpu_model, gcc_version
from supercoder.toolchain.isa import parse_target
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.service import VerifyConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("problems", nargs="*")
    ap.add_argument("--benchmark", default="val")
    ap.add_argument("--budget", type=float, default=20.0)
    ap.add_argument("--targets", default="native,x86-64")
    args = ap.parse_args()
    targets = [parse_target(t) for t in args.targets.split(",")]
    problems = load_benchmark(args.benchmark)
    if args.problems:
        problems = [p for p in problems if p.name in args.problems]
    print(f"# {cpu_model()} | {gcc_version()} | budget {args.budget:g} CPU s per problem")
    head = f"{'problem':24}" + "".join(
        f" | {t.value + ': speedup [CI], runs on':52}" for t in targets
    )
    print(head)
    logs: dict[str, list[float]] = {t.value: [] for t in targets}
    for problem in problems:
        cells = []
        for target in targets:
            settings = builds_settings(BuildsConfig(args.budget), 64, target.value)
            config = CheckConfig(target=target)
            verify = make_verifier(VerifyConfig(config))
            outcome = search(problem, [], settings, verify=verify)
            best = outcome.best
            asm = best.candidate.asm if best else None
            v = evaluate(problem, asm, config)
            sp = v.speedup
            value = sp.value if v.correct and sp else (1.0 if v.correct else 0.0)
            logs[target.value].append(math.log(max(value, 1e-9)))
            ci = f"[{sp.low:.3f}, {sp.high:.3f}]" if sp else "(not timed)"
            level = (v.isa.level or "no level") if v.isa else "-"
            cells.append(f"{v.status.value} {value:.3f}x {ci} {level}")
        print(f"{problem.name:24}" + "".join(f" | {c:52}" for c in cells), flush=True)
    first = targets[0].value
    g0 = math.exp(sum(logs[first]) / max(len(logs[first]), 1))
    for target in targets:
        g = math.exp(sum(logs[target.value]) / max(len(logs[target.value]), 1))
        print(f"geomean {target.value:10} {g:.3f}x  ({g / g0:.3f} of {first})")


if __name__ == "__main__":
    main()
