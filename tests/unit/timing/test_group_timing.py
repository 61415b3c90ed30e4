"""Group timing: k candidates of one problem against one stream of baseline runs.

Real gcc, the real sandbox: a group holding an identical copy, a 2x program and a 3x
slower one measures each as it reads checked alone; the baseline runs once per test
and round for the whole group; each candidate stops on its own; a candidate whose
output changes mid-session leaves with its mismatch while the others are measured.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_group_timing.py."""

from __future__ import annotations

import pytest

from supercoder.timing.slots import Slot, physical_cores, slot_count, slot_cpus, timing_slot
from tests.integration.test_evaluate import SLOW, SLOWER, primes  # noqa: F401  (fixture)


def test_slots_are_one_per_core_and_pinned(monkeypatch, tmp_path):
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "auto")
    assert slot_count() == len(physical_cores()) >= 1
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "3")
    assert slot_count() == 3
    assert slot_cpus(0) == frozenset({physical_cores()[0][0]})
    for bad in ("0", "many"):
        monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", bad)
        with pytest.raises(Exception, match="SUPERCODER_TIMING_SLOTS"):
            slot_count()
    monkeypatch.setenv("SUPERCODER_TIMING_SLOTS", "2")
    with timing_slot() as a, timing_slot() as b:  # two slots: both held at once
        assert isinstance(a, Slot) and {a.index, b.index} == {0, 1}
