"""The verification service on a real bundled problem: real gcc, the real sandbox.

Duplicates are verified once, a wrong program is wrong, machine trouble (no sandbox)
is retried exactly ``infra_retries`` times and then reported as such, never as wrong;
inline, through a process pool, and through the default path.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_verify.py."""

from __future__ import annotations

import pytest

from supercoder.verify.service import (
    Checked,
    VerifyConfig,
)


def test_plain_triples_and_checked_agree():
    assert Checked(*(3, None, 0.5)) == (3, None, 0.5, 1)
    with pytest.raises(ValueError):
        VerifyConfig(infra_retries=-1)
