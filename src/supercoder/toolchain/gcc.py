"""gcc: build baselines, assemble candidates, describe the machine."""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from supercoder.codec import decode
from supercoder.errors import InfraError, UserError, machine_error, machine_trouble
from supercoder.paths import package_version, temp_prefix
from supercoder.sandbox.box import Limits, RunResult
from supercoder.sandbox.oneshot import run_isolated
from supercoder.sandbox.readback import (
    ReadBackError,
    move_back,
    read_back,
    read_back_text,
    regular_file,
    write_into,
)
from supercoder.toolchain.asmcheck import forbidden_directive
from supercoder.toolchain.asmtext import collapse_space, statements
from supercoder.toolchain.flags import include_folders
from supercoder.toolchain.isa import Target, beyond, gas_flags, lowest_level, scan_object
from supercoder.types import IsaUse, Machine

CC = os.environ.get("SUPERCODER_CC", "gcc")
BASELINE_FLAGS = ("-O3",)
LINK_FLAGS = ("-lm",)
COMPILE_TIMEOUT = 60.0
# Building untrusted assembly: per-process CPU, address space, output, processes (gcc
# starts as, collect2, ld), and a cap on every file written (object, binary).
BUILD_LIMITS = Limits(
    cpu_seconds=10.0, wall_seconds=30.0, memory_mb=1024, output_bytes=256 << 10, processes=8
)
MAX_BINARY_BYTES = 64 << 20
MAX_ASM_BYTES = 64 << 20  # a candidate's assembly file, as read from disk
# What a candidate's text may cost the host before the sandbox takes over (the directive
# check, the comparison with the baseline, the digests): linear in its size, so its size
# is capped, checked first and in O(1): at most ``CANDIDATE_ASM_FACTOR`` times the
# problem's -O3 listing, and never less than ``CANDIDATE_ASM_FLOOR`` (a program that
# big is a table, not code). docs/sandbox.md lists every cap.
CANDIDATE_ASM_FLOOR = 8 << 20
CANDIDATE_ASM_FACTOR = 2
# Its code, once assembled: the host decodes every instruction (``toolchain/isa.py``: what
# the program needs of the CPU), about 0.3 s a megabyte; gcc -O3 of a large program
# (sqlite) has about 1.5 MB of it.
MAX_CODE_BYTES = 4 << 20


def candidate_cap(baseline: str) -> int:
    """The most bytes of assembly a candidate of this problem may have."""
    return max(CANDIDATE_ASM_FLOOR, CANDIDATE_ASM_FACTOR * _size(baseline))


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def oversized(asm: str, baseline: str) -> str | None:
    """Why the candidate is too large to build (None: it is not); see ``candidate_cap``."""
    cap = candidate_cap(baseline)
    if len(asm) <= cap // 4:  # a UTF-8 character is at most 4 bytes: no need to count
        return None
    size = _size(asm)
    if size <= cap:
        return None
    return (
        f"the program is {size / 1e6:.1f} MB of assembly, over this problem's cap of "
        f"{cap / (1 << 20):.1f} MiB ({CANDIDATE_ASM_FACTOR}x its -O3 listing, at least "
        f"{CANDIDATE_ASM_FLOOR >> 20} MiB): not assembled"
    )


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    binary: Path | None
    log: str
    isa: IsaUse | None = None  # what an assembled program's code needs (``toolchain/isa.py``)
    adapted: str = ""  # how the build adapted to build what gcc -O3 builds ('' none)


def _require_cc() -> str:
    path = shutil.which(CC)
    if not path:
        raise InfraError(f"{CC} not found: install it (apt-get install gcc)")
    return path


SYSTEM_DIRS = ("/usr/", "/bin/")  # what every one-shot sandbox shows (oneshot.py)


def sandbox_tool(tool: str) -> tuple[str, tuple[Path, ...]]:
    """How the build sandbox runs ``tool`` (a path, as found on PATH): the path to run
    and the folders to show it read-only. Under ``/usr`` it runs as it is. Elsewhere
    (``~/bin/gcc``, ``/opt/gcc-14/bin/gcc``) its own folder and its installation prefix
    (the folder above the resolved binary's) are shown; a link into ``/usr`` in a folder
    the sandbox user cannot enter runs as the program it points to."""
    if tool.startswith(SYSTEM_DIRS):
        return tool, ()
    path = Path(tool).absolute()
    real = path.resolve()
    if str(real).startswith(SYSTEM_DIRS) and not _world_reachable(path.parent):
        return str(real), ()
    mounts = (path.parent,) if path.parent != real.parent else ()
    if not str(real).startswith(SYSTEM_DIRS):
        mounts = (*mounts, real.parent.parent)
    return str(path), mounts


def _world_reachable(folder: Path) -> bool:
    return all(f.stat().st_mode & 0o001 for f in [folder, *folder.parents] if f != Path("/"))


# What a toolchain prints when the machine, not the C, stopped it (never a diagnostic
# about the program: a C source cannot make gcc unable to start or read its own input).
_TOOL_TROUBLE = re.compile(
    r"(prlimit: failed to [^\n]*|bwrap: [^\n]*|cannot execute [^\n]*|execvp: [^\n]*"
    r"|[^\n]*: Permission denied|[^\n]*out of memory allocating[^\n]*"
    r"|[^\n]*virtual memory exhausted[^\n]*|[^\n]*Too many open files[^\n]*"
    r"|[^\n]*Cannot allocate memory[^\n]*)"
)


def toolchain_trouble(run: RunResult) -> str | None:
    """Why a tool's run failed because of the machine (it could not start, read its own
    files, allocate memory or open files; or it exited with an error status and printed
    nothing at all), or None when it ran (its failure, if any, is about its input)."""
    if run.outcome == "spawn_error":
        return f"it could not be started ({os.strerror(run.exit_code) if run.exit_code else 'no reason given'})"
    text = (run.stderr + run.stdout).decode(errors="replace")
    m = _TOOL_TROUBLE.search(text)
    if m and not run.clean_exit:
        return m.group(0).strip()[:300]
    phrase = machine_trouble(text)
    if phrase and not run.clean_exit:
        return phrase
    if run.outcome == "exited" and run.exit_code != 0 and not text.strip():
        return f"it exited with status {run.exit_code} and printed nothing"
    return None


_WORKING_TOOLS: set[tuple[str, bool]] = set()  # compilers seen to build an empty program
_EMPTY_PROGRAM = "int main(void) { return 0; }\n"


def empty_program_fails(tool: str, readonly: Sequence[Path], isolation: bool) -> str | None:
    """Why ``tool`` cannot build even an empty C program (``tool -O3 empty.c``, in the
    build sandbox), or None when it can (remembered for this process). A build that
    fails this way failed because of the toolchain or the machine, never because of the
    program or candidate it was given."""
    if (tool, isolation) in _WORKING_TOOLS:
        return None
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("cc")))
    try:
        (work / "empty.c").write_text(_EMPTY_PROGRAM)
        run = run_isolated(
            [tool, "-O3", "empty.c", "-o", "empty"],
            work,
            limits=COMPILE_LIMITS,
            readonly=tuple(readonly),
            isolation=isolation,
            file_bytes=MAX_BINARY_BYTES,
        )
        if run.clean_exit and regular_file(work, "empty"):
            _WORKING_TOOLS.add((tool, isolation))
            return None
        text = (run.stderr + run.stdout).decode(errors="replace").strip()
        first = text.splitlines()[0][:300] if text else ""
        return first or run.describe()
    except OSError as e:
        return str(e)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def broken_tool_error(tool: str, why: str) -> InfraError:
    return InfraError(
        f"{Path(tool).name} fails even on an empty C program ({why}) — machine trouble, not "
        "a problem with the program (check the toolchain: a failing gcc wrapper on PATH, a "
        "broken install; SUPERCODER_CC names another compiler)"
    )


def tool_error(tool: str, run: RunResult) -> InfraError | None:
    """``InfraError("gcc could not run: ...")`` when ``toolchain_trouble`` finds one."""
    why = toolchain_trouble(run)
    if why is None:
        return None
    return InfraError(
        f"{Path(tool).name} could not run: {why} — machine trouble, not a problem with the "
        "program (check the toolchain, free memory or file descriptors: ulimit -v / -n, "
        "umask, a failing gcc wrapper on PATH; SUPERCODER_CC names another compiler)"
    )


# Compiling a problem's C (untrusted too: problems come from other people): gcc -S or a
# whole build, in the build sandbox, seeing only a fresh folder with source.c.
COMPILE_LIMITS = Limits(
    cpu_seconds=COMPILE_TIMEOUT,
    wall_seconds=2 * COMPILE_TIMEOUT,
    memory_mb=4096,
    output_bytes=1 << 20,
    processes=8,
)


def compile_to_asm(
    source: str,
    flags: tuple[str, ...] = BASELINE_FLAGS,
    cc: str | None = None,
    *,
    isolation: bool = True,
    unit: str = "source.c",
) -> str:
    """C source -> assembly text (gcc -S), in the build sandbox (``compile_in_sandbox``).
    Raises UserError if the C does not compile; the message quotes the problem's files
    only. ``unit``: another translation unit of the problem to compile (a path in the
    problem, copied into the build folder with its files: ``Problem.units``)."""
    compiler = cc or _require_cc()
    run, work = compile_in_sandbox(source, [*flags, "-S", unit, "-o", "out.s"], compiler, isolation)
    try:
        log = (run.stderr + run.stdout).decode(errors="replace")
        if not run.clean_exit and machine_trouble(log):
            raise machine_error(f"{compiler} could not compile the C source", log)
        try:
            if run.clean_exit and regular_file(work, "out.s"):
                return read_back_text(work, "out.s", MAX_BINARY_BYTES)
        except ReadBackError as e:  # read back from the sandbox: never through a link
            raise UserError(f"the build of the C source left a bad file: {e}") from None
        raise UserError(
            f"the C source does not compile with {Path(compiler).name} {' '.join(flags)}:\n"
            f"{c_messages(run, work)}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_c(
    source: str,
    out: Path,
    flags: tuple[str, ...] = BASELINE_FLAGS,
    link_flags: Sequence[str] = (),
    *,
    isolation: bool = True,
    units: Sequence[str] = (),
) -> BuildResult:
    """C source -> linked binary at ``out`` (``link_flags`` after ``-lm``), built in the
    build sandbox; the log quotes the problem's files only. ``units``: the problem's
    other translation units (``Problem.units``), compiled and linked with it.

    A build the user's ``gcc -O3`` accepts is never refused for how C99 treats
    ``inline``: where the link misses functions the source defines ``inline`` without
    ``static`` (no symbol in C99 unless inlined, which ``-O3`` does and ``-O0``, a
    sanitizer or a coverage build may not), it is built again with
    ``-fgnu89-inline`` and ``adapted`` says so."""
    built = _compile_c(source, out, flags, link_flags, isolation, units)
    if built.ok or "-fgnu89-inline" in flags or not is_link_failure(built.log):
        return built
    inline = c99_inline(source, missing_symbols(built.log))
    if not inline:
        return built
    again = _compile_c(source, out, (*flags, "-fgnu89-inline"), link_flags, isolation, units)
    if not again.ok:
        return built
    return replace(
        again,
        adapted=f"built with -fgnu89-inline: {', '.join(inline[:3])} is defined 'inline' "
        "without 'static' (C99 makes no symbol for it where it is not inlined)",
    )


def c99_inline(source: str, symbols: Sequence[str]) -> list[str]:
    """The missing symbols ``source`` defines ``inline`` without ``static`` or ``extern``
    (C99: such a definition provides no symbol to link against; gnu89 and C++ differ)."""
    found = []
    for name in symbols:
        head = re.compile(rf"^[^;{{}}#]*\binline\b[^;{{}}]*\b{re.escape(name)}\s*\(", re.M)
        m = head.search(source)
        if m and not re.search(r"\b(static|extern)\b", m.group(0)):
            found.append(name)
    return found


def _compile_c(
    source: str,
    out: Path,
    flags: tuple[str, ...],
    link_flags: Sequence[str],
    isolation: bool,
    units: Sequence[str],
) -> BuildResult:
    args = [*flags, "source.c", *units, "-o", "program", *LINK_FLAGS, *link_flags]
    run, work = compile_in_sandbox(source, args, _require_cc(), isolation)
    try:
        log = c_messages(run, work)
        try:
            if not run.clean_exit or not regular_file(work, "program"):
                return BuildResult(False, None, log or run.describe())
            move_back(work, "program", out, MAX_BINARY_BYTES)
        except ReadBackError as e:
            return BuildResult(False, None, f"the build left a bad file: {e}")
        out.chmod(0o755)
        return BuildResult(True, out, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_in_sandbox(
    source: str,
    args: Sequence[str],
    cc: str,
    isolation: bool = True,
    limits: Limits = COMPILE_LIMITS,
    files: dict[str, bytes] | None = None,
) -> tuple[RunResult, Path]:
    """``cc *args`` in a fresh folder holding ``source.c`` (and ``files``), in a one-shot
    build sandbox that sees that folder and the toolchain only. Returns the run and the
    folder (the caller reads what it needs and removes it)."""
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("cc")))
    try:
        (work / "source.c").write_text(source)
        for name, data in (files or {}).items():
            (work / name).write_bytes(data)
    except OSError as e:  # the machine's disk, not the problem
        shutil.rmtree(work, ignore_errors=True)
        raise InfraError(f"cannot prepare a build folder: {e}") from e
    cc, readonly = sandbox_tool(cc)
    try:
        args = copy_headers(args, work)  # the problem's own headers, into the build folder
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        raise InfraError(f"cannot prepare a build folder: {e}") from e
    try:
        run = run_isolated(
            [cc, *args],
            work,
            limits=limits,
            readonly=readonly,
            isolation=isolation,
            file_bytes=MAX_BINARY_BYTES,
        )
        trouble = tool_error(cc, run)
        if trouble is not None:
            raise trouble
        broken = None if run.clean_exit else empty_program_fails(cc, readonly, isolation)
        if broken is not None:
            raise broken_tool_error(cc, broken)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return run, work


MAX_HEADER_BYTES = 16 << 20


def copy_headers(args: Sequence[str], work: Path) -> list[str]:
    """``args`` with each problem folder on the include path (``-iquote FOLDER``, from
    ``Problem.compile_flags``) replaced by the build folder ``work``, after copying the
    problem's support files there at their paths in the problem (``problem_files``):
    ``#include "sha.h"`` beside ``source.c`` and the problem's own include folders
    (``-Ilib/utilities``, relative to the build folder) resolve as in the problem, and
    the build sandbox sees those files and nothing else of the folder or the host."""
    folders = set(include_folders(args))
    out: list[str] = []
    for k, arg in enumerate(args):
        if k and args[k - 1] == "-iquote" and arg in folders:
            root = Path(arg).resolve()
            for rel in problem_files(root):
                # into a folder a sandboxed run may have written (PGO's): never through a
                # link it left; the build's own files (source.c) win, a second copy is the same
                write_into(work, rel, (root / rel).read_bytes())
            out.append(str(work))
            continue
        out.append(arg)
    return out


def problem_files(root: Path) -> list[str]:
    """The support files of the problem folder ``root`` that builds copy: those
    ``problem.json`` lists (``headers``: what ``problem init`` copied, headers and
    ``.c`` files alike), else its ``*.h`` outside the test folders; regular files
    inside it only, at most ``MAX_HEADER_BYTES`` in all."""
    import json

    listed: list[str] | None = None
    with contextlib.suppress(OSError, ValueError):
        meta = json.loads((root / "problem.json").read_text())
        if isinstance(meta, dict) and isinstance(meta.get("headers"), list):
            listed = [str(h) for h in meta["headers"]]
    if listed is None:
        listed = [
            str(p.relative_to(root))
            for p in sorted(root.rglob("*.h"))
            if p.relative_to(root).parts[0] not in ("tests", "hidden", "fuzz")
        ]
    out, total = [], 0
    for rel in listed:
        path = root / rel
        if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(root):
            continue
        if rel in ("source.c", "program", "out.s") or ".." in Path(rel).parts:
            continue
        total += path.stat().st_size
        if total > MAX_HEADER_BYTES:
            break
        out.append(rel)
    return out


_DIAGNOSTIC = re.compile(r"^([^\s:][^:]*)(:\d+(:\d+)?: |: In |: At )")
_FOREIGN_NOTE = "(a message about another file, not shown)"


def c_messages(run: RunResult, work: Path, name: str = "source.c") -> str:
    """gcc's messages about the problem's own files (``name`` and every file of the
    build folder: its headers and other units, as the user wrote them): the folder's
    path removed, and every diagnostic about a file outside it (``/usr/include/...``,
    with the lines of that file it quotes) replaced by a notice, so no message shows a
    file outside the problem."""
    text = (run.stderr + run.stdout).decode(errors="replace")
    text = text.replace(f"{work}/", "").replace(str(work), ".")
    kept: list[str] = []
    foreign = False
    for line in text.splitlines():
        m = _DIAGNOSTIC.match(line)
        if m:
            foreign = m.group(1) != name and not _own_file(m.group(1), work)
            if foreign:
                if not kept or kept[-1] != _FOREIGN_NOTE:
                    kept.append(_FOREIGN_NOTE)
                continue
        elif foreign and not line.startswith(("In file included from", "compilation terminated")):
            continue  # what gcc quotes of the other file
        kept.append(line)
    text = "\n".join(kept)
    if run.outcome in ("timeout", "memory_limit", "output_limit") and not text.strip():
        text = f"the compiler was stopped: {run.describe()}"
    return _trim(text)


def _own_file(path: str, work: Path) -> bool:
    """A path gcc names that is one of the build folder's files (relative, inside it)."""
    if path.startswith("/") or ".." in Path(path).parts:
        return False
    try:
        return regular_file(work, path)
    except ReadBackError:
        return False


def assemble(
    asm: str,
    out: Path,
    link_flags: Sequence[str] = (),
    *,
    isolation: bool = True,
    limits: Limits = BUILD_LIMITS,
    target: Target = Target.NATIVE,
    units: Mapping[str, str] | None = None,
) -> BuildResult:
    """Assemble and link like the paper, ``gcc program.s -o program -lm [link_flags]``,
    with the problem's other translation units (``units``: their ``-O3`` assembly by
    name, ``baseline.unit_asms``) assembled and linked beside it,
    in a fresh sandbox that sees only the program text and the toolchain (see
    ``build_in_sandbox``): libraries named by ``link_flags`` (problem.json ``ldflags``)
    must be installed under ``/usr``. The binary lands at ``out``; ``isa`` says what
    its code needs. Under a ``target`` level the assembler refuses any instruction
    beyond it, and so does the scan of the object's bytes (``toolchain/isa.py``); either
    refusal is one line naming the instruction and the level it needs."""
    names = [f"unit{k}.s" for k in range(len(units or {}))]
    args = [
        "-save-temps",
        *gas_flags(target),
        *names,
        "-o",
        "program",
        *LINK_FLAGS,
        *link_flags,
    ]
    extra = dict(zip(names, (units or {}).values(), strict=True))
    built = build_in_sandbox(asm, args, isolation, limits, extra)
    if not built.ok or built.binary is None:
        if target is not Target.NATIVE and _GAS_ERROR.search(built.log):
            plain = object_code(asm, isolation=isolation, limits=limits)
            if plain.binary is not None:
                shutil.rmtree(plain.binary.parent, ignore_errors=True)
            if plain.ok:  # it assembles for this CPU: the target refused it
                return BuildResult(False, None, _refusal(asm, built.log, target, isolation))
        return built
    try:
        # -save-temps names the object program.o, or program-program.o beside other units
        folder = built.binary.parent
        try:
            name = "program-program.o" if units else "program.o"
            name = name if regular_file(folder, name) else "program.o"
            obj = read_back(folder, name, MAX_BINARY_BYTES, missing_ok=True)
        except ReadBackError as e:
            return BuildResult(False, None, f"program.s: the build left a bad file: {e}")
        if obj is None:
            raise InfraError("the assembler left no object file")
        too_much = _code_over_cap(obj)
        if too_much:
            return BuildResult(False, None, f"program.s: {too_much}")
        use = _scan_bytes(obj, target)
        over = beyond(use, target)
        if over:
            return BuildResult(False, None, f"program.s: {over}", use)
        try:
            move_back(folder, "program", out, MAX_BINARY_BYTES)
        except ReadBackError as e:
            return BuildResult(False, None, f"program.s: the build left a bad file: {e}")
        out.chmod(0o755)
        return BuildResult(True, out, built.log, use)
    finally:
        shutil.rmtree(built.binary.parent, ignore_errors=True)


def _code_over_cap(obj: bytes) -> str | None:
    """Why the object's code is too large for the host's instruction scan (None: it is
    not): ``MAX_CODE_BYTES`` of executable sections (``.fill`` or ``.rept`` in ``.text``
    make megabytes of code from a line of text)."""
    from supercoder.toolchain.isa import executable_sections

    try:
        size = sum(len(code) for code in executable_sections(obj))
    except ValueError:
        return None  # the scan says what it can of it
    if size <= MAX_CODE_BYTES:
        return None
    return (
        f"its code is {size / 1e6:.1f} MB, over the {MAX_CODE_BYTES >> 20} MiB cap on a "
        "program's instructions (the host decodes every one of them)"
    )


def _scan(obj: Path, target: Target) -> IsaUse:
    """What the object file ``obj`` (in a build folder) needs, read back safely."""
    try:
        data = read_back(obj.parent, obj.name, MAX_BINARY_BYTES, missing_ok=True)
    except ReadBackError:  # not an object gas writes: nothing is known of its code
        return IsaUse(("UNKNOWN",), None, target.value)
    if data is None:
        raise InfraError("the assembler left no object file")
    return _scan_bytes(data, target)


def _scan_bytes(data: bytes, target: Target) -> IsaUse:
    try:
        return scan_object(data, target)
    except ValueError:  # not an object gas writes: nothing is known of its code
        return IsaUse(("UNKNOWN",), None, target.value)


def program_isa(asm: str, target: Target = Target.NATIVE, *, isolation: bool = True) -> IsaUse:
    """What a program's code needs (``gcc -c`` in the build sandbox, then the scan);
    ``UNKNOWN`` when it does not assemble."""
    built = object_code(asm, isolation=isolation)
    if not built.ok or built.binary is None:
        return IsaUse(("UNKNOWN",), None, target.value)
    try:
        return _scan(built.binary, target)
    finally:
        shutil.rmtree(built.binary.parent, ignore_errors=True)


# what GNU as says of an instruction beyond -march: "`vpaddd' is not supported on
# `generic64...'", "bad register name `%zmm0'", "unsupported instruction `vpaddd'", ...
_GAS_ERROR = re.compile(r"^program\.s:(\d+): Error: (.*)$", re.M)


def _refusal(asm: str, log: str, target: Target, isolation: bool) -> str:
    """The assembler's refusals under ``target`` as one line: the first instruction,
    the extension it needs and that extension's level (the statement assembled alone,
    without a target, and decoded), and how many more lines were refused."""
    lines = dict(statements(asm))
    refused = [(int(m.group(1)), m.group(2)) for m in _GAS_ERROR.finditer(log)]
    number, error = refused[0]
    text = collapse_space(lines.get(number, error))
    needs = ""
    alone = object_code(f"\t.text\n\t{text}\n", isolation=isolation)
    if alone.ok and alone.binary is not None:
        try:
            use = _scan(alone.binary, Target.NATIVE)
        finally:
            shutil.rmtree(alone.binary.parent, ignore_errors=True)
        if use.extensions:
            level = lowest_level(set(use.extensions))
            where = level.value if level else "no x86-64 level"
            needs = f": it needs {', '.join(use.extensions)} ({where})"
    more = f" ({len(refused) - 1} more lines refused)" if len(refused) > 1 else ""
    return f"program.s:{number}: `{text}` is outside --target {target.value}{needs}{more}"


def object_code(asm: str, *, isolation: bool = True, limits: Limits = BUILD_LIMITS) -> BuildResult:
    """``gcc -c`` of the program text, under the same rules; the ``.o`` bytes in a
    BuildResult whose ``binary`` is a temporary file the caller reads then deletes."""
    return build_in_sandbox(asm, ["-c", "-o", "program"], isolation, limits)


def build_in_sandbox(
    asm: str,
    args: Sequence[str],
    isolation: bool = True,
    limits: Limits = BUILD_LIMITS,
    extra: Mapping[str, str] | None = None,
) -> BuildResult:
    """``gcc program.s *args`` on untrusted assembly text: refused up front if it uses a
    file-reading directive (``asmcheck``); else run in a one-shot sandbox holding only
    a fresh folder with ``program.s`` and the toolchain, under ``limits`` and the
    ``MAX_BINARY_BYTES`` file-size cap. The log names only ``program.s`` and never
    quotes another file. On success ``binary`` is ``<fresh folder>/program`` (the
    caller moves it and removes the folder)."""
    refused = forbidden_directive(asm)
    if refused:
        return BuildResult(False, None, refused)
    cc, readonly = sandbox_tool(_require_cc())
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("build")))
    try:
        try:
            (work / "program.s").write_text(asm)
            for name, text in (extra or {}).items():  # the problem's other units (trusted)
                (work / name).write_text(text)
        except OSError as e:  # the machine's disk, not the candidate
            raise InfraError(f"cannot prepare a build folder: {e}") from e
        run = run_isolated(
            [cc, "program.s", *args],
            work,
            limits=limits,
            readonly=readonly,
            isolation=isolation,
            file_bytes=MAX_BINARY_BYTES,
        )
        over = _over_memory_cap(run, limits)
        if over:  # the program asked the assembler for more than its cap: its failure
            shutil.rmtree(work, ignore_errors=True)
            return BuildResult(False, None, over)
        trouble = tool_error(cc, run)
        if trouble is not None:  # the machine's, never the candidate's failure
            raise trouble
        failure = _build_failure(run, work, limits)
        broken = empty_program_fails(cc, readonly, isolation) if failure else None
        if broken is not None:  # nothing builds here: the machine's failure too
            raise broken_tool_error(cc, broken)
        if failure:
            shutil.rmtree(work, ignore_errors=True)
            return BuildResult(False, None, failure)
        return BuildResult(True, work / "program", build_log(run, work, limits))
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


_ALLOCATING = re.compile(r"out of memory allocating (\d+) bytes")


def _over_memory_cap(run: RunResult, limits: Limits) -> str | None:
    """Why the build failed for asking more memory than the build's cap allows, when the
    assembler says it asked for a quarter of the cap or more at once (``.rept`` of
    millions, a huge ``.fill``): the program's demand, not the machine's shortage (a
    small allocation failing is machine trouble: ``tool_error``)."""
    if run.clean_exit:
        return None
    m = _ALLOCATING.search((run.stderr + run.stdout).decode(errors="replace"))
    if not m or int(m.group(1)) < (limits.memory_mb << 20) // 4:
        return None
    return (
        f"the assembler ran out of memory: the program asked it for {int(m.group(1)) / 1e9:.1f} "
        f"GB at once, over the build's {limits.memory_mb} MiB limit"
    )


def _build_failure(run: RunResult, work: Path, limits: Limits) -> str | None:
    """Why the build in ``work`` does not count (None: it does)."""
    log = build_log(run, work, limits)
    try:
        made = regular_file(work, "program")
    except ReadBackError as e:  # read back from the sandbox: never through a link
        return f"the build left a bad file: {e}"
    if not run.clean_exit or not made:
        return log or "the build failed without a message"
    if os.stat(work / "program", follow_symlinks=False).st_size > MAX_BINARY_BYTES:
        return f"the binary is over the {MAX_BINARY_BYTES >> 20} MiB cap"
    return None


_NOT_SHOWN = "(a message about another file, not shown)"
_TMP_OBJECT = re.compile(r"\bcc[A-Za-z0-9]{6}\.o\b")
_FOREIGN = re.compile(r"^(?!program\.s:)[^\s:]+:\d+:")
_STOPPED = {
    "timeout": "the assembler or linker ran out of time ({cpu:.0f} s of CPU, {wall:.0f} s wall)",
    "output_limit": "the assembler or linker printed too much",
    "memory_limit": "the assembler or linker ran out of memory ({mem} MiB)",
}
_KILLED = re.compile(
    r"(File size limit exceeded|CPU time limit exceeded|Killed) signal terminated program (\w+)"
)


def build_log(run: RunResult, work: Path, limits: Limits = BUILD_LIMITS) -> str:
    """gcc's messages about ``program.s`` only: the folder's path removed, temporary
    object names made stable, any line about another file (``FILE:LINE: ...``, the form
    in which the assembler quotes a file's text) replaced by a notice."""
    text = (run.stderr + run.stdout).decode(errors="replace").replace(f"{work}/", "")
    text = _TMP_OBJECT.sub("program.o", text.replace(str(work), "."))
    killed = _KILLED.search(text)
    if killed:
        what = {
            "File size": f"an output file would exceed the {MAX_BINARY_BYTES >> 20} MiB cap",
            "CPU time": "it ran out of CPU time",
            "Killed": "it was killed (memory or time limit)",
        }
        reason = next(v for k, v in what.items() if killed.group(1).startswith(k))
        return f"{killed.group(2)} was stopped: {reason}"
    if run.outcome in _STOPPED:
        return _STOPPED[run.outcome].format(
            cpu=limits.cpu_seconds, wall=limits.wall_seconds, mem=limits.memory_mb
        )
    lines = [_NOT_SHOWN if _FOREIGN.match(ln) else ln for ln in text.splitlines()]
    return _trim("\n".join(lines))


def _trim(text: str, limit: int = 4000) -> str:
    return (
        text
        if len(text) <= limit
        else text[:limit] + f"\n... ({len(text) - limit} more characters)"
    )


_UNDEFINED = re.compile(r"undefined reference to [`'\"]?([^'`\"\s]+)['`\"]?")
_LINKER = re.compile(r"(^|\s)(/\S*/)?(ld|collect2)(\.\w+)?: |ld returned \d+ exit status")


def missing_symbols(log: str) -> list[str]:
    """Symbols the linker could not find, in order of first mention."""
    return list(dict.fromkeys(_UNDEFINED.findall(log)))


def is_link_failure(log: str) -> bool:
    """Did the build fail in the linker (not the compiler or the assembler)?"""
    return bool(_LINKER.search(log))


_NOISE = re.compile(r"^\s*\.(ident|file|section\s+\.note\.GNU-stack.*|loc|cfi_\w+)\b.*$")


def is_noise_line(line: str) -> bool:
    """Directives that don't change the program: .ident, .file, .loc, .cfi_*, the GNU-stack note."""
    return bool(_NOISE.match(line))


def normalize_asm(asm: str) -> str:
    """One statement per line, comments, .ident/.file/.loc/.cfi and spacing removed;
    string literals untouched (``#`` and spaces inside them are part of the program)."""
    kept = (collapse_space(stmt) for _, stmt in statements(asm) if not is_noise_line(stmt))
    return "\n".join(kept)


def same_program(a: str, b: str) -> bool:
    """Do two listings normalize alike? For *reporting* near-duplicates only: a
    normalization may conflate two programs, so no decision (grouping, caching, a copy
    of the baseline) rests on it; decisions use ``asm_digest`` or the executable."""
    return normalize_asm(a) == normalize_asm(b)


def asm_digest(asm: str) -> str:
    """The digest of the exact text: what identifies a program for every cache,
    grouping and novelty decision (never a normalized form, which may conflate two
    programs that run differently)."""
    return hashlib.sha256(asm.encode("utf-8", "surrogatepass")).hexdigest()


@cache
def gcc_version() -> str:
    try:
        out = subprocess.run([CC, "--version"], capture_output=True, text=True, timeout=10).stdout
        return out.splitlines()[0].strip() if out else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


@cache
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> Machine:
    """``machine_context`` as the typed record verdicts and calibrations keep."""
    return decode(Machine, machine_context())


def machine_context() -> dict[str, str | int]:
    """Where and when a result was measured: the supercoder version (package metadata),
    gcc, CPU, cores, kernel, Python and the date (UTC)."""
    return {
        "supercoder": package_version(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "gcc": gcc_version(),
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 0,
        "kernel": platform.release(),
        "python": platform.python_version(),
    }
