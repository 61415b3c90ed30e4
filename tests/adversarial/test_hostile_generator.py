"""A problem folder's generator is untrusted: it runs in the build sandbox, bounded.

Before: ``gen.py`` was imported into the supercoder process on the host (any Python a
problem folder held ran with the user's rights); a generator that looped or printed
without end hung or filled memory. Now it runs in a one-shot sandbox with a CPU/wall
and an output limit, and sees no host file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.problems.generator import GeneratorConfig, GeneratorError, run_generator
from supercoder.problems.loading import load_problem
from tests.conftest import make_sum_problem, sandbox_or_skip

FAST = GeneratorConfig(seconds=1.0, max_bytes=8 << 20)


def test_generator_that_loops_forever_is_stopped() -> None:
    sandbox_or_skip()
    start = time.monotonic()
    with pytest.raises(GeneratorError, match="ran past its limit of 1 CPU seconds"):
        run_generator("def generate(seed, size):\n    while True:\n        pass\n", [(1, 1)], FAST)
    assert time.monotonic() - start < 10


def test_generator_stopped_at_its_limit_is_not_run_again() -> None:
    """A folder of many ``.gen`` tests whose generator sleeps: each input runs its own
    sandbox, so each would wait out the wall limit; once stopped, it is refused at once."""
    sandbox_or_skip()
    sleeper = "import time\ndef generate(seed, size):\n    time.sleep(3600)\n"
    with pytest.raises(GeneratorError, match="ran past its limit of 1 CPU seconds"):
        run_generator(sleeper, [(1, 1)], FAST)
    with pytest.raises(GeneratorError, match="earlier: not run again"):
        run_generator(sleeper, [(2, 1)], FAST)


def test_generator_that_writes_a_gigabyte_is_stopped() -> None:
    sandbox_or_skip()
    writes = (
        "import sys\n"
        "def generate(seed, size):\n"
        "    block = 'x' * (1 << 20)\n"
        "    for _ in range(1024):\n"  # 1 GiB, on the stream gen.py may print to
        "        sys.stdout.write(block)\n"
        "    return 'done'\n"
    )
    with pytest.raises(GeneratorError, match="printed more than 8 MiB"):
        run_generator(writes, [(1, 1)], FAST)
    returns = "def generate(seed, size):\n    return '7\\n' * (6 << 20)\n"  # 12 MiB returned
    with pytest.raises(GeneratorError, match="printed more than 8 MiB"):
        run_generator(returns, [(1, 1)], FAST)


def test_generator_cannot_read_host_files() -> None:
    sandbox_or_skip()
    folder = Path(tempfile.mkdtemp())  # world-searchable, as a user's folder would be
    os.chmod(folder, 0o755)
    secret = folder / "secret.txt"
    secret.write_text("host secret\n")
    os.chmod(secret, 0o644)
    thief = f"def generate(seed, size):\n    return open({str(secret)!r}).read()\n"
    with pytest.raises(GeneratorError, match="No such file"):
        run_generator(thief, [(1, 1)], FAST)
    home = f"import os\ndef generate(seed, size):\n    return ' '.join(os.listdir({str(Path.home())!r}))\n"
    with pytest.raises(GeneratorError):
        run_generator(home, [(1, 1)], FAST)


def test_gen_spec_of_a_folder_runs_its_generator_in_the_sandbox(tmp_path: Path) -> None:
    """A ``.gen`` test input comes from the folder's gen.py run in the sandbox; a
    generator that breaks out of its limits is a one-line error, not a hang."""
    sandbox_or_skip()
    folder = make_sum_problem(Path(tempfile.mkdtemp()) / "p")
    (folder / "gen.py").write_text(
        "def generate(seed, size):\n    return f'{size}\\n' + ' '.join(['1'] * size) + '\\n'\n"
    )
    (folder / "tests" / "g.out").write_text("4\n")
    (folder / "tests" / "g.gen").write_text(
        '{"seed": 1, "size": 4, "sha256": "' + hashlib.sha256(b"4\n1 1 1 1\n").hexdigest() + '"}'
    )
    problem = load_problem(folder)
    assert next(t for t in problem.tests if t.name == "g").read_input() == b"4\n1 1 1 1\n"
    (folder / "gen.py").write_text("import os\ndef generate(seed, size):\n    os.abort()\n")
    (folder / "tests" / "g.gen").write_text('{"seed": 2, "size": 4, "sha256": "' + "0" * 64 + '"}')
    with pytest.raises(UserError, match="gen.py failed"):
        next(t for t in load_problem(folder).tests if t.name == "g").read_input()


def test_a_stored_input_model_cannot_make_a_draw_run_away() -> None:
    """``input_model.json`` is the problem folder's, untrusted: counts, lengths and
    repeats past any sense are refused at the draw's budget (``DRAW_CHARS`` per input,
    ``DRAW_SECONDS`` of host CPU for a check's draws), quickly, with the reason."""
    import random

    from supercoder.problems.inputmodel import DRAW_SECONDS, DrawRefused, InputModel

    huge = 10**12
    spec = {
        "format": "supercoder-input-model/1",
        "longest": huge,
        "body": [
            {"repeat": {"range": [huge, huge]}, "body": []},
            {"line": [{"word": {"chars": "ab", "len": {"range": [huge, huge]}}}]},
            {"line": [{"run": {"count": {"range": [huge, huge]}, "of": {"int": [0, huge]}}}]},
            {"line": [{"float": [0, 1], "decimals": huge}]},
        ],
    }
    start = time.process_time()
    with pytest.raises(DrawRefused, match="within budget"):
        InputModel(spec).draw(random.Random(1), 5)
    assert time.process_time() - start < 3 * DRAW_SECONDS


def test_a_wrongly_inferred_tree_is_drawn_within_a_second() -> None:
    """The issue's tree problem (``n m``, a line of ``n`` bits, then ``n - 1`` edges) was
    inferred as ``n`` lines of 2 to 100,000 numbers each, and one check spent over 8
    minutes of host CPU drawing from it (each draw up to 32 million characters, retried
    six times). Its structure is now inferred right, and the same wrong structure,
    stored, costs at most about a second a check, drawn or refused."""
    import random

    from supercoder.problems.inputmodel import DRAW_SECONDS, DrawRefused, InputModel, infer

    rng = random.Random(4)
    inputs = []
    for n in (5, 9, 40, 100000):
        bits = " ".join(str(rng.randint(0, 1)) for _ in range(n))
        edges = "".join(f"{rng.randint(1, i)} {i + 1}\n" for i in range(1, n))
        inputs.append(f"{n} {rng.randint(1, n)}\n{bits}\n{edges}".encode())
    body = infer(inputs).spec["body"]
    assert body[1]["line"][0]["run"]["count"] == {"var": "v0"}  # n bits on one line
    assert body[2]["repeat"] == {"var": "v0", "add": -1}  # then n - 1 edges
    wrong = {
        "format": "supercoder-input-model/1",
        "longest": 1400000,
        "body": [
            {
                "line": [
                    {"int": [5, 100000], "name": "v0", "size": True},
                    {"int": [1, 100000], "name": "v1", "size": True},
                ]
            },
            {
                "repeat": {"var": "v0"},
                "body": [
                    {
                        "line": [
                            {
                                "run": {
                                    "count": {"range": [2, 100000]},
                                    "of": {"int": [0, 100000], "max": "v0"},
                                }
                            }
                        ]
                    }
                ],
            },
        ],
    }
    start = time.process_time()
    try:
        drawn = InputModel(wrong).draw(random.Random(2), 5)
        assert all(len(x) <= 1 << 22 for x in drawn)
    except DrawRefused as e:
        assert "within budget" in str(e)
    assert time.process_time() - start < 2 * DRAW_SECONDS + 1
