"""Problem folders and benchmarks (folders of problem folders).

A problem folder holds:

- ``source.c``            the C program (stdin -> stdout);
- ``baseline.s``          optional; else built with ``gcc -O3 -S``;
- ``*.h``                 optional headers the source includes (``#include "sha.h"``):
  every build of the source has the folder on its quoted include path;
- ``problem.json``        optional metadata: ``split`` ("train"/"val"), ``tags``, ``cflags`` and
  ``ldflags`` (extra gcc flags for every build and link, e.g. ``"-fopenmp"``, ``"-lgmp"``),
  ``compare`` (``exact`` default, ``tokens``, ``float:TOL``; see ``supercoder.problems.outputs``), ...;
- ``gen.py``              optional input generator: ``generate(seed: int, size: int) -> str``
  (or the file named in ``problem.json`` ``generator``), the first source of timed inputs;
- ``input_model.json``    optional input model (``problems.inputmodel``), written by
  ``problem init`` where there is no generator, the second source of timed inputs;
- ``tests/NAME.in``       a visible test's input, with ``tests/NAME.out`` its expected output;
- ``tests/NAME.args``     optional: the test's command-line arguments, one shell-quoted
  line (``5 --quiet``); every run of the test (reference and candidates) gets them, with
  the same fixed ``argv[0]``;
- ``tests/NAME.gen``      instead of ``NAME.in`` for large inputs: JSON
  ``{"seed": S, "size": N, "sha256": H}``; the input is ``gen.py``'s output, checked
  against ``sha256`` and cached;
- ``tests/NAME.files/``   optional: the test's data files (``crc input.dat``: the files
  its arguments name), placed read-only in the working folder of every run of the test
  (reference, baseline, candidates, coverage, profiles): regular files only, names of
  letters, digits and ``._+-`` (``types.is_data_file_name``), at most 64;
- ``hidden/``             the same layout for hidden tests (used to judge, never shown).

Every file is read as a regular file inside the folder: a symbolic link (or a path that
resolves outside the folder) is refused, so a problem folder cannot make supercoder
read, store or show a host file; a FIFO, device, socket or folder where a file belongs
is refused before any read, and no file may exceed ``MAX_FILE_BYTES`` (256 MiB). A folder's generator (``gen.py``, or the file
``problem.json`` names in ``generator``) is untrusted like the rest: it runs in the
build sandbox under a time and output limit (``problems.generator``), never on the host.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from supercoder.codec import FormatError, decode
from supercoder.errors import UserError, inside, parse_json, printable, read_regular
from supercoder.paths import atomic_write_bytes, cache_dir, pid_alive
from supercoder.problems.generator import run_generator
from supercoder.problems.schema import check_fields
from supercoder.settings import ProblemSettings
from supercoder.toolchain.flags import check_flags
from supercoder.types import (
    MAX_FILES,
    Problem,
    TestCase,
    is_data_file_name,
    parse_args,
    split_flags,
)

log = logging.getLogger("supercoder")

BUNDLED_ROOT = Path(__file__).resolve().parents[1] / "data" / "bench"
SPLITS = ("train", "val")
MAX_FILE_BYTES = 256 << 20  # any one file of a problem folder (a test input, its output)


# A problem folder being written holds this file until its last file is in place
# (``write_problem``); ``load_problem`` refuses a folder that has it.
INCOMPLETE = "INCOMPLETE"
PARTIAL = ".partial-"
SHA256_HEX = re.compile(r"[0-9a-f]{64}")  # a .gen spec's sha256: a key, never a path


def is_problem_dir(path: Path) -> bool:
    """A problem folder (``source.c`` inside; a hidden ``.NAME`` folder, such as an
    import's partial write, is not one)."""
    return (path / "source.c").is_file() and not path.name.startswith(".")


def resolve_problem(spec: str | Path) -> tuple[Path, str]:
    """The folder a command's PROBLEM argument names, and a note saying which was used:
    a folder of that path wins; else a bundled problem of that name (``dp_lcs``). The
    note is empty when the folder is the only candidate."""
    path = Path(spec)
    bundled = BUNDLED_ROOT / str(spec)
    is_bundled = (
        str(spec) == path.name and is_problem_dir(bundled) and bundled.parent == BUNDLED_ROOT
    )
    if path.exists() or path.is_symlink():
        if is_bundled and path.resolve() != bundled.resolve():
            return path, (
                f"using the folder ./{path} (a bundled problem is also named {path.name}; "
                f"it is {bundled})"
            )
        return path, ""
    if is_bundled:
        return bundled, f"using the bundled problem {path.name} ({bundled})"
    return path, ""


def load_problem_arg(spec: str | Path, note: Callable[[str], None] | None = None) -> Problem:
    """``load_problem`` of a command's PROBLEM argument: a folder, or a bundled problem's
    name (``resolve_problem``); ``note`` gets the line saying which was used."""
    path, why = resolve_problem(spec)
    if not path.exists() and not path.is_symlink():
        raise UserError(
            f"{printable(spec, newlines=False)}: no such problem folder, and no bundled "
            "problem of that name (see: supercoder bench list)"
        )
    if why and note:
        note(why)
    return load_problem(path)


def load_problem(path: str | Path) -> Problem:
    """Load one problem folder; raises UserError with a clear message if malformed."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder (a problem is a folder with source.c and tests/)")
    if (folder / INCOMPLETE).exists():
        raise UserError(
            f"{printable(folder, newlines=False)}: incomplete problem folder (its writing "
            "was interrupted before every file was in place); import or write it again"
        )
    if not (folder / "source.c").is_file():
        raise UserError(f"{folder}: no source.c found")
    meta = read_settings(folder)
    baseline = folder / "baseline.s"
    tests = [
        *_load_tests(folder, "tests", hidden=False),
        *_load_tests(folder, "hidden", hidden=True),
        *_load_tests(folder, "fuzz", hidden=True),
    ]
    if not tests:
        raise UserError(f"{folder}: no tests (expected tests/NAME.in with tests/NAME.out)")
    return Problem(
        name=meta.name or folder.name,
        source=read_text(folder, folder / "source.c"),
        tests=tuple(tests),
        baseline_asm=read_text(folder, baseline) if baseline.exists() else None,
        split=meta.split,
        settings=replace(meta, path=str(folder.resolve()), headers_sha=_headers(folder, meta)),
    )


def _headers(folder: Path, meta: ProblemSettings) -> str | None:
    """``headers_sha``: the digest of the files the source includes from its folder
    (``problem.json`` ``headers``, as ``problem init`` copied them; else the folder's
    ``*.h`` outside the test folders), which every build finds on its include path."""
    if meta.headers:
        paths = [folder / name for name in meta.headers]
    else:
        paths = [
            p
            for p in sorted(folder.rglob("*.h"))
            if p.relative_to(folder).parts[0] not in ("tests", "hidden", "fuzz") and p.is_file()
        ]
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path.relative_to(folder)}\0".encode() + read_bytes(folder, path) + b"\0")
    return digest.hexdigest()[:16] if paths else None


PROBLEM_FILES = (
    "source.c",
    "baseline.s",
    "problem.json",
    "gen.py",
    "validate.py",
    "llm_gen.py",
    "llm_validate.py",
    "input_model.json",
    "tests",
    "hidden",
    "fuzz",
)


TEST_FOLDERS = ("tests", "hidden", "fuzz")
TRAVEL_KEY = "problem_files"  # a problem restored from a record keeps its files here
TEST_DATA = (".in", ".out", ".gen", ".args")  # what a test carries itself
MAX_OWN_BYTES = 64 << 20  # a problem's own files (all but its source and tests), together


def own_files(folder: str | Path) -> dict[str, bytes]:
    """The files that define a problem besides its source and its tests' data, by their
    path in the folder: ``problem.json``, ``baseline.s``, ``gen.py``, ``validate.py``,
    ``input_model.json``, headers and further sources, anything else the folder holds
    (a test's ``.in``/``.out``/``.gen``/``.args`` travel as the test itself). What travels with a problem
    wherever it goes (a record's ``problem_files``, ``write_problem``), so that it is
    the same problem there. Hidden entries (``.NAME``) and ``__pycache__`` are not the
    problem's; a symbolic link, an unreadable file or more than ``MAX_OWN_BYTES`` in
    all cannot travel: UserError naming it."""
    root = Path(folder)
    out: dict[str, bytes] = {}
    total = 0
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if path.is_symlink():
            raise UserError(
                f"{path}: a symbolic link in the problem folder cannot travel with the "
                "problem (copy the file instead of linking it)"
            )
        if path.is_dir() or rel.as_posix() in ("source.c", INCOMPLETE):
            continue
        if rel.parts[0] in TEST_FOLDERS and len(rel.parts) == 2 and path.suffix in TEST_DATA:
            continue  # a test's data: carried as the test itself
        data = read_bytes(root, path)
        total += len(data)
        if total > MAX_OWN_BYTES:
            raise UserError(
                f"{root}: the problem's own files (besides source.c and the tests) exceed "
                f"{MAX_OWN_BYTES >> 20} MiB together; they cannot travel with it"
            )
        out[rel.as_posix()] = data
    return out


def kept_paths(problems: Problem | list[Problem] | tuple[Problem, ...]) -> list[Path]:
    """What no output may land in or replace: each problem folder's test folders and
    own files (``errors.check_writable(..., keep_out=...)``)."""
    out = []
    for p in [problems] if isinstance(problems, Problem) else problems:
        folder = p.path
        if folder:
            own = [*p.settings.headers, *filter(None, [p.settings.generator])]
            names = (*PROBLEM_FILES, *own)
            out += [Path(folder) / name for name in names]
    return out


def own_file(folder: Path, path: Path) -> Path:
    """``path`` if it is a regular file (or folder) of the problem folder itself: a
    symbolic link, or anything resolving outside ``folder``, is refused."""
    if path.is_symlink() or not inside(folder, path):
        raise UserError(
            f"{path}: is a symbolic link or leads outside the problem folder; problem files "
            "must be regular files inside it (copy the file instead of linking it)"
        )
    return path


def read_bytes(folder: Path, path: Path) -> bytes:
    """A problem file's bytes: a regular file of the folder, at most ``MAX_FILE_BYTES``
    (a FIFO, device or folder in its place is refused before any read: never a hang)."""
    return read_regular(own_file(folder, path), MAX_FILE_BYTES)


def read_text(folder: Path, path: Path) -> str:
    try:
        return read_bytes(folder, path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def read_settings(folder: Path) -> ProblemSettings:
    """The folder's ``problem.json`` as its typed settings (the defaults where it has
    none); UserError naming the file and the field where one is malformed."""
    path = folder / "problem.json"
    if not path.exists() and not path.is_symlink():
        return ProblemSettings()
    meta = parse_json(read_text(folder, path), path)
    check_fields(meta, str(path))
    for key in ("cflags", "ldflags"):  # the policy: only flags a build needs
        check_flags(split_flags(meta.get(key)), f'{path}: problem.json "{key}"')
    for key, names in (("generator", [meta.get("generator")]), ("headers", meta.get("headers"))):
        for name in filter(None, names or ()):  # shapes checked above: relative, no '..'
            place = folder / name
            if place.is_symlink() or not inside(folder, place):
                raise UserError(
                    f"{path}: field {key!r} names {printable(name)!r}, which leads outside "
                    "the problem folder (a link); problem files are regular files inside it"
                )
            if not place.is_file():
                raise UserError(
                    f"{path}: field {key!r} names {printable(name)!r}, not a file there"
                )
    for name in meta.get("units") or ():
        if name not in (meta.get("headers") or ()):
            raise UserError(
                f"{path}: field 'units' names {printable(name)!r}, which 'headers' does not list "
                "(every build copies the files 'headers' lists)"
            )
    try:
        return decode(ProblemSettings, meta)
    except FormatError as e:
        raise UserError(f"{path}: field {e}") from None


def _load_tests(folder: Path, sub: str, hidden: bool) -> list[TestCase]:
    tdir = folder / sub
    if not tdir.is_dir() and not tdir.is_symlink():
        return []
    own_file(folder, tdir)
    tests = []
    for out in sorted(tdir.glob("*.out")):
        stem = out.stem
        if printable(stem) != stem:
            raise UserError(
                f"{printable(out)}: test file names must be text without control characters"
            )
        name = stem if sub == "tests" else f"{sub}/{stem}"  # unique across folders
        inp, gen = tdir / f"{stem}.in", tdir / f"{stem}.gen"
        expected = read_bytes(folder, out)
        args = _test_args(folder, tdir / f"{stem}.args")
        files = test_files(folder, tdir / f"{stem}.files")
        if inp.exists() or inp.is_symlink():
            data = read_bytes(folder, inp)
            tests.append(
                TestCase(name, expected, input_bytes=data, hidden=hidden, args=args, files=files)
            )
        elif gen.is_file():
            factory = _generated_input(folder, own_file(folder, gen))
            tests.append(
                TestCase(
                    name, expected, input_factory=factory, hidden=hidden, args=args, files=files
                )
            )
        else:
            raise UserError(f"{out}: no matching {stem}.in or {stem}.gen")
    for orphan in sorted(tdir.glob("*.in")):
        if not (tdir / f"{orphan.stem}.out").exists():
            log.warning(
                "warning: %s has no matching %s.out: not a test (skipped)", orphan, orphan.stem
            )
    return tests


def test_files(folder: Path, path: Path) -> tuple[tuple[str, bytes], ...]:
    """A test's data files (``NAME.files/``: every regular file below it, by its path
    there); () without the folder. A link, a name a run's folder cannot hold, or more
    than ``MAX_FILES`` files: UserError naming it."""
    if not (path.exists() or path.is_symlink()):
        return ()
    own_file(folder, path)
    if not path.is_dir():
        raise UserError(f"{printable(str(path))}: a test's data files are a folder (NAME.files/)")
    out = []
    for item in sorted(path.rglob("*")):
        own_file(folder, item)
        if item.is_dir():
            continue
        rel = item.relative_to(path).as_posix()
        if not is_data_file_name(rel):
            raise UserError(
                f"{printable(str(item))}: a data file's name is a relative path of letters, "
                "digits and ._+- (at most 4 parts, none starting with a dot)"
            )
        out.append((rel, read_bytes(folder, item)))
        if len(out) > MAX_FILES:
            raise UserError(f"{printable(str(path))}: more than {MAX_FILES} data files")
    return tuple(out)


def _test_args(folder: Path, path: Path) -> tuple[str, ...]:
    """A test's arguments (``NAME.args``: one shell-quoted line); () without the file."""
    if not (path.exists() or path.is_symlink()):
        return ()
    try:
        return parse_args(read_text(folder, path))
    except ValueError as e:
        raise UserError(f"{printable(str(path))}: {e}") from e


def _generated_input(folder: Path, spec_path: Path) -> Callable[[], bytes]:
    try:
        spec = parse_json(read_text(folder, spec_path), spec_path)
        seed, size, digest = int(spec["seed"]), int(spec["size"]), spec["sha256"]
    except (UserError, KeyError, ValueError, TypeError, OverflowError) as e:
        raise UserError(f"{spec_path}: expected JSON with seed, size, sha256 ({e})") from e
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        shown = printable(str(digest), newlines=False)[:80]
        raise UserError(
            f"{spec_path}: sha256 must be the input's SHA-256 as 64 lowercase hex digits, "
            f"not {shown!r}"
        )

    def factory() -> bytes:
        return generated_input(folder, seed, size, digest)

    return factory


def generated_input(folder: Path, seed: int, size: int, digest: str | None = None) -> bytes:
    """The folder's generator's input for (seed, size), run in the build sandbox
    (``problems.generator``); verifies the digest. Cached under a key made of the
    generator's text, the seed, the size and the digest (a validated hex string): an
    entry is only ever what this very generator drew, never a file a digest names nor
    another problem's input with the same digest."""
    if digest is not None and not SHA256_HEX.fullmatch(digest):
        raise UserError(f"{folder}: a generated input's sha256 must be 64 lowercase hex digits")
    source = generator_source(replace(read_settings(folder), path=str(folder)))
    if source is None:
        raise UserError(f"{folder}: tests reference generated inputs but gen.py is missing")
    cached = None
    if digest:
        key = hashlib.sha256(f"{digest}\0{seed}\0{size}\0{source}".encode()).hexdigest()
        cached = cache_dir() / "inputs" / f"{key}.in"
        if cached.is_file() and not cached.is_symlink():
            data = read_regular(cached, MAX_FILE_BYTES)
            if hashlib.sha256(data).hexdigest() == digest:
                return data
    (data_bytes,) = run_generator(source, [(seed, size)], label=f"{folder}/gen.py")
    actual = hashlib.sha256(data_bytes).hexdigest()
    if digest and actual != digest:
        raise UserError(
            f"{folder}/gen.py(seed={seed}, size={size}) produced different input than recorded"
        )
    if cached:
        atomic_write_bytes(cached, data_bytes)
    return data_bytes


def generator_source(settings: ProblemSettings) -> str | None:
    """The text of a problem's generator (``generator`` in problem.json, else the
    folder's ``gen.py``; ``settings.path`` the folder), or None where it has none."""
    folder = settings.path
    if not folder:
        return None
    root = Path(folder)
    name = settings.generator or "gen.py"
    path = root / name
    if not path.is_file() and not path.is_symlink():
        return None
    return read_text(root, path)


def write_problem(problem: Problem, folder: Path) -> Path:
    """Write a problem in the folder format (inputs written out in full), with the files
    of the folder it was loaded from that define it besides its source, tests and
    ``problem.json`` (``own_files``: its generator, input model, headers, ...), whole or
    not at all: into ``.NAME.partial-PID`` beside ``folder``, marked ``INCOMPLETE`` until its
    last file is in place, then renamed to ``folder`` (an older folder there is replaced
    only then). A write killed midway leaves no folder that loads (``load_problem``
    refuses a marked one); the next import removes the dead partial folder
    (``remove_dead_partials``)."""
    folder = Path(folder)
    origin = problem.path
    own = own_files(origin) if origin and Path(origin).is_dir() else {}
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = folder.with_name(f".{folder.name}{PARTIAL}{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        (work / INCOMPLETE).write_text(
            "supercoder is writing this problem; it is not usable until this file is gone\n"
        )
        for rel, data in own.items():  # problem.json and baseline.s: from the problem below
            if rel not in ("problem.json", "baseline.s"):
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_bytes(data)
        (work / "source.c").write_text(problem.source)
        if problem.baseline_asm:
            (work / "baseline.s").write_text(problem.baseline_asm)
        meta = problem.settings.stored()
        if problem.split:
            meta["split"] = problem.split
        meta.setdefault("name", problem.name)
        (work / "problem.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
        for t in problem.tests:
            sub = work / ("hidden" if t.hidden else "tests")
            sub.mkdir(exist_ok=True)
            stem = t.name.removeprefix("hidden/").replace("/", "_")
            (sub / f"{stem}.in").write_bytes(t.read_input())
            (sub / f"{stem}.out").write_bytes(t.expected)
            if t.args:
                (sub / f"{stem}.args").write_text(shlex.join(t.args) + "\n")
            for rel, data in t.files:
                (sub / f"{stem}.files" / rel).parent.mkdir(parents=True, exist_ok=True)
                (sub / f"{stem}.files" / rel).write_bytes(data)
        (work / INCOMPLETE).unlink()
        if folder.exists() or folder.is_symlink():
            old = folder.with_name(f".{folder.name}.old{PARTIAL}{os.getpid()}")
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
            work.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            work.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def remove_dead_partials(root: Path) -> list[Path]:
    """Remove the ``.NAME.partial-PID`` folders under ``root`` (and one level down, the
    splits) whose writing process is gone: what a killed import left."""
    removed = []
    for parent in (root, *(p for p in _subfolders(root) if not p.name.startswith("."))):
        for entry in _subfolders(parent):
            name, sep, pid = entry.name.rpartition(PARTIAL)
            if not (entry.name.startswith(".") and sep and pid.isdigit()) or entry.is_symlink():
                continue
            if not pid_alive(int(pid)):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
