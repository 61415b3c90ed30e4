"""The output comparison rules are a fixed choice, an enum (``CompareKind``); the text
of ``problem.json``'s ``compare`` reads and writes back as before."""

from __future__ import annotations

import pickle

import pytest

from supercoder.problems.outputs import (
    CompareKind,
    Mode,
    expected_output,
    outputs_match,
    parse_mode,
)


@pytest.mark.parametrize("text", ["exact", "tokens", "float:1e-06"])
def test_each_rule_reads_as_its_kind_and_writes_back_as_it_was(text):
    mode = parse_mode(text)
    assert isinstance(mode.kind, CompareKind) and str(mode) == text
    assert pickle.loads(pickle.dumps(mode)) == mode  # process pools carry it


def test_a_kind_given_as_text_is_the_enum_and_an_unknown_one_is_refused():
    assert Mode("tokens").kind is CompareKind.TOKENS
    with pytest.raises(ValueError):
        Mode("fuzzy")
    with pytest.raises(ValueError, match="use one of exact, tokens, float:TOL"):
        parse_mode("fuzzy")


def test_the_rules_still_compare_as_they_did():
    assert outputs_match(b"1  2\n", b"1 2", "tokens") and not outputs_match(b"1  2", b"1 2")
    assert outputs_match(b"0.3333334", expected_output(b"0.3333333", "float:1e-6"))
    assert not outputs_match(b"0.34", expected_output(b"0.33", "float:1e-6"))
