"""Hostile problems: a problem folder or dataset record is untrusted input too.

Before: the problem's C was compiled on the host, as root, with its cflags unchecked
(``compile_to_asm``: ``gcc -O3 -S`` + cflags): ``"cflags": ["-wrapper", "/bin/sh,-c,touch
MARK; ..."]`` made ``supercoder check`` (and ``dataset import`` of a record with the same
``extra_info.cflags``) create MARK on the host; ``-fplugin=``, ``-B``, ``-specs=`` load
code the same way; and the compiler's messages quoted any host file the source
``#include``d (or ``-include`` named). Now the flags pass an allow-list (a one-line
error naming the field) and every compile runs in the build sandbox, which sees only
its own folder and the toolchain; messages about other files are not shown.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.errors import UserError
from supercoder.toolchain.flags import check_flags
from supercoder.toolchain.gcc import compile_c, compile_to_asm
from tests.conftest import SUM_SOURCE, make_sum_problem, sandbox_or_skip

TRIVIAL = "\t.text\n\t.globl main\nmain:\n\txorl %eax, %eax\n\tret\n"


@pytest.fixture
def host_dir():
    """A host folder the sandbox never shows (world-searchable, like /tmp)."""
    sandbox_or_skip()
    d = Path(tempfile.mkdtemp(prefix="sc-test-host-"))
    d.chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def wrapper(mark: Path) -> list[str]:
    return ["-wrapper", f'/bin/sh,-c,touch {mark}; exec "$0" "$@"']


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_check_refuses_a_wrapper_in_problem_json_and_runs_nothing(host_dir, tmp_path):
    mark = host_dir / "MARK"
    folder = make_sum_problem(tmp_path / "sum")
    (folder / "problem.json").write_text(json.dumps({"cflags": wrapper(mark)}))
    cand = tmp_path / "c.s"
    cand.write_text(TRIVIAL)
    result = cli("check", str(folder), str(cand), "--no-time")
    assert result.exit_code == 2, result.output
    assert 'problem.json "cflags"' in result.output and "-wrapper" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not mark.exists()


@pytest.mark.parametrize(
    "flags",
    [
        ["-fplugin=/tmp/evil.so"],
        ["-B", "/tmp/evil"],
        ["-B/tmp/evil"],
        ["-specs=/tmp/evil.specs"],
        ["--specs=/tmp/evil.specs"],
        ["@/tmp/opts"],
        ["-include", "/etc/hostname"],
        ["-imacros", "/etc/hostname"],
        ["-I/etc"],
        ["-I", "../.."],
        ["-Wl,-plugin=/tmp/x.so"],
        ["-Wa,-I/etc"],
        ["-Xlinker", "--plugin"],
        ["-fprofile-use=/etc"],
        ["--sysroot=/tmp"],
        ["-save-temps"],
        ["-o", "/etc/x"],
        ["extra.c"],
    ],
)
def test_flags_that_run_load_or_read_other_files_are_refused(flags):
    with pytest.raises(UserError) as e:
        check_flags(flags, 'problem.json "cflags"')
    message = str(e.value)
    assert message.startswith('problem.json "cflags": ') and "\n" not in message


def test_what_a_build_needs_is_allowed():
    flags = [
        "-O2",
        "-Ofast",
        "-march=native",
        "-mavx2",
        "-fopenmp",
        "-funroll-loops",
        "-fno-tree-vectorize",
        "-DN=100",
        "-D",
        "M=3",
        "-UNDEBUG",
        "-std=gnu11",
        "-Wall",
        "-Wno-unused-result",
        "-g",
        "-Iinclude",
        "-I",
        "inc",
        "-lgmp",
        "-lm",
        "-pthread",
        "-L",
        "lib",
        "-static",
    ]
    assert check_flags(flags, "cflags") == tuple(flags)


def test_a_wrapper_reaching_the_compiler_runs_only_in_the_build_sandbox(host_dir):
    """The second wall: even unchecked, the compile runs where the host is not visible."""
    mark = host_dir / "MARK"
    with contextlib.suppress(UserError):
        compile_to_asm(SUM_SOURCE, ("-O2", *wrapper(mark)))
    out = host_dir / "prog"
    compile_c(SUM_SOURCE, out, ("-O2", *wrapper(mark)))
    assert not mark.exists()


def test_dataset_import_refuses_a_record_with_a_wrapper(host_dir, tmp_path):
    mark = host_dir / "MARK"
    record = {
        "data_source": "supercoder",
        "extra_info": {
            "split": "train",
            "index": 0,
            "c_code": SUM_SOURCE,
            "inputs": ["2\n1 2\n"],
            "outputs": ["3\n"],
            "cflags": wrapper(mark),
        },
    }
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(record) + "\n")
    result = cli("dataset", "import", str(path), "--out", str(tmp_path / "o"), "--workers", "1")
    assert "extra_info.cflags" in result.output and "-wrapper" in result.output, result.output
    assert "Traceback" not in result.output
    assert not mark.exists()
    assert not list((tmp_path / "o").glob("*/*/source.c"))


def test_compile_messages_never_quote_a_host_file(host_dir, tmp_path):
    secret = host_dir / "secret.h"
    secret.write_text("TOPSECRET_4242 leaked;\n")
    secret.chmod(0o644)
    sources = [
        f'#include "{secret}"\nint main(void) {{ return 0; }}\n',
        '#include "/usr/lib/os-release"\nint main(void) { return 0; }\n',
        '#include "/usr/include/stdio.h"\n#include "/etc/passwd"\nint main(void){return 0;}\n',
    ]
    release = Path("/usr/lib/os-release")
    shown = release.read_text().splitlines()[0] if release.is_file() else "TOPSECRET"
    for source in sources:
        folder = make_sum_problem(tmp_path / f"p{sources.index(source)}")
        (folder / "source.c").write_text(source)
        cand = tmp_path / "c.s"
        cand.write_text(TRIVIAL)
        result = cli("check", str(folder), str(cand), "--no-time")
        assert result.exit_code == 2, result.output
        assert "TOPSECRET" not in result.output and "root:" not in result.output
        assert shown.split("=")[0] not in result.output and "PRETTY" not in result.output
        assert "Traceback" not in result.output
    assert os.path.exists(secret)
