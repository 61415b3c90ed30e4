"""The CodeNet builder on a small CodeNet-shaped tree made here (real gcc, real sandbox).

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_codenet.py."""

from __future__ import annotations

from supercoder.dataset.build import assign_splits
from supercoder.dataset.text import approx_tokens, similarity
from tests.integration.test_codenet import FAST, IO_ONLY, NEAR_DUP  # noqa: F401


def test_split_is_by_problem_and_deterministic():
    ids = [f"p{i:05d}" for i in range(200)]
    a = assign_splits(ids, 0.1, seed=1)
    assert a == assign_splits(reversed(ids), 0.1, seed=1)
    assert sum(v == "val" for v in a.values()) == 20
    assert a != assign_splits(ids, 0.1, seed=2)


def test_similarity_and_tokens():
    assert similarity(FAST.replace("K", "17"), NEAR_DUP) > 0.9
    assert similarity(FAST.replace("K", "17"), IO_ONLY) < 0.3
    assert 0 < approx_tokens("movl %eax, -4(%rbp)") <= 12
    assert approx_tokens(FAST) > approx_tokens(IO_ONLY)
