"""A copy of the baseline stays a copy whatever it says outside what runs.

Before: "identical to the baseline" compared the whole executable file, so the baseline
with its ``.ident`` line changed, or with a ``.section .comment`` line added (bytes the
loader never maps), was no longer a copy: an RL policy dodged copy detection (and the
copy's reward, ``--baseline-copy``) by one comment. Now the identity is a digest of what
is loaded and run (``sandbox/elf.py`` ``run_image_digest``: the ``PT_LOAD`` segments'
bytes, program headers and entry point); a program one loaded byte away still differs.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from supercoder.sandbox.elf import run_image_digest, same_run_image
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import assemble
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import tiny_problem


def _comment_dodges(asm: str) -> dict[str, str]:
    lines = asm.splitlines()
    assert any(ln.strip().startswith(".ident") for ln in lines)
    ident = [
        '\t.ident\t"GCC: (totally) 99.0 a different compiler"'
        if ln.strip().startswith(".ident")
        else ln
        for ln in lines
    ]
    return {
        "ident": "\n".join(ident) + "\n",
        "comment": asm + '\t.section\t.comment\n\t.string\t"not a copy, honest"\n\t.text\n',
        "file": asm.replace("\t.file\t", '\t.file\t"elsewhere.c"\n\t.file\t', 1),
    }


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return tiny_problem(tmp_path_factory.mktemp("copies") / "tiny_sum", big=1000)


def test_only_loaded_bytes_make_a_program_differ(problem, tmp_path):
    asm = baseline_asm(problem)
    variants = {"base": asm, **_comment_dodges(asm)}
    # one loaded byte away: a nop before the first ret
    variants["loaded"] = asm.replace("\tret\n", "\tnop\n\tret\n", 1)
    binaries = {}
    for name, text in variants.items():
        built = assemble(text, tmp_path / name)
        assert built.ok and built.binary is not None, (name, built.log)
        binaries[name] = built.binary.read_bytes()
    base = binaries["base"]
    for name in ("ident", "comment", "file"):
        assert binaries[name] != base, name  # the file differs ...
        assert same_run_image(binaries[name], base), name  # ... what runs does not
    assert not same_run_image(binaries["loaded"], base)
    assert run_image_digest(binaries["loaded"]) != run_image_digest(base)
    # timing groups keep every loaded byte (the build ID a program could read included)
    assert run_image_digest(binaries["ident"]) != run_image_digest(base)
    # not an ELF: digested whole
    assert run_image_digest(b"x" * 100) != run_image_digest(b"x" * 101)
    assert not same_run_image(b"\x7fELF" + bytes(60), b"\x7fELF" + bytes(61))


def test_check_calls_an_ident_dodge_a_copy_of_the_baseline(problem, tmp_path):
    answer = tmp_path / "copy.s"
    answer.write_text(_comment_dodges(baseline_asm(problem))["ident"])
    proc = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "check", problem.path, str(answer)]
        + ["--no-time", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    verdict = json.loads(proc.stdout)
    verdict = verdict[0] if isinstance(verdict, list) else verdict
    assert verdict["status"] == "ok", verdict
    assert verdict["identical_to_baseline"] is True
