"""A helper that sleeps just under its limit on every input cannot jam a check.

Before: the validator driver kept one input's wall limit (twice the CPU limit plus 5 s)
but nothing for the batch, so a validator that slept just under that limit on every
input cost inputs x limit: with the default 10 CPU seconds, 24 s per drawn input, for
every batch a check (or a domain probe, a ``serve`` worker, a training row's reward)
validated. Sleeping costs no CPU, so the batch's idle time (wall time beyond four times
the CPU its validators used) now adds up to one input's limit in all: such a validator
is stopped at its second input and refused as a source (not run again). Every helper
here runs only in the project's sandbox, bounded.
"""

from __future__ import annotations

import time

import pytest

from supercoder.problems.generator import GeneratorConfig, GeneratorError, run_generator
from supercoder.problems.validator import ValidatorConfig, ValidatorError, run_validator
from tests.conftest import sandbox_or_skip

CONFIG = ValidatorConfig(seconds=1.0, max_bytes=1 << 20)  # one input: 2 x 1 + 5 = 7 s of wall


def test_a_validator_sleeping_under_its_limit_on_each_input_stops_at_the_second() -> None:
    sandbox_or_skip()
    sleeper = "import time\ntime.sleep(4)\n"  # under the 7 s an input may take
    start = time.monotonic()
    with pytest.raises(ValidatorError, match="ran past its limit .* on input 2 and was stopped"):
        run_validator(sleeper, [b"1\n"] * 8, CONFIG)  # before: 8 x 4 s, every input valid
    assert time.monotonic() - start < 30  # gross: 4 s + at most 3 s more, not 32 s
    with pytest.raises(ValidatorError, match="earlier: not run again"):
        run_validator(sleeper, [b"2\n"], CONFIG)


def test_a_validator_that_computes_is_not_stopped_by_the_idle_budget() -> None:
    """Honest CPU time earns its own allowance (a loaded host's wait for a core): a
    validator that spends CPU on each input judges every input of the batch."""
    sandbox_or_skip()
    busy = "import sys\nn = int(sys.stdin.read())\nx = 0\nfor i in range(300000): x += i\nsys.exit(n % 2)\n"
    judged = run_validator(busy, [f"{i}\n".encode() for i in range(8)], CONFIG)
    assert [j.valid for j in judged] == [i % 2 == 0 for i in range(8)]


def test_a_generator_that_sleeps_under_its_wall_limit_is_refused_and_not_run_again() -> None:
    """Before: a ``gen.py`` that slept just under its wall limit (40 s by default) on
    every call cost each check that much per call (its sizes, its draws, the fresh
    check); now a call that waits more than ``IDLE_SECONDS`` without computing refuses
    the generator, and the next call is refused at once."""
    sandbox_or_skip()
    config = GeneratorConfig(seconds=4.0)  # 8 s of wall time a call
    sleeper = "import time\ndef generate(seed, size):\n    time.sleep(6)\n    return '1\\n'\n"
    with pytest.raises(GeneratorError, match="without computing"):
        run_generator(sleeper, [(1, 1)], config)  # before: its input, 6 s later
    start = time.monotonic()
    with pytest.raises(GeneratorError, match="earlier: not run again"):
        run_generator(sleeper, [(2, 1)], config)
    assert time.monotonic() - start < 3  # gross: not run (a run sleeps 6 s)
    honest = "def generate(seed, size):\n    return str(sum(range(200000 + seed))) + '\\n'\n"
    assert run_generator(honest, [(1, 1), (2, 1)], config)[0].strip().isdigit()
