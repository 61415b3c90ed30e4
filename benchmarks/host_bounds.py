"""What a huge answer costs the host, before and now, side by side in one run.

A dense-table answer (the -O3 baseline of a bundled problem plus a ``.rodata`` table of
``--megabytes`` of ``.quad`` lines) goes through what the host does with a candidate's
text before the sandbox: the comment lexer (the character-by-character one it replaced
is kept here as "before"; both outputs must agree), the directive check, the comparison
with the baseline, and ``check_candidate`` as it is now (refused at once above the cap).
Prints host CPU seconds (this process only; the sandboxed tools are children) and the
ratios.

usage: python benchmarks/host_bounds.py [--megabytes 32.9] [--problem num_modpow]
"""

from __future__ import annotations

import argparse
import time

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.asmcheck import forbidden_directive
from supercoder.toolchain.asmtext import _line_end, _string_end, strip_comments
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import cpu_model, normalize_asm
from supercoder.verify.evaluate import CheckConfig, check_candidate


def strip_before(text: str) -> str:
    """The lexer as it was: one Python step per character."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif ch == "'" and i + 1 < n and text[i + 1] != "\n":
            step = 3 if text[i + 1] == "\\" and i + 2 < n else 2
            out.append(text[i : i + step])
            i += step
        elif ch == "#":
            i = _line_end(text, i)
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def cpu(fn, *args):
    start = time.process_time()
    value = fn(*args)
    return value, time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--megabytes", type=float, default=32.9)
    ap.add_argument("--problem", default="num_modpow")
    args = ap.parse_args()
    problem = load_problem(BUNDLED_ROOT / args.problem)
    base = baseline_asm(problem)
    line = "\t.quad\t1234567890123456789\n"
    answer = base + "\t.section .rodata\ntable:\n" + line * int(args.megabytes * 1e6 / len(line))
    print(f"{len(answer) / 1e6:.1f} MB answer on {args.problem}; {cpu_model()}")
    old, t_old = cpu(strip_before, answer)
    new, t_new = cpu(strip_comments, answer)
    assert old == new, "the two lexers disagree"
    print(f"strip comments   before {t_old:7.2f} s  now {t_new:6.2f} s  ({t_old / t_new:.0f}x)")
    _, t_dir = cpu(forbidden_directive, answer)
    _, t_norm = cpu(normalize_asm, answer)
    print(
        f"directive check  now {t_dir:6.2f} s;  normalize (one side of the comparison) {t_norm:6.2f} s"
    )
    print(f"a check did the lexer 4 times: before about {4 * t_old:.0f} s of host CPU in it alone")
    untimed, t_check = cpu(check_candidate, problem, answer, CheckConfig(time=False))
    print(
        f"check_candidate  now {t_check:6.3f} s: {untimed.verdict.status.value}: {untimed.verdict.message}"
    )


if __name__ == "__main__":
    main()
