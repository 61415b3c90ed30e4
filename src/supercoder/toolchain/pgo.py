"""Compile one :class:`~supercoder.toolchain.flagspace.Build` to assembly, PGO included.

Profile-guided builds train on the problem's *visible* test inputs only (never hidden
ones; no PGO build without them). The instrumented program runs inside the sandbox
(``run_isolated``: its work folder is the only writable path, where it leaves its
``.gcda`` / ``.profraw`` profile). gcc: ``-fprofile-generate``, then ``-fprofile-use
-fprofile-correction``. clang: ``-fprofile-instr-generate``, ``llvm-profdata merge``,
then ``-fprofile-instr-use`` with ``-fno-integrated-as`` (clang's own assembler path
emits ``.cg_profile`` directives, which GNU as rejects).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import temp_prefix
from supercoder.sandbox.box import Limits
from supercoder.sandbox.readback import read_back_text, regular_file
from supercoder.toolchain.flags import check_build_flags, check_flags
from supercoder.toolchain.flagspace import CC_EXTRA, Build, Tools, find_tools
from supercoder.toolchain.gcc import (
    COMPILE_LIMITS,
    LINK_FLAGS,
    MAX_BINARY_BYTES,
    c_messages,
    compile_to_asm,
    copy_headers,
    sandbox_tool,
    tool_error,
)

PROFILE_RUN_LIMITS = Limits(
    cpu_seconds=20.0, wall_seconds=40.0, memory_mb=2048, output_bytes=64 << 20
)
PROFILE_MAX_INPUTS = 10


def training_inputs(problem) -> list[bytes]:
    """The inputs a profile trains on: the problem's visible tests (at most 10)."""
    if problem is None:
        return []
    return [t.run_input() for t in problem.visible_tests[:PROFILE_MAX_INPUTS]]


def build_asm(
    build: Build,
    source: str,
    inputs: list[bytes],
    tools: Tools | None = None,
    isolation: bool = True,
    cflags: tuple[str, ...] = (),
    link_flags: tuple[str, ...] = (),
    units: tuple[str, ...] = (),
) -> str | None:
    """The build's assembly (with the problem's ``cflags``; ``link_flags`` link the
    instrumented program, with the problem's other translation units ``units``,
    ``Problem.units``), or None when the compiler is missing or the build fails.
    clang's OpenMP needs its own runtime: clang builds are skipped with -fopenmp."""
    tools = tools or find_tools()
    cc = tools.path(build.cc)
    if cc is None or not tools.can_build(build) or (build.pgo and not inputs):
        return None
    if build.cc != "gcc" and "-fopenmp" in cflags:
        return None
    cflags = check_build_flags(cflags, "cflags")
    link_flags = check_flags(link_flags, "cflags/ldflags")
    flags = (*build.flags, *CC_EXTRA.get(build.cc, ()), *cflags)
    try:
        if not build.pgo:
            return compile_to_asm(source, flags, cc=cc, isolation=isolation)
        with tempfile.TemporaryDirectory(prefix=temp_prefix("pgo")) as tmp:
            d, link = Path(tmp), (*units, *LINK_FLAGS, *link_flags)
            if build.cc == "gcc":
                return _gcc_pgo(cc, flags, source, inputs, d, isolation, link)
            return _clang_pgo(cc, tools.profdata or "", flags, source, inputs, d, isolation, link)
    except (UserError, OSError, subprocess.SubprocessError):
        return None


def _gcc_pgo(
    cc: str, flags: tuple, source: str, inputs: list[bytes], d: Path, isolation: bool, link: tuple
) -> str | None:
    (d / "source.c").write_text(source)
    gen = (*flags, "-fprofile-generate")  # two steps: the profile is named after source.o
    _check([cc, *gen, "-c", "source.c", "-o", "source.o"], d, isolation)
    _check([cc, *gen, "source.o", "-o", "instrumented", *link], d, isolation)
    _train(d, inputs, {}, isolation)
    if not regular_file(d, "source.gcda"):  # the instrumented run wrote in d: no link
        return None
    use = (*flags, "-fprofile-use", "-fprofile-correction", "-Wno-missing-profile")
    _check([cc, *use, "source.c", "-S", "-o", "source.s"], d, isolation)
    return read_back_text(d, "source.s", MAX_BINARY_BYTES)


def _clang_pgo(
    cc: str,
    profdata: str,
    flags: tuple,
    source: str,
    inputs: list[bytes],
    d: Path,
    isolation: bool,
    link: tuple,
) -> str | None:
    (d / "source.c").write_text(source)
    _check(
        [cc, *flags, "-fprofile-instr-generate", "source.c", "-o", "instrumented", *link],
        d,
        isolation,
    )
    _train(d, inputs, {"LLVM_PROFILE_FILE": str(d / "run-%p.profraw")}, isolation)
    raw = sorted(p.name for p in d.glob("*.profraw") if regular_file(d, p.name))
    if not raw:
        return None
    _check([profdata, "merge", "-o", "merged.profdata", *raw], d, isolation)
    use = (
        *flags,
        "-fprofile-instr-use=merged.profdata",
        "-fno-integrated-as",
        "-Wno-profile-instr-unprofiled",
    )
    _check([cc, *use, "source.c", "-S", "-o", "source.s"], d, isolation)
    return read_back_text(d, "source.s", MAX_BINARY_BYTES)


def _check(cmd: list[str], cwd: Path, isolation: bool) -> None:
    """One step of a PGO build, in the build sandbox (it sees ``cwd`` and the toolchain)."""
    from supercoder.sandbox.oneshot import run_isolated

    tool = cmd[0]
    if "-iquote" in cmd:  # the problem's headers, copied into the build folder
        cmd = [tool, *copy_headers(cmd[1:], cwd)]
    tool, readonly = sandbox_tool(tool)
    run = run_isolated(
        [tool, *cmd[1:]], cwd, limits=COMPILE_LIMITS, readonly=readonly, isolation=isolation
    )
    trouble = tool_error(tool, run)
    if trouble is not None:
        raise trouble
    if not run.clean_exit:
        raise UserError(f"{Path(tool).name} failed: {c_messages(run, cwd)}")


def _train(d: Path, inputs: list[bytes], env: dict[str, str], isolation: bool) -> None:
    """Training runs of ``d/instrumented``; their exit status does not matter, only
    the profile they leave in ``d``."""
    from supercoder.sandbox.oneshot import run_isolated

    binary = str(d / "instrumented")
    for data in inputs:
        try:
            run_isolated(
                [binary], d, limits=PROFILE_RUN_LIMITS, stdin=data, isolation=isolation, env=env
            )
        except InfraError:  # no sandbox: no profile, no PGO build
            return
