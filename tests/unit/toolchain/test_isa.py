"""ISA targets with the real gcc/gas, capstone and the real sandbox: the assembler
refuses instructions beyond a level (one line naming the instruction and the level),
the object scan catches what the text check cannot see, every verdict says what its
program needs, a SIGILL names the extension this CPU lacks, and the compiler model
builds for the target.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_isa.py."""

from __future__ import annotations

import json

import pytest

from supercoder.codec import encode
from supercoder.toolchain.isa import (
    Target,
    lowest_level,
)
from supercoder.types import IsaUse


def test_levels_are_nested_and_the_lowest_one_is_named():
    assert lowest_level(set()) is Target.X86_64
    assert lowest_level({"POPCNT", "SSE4.2"}) is Target.V2
    assert lowest_level({"AVX2", "BMI2", "POPCNT"}) is Target.V3
    assert lowest_level({"AVX512F", "AVX512VL"}) is Target.V4
    assert lowest_level({"AVX512VBMI"}) is None  # in no level
    assert lowest_level({"UNKNOWN"}) is None


def test_the_report_says_which_cpus_each_answer_runs_on(tmp_path):
    from supercoder.report.page import write_report

    isa = IsaUse(("AVX2",), "x86-64-v3", "native", (("AVX2", "vpaddd %ymm0, %ymm1, %ymm2"),))
    record = {
        "problem": "p",
        "status": "ok",
        "correct": True,
        "speedup": 1.5,
        "speedup_ci": [1.4, 1.6],
        "asm": "main:\n\tret\n",
        "baseline_asm": "main:\n\tnop\n\tret\n",
        "model": "m",
        "isa": encode(isa),
    }
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps({"runs": [{"name": "r", "model": "m", "records": [record]}]}))
    html = write_report(runs, "r", tmp_path / "r.html").read_text()
    assert "needs AVX2: runs on x86-64-v3 (--target native)" in html


def test_the_training_rewards_take_the_target(monkeypatch):
    from supercoder.commands.options import reward_config
    from supercoder.errors import UserError
    from supercoder.training.verl_reward import _config_from_env

    assert reward_config("gated", 0.0, True, Target.V3).evaluation().target is Target.V3
    monkeypatch.setenv("SUPERCODER_TARGET", "x86-64-v2")
    assert _config_from_env().evaluation().target is Target.V2
    monkeypatch.setenv("SUPERCODER_TARGET", "pentium")
    with pytest.raises(UserError, match="SUPERCODER_TARGET"):
        _config_from_env()
