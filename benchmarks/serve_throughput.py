"""`supercoder serve` against in-process `score_batch`, side by side in one run; then a
bounded loopback load test.

1. Throughput. A GRPO-shaped batch (for each of PROBLEMS, 8 completions: a fast build
   and its duplicate, -O2, -Os, a copy of the baseline, the copy plus a nop, -O0, a
   broken program) is scored by ``reward.score_batch`` in this process and by one local
   server (``POST /v1/score`` through ``ServiceClient``, the path the TRL and verl
   rewards take with ``SUPERCODER_SERVER``), one after the other in ABBA order
   ``--repeats`` times after one warm-up of each (baselines built, pools started).
   Printed: wall seconds per batch on each path (median), completions per minute, the
   server's throughput as a share of in-process (total over the rounds, and per
   round), and whether every completion got the same status on both paths.
2. Load. The server runs with ``--workers 1 --queue Q``; 10 x Q check requests (cheap:
   ``time: false``) are sent at once, three rounds. Printed per round: how many got 200,
   429 and anything else, whether every 429 retried under its id got its verdict with
   the right status (nothing lost), and the server's resident memory after the round
   (with the answers it keeps by id: ``--remember``, 100 here, so that the rounds
   after the first fill it show whether anything else grows).

usage: python benchmarks/serve_throughput.py [--repeats 2] [--problems A B ...]
       [--queue 8] [--no-time] [--load-rounds 4] [--remember 100]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import select
import statistics
import subprocess
import sys
import time

import httpx

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm, cpu_model, machine_context
from supercoder.types import Problem
from supercoder.verify.client import ServiceClient
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig, verify_batch

DEFAULT = ["dp_lcs", "num_sieve_primes", "graph_dijkstra", "str_zfunc"]
BROKEN = "\t.text\n\t.globl\tmain\n\t.type\tmain, @function\nmain:\n\txorl\t%eax, %eax\n\tret\n"


def completions(problem: Problem) -> list[str]:
    base = baseline_asm(problem)
    fast = compile_to_asm(problem.source, ("-O3", "-march=native", "-funroll-loops"))
    programs = [
        fast,
        fast,
        compile_to_asm(problem.source, ("-O2",)),
        compile_to_asm(problem.source, ("-Os",)),
        base,
        base.replace("\nmain:\n", "\nmain:\n\tnop\n", 1),
        compile_to_asm(problem.source, ("-O0",)),
        BROKEN,
    ]
    return [f"```assembly\n{p}\n```" for p in programs]


def start_server(queue: int, remember: int) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "supercoder.cli", "serve", "--insecure-loopback", "--port", "0"]
    cmd += ["--workers", "1", "--queue", str(queue), "--remember", str(remember)]
    env = {k: v for k, v in os.environ.items() if k != "SUPERCODER_TOKEN"}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = ""
    while "serving on" not in line:
        if proc.poll() is not None:
            raise SystemExit(f"the server did not start: {line}")
        if select.select([proc.stderr], [], [], 1)[0]:
            line = proc.stderr.readline()
    return proc, line.split("serving on ", 1)[1].split()[0]


def gauge(url: str, name: str) -> float:
    text = httpx.get(f"{url}/metrics", timeout=30).text
    line = next(x for x in text.splitlines() if x.startswith(f"supercoder_{name} "))
    return float(line.split()[1])


def resident_mib(url: str) -> str:
    mib = gauge(url, "resident_bytes") / (1 << 20)
    return f"{mib:.1f} MiB, {gauge(url, 'remembered_answers'):.0f} answers remembered"


def throughput(url: str, problems: list[Problem], texts: list[str], repeats: int, timed: bool):
    config = RewardConfig(eval_config=CheckConfig(time=timed))
    client = ServiceClient(url)
    here_s, there_s, same = [], [], True

    def here() -> tuple[float, list]:
        began = time.perf_counter()
        verdicts = verify_batch(problems, texts, config)
        return time.perf_counter() - began, verdicts

    def there() -> tuple[float, list]:
        began = time.perf_counter()
        verdicts = client.score(problems, texts, config)
        return time.perf_counter() - began, verdicts

    for k in range(repeats + 1):  # the first round warms both paths up; then ABBA order
        if k % 2 == 0:
            (t_here, local), (t_there, remote) = here(), there()
        else:
            (t_there, remote), (t_here, local) = there(), here()
        same &= [v.status for v in local] == [v.status for v in remote]
        label = "warm-up" if k == 0 else f"round {k}"
        print(
            f"  {label}: in-process {t_here:.1f} s, server {t_there:.1f} s "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        if k:
            here_s.append(t_here)
            there_s.append(t_there)
    n = len(texts)
    ratios = [h / t for h, t in zip(here_s, there_s, strict=True)]
    h, t = statistics.median(here_s), statistics.median(there_s)
    print(f"in-process score_batch: {h:.1f} s / batch of {n} ({60 * n / h:.1f} / min, median)")
    print(f"one local server:       {t:.1f} s / batch of {n} ({60 * n / t:.1f} / min, median)")
    print(
        f"server throughput / in-process: {sum(here_s) / sum(there_s):.2f}x over {repeats} "
        f"rounds (per round: {', '.join(f'{r:.2f}' for r in ratios)}; median "
        f"{statistics.median(ratios):.2f}x)"
    )
    print(f"every completion the same status on both paths: {same}")


def load(url: str, queue: int, rounds: int) -> None:
    problem = load_problem(BUNDLED_ROOT / "dp_lcs")
    base = baseline_asm(problem)
    programs = {
        "nop": base.replace("\nmain:\n", "\nmain:\n\tnop\n", 1),
        "broken": BROKEN,
        "bogus": "\t.text\n\tbogus_instruction %eax\n",
    }
    kinds = list(programs)
    with ServiceClient(url) as client:  # what each should get, one at a time
        want = {
            k: client.check("dp_lcs", [p], time=False)[0].status.value for k, p in programs.items()
        }
    n = 10 * queue
    print(f"  statuses one at a time: {want}")
    print(f"load: {n} check requests at once (10 x queue {queue}, 1 worker), {rounds} rounds")
    print(f"  before: server resident {resident_mib(url)}")

    def send(i: int, r: int, client: httpx.Client) -> tuple[int, int, str | None]:
        kind = kinds[i % len(kinds)]
        body = {
            "problem": {"name": "dp_lcs"},
            "programs": [programs[kind]],
            "time": False,
            "id": f"load-{r}-{i}",
        }
        first = client.post("/v1/check", json=body)
        answer = first
        while answer.status_code == 429:
            time.sleep(min(2.0, float(answer.headers.get("retry-after", "1"))))
            answer = client.post("/v1/check", json=body)
        status = answer.json()["verdicts"][0]["status"] if answer.status_code == 200 else None
        return first.status_code, answer.status_code, status

    for r in range(1, rounds + 1):
        limits = httpx.Limits(max_connections=n)
        with (
            httpx.Client(base_url=url, timeout=600, limits=limits) as c,
            cf.ThreadPoolExecutor(n) as pool,
        ):
            got = list(pool.map(send, range(n), [r] * n, [c] * n))
        firsts = [g[0] for g in got]
        others = [f for f in firsts if f not in (200, 429)]
        lost = sum(1 for i, g in enumerate(got) if g[1] != 200 or g[2] is None)
        wrong = sum(
            1 for i, g in enumerate(got) if g[2] is not None and g[2] != want[kinds[i % len(kinds)]]
        )
        print(
            f"  round {r}: 200: {firsts.count(200)}, 429: {firsts.count(429)}, other: "
            f"{len(others)} {others or ''}; after retries under the same id: {n - lost}/{n} "
            f"answered, {wrong} with an unexpected status; server resident "
            f"{resident_mib(url)}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--problems", nargs="+", default=DEFAULT)
    parser.add_argument("--queue", type=int, default=8)
    parser.add_argument("--no-time", action="store_true", help="correctness only (seconds)")
    parser.add_argument("--load-rounds", type=int, default=4)
    parser.add_argument(
        "--remember", type=int, default=100, help="the server's --remember: memory stays bounded"
    )
    args = parser.parse_args()
    ctx = machine_context()
    print(
        f"machine: {cpu_model()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"gcc {ctx.get('gcc')}; supercoder {ctx.get('supercoder')}"
    )
    problems = [load_problem(BUNDLED_ROOT / name) for name in args.problems]
    batch = [(p, t) for p in problems for t in completions(p)]
    proc, url = start_server(args.queue, args.remember)
    try:
        print(f"throughput: {len(problems)} problems x 8 completions, timed: {not args.no_time}")
        throughput(
            url, [p for p, _ in batch], [t for _, t in batch], args.repeats, not args.no_time
        )
        load(url, args.queue, args.load_rounds)
    finally:
        proc.terminate()
        code = proc.wait(600)
        print(f"server stopped by SIGTERM: exit {code}")


if __name__ == "__main__":
    main()
