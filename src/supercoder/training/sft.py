"""``supercoder train sft``: LoRA fine-tuning on an eval run's best verified answers.

The paper fine-tunes on the best of 8 samples per training problem. We take, from a
stored ``supercoder eval`` run, each problem's best attempt (``Outcome.best``: the
strategies' ranking) and keep it only if it is *verified and faster*: correct, not a
copy of the baseline, and either significantly faster (``Verdict.significantly_faster``:
the speedup's 95% CI lies above the practical band around 1) or at least ``min_speedup`` (default 1.1) by its point estimate. Untimed runs give
no examples (nothing was shown to be faster). Prompt = ``build_messages`` (the same
prompt the model will see), completion = the assembly in an ```assembly fence, or with
``answer="diff"`` the SEARCH/REPLACE blocks that turn the baseline into it
(``diffedit.make_diff``); ``context="hot"`` uses the profile-annotated prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError, require
from supercoder.paths import default_store
from supercoder.prompting.diffedit import DiffError, make_diff
from supercoder.prompting.prompts import build_messages, fence
from supercoder.runs.store import Store
from supercoder.toolchain.baseline import baseline_asm
from supercoder.training import common
from supercoder.training.configs import TrainerConfig
from supercoder.types import Problem, Verdict
from supercoder.verify.reward import measured_speedup


@dataclass(frozen=True, kw_only=True)
class SftConfig(TrainerConfig):
    """What ``supercoder train sft`` trains on and how (one field per CLI option).

    Fields:
        model: the model to fine-tune, a Hugging Face repo or local path.
        run: the stored eval run whose best answers are the examples (the command sets
            it from --from-run, or names the --examples file).
        db: the run store holding it (None: the default store).
        benchmark: the problems whose answers are taken.
        output: where checkpoints and ``final`` go.
        lora: train a LoRA adapter (merged into ``final``) instead of every weight.
        steps: optimizer steps; -1: ``epochs`` passes over the examples.
        epochs: passes over the examples when ``steps`` is -1.
        lr: learning rate.
        batch_size: examples per device and step.
        max_length: tokens per example (prompt and completion).
        min_speedup: an answer not significantly faster is kept when its point
            estimate reaches this (``worth_learning``).
        seed: the trainer's seed.
        context: the prompt the model is trained on (``full`` | ``hot``).
        answer: the completion's form (``whole`` | ``diff``).
    """

    run: str = ""
    # SFT's own defaults: its folder, LoRA unless --full, epochs rather than a step
    # count (-1), and a learning rate for supervised targets (GRPO's suits RL updates).
    output: Path = Path("runs/sft")
    lora: bool = field(default=True, metadata={"flags": ("--lora/--full",)})
    steps: int = field(default=-1, metadata={"option": {"min": -1}})
    lr: float = field(default=0.0001, metadata={"option": {"min": 1e-12}})
    epochs: float = field(default=3.0, metadata={"option": {"min": 0.01}})
    batch_size: int = field(default=1, metadata={"option": {"min": 1}})
    max_length: int = field(default=4096, metadata={"option": {"min": 1}})
    min_speedup: float = field(default=1.1, metadata={"option": {"min": 0.0}})


def worth_learning(verdict: Verdict, min_speedup: float = 1.1) -> bool:
    """Correct, not the baseline, and faster: significantly faster (its CI lies above the
    practical band) or a point estimate >= min_speedup."""
    sp = measured_speedup(verdict)
    return sp is not None and (verdict.significantly_faster or sp.value >= min_speedup)


def sft_examples(
    run: str,
    problems: Sequence[Problem],
    db: str | Path | None = None,
    min_speedup: float = 1.1,
    context: str = "full",
    answer: str = "whole",
) -> list[dict[str, Any]]:
    """Prompt/completion pairs (conversational) from a stored run, for ``problems``."""
    path = Path(db) if db else default_store()
    if not path.is_file():
        raise UserError(f"{path}: no run store here (run supercoder eval first, or pass --db)")
    store = Store(path, read_only=True)
    try:
        if run not in {r.name for r in store.runs()}:
            raise UserError(f"{path}: no run named {run!r}")
        outcomes = {o.problem: o for o in store.outcomes(run)}
    finally:
        store.close()
    rows = []
    for problem in problems:
        outcome = outcomes.get(problem.name)
        best = outcome.best if outcome else None
        if best is None or not best.candidate.asm or not worth_learning(best.verdict, min_speedup):
            continue
        base = baseline_asm(problem)
        prompt = build_messages(problem, baseline_asm=base, context=context, answer=answer)
        target = _target(base, best.candidate.asm, answer)
        rows.append({"prompt": prompt, "completion": [{"role": "assistant", "content": target}]})
    return rows


def check_examples(rows: Sequence[dict[str, Any]], where: str) -> None:
    """Refuse rows TRL cannot train on, in one line naming the first bad one: each needs
    a ``prompt`` and a ``completion`` of one form, both text or both message lists
    (``[{"role": ..., "content": ...}]``, what ``dataset export-trace`` writes)."""

    def form(value: Any) -> str | None:
        if isinstance(value, str):
            return "text"
        if (
            isinstance(value, list)
            and value
            and all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in value)
        ):
            return "messages"
        return None

    for i, row in enumerate(rows, 1):
        prompt, completion = form(row.get("prompt")), form(row.get("completion"))
        if prompt is None or completion is None or prompt != completion:
            raise UserError(
                f"{where}: row {i}: 'prompt' and 'completion' must both be text or both be "
                f"message lists (got {prompt or 'neither'} and {completion or 'neither'})"
            )


def _target(base: str, program: str, answer: str) -> str:
    """The completion: the program in a fence, or (diff) the edits from the baseline."""
    if answer == "diff":
        try:
            return make_diff(base, program) or fence(program, "assembly")
        except DiffError:
            pass  # not expressible as unique blocks: the whole program is accepted too
    return fence(program, "assembly")


def sft_config(opts: SftConfig) -> Any:
    trl = require("trl", "train")
    return trl.SFTConfig(
        output_dir=str(opts.output),
        max_steps=opts.steps,
        num_train_epochs=opts.epochs,
        learning_rate=opts.lr,
        per_device_train_batch_size=opts.batch_size,
        max_length=opts.max_length,
        logging_steps=1,
        save_strategy="steps",
        save_steps=50,
        report_to="none",
        seed=opts.seed,
        use_cpu=not require("torch", "train").cuda.is_available(),
    )


def train_sft(
    opts: SftConfig,
    examples: Sequence[dict[str, Any]] | None = None,
    echo: Callable[[str], None] | None = print,
) -> dict[str, Any]:
    """Fine-tune on ``examples`` (default: from ``opts.run``); saves ``OUTPUT/final``."""
    trl = require("trl", "train")
    datasets = require("datasets", "train")

    if examples is None:
        problems = load_benchmark(opts.benchmark)
        examples = sft_examples(
            opts.run, problems, opts.db, opts.min_speedup, opts.context, opts.answer
        )
    if not examples:
        raise UserError(
            f"run {opts.run!r} has no verified, faster answer on {opts.benchmark!r} "
            f"(correct, not the baseline, CI above 1 or >= {opts.min_speedup}x): nothing to learn"
        )
    tokenizer = common.load_tokenizer(opts.model)
    trainer = trl.SFTTrainer(
        model=opts.model,
        args=sft_config(opts),
        train_dataset=datasets.Dataset.from_list(list(examples)),
        processing_class=tokenizer,
        peft_config=common.lora_config() if opts.lora else None,
        callbacks=[common.metrics_callback(opts.output / "metrics.jsonl", echo)],
    )
    trainer.train()
    final = common.save_final(trainer, tokenizer, opts.output / "final", opts.lora)
    return {"final": str(final), "steps": trainer.state.global_step, "examples": len(examples)}
