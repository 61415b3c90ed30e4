"""The batch reward's throughput: today's path and the cascade, side by side, in one run.

A GRPO-shaped batch: for each of PROBLEMS (bundled), 8 completions of the kinds an RL
step sees: a fast program (-O3 -march=native -funroll-loops) and its exact duplicate,
-O2, -Os, an exact copy of the baseline, the copy plus one nop, -O0, and a broken one
(exits at once: wrong output). Scored through the batch reward two ways:

- ``today``: every distinct completion checked and timed alone (``evaluate``: its own
  sandbox and baseline stream), copies of the baseline timed too, timing serialised
  machine-wide (one timing slot), checks on a local process pool (one worker per core);
- ``cascade``: ``reward.score_batch`` (checks in parallel with no timing lock, then only
  correct, distinct, non-copy programs timed, a problem's programs together in one
  session, the sessions in parallel on ``SUPERCODER_TIMING_SLOTS`` pinned slots).

Per path: wall seconds per batch, CPU seconds (sandboxed runs) per timed candidate,
candidates per minute, and the spread of each distinct program's reward over the
repeats (sd of its log reward over the programs paid every time; the median and the
largest over programs), and over every correct program with its reward as paid (0
when not proven faster) the rms sd and how many were paid in some repeats only. The paper
protocol's cost for the same batch is computed from the measured run times (a
correctness run, then hyperfine's 3 warm-ups + 10 runs for baseline and candidate, per
test, per correct program). Last, identical-program coverage with every slot busy: the
baseline checked against itself on every problem, one check per slot at a time: how
many CIs exclude 1.0, their median half-width, and the between-check spread.

``--cascade-slots 1,auto`` runs the cascade at each slot count side by side (and reads
coverage at each): whether leaving a core to the driver, the checks and the builds
pays for the slot it costs.

usage: python benchmarks/reward_throughput.py [--repeats 3] [--cascade-slots 1,auto]
       [--coverage-repeats 3] [--problems A B ...]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from dataclasses import dataclass

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.timing.intervals import Z95
from supercoder.timing.slots import physical_cores, slot_count
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm, cpu_model
from supercoder.types import Problem, Verdict
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.executors import LocalExecutor
from supercoder.verify.reward import RewardConfig, score_verdict, verify_batch
from supercoder.verify.service import VerifyConfig, verify_candidates

DEFAULT = [
    "dp_lcs",
    "num_sieve_primes",
    "graph_dijkstra",
    "bit_sos_naive",
    "str_zfunc",
    "mat_gauss_mod",
    "graph_toposort",
    "num_modpow",
]
KINDS = ("fast", "fast_dup", "O2", "Os", "copy", "copy_nop", "O0", "broken")
BROKEN = "\t.text\n\t.globl\tmain\n\t.type\tmain, @function\nmain:\n\txorl\t%eax, %eax\n\tret\n"


def completions(problem: Problem) -> dict[str, str]:
    base = baseline_asm(problem)
    fast = compile_to_asm(problem.source, ("-O3", "-march=native", "-funroll-loops"))
    return {
        "fast": fast,
        "fast_dup": fast,
        "O2": compile_to_asm(problem.source, ("-O2",)),
        "Os": compile_to_asm(problem.source, ("-Os",)),
        "copy": base,
        "copy_nop": base.replace("\nmain:\n", "\nmain:\n\tnop\n", 1),
        "O0": compile_to_asm(problem.source, ("-O0",)),
        "broken": BROKEN,
    }


@dataclass
class Pass:
    wall: float
    verdicts: list[Verdict]
    rewards: list[float | None]


def today(problems: list[Problem], asms: list[str], pool: LocalExecutor) -> Pass:
    """Every distinct completion checked and timed alone, copies too, one slot."""
    config = VerifyConfig(CheckConfig(), group_size=1)  # a session per program
    start = time.perf_counter()
    verdicts = verify_candidates(problems, asms, config, pool)
    wall = time.perf_counter() - start
    return Pass(wall, verdicts, [score_verdict(v) for v in verdicts])


def cascade(problems: list[Problem], asms: list[str], pool: LocalExecutor) -> Pass:
    start = time.perf_counter()
    texts = [f"```assembly\n{a}```" for a in asms]
    verdicts = verify_batch(problems, texts, RewardConfig(), pool)
    wall = time.perf_counter() - start
    return Pass(wall, verdicts, [score_verdict(v) for v in verdicts])


def paper_cost(problems: list[Problem], verdicts: list[Verdict]) -> float:
    """CPU seconds the paper's protocol spends on the batch's distinct correct programs:
    per test a correctness run, then (3 + 10) runs of the baseline and of the candidate."""
    seen, total = set(), 0.0
    for p, v in zip(problems, verdicts, strict=True):
        key = (p.name, v.speedup.value if v.speedup else None, v.cpu_seconds_spent)
        if not v.correct or key in seen:
            continue
        seen.add(key)
        for t in v.tests:
            base = t.baseline_seconds or t.candidate_seconds or 0.0
            cand = t.candidate_seconds or base
            total += cand + 13 * base + 13 * cand
    return total


def summary(name: str, passes: list[Pass], n: int) -> dict[str, float]:
    walls = [p.wall for p in passes]
    timed_cpu, timed = [], []
    for p in passes:
        distinct = {id(v): v for v in p.verdicts}.values()
        got = [v for v in distinct if v.speedup is not None]
        timed.append(len(got))
        timed_cpu.append(sum(v.cpu_seconds_spent for v in distinct) / max(1, len(got)))
    wall = statistics.median(walls)
    print(
        f"  {name:<8} wall {wall:6.1f}s/batch (runs: {', '.join(f'{w:.1f}' for w in walls)}), "
        f"{statistics.fmean(timed):4.1f} timed programs, CPU {statistics.fmean(timed_cpu):5.2f}s"
        f" per timed candidate, {60 * n / wall:6.1f} candidates/min"
    )
    return {"wall": wall}


def spread(passes: list[Pass], labels: list[str]) -> tuple[float, float, int, str]:
    """(median, max, programs, the three widest) of the sd of log reward per distinct
    correct program."""
    sds, named = [], []
    for i, label in enumerate(labels):
        if label.endswith(("fast_dup", "broken")):
            continue
        rs = [p.rewards[i] for p in passes]
        if any(r is None or r <= 0 for r in rs) or len(rs) < 2:
            continue
        sds.append(statistics.stdev(math.log(r) for r in rs))
        named.append((sds[-1], label))
    if not sds:
        return 0.0, 0.0, 0, ""
    widest = ", ".join(f"{label} {sd * 100:.2f}%" for sd, label in sorted(named)[::-1][:3])
    rms = math.sqrt(statistics.fmean(x * x for x in sds))
    return statistics.median(sds), max(sds), len(sds), f"rms {rms * 100:.2f}%; widest: {widest}"


def flips(passes: list[Pass], labels: list[str]) -> str:
    """Every distinct program that was correct in each repeat, its reward as paid
    (0 included: under ``gated`` a program not proven faster earns a copy's 0): the
    rms over programs of the sd of its reward, and how many were paid in some
    repeats and not in others (the noise a policy sees most)."""
    sds, flipped, n = [], 0, 0
    for i, label in enumerate(labels):
        if label.endswith(("fast_dup", "broken")):
            continue
        rs = [p.rewards[i] for p in passes]
        if any(r is None for r in rs) or len(rs) < 2:
            continue
        n += 1
        sds.append(statistics.stdev(rs))
        flipped += len({r > 0 for r in rs}) > 1
    rms = math.sqrt(statistics.fmean(x * x for x in sds)) if sds else 0.0
    return f"all {n} programs: rms sd of reward {rms:.3f}, paid in some repeats only: {flipped}"


def coverage(problems: list[Problem], repeats: int, pool: LocalExecutor) -> None:
    """Identical programs, every slot busy: the baseline checked against itself."""
    config = VerifyConfig(CheckConfig(), group_size=1)
    estimates: dict[str, list[float]] = {p.name: [] for p in problems}
    halfwidths, excluded, n = [], 0, 0
    start = time.perf_counter()
    for _ in range(repeats):
        verdicts = verify_candidates(problems, [baseline_asm(p) for p in problems], config, pool)
        for p, v in zip(problems, verdicts, strict=True):
            s = v.speedup
            if s is None:
                continue
            n += 1
            excluded += not (s.low <= 1.0 <= s.high)
            halfwidths.append((math.log(s.high) - math.log(s.low)) / 2)
            estimates[p.name].append(math.log(s.value))
    sds = [statistics.stdev(x) for x in estimates.values() if len(x) > 1]
    between = math.sqrt(statistics.fmean(s * s for s in sds)) if sds else float("nan")
    hw = statistics.median(halfwidths) if halfwidths else float("nan")
    print(
        f"identical programs, {slot_count()} slots busy: {excluded}/{n} CIs exclude 1.0; "
        f"median half-width {hw * 100:.2f}%, between-check sd {between * 100:.2f}% "
        f"(half-width / (1.96 x sd) = {hw / (Z95 * between):.2f}); "
        f"{time.perf_counter() - start:.0f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--coverage-repeats", type=int, default=3)
    parser.add_argument("--skip-today", action="store_true", help="only the cascade")
    parser.add_argument(
        "--cascade-slots",
        default=os.environ.get("SUPERCODER_TIMING_SLOTS", "auto"),
        help="timing slot counts for the cascade, comma-separated (e.g. 1,auto: does "
        "leaving a core to the driver and the builds pay?); coverage is read at each",
    )
    args = parser.parse_args()
    problems = [load_problem(BUNDLED_ROOT / name) for name in args.problems]
    batch_problems, asms, labels = [], [], []
    for p in problems:
        for kind, asm in completions(p).items():
            batch_problems.append(p)
            asms.append(asm)
            labels.append(f"{p.name}:{kind}")
    n = len(asms)
    cores = len(physical_cores())
    print(
        f"{cpu_model()} | {os.cpu_count()} CPUs, {cores} physical cores | "
        f"load {os.getloadavg()[0]:.2f} | batch {len(problems)} problems x {len(KINDS)} = {n}"
    )
    workers = max(2, os.cpu_count() or 2)
    settings = [x.strip() for x in args.cascade_slots.split(",") if x.strip()]
    paths = {} if args.skip_today else {"today": "1"}
    for setting in settings:
        os.environ["SUPERCODER_TIMING_SLOTS"] = setting
        name = "cascade" if len(settings) == 1 else f"cascade/{slot_count()}"
        paths[name] = setting
    passes: dict[str, list[Pass]] = {who: [] for who in paths}
    for i in range(args.repeats):
        order = list(paths)[i % len(paths) :] + list(paths)[: i % len(paths)]
        for who in order:
            os.environ["SUPERCODER_TIMING_SLOTS"] = paths[who]
            run = today if who == "today" else cascade
            # the pool's workers read the slot count from their environment: a fresh
            # pool per path keeps each path's own setting (started before the clock)
            with LocalExecutor(workers) as fresh:
                list(fresh.map_unordered(abs, [0] * workers))
                passes[who].append(run(batch_problems, asms, fresh))
    counts = ", ".join(f"{who} {paths[who]}" for who in paths)
    print(f"timing slots: {counts} (SUPERCODER_TIMING_SLOTS; auto: one per physical core)")
    walls = {}
    for who, done in passes.items():
        walls[who] = summary(who, done, n)["wall"]
        med, worst, k, more = spread(done, labels)
        print(
            f"           reward spread over {len(done)} repeats: median sd "
            f"{med * 100:.2f}%, max {worst * 100:.2f}% ({k} programs); {more}"
        )
        print(f"           {flips(done, labels)}")
    for who in [w for w in walls if w != "today" and "today" in walls]:
        print(f"{who} vs today: {walls['today'] / walls[who]:.1f}x less wall time")
    ref = passes.get("today") or next(iter(passes.values()))
    paper = paper_cost(batch_problems, ref[0].verdicts)
    print(
        f"paper protocol for the same batch: {paper:.1f} CPU-s of runs "
        f"(serial, one slot: about {paper:.0f}s wall)"
    )
    for setting in settings:
        os.environ["SUPERCODER_TIMING_SLOTS"] = setting
        with LocalExecutor(workers) as fresh:
            list(fresh.map_unordered(abs, [0] * workers))
            coverage(problems, args.coverage_repeats, fresh)


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"(took {time.time() - t0:.0f}s)")
