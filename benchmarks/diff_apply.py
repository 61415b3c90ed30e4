"""How often model-shaped diff answers apply, with ``--context full`` and ``--context hot``.

For each problem the prompt is built as ``eval --answer diff`` builds it; a scripted
"model" (``tests/fakes/diff_model.py``) copies edit blocks from the listing the prompt
shows (``.cfi_*``/``.file`` lines in full context, ``# 12.3%`` annotations in hot
context), each unambiguous in what it shows; the real ``resolve_answer`` applies them
to the baseline. A diff-only model must reach 100% in both contexts.

usage: python benchmarks/diff_apply.py [--benchmark val] [--limit 20] [--answers 20]
(run from a checkout: it imports tests.fakes)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from supercoder.dataset.benchmarks import load_benchmark  # noqa: E402
from supercoder.prompting.prompts import build_messages  # noqa: E402
from supercoder.toolchain.baseline import baseline_asm  # noqa: E402
from tests.fakes.diff_model import apply_rate, shown_listing  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmark", default="val")
    ap.add_argument("--limit", type=int, default=20, help="problems at most")
    ap.add_argument("--answers", type=int, default=20, help="answers per problem and context")
    args = ap.parse_args()
    problems = load_benchmark(args.benchmark)[: args.limit]
    start = time.perf_counter()
    for context in ("full", "hot"):
        rates, failures = [], []
        for p in problems:
            prompt = build_messages(p, context=context, answer="diff")[-1]["content"]
            rate, errors = apply_rate(shown_listing(prompt), baseline_asm(p), range(args.answers))
            rates.append(rate)
            failures += [f"{p.name}: {e.splitlines()[0]}" for e in errors[:2]]
        mean = sum(rates) / len(rates)
        print(f"--context {context}: {mean:.1f}% of {len(problems) * args.answers} answers apply")
        for line in failures[:10]:
            print(f"  {line}")
    print(f"({time.perf_counter() - start:.0f}s, {len(problems)} problems)")


if __name__ == "__main__":
    main()
