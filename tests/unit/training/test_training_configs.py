"""The training configs share their common fields through one base each
(``training/configs.py``): a name is declared once, and the few defaults a subclass
redefines are the ones its comment explains."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from supercoder.prompting.answers import AnswerForm, Context
from supercoder.training.configs import PromptConfig, TrainerConfig, VerlLimits
from supercoder.training.grpo import GrpoConfig
from supercoder.training.sft import SftConfig
from supercoder.training.verl_export import VerlExportConfig
from supercoder.training.verl_scripts import VerlRunConfig

CONFIGS = (GrpoConfig, SftConfig, VerlExportConfig, VerlRunConfig)
# the defaults a subclass truly needs its own of (each explained where redefined)
REDEFINED = {
    SftConfig: {"output", "lora", "steps", "lr"},
    VerlRunConfig: {"max_prompt_length", "max_response_length"},
}


def _own(cls: type) -> set[str]:
    return set(cls.__dict__.get("__annotations__", {}))


def test_a_shared_field_is_declared_in_one_place() -> None:
    for i, a in enumerate(CONFIGS):
        for b in CONFIGS[i + 1 :]:
            assert _own(a) & _own(b) == set(), (a.__name__, b.__name__)
    for cls in CONFIGS:
        inherited = set().union(
            *(_own(base) for base in cls.__mro__[1:] if dataclasses.is_dataclass(base))
        )
        assert _own(cls) & inherited == REDEFINED.get(cls, set()), cls.__name__


def test_the_bases_hold_the_shared_fields() -> None:
    assert issubclass(GrpoConfig, TrainerConfig) and issubclass(SftConfig, TrainerConfig)
    assert issubclass(TrainerConfig, PromptConfig)
    assert issubclass(VerlExportConfig, PromptConfig) and issubclass(VerlExportConfig, VerlLimits)
    assert issubclass(VerlRunConfig, VerlLimits)


def test_each_command_keeps_its_defaults() -> None:
    grpo, sft = GrpoConfig("m"), SftConfig("m")
    assert (grpo.output, grpo.lora, grpo.steps, grpo.lr) == (Path("runs/grpo"), False, 100, 1e-6)
    assert (sft.output, sft.lora, sft.steps, sft.lr) == (Path("runs/sft"), True, -1, 1e-4)
    for c in (grpo, sft, VerlExportConfig(Path("o"))):
        assert (c.context, c.answer) == (Context.FULL, AnswerForm.WHOLE)
    for c in (grpo, sft):
        assert (c.model, c.benchmark, c.seed, c.db) == ("m", "train", 0, None)
    export, run = VerlExportConfig(Path("o")), VerlRunConfig()
    assert (export.max_prompt_length, export.max_response_length) == (None, None)  # measure
    assert (run.max_prompt_length, run.max_response_length) == (2000, 2000)
    for c in (export, run):
        assert (c.train_batch_size, c.reward, c.timing_rounds) == (16, "gated", None)
