"""A toolchain the machine stops is machine trouble (exit 3, "gcc could not run: ..."),
never "the C source does not compile"; one the machine merely constrains (a umask of
077, ``ulimit -n 64``, ``ulimit -v 1G``, gcc found outside /usr) just works (issue 36)."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.toolchain.gcc import compile_to_asm
from tests.conftest import make_sum_problem, sandbox_or_skip


@pytest.fixture
def shared_dir():
    """A folder the sandbox user can enter (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="sc-tc-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _baseline(problem: Path, out: Path, env: dict[str, str], preexec=None):
    """``supercoder problem baseline`` with a fresh cache (so gcc really runs)."""
    cache = tempfile.mkdtemp(prefix="sc-cache-")
    try:
        return subprocess.run(
            [sys.executable, "-m", "supercoder.cli", "problem", "baseline", str(problem)]
            + ["-o", str(out)],
            capture_output=True,
            text=True,
            env={**os.environ, **env, "SUPERCODER_CACHE": cache},
            preexec_fn=preexec,
            timeout=300,
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _tool(folder: Path, name: str, text: str | None = None, link: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    path = folder / name
    if link:
        path.symlink_to(link)
    else:
        path.write_text(text or "")
        path.chmod(0o755)
    return path


def test_a_gcc_that_fails_without_a_word_is_machine_trouble(tmp_path, shared_dir):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    _tool(shared_dir / "bin", "gcc", "#!/bin/sh\nexit 3\n")
    done = _baseline(problem, tmp_path / "b.s", {"PATH": f"{shared_dir}/bin:/usr/bin:/bin"})
    assert done.returncode == 3, done.stderr
    assert "gcc could not run: it exited with status 3 and printed nothing" in done.stderr
    assert "does not compile" not in done.stderr


def test_a_gcc_that_refuses_every_program_in_words_is_machine_trouble(tmp_path, shared_dir):
    """A wrapper that prints an error of its own and fails whatever it is given (even an
    empty program) is the toolchain's failure, not the C's: exit 3, never exit 2."""
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    _tool(
        shared_dir / "bin",
        "gcc",
        "#!/bin/sh\necho 'gcc: error: license server unreachable' >&2\nexit 1\n",
    )
    done = _baseline(problem, tmp_path / "b.s", {"PATH": f"{shared_dir}/bin:/usr/bin:/bin"})
    assert done.returncode == 3, done.stderr
    assert "fails even on an empty C program" in done.stderr
    assert "license server unreachable" in done.stderr
    assert "does not compile" not in done.stderr


def test_gcc_found_through_a_folder_outside_usr_runs(tmp_path, shared_dir):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    gcc = shutil.which("gcc", path="/usr/bin:/bin")
    assert gcc
    _tool(shared_dir / "links", "gcc", link=gcc)  # ~/bin/gcc -> /usr/bin/gcc
    _tool(shared_dir / "wrap" / "bin", "gcc", f'#!/bin/sh\nexec {gcc} "$@"\n')
    for folder in ("links", "wrap/bin"):
        out = tmp_path / f"{folder.replace('/', '_')}.s"
        done = _baseline(problem, out, {"PATH": f"{shared_dir}/{folder}:/usr/bin:/bin"})
        assert done.returncode == 0, (folder, done.stderr)
        assert "main:" in out.read_text()


@pytest.mark.parametrize(
    "limit",
    [
        pytest.param(lambda: os.umask(0o077), id="umask-077"),
        pytest.param(
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)), id="ulimit-n-64"
        ),
        pytest.param(
            lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)), id="ulimit-v-1G"
        ),
    ],
)
def test_a_constrained_machine_still_builds_and_checks(limit, tmp_path, request):
    """The C is built (gcc in the one-shot sandbox) and, under the umask, the baseline
    checked on every test (the run sandbox, its cgroup): under a umask of 077 the sandbox user could not
    read the source written for it; under ``ulimit -n 64`` / ``-v 1G`` the limits asked
    of prlimit were above the ones the shell allowed, so gcc never started."""
    sandbox_or_skip()
    limit_id = request.node.callspec.id
    problem = make_sum_problem(tmp_path / "sum")
    out = tmp_path / "b.s"
    done = _baseline(problem, out, {}, preexec=limit)
    assert done.returncode == 0, done.stderr
    if limit_id != "umask-077":  # only a umask reached the run sandbox (its cgroup)
        return
    cache = tempfile.mkdtemp(prefix="sc-cache-")
    try:
        check = subprocess.run(
            [sys.executable, "-m", "supercoder.cli", "check", str(problem), str(out)]
            + ["--no-time", "--json"],
            capture_output=True,
            text=True,
            env={**os.environ, "SUPERCODER_CACHE": cache},
            preexec_fn=limit,
            timeout=300,
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    assert check.returncode == 0, check.stderr
    assert '"status": "ok"' in check.stdout


def test_c_that_does_not_compile_is_still_the_users_mistake():
    with pytest.raises(UserError, match="does not compile") as e:
        compile_to_asm("int main(void) { return undeclared; }\n")
    assert "undeclared" in str(e.value)
