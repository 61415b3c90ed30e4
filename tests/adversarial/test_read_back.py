"""What a sandboxed helper leaves behind is read back safely (``sandbox/readback.py``).

Before: after a validator's sandbox ended the host opened the validator's stderr file
``err/N`` with a plain ``open``: a validator that replaced it with a link to a root-only
file had that file's last line printed as its reason (``problem init --validator``);
one that left a FIFO there blocked the host forever (one poisoned training row stalled
verl's reward, one request held a ``serve --workers 1`` worker for good). A PGO build
copied the problem's headers into the folder its instrumented program had just run
in, through any link the program left there: root wrote a file of the problem's
choosing anywhere on the host. Now every such file is opened without following links,
only when regular, never blocking, up to a cap; anything else is the helper's failure
with a one-line reason. Every helper here runs only in the project's sandbox, bounded.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

import pytest

from supercoder.problems.generator import GeneratorConfig, run_generator
from supercoder.problems.validator import ValidatorConfig, ValidatorError, run_validator
from tests.conftest import sandbox_or_skip

FAST = ValidatorConfig(seconds=2.0, max_bytes=1 << 20)
CANARY = "RB-CANARY-7f3a"


@pytest.fixture
def root_only(tmp_path: Path) -> Path:
    """A file only the host user may read (the sandbox user cannot)."""
    path = tmp_path / "secret"
    path.write_text(f"first\n{CANARY}\n")
    path.chmod(0o600)
    return path


def _bounded(fn, seconds: float = 120.0):
    """Run ``fn`` in a thread and return (finished, result or exception): a read that
    blocks shows up as a thread still alive, not as a hung test run."""
    box: dict = {}

    def go() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["value"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(seconds)
    return not t.is_alive(), box.get("value")


def test_validator_link_to_a_root_only_file_is_refused(root_only: Path) -> None:
    sandbox_or_skip()
    plant = (
        "import os, sys\n"
        "os.unlink('err/0')\n"
        f"os.symlink({str(root_only)!r}, 'err/0')\n"
        "sys.exit(1)\n"
    )
    with pytest.raises(ValidatorError, match="err/0 is a symbolic link") as e:
        run_validator(plant, [b"1\n"], FAST, label="validate.py")
    assert CANARY not in str(e.value)


def test_validator_folder_link_is_refused(root_only: Path) -> None:
    """The folder on the way (``err``) swapped for a link to a folder holding ``0``."""
    sandbox_or_skip()
    (root_only.parent / "0").write_text(f"{CANARY}\n")
    plant = (
        "import os, shutil, sys\n"
        "os.rename('err', 'old')\n"
        f"os.symlink({str(root_only.parent)!r}, 'err')\n"
        "sys.exit(1)\n"
    )
    with pytest.raises(ValidatorError, match="err is a symbolic link, not a folder") as e:
        run_validator(plant, [b"1\n"], FAST, label="validate.py")
    assert CANARY not in str(e.value)


def test_validator_fifo_is_refused_not_waited_on() -> None:
    sandbox_or_skip()
    plant = "import os, sys\nos.unlink('err/0')\nos.mkfifo('err/0')\nsys.exit(1)\n"
    finished, value = _bounded(lambda: run_validator(plant, [b"1\n"], FAST, label="validate.py"))
    assert finished, "the host blocked on the FIFO a validator left"
    assert isinstance(value, ValidatorError) and "err/0 is a FIFO" in str(value)


def test_validator_cannot_plant_a_device_node() -> None:
    """A device node needs a capability the sandbox never has: mknod is refused there
    (the host-side refusal of one is in tests/unit/sandbox/test_readback.py)."""
    sandbox_or_skip()
    plant = (
        "import os, stat, sys\n"
        "try:\n"
        "    os.mknod('err/dev', stat.S_IFCHR | 0o666, os.makedev(1, 3))\n"
        "except OSError as e:\n"
        "    sys.exit(f'mknod refused: {e.strerror}')\n"
        "os.unlink('err/0')\n"
        "os.rename('err/dev', 'err/0')\n"
        "sys.exit('mknod allowed')\n"
    )
    judged = run_validator(plant, [b"1\n"], FAST)
    assert not judged[0].valid and judged[0].why.startswith("mknod refused"), judged[0]


def test_validator_flood_is_read_as_its_last_line_only() -> None:
    """An err file as big as the file-size cap lets it be: only its tail is read; a
    sparse terabyte is refused by that cap inside the sandbox."""
    sandbox_or_skip()
    plant = (
        "import os, sys\n"
        "try:\n"
        "    os.truncate('err/0', 1 << 40)\n"
        "    sys.stderr.write('truncated\\n')\n"
        "except OSError as e:\n"
        "    os.truncate('err/0', 0)\n"
        "sys.stderr.write('x' * (900 << 10) + '\\nthe real reason\\n')\n"
        "sys.exit(1)\n"
    )
    finished, value = _bounded(lambda: run_validator(plant, [b"1\n"], FAST))
    assert finished and not isinstance(value, BaseException), value
    assert value[0].why == "the real reason"


def test_generator_leaving_links_and_fifos_changes_nothing(root_only: Path) -> None:
    """A generator's inputs come back on a pipe, never from a file of its folder; what
    it plants there is removed with the folder, never followed."""
    sandbox_or_skip()
    gen = (
        "import os\n"
        f"os.symlink({str(root_only)!r}, 'link')\n"
        f"os.symlink({str(root_only.parent)!r}, 'dirlink')\n"
        "os.mkfifo('fifo')\n"
        "def generate(seed, size):\n"
        "    return f'{size}\\n'\n"
    )
    finished, value = _bounded(lambda: run_generator(gen, [(1, 3)], GeneratorConfig(seconds=5.0)))
    assert finished and value == [b"3\n"], value
    assert CANARY in root_only.read_text()  # the folder's removal followed no link


def test_pgo_program_cannot_have_the_host_write_through_its_link() -> None:
    """The instrumented program (a problem's C) runs in the PGO build folder, then the
    problem's headers are copied there again: a dangling link it left in a header's
    place had root create the file it names, with the header's text."""
    sandbox_or_skip()
    from supercoder.toolchain.flagspace import make
    from supercoder.toolchain.pgo import build_asm

    folder = Path(tempfile.mkdtemp())
    target = folder / "planted-by-the-program"
    (folder / "sha.h").write_text("#define VALUE 41\n")
    source = (
        '#include <stdio.h>\n#include <unistd.h>\n#include "sha.h"\n'
        "int main(void) {\n"
        '    unlink("sha.h");\n'
        f'    symlink("{target}", "sha.h");\n'
        '    printf("%d\\n", VALUE + 1);\n'
        "    return 0;\n}\n"
    )
    (folder / "source.c").write_text(source)  # a problem folder, on the quoted include path
    asm = build_asm(make("gcc", "-O2", pgo=True), source, [b"1\n"], cflags=("-iquote", str(folder)))
    assert not target.exists(), "the host wrote through a link the program left"
    assert asm is None  # the build that would have followed it is refused


def test_validator_poisoning_the_next_inputs_files_is_not_waited_on() -> None:
    """The sandbox's driver opens each input's files itself: a FIFO one validator left
    where the next input's stdin or stderr goes is that input's failure, not a stall
    until the batch's wall limit."""
    sandbox_or_skip()
    plant = (
        "import os, sys\n"
        "if os.path.exists('in/1'):\n"
        "    os.unlink('in/1')\n"
        "    os.mkfifo('in/1')\n"
        "    os.mkfifo('err/2')\n"
        "    sys.exit(0)\n"
        "sys.exit('second')\n"
    )
    config = ValidatorConfig(seconds=20.0, max_bytes=1 << 20)  # a stall would take 130 s
    start = time.monotonic()
    finished, value = _bounded(lambda: run_validator(plant, [b"1\n", b"2\n", b"3\n"], config))
    assert finished and not isinstance(value, BaseException), value
    assert [j.valid for j in value] == [True, False, False]
    assert "not a regular file" in value[1].why and "not a regular file" not in value[2].why
    assert time.monotonic() - start < 60  # gross: no input waited out its wall limit


def test_a_sleeping_validator_stops_the_batch_at_its_first_input() -> None:
    """A validator that blocks (sleep, a read that never ends) costs CPU nothing: the
    driver keeps each input's wall limit and stops the batch at the first past it,
    instead of waiting out every input's share (2 x 4 s x 5 + 10 = 50 s before)."""
    sandbox_or_skip()
    config = ValidatorConfig(seconds=4.0, max_bytes=1 << 20)
    start = time.monotonic()
    sleeper = "import time\ntime.sleep(3600)\n"
    with pytest.raises(ValidatorError, match="ran past its limit .* on input 1 and was stopped"):
        run_validator(sleeper, [b"1\n"] * 5, config)
    assert time.monotonic() - start < 40  # gross: stopped at the first input's 13 s
    # the next batch of the same check (another source's draws) is not run again
    with pytest.raises(ValidatorError, match="earlier: not run again"):
        run_validator(sleeper, [b"2\n"], config)


def test_profiled_program_link_to_a_root_only_file_is_refused(root_only: Path) -> None:
    """A profiled program (a candidate's, under cachegrind) runs in the folder where the
    next test's profile will be written: a link it leaves there is refused, never read."""
    sandbox_or_skip()
    import shutil

    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    from supercoder.prompting.profiling import run_profile
    from supercoder.toolchain.gcc import compile_to_asm
    from supercoder.types import TestCase

    source = (
        "#include <stdio.h>\n#include <unistd.h>\n"
        f'int main(void) {{ symlink("{root_only}", "cg.1.out"); puts("1"); return 0; }}\n'
    )
    asm = compile_to_asm(source, ("-O1",))
    tests = (TestCase("a", b"1\n", input_bytes=b""), TestCase("b", b"1\n", input_bytes=b""))
    profile = run_profile(asm, tests, "planted", budget_seconds=60.0)
    assert profile.gave_up and "cg.1.out is a symbolic link" in profile.gave_up
    assert CANARY not in repr(profile) and profile.tests == ("a",)
