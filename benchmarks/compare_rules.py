"""What comparison rules cost a check, side by side with the exact rule.

    .venv/bin/python benchmarks/compare_rules.py [MB]

Builds a program output of MB megabytes (default 4: a benchmark's result lines, one in
ten with a clock, pointers in some) and times ``outputs_match`` on it, best of 5, in one
process: the exact rule (bytes equal), the same output under three rules (an ignored
line, a mask, a field within a tolerance) with the expected side prepared once (as
every timing run's re-check reuses it), and the first comparison (which prepares the
expected side too). Prints milliseconds and the ratio to the exact rule; every check
re-reads each timed run's output through this one function.
"""

from __future__ import annotations

import random
import sys
import time

from supercoder.problems.outputs import expected_output, outputs_match, parse_mode


def output(mb: float, seed: int) -> bytes:
    rng = random.Random(seed)
    lines = []
    size = 0
    i = 0
    while size < mb * (1 << 20):
        if i % 10 == 0:
            line = f"Time: {rng.random():.6f} s for block {i}"
        elif i % 10 == 5:
            line = f"node {i} at 0x{rng.getrandbits(44):012x} value {i * 7 % 1000}"
        else:
            line = f"result {i} {i * 2654435761 % 1000003} {1 / (i + 1):.9f}"
        lines.append(line)
        size += len(line) + 1
        i += 1
    return ("\n".join(lines) + "\n").encode()


def best(f, n: int = 5) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        assert f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    a, b = output(mb, 1), output(mb, 2)
    rules = [
        {"ignore_line": "^Time:"},
        {"mask": "0x[0-9a-f]+"},
        {"field": 4, "line": "^result", "tolerance": 1e-6},
    ]
    mode = parse_mode("exact", rules)
    expected = expected_output(b, mode)
    two = expected_output(b, parse_mode("exact", rules[:2]))
    two.prepared()
    lines_masks = best(lambda: outputs_match(a, two))
    copy = bytes(bytearray(a))
    exact = best(lambda: outputs_match(a, copy))
    first = best(lambda: outputs_match(a, expected_output(b, mode)))
    expected.prepared()
    ruled = best(lambda: outputs_match(a, expected))
    lines = a.count(b"\n")
    print(f"output {len(a) / (1 << 20):.1f} MiB, {lines} lines")
    print(f"exact (bytes equal)                   {exact * 1e3:8.2f} ms   1.0x")
    print(
        f"a line rule and a mask, prepared      {lines_masks * 1e3:8.2f} ms   {lines_masks / exact:.0f}x"
    )
    print(f"3 rules, expected prepared once       {ruled * 1e3:8.2f} ms   {ruled / exact:.0f}x")
    print(f"3 rules, first comparison (prepares)  {first * 1e3:8.2f} ms   {first / exact:.0f}x")
    print(f"per MiB with rules: {ruled * 1e3 / (len(a) / (1 << 20)):.1f} ms")


if __name__ == "__main__":
    main()
