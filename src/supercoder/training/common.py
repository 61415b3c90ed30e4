"""Pieces shared by the TRL trainers: tokenizer, LoRA, per-step metric log, saving,
and the evaluation of a checkpoint through the same path as ``supercoder eval``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import require
from supercoder.models import load_model
from supercoder.runs.eval_run import run_eval
from supercoder.runs.identity import RunConfig
from supercoder.runs.store import Store


def load_tokenizer(model: str) -> Any:
    transformers = require("transformers", "train")
    tok = transformers.AutoTokenizer.from_pretrained(model)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def lora_config(r: int = 16, alpha: int = 32, dropout: float = 0.05) -> Any:
    """LoRA on every linear layer (the paper fine-tunes with LoRA)."""
    peft = require("peft", "train")
    return peft.LoraConfig(
        r=r,
        lora_alpha=alpha,
        lora_dropout=dropout,
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )


def metrics_callback(path: Path, echo: Callable[[str], None] | None = print) -> Any:
    """A TrainerCallback appending every log (one JSON line per step) to ``path`` and
    echoing reward, correctness rate and mean speedup."""
    transformers = require("transformers", "train")

    class MetricsLog(transformers.TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001
            if not logs:
                return
            row = {"step": state.global_step, **logs}
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as f:
                f.write(json.dumps(row, default=float) + "\n")
            if echo is not None:
                echo(step_line(row))

    return MetricsLog()


_SHOWN = (
    ("reward", "reward"),
    ("supercoder/correct_rate", "correct"),
    ("supercoder/mean_speedup", "speedup"),
    ("supercoder/infra_failures", "infra"),
    ("loss", "loss"),
)


def step_line(row: dict[str, Any]) -> str:
    parts = [f"step {row.get('step', '?')}"]
    parts += [
        f"{label} {row[key]:.4g}" for key, label in _SHOWN if isinstance(row.get(key), float | int)
    ]
    return "  ".join(parts)


def save_final(trainer: Any, tokenizer: Any, out: Path, merge_lora: bool) -> Path:
    """Save a plain model (LoRA merged in) + tokenizer that ``hf:<out>`` can load."""
    model = trainer.model
    if merge_lora and hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def evaluate_checkpoint(
    checkpoint: Path,
    benchmark: str = "val",
    db: str | Path | None = None,
    run: str | None = None,
    executor: str = "local",
) -> dict[str, Any]:
    """``supercoder eval --model hf:<checkpoint> --benchmark <benchmark>``, as a function."""
    run_config = RunConfig(
        model=f"hf:{checkpoint}", benchmark=benchmark, name=run, executor=executor
    )  # verified by the engine's workers (--workers)
    store = Store(db)
    try:
        result = run_eval(
            load_benchmark(benchmark), load_model(run_config.model), run_config, store
        )
    finally:
        store.close()
    return {"run": result.name, **result.summary.to_json()}
