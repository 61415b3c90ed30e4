"""The fields every training config shares, each declared once with one default.

``GrpoConfig`` and ``SftConfig`` (the TRL trainers) extend ``TrainerConfig``;
``VerlExportConfig`` extends ``PromptConfig`` and ``VerlLimits``; ``VerlRunConfig`` (what
the launch scripts set) is ``VerlLimits`` with concrete token limits. Shared fields are
keyword-only, so a subclass keeps its own positional fields (``model``, ``out``) first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from supercoder.prompting.answers import AnswerForm, Context


@dataclass(frozen=True, kw_only=True)
class PromptConfig:
    """The prompt a config trains on or exports.

    Fields:
        context: the prompt's context (``full`` | ``hot``, see prompting/prompts.py).
        answer: the answer form the prompt asks for (``whole`` | ``diff``).
    """

    context: Context = Context.FULL
    answer: AnswerForm = AnswerForm.WHOLE


@dataclass(frozen=True, kw_only=True)
class TrainerConfig(PromptConfig):
    """What a TRL trainer (``train grpo``, ``train sft``) shares.

    Fields:
        model: the model to train, a Hugging Face repo or local path.
        benchmark: the problems to train on (a bundled split or a folder).
        output: where checkpoints and ``final`` go (each trainer its own folder).
        lora: train a LoRA adapter (merged into ``final``) instead of every weight.
        steps: optimizer steps.
        lr: learning rate.
        seed: the trainer's seed.
        db: the run store the trainer reads or evaluates into (None: the default store).
    """

    model: str = field(kw_only=False)  # the one positional field
    benchmark: str = "train"
    output: Path = Path("runs/grpo")
    lora: bool = False
    steps: int = field(default=100, metadata={"option": {"min": 1}})
    lr: float = field(default=1e-06, metadata={"option": {"min": 1e-12}})
    seed: int = field(default=0, metadata={"option": {"min": 0}})
    db: Path | None = None


@dataclass(frozen=True, kw_only=True)
class VerlLimits:
    """What verl's launch scripts are told besides the paper's fixed settings.

    Fields:
        max_prompt_length: verl's prompt limit (tokens); None: cover every prompt.
        max_response_length: verl's response limit (tokens); None: cover every -O3 answer.
        train_batch_size: prompts per step; fewer fitting problems are refused.
        reward: the reward spec (``SUPERCODER_REWARD``: gated, paper, log,
            binary[:threshold=T], percentile[:pool=P]; a launch may override it).
        timing_rounds: the timing budget (rounds of pairs per response; None: the
            meter's adaptive 4-15).
    """

    max_prompt_length: int | None = field(default=None, metadata={"option": {"min": 1}})
    max_response_length: int | None = field(default=None, metadata={"option": {"min": 1}})
    train_batch_size: int = field(default=16, metadata={"option": {"min": 1}})
    reward: str = "gated"
    timing_rounds: int | None = field(default=None, metadata={"option": {"min": 2, "max": 200}})
