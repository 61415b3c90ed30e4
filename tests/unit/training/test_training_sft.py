"""SFT with TRL + LoRA on the best verified answers of a stored eval run.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_training_sft.py."""

from __future__ import annotations

import pytest

from supercoder.errors import UserError
from supercoder.training.sft import check_examples, worth_learning
from supercoder.types import Speedup, Status, Verdict


def test_worth_learning():
    def ok(v, lo, hi, identical=False):
        return Verdict(
            "p", Status.OK, speedup=Speedup(v, lo, hi, 5, 1), identical_to_baseline=identical
        )

    assert worth_learning(ok(1.3, 1.2, 1.4))
    assert worth_learning(ok(1.15, 0.9, 1.4))  # point estimate above the threshold
    assert not worth_learning(ok(1.05, 0.95, 1.1))
    assert not worth_learning(ok(2.0, 1.9, 2.1, identical=True))
    assert not worth_learning(Verdict("p", Status.WRONG_OUTPUT))
    assert not worth_learning(Verdict("p", Status.OK))  # untimed: not shown faster


def test_sft_rows_of_mixed_forms_are_refused_in_one_line():
    said = [{"role": "user", "content": "faster"}]
    answered = [{"role": "assistant", "content": "ret"}]
    check_examples([{"prompt": said, "completion": answered}], "sft.jsonl")
    check_examples([{"prompt": "faster", "completion": "ret"}], "sft.jsonl")
    # a message-list prompt with a text completion once reached TRL: "unexpected TypeError"
    for bad, got in (
        ({"prompt": said, "completion": "ret"}, "messages and text"),
        ({"prompt": said}, "messages and neither"),
        ({"prompt": [{"role": "user"}], "completion": answered}, "neither and messages"),
    ):
        with pytest.raises(UserError, match=f"sft.jsonl: row 2: .*got {got}"):
            check_examples([{"prompt": "a", "completion": "b"}, bad], "sft.jsonl")
