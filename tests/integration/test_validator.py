"""Input validators (validate.py): the contest judges' contract, sandboxed, and a drawn
input a validator rejects is never timed."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.problems.validator import (
    ValidatorConfig,
    ValidatorError,
    check_inputs,
    run_validator,
    valid_inputs,
)
from tests.conftest import SUM_SOURCE, sandbox_or_skip

# the sum problem's statement: n between 1 and 50, then exactly n numbers in [-9, 9]
VALIDATOR = """import sys
data = sys.stdin.read().split()
n = int(data[0])
assert 1 <= n <= 50, f"n = {n} out of range"
xs = [int(x) for x in data[1:]]
if len(xs) != n:
    sys.exit(f"expected {n} numbers, got {len(xs)}")
assert all(-9 <= x <= 9 for x in xs), "a number out of range"
"""

FAST = ValidatorConfig(seconds=1.0)


def test_the_contract_exit_zero_is_valid_anything_else_says_why() -> None:
    sandbox_or_skip()
    inputs = [b"3\n1 2 3\n", b"99\n1\n", b"2\n1\n", b"2\n1 42\n", b"x\n"]
    judged = run_validator(VALIDATOR, inputs, FAST)
    assert [j.valid for j in judged] == [True, False, False, False, False]
    assert "n = 99 out of range" in judged[1].why
    assert judged[2].why == "expected 2 numbers, got 1"  # sys.exit("...")
    assert "a number out of range" in judged[3].why  # a failed assert
    assert "ValueError" in judged[4].why  # an exception is a rejection too


def test_each_input_runs_apart_and_a_hostile_validator_is_bounded() -> None:
    sandbox_or_skip()
    # state does not leak from one input to the next (a process per input)
    stateful = "import builtins\nassert not hasattr(builtins, 'seen')\nbuiltins.seen = 1\n"
    assert all(j.valid for j in run_validator(stateful, [b"1", b"2", b"3"], FAST))
    # os._exit, a loop past its CPU limit, and reading host files
    judged = run_validator(
        "import os, sys\nd = sys.stdin.read()\n"
        "if d == 'exit':\n    os._exit(3)\n"
        "if d == 'spin':\n    while True: pass\n"
        "if d == 'read':\n    open('/etc/passwd').read()\n",
        [b"exit", b"spin", b"read", b"ok"],
        FAST,
    )
    assert [j.valid for j in judged] == [False, False, False, True]
    assert "exit status 3" in judged[0].why
    assert "CPU" in judged[1].why or "killed" in judged[1].why
    assert "No such file" in judged[2].why  # the sandbox shows no host file


def test_check_inputs_names_the_first_input_rejected() -> None:
    sandbox_or_skip()
    check_inputs(VALIDATOR, [("a.in", b"1\n5\n")], "v.py", FAST)
    with pytest.raises(ValidatorError) as e:
        check_inputs(VALIDATOR, [("a.in", b"1\n5\n"), ("in/b.in", b"0\n")], "v.py", FAST)
    assert "in/b.in" in str(e.value) and "n = 0 out of range" in str(e.value)
    assert "\n" not in str(e.value)


def _inputs(base: Path) -> Path:
    (base / "in").mkdir(parents=True)
    (base / "in" / "a.in").write_text("3\n1 2 3\n")
    (base / "in" / "b.in").write_text("5\n1 2 3 4 5\n")
    (base / "sum.c").write_text(SUM_SOURCE)
    (base / "v.py").write_text(VALIDATOR)
    return base


def test_problem_init_validator_copies_it_or_names_the_input_it_rejects() -> None:
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()))
    ok = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "problem", "init", str(base / "sum.c")]
        + ["--inputs", str(base / "in"), "-o", str(base / "p"), "--validator", str(base / "v.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    assert (base / "p" / "validate.py").read_text() == VALIDATOR
    assert "validator" in ok.stdout
    (base / "in" / "c.in").write_text("60\n1\n")
    bad = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "problem", "init", str(base / "sum.c")]
        + ["--inputs", str(base / "in"), "-o", str(base / "q"), "--validator", str(base / "v.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2
    lines = bad.stderr.strip().splitlines()  # progress notes, then the one error
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and errors[0] == lines[-1]
    assert "c.in" in errors[0] and "n = 60 out of range" in errors[0]
    assert "Traceback" not in bad.stderr and not (base / "q").exists()


def test_a_drawn_input_the_validator_rejects_is_never_timed() -> None:
    """The generator draws sizes up to 400; the statement (the validator) allows 50:
    every timed input passes the validator, from whichever source it came."""
    sandbox_or_skip()
    from supercoder.problems.init import InitConfig, create_problem
    from supercoder.verify.unseen import draw_from_sources, draw_tests

    base = _inputs(Path(tempfile.mkdtemp()))
    gen = base / "gen.py"
    gen.write_text(
        "import random\nSIZES = [1, 400]\n"
        "def generate(seed, size):\n    r = random.Random(seed)\n"
        "    return f'{size}\\n' + ' '.join(str(r.randint(-9, 9)) for _ in range(size)) + '\\n'\n"
    )
    report = create_problem(
        base / "sum.c", base / "in", base / "p", InitConfig(generator=gen, validator=base / "v.py")
    )
    problem = load_problem(report.folder)
    raw = [f"{n}\n".encode() + b"1 " * n for n in (10, 60, 300)]
    assert valid_inputs(problem, raw) == raw[:1]
    tests, source, _ = draw_tests(problem, 5, seed=3)
    # the generator's draws lie well above 50: every one rejected, so a later source
    # (the input model, the fuzzer) gave the timed inputs, and the generator's drop says why
    assert source != "generator"
    found = draw_from_sources(problem, 5, seed=3)
    assert any(d.startswith("generator: ") and "validator rejected" in d for d in found.dropped), (
        found.dropped
    )
    assert tests and all(1 <= int(data.split()[0]) <= 50 for _, data, _ in tests)
    assert all(j.valid for j in run_validator(VALIDATOR, [d for _, d, _ in tests], FAST))
