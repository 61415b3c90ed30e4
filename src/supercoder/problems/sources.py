"""What a program's build needs, gathered into a problem folder: ``problem init`` takes
a program as its repository builds it and makes it self-contained.

Real programs are built with include folders and further source files (PolyBench:
``gcc -I utilities -I kernels/atax utilities/polybench.c kernels/atax/atax.c``) and
with quoted includes of headers or ``.c`` files beside the source. ``gather`` finds
what such a build reads and says where each file goes inside the problem folder:

- the **main** file is the one source file that defines ``main`` (else the first);
  its folder is the problem folder's root: files in it (or below it) keep their paths;
- every **include folder** of the flags (``-I DIR``, ``-iquote DIR``, ``-isystem DIR``,
  relative to the current folder or absolute) outside that folder becomes
  ``lib/<its name>/`` in the problem and the flag is rewritten to point there
  (``-Ilib/utilities``); one inside it becomes its path there (``-I.``); folders under
  ``/usr`` (the toolchain's) are left alone;
- every **further source file** is copied like an include and is a translation unit
  of its own (``units``), compiled apart and linked with ``source.c`` as the
  repository builds it (``static`` names may repeat across files); with ``join``
  (``problem init --join``) it is joined instead: ``source.c`` is the main file's text
  followed by ``#include "lib/utilities/polybench.c"``, one translation unit;
- the files these include (``#include "x.h"``, ``#include "x.c"``, and ``<x.h>`` found
  in an include folder), transitively, are copied where the rewritten flags find them;
  a quoted include is resolved as the compiler resolves it, beside its includer first:
  ``#include "../jsmn.h"`` above the main file's folder is copied too, its folder
  placed under ``lib/`` (the layout below it kept) and the directive naming the copy.

Only files inside the main file's folder, an include folder, or reached by such a
relative include (never system folders) are copied; an include
that resolves nowhere is left to the compiler (a system header, or an error naming
it). The problem folder's ``problem.json`` lists the copied files (``headers``) and
stores the rewritten flags; a problem file from elsewhere naming a folder outside it
is still refused (``toolchain/flags.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from supercoder.errors import UserError, printable
from supercoder.types import split_flags

MAX_FILES = 400
MAX_BYTES = 16 << 20  # the build sandbox copies at most this much (gcc.MAX_HEADER_BYTES)
LIB = "lib"

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.MULTILINE)
_MAIN = re.compile(rb"^[^\n;#/]*\bmain[ \t]*\([^;{]*\)\s*\{", re.MULTILINE)
_DIR_FLAGS = ("-iquote", "-isystem", "-idirafter", "-I")


@dataclass(frozen=True)
class BuildFiles:
    """A program's build, made self-contained (see the module docstring).

    Fields:
        main: the user's file that defines ``main``.
        source: the text of the problem's ``source.c``.
        files: problem-relative path -> the user's file to copy there.
        cflags: the flags (a list: a define whose value holds spaces or quotes stays
            one flag), include folders rewritten to point inside the problem.
        moved: one line per include folder or source file placed in the problem.
        texts: problem path -> the text to write there instead of a plain copy (a file
            whose quoted include reaches above the program's folder, ``"../x.h"``: the
            directive names the copy's place in the problem, ``_rewrite_includes``).
        units: the further source files, by problem path: translation units of their
            own, compiled apart and linked with ``source.c`` (empty with ``join``).
        answer: the unit that is the answer (``source.c``) when it is not the main file
            (``with_answer``: its problem path as gathered, e.g. ``vm.c``); "" for main's.
        main_unit: with ``answer``, where the main file's text is (one of ``units``).
    """

    main: Path
    source: str
    files: dict[str, Path]
    cflags: tuple[str, ...]
    moved: tuple[str, ...] = ()
    texts: dict[str, str] = field(default_factory=dict)
    units: tuple[str, ...] = ()
    answer: str = ""
    main_unit: str = ""
    joined: tuple[str, ...] = ()


def join_into_answer(build: BuildFiles, unit: str) -> BuildFiles:
    """``build`` with the further unit ``unit`` made part of the answer (a second
    ``--answer-unit``): ``#include``d at the end of ``source.c``, one translation unit
    with it (their ``static`` names must then not clash), no longer linked apart."""
    if unit not in build.units:
        raise ValueError(f"{unit} is not a unit of the build")
    text = (
        f"{build.source}\n/* problem init --answer-unit {unit}: part of the answer (one "
        f'translation unit with this file) */\n#include "{unit}"\n'
    )
    return replace(
        build,
        source=text,
        units=tuple(u for u in build.units if u != unit),
        moved=(*build.moved, f"{build.files[unit]} -> {unit} (joined to source.c: the answer)"),
        joined=(*build.joined, unit),
    )


def answer_unit_of(build: BuildFiles, name: str) -> str:
    """The unit of ``build`` that ``name`` names (``problem init --answer-unit``): its
    problem path, its path as the user gave it, or its file name when one unit has it;
    UserError naming the units otherwise."""
    units = build.units
    if name in units:
        return name
    given = Path(name)
    if given.is_file():
        hits = [u for u in units if build.files[u].resolve() == given.resolve()]
        if given.resolve() == build.main.resolve():
            return ""  # main's own unit: the default layout
        if hits:
            return hits[0]
    hits = [u for u in units if u == name] or [u for u in units if Path(u).name == given.name]
    if given.name == build.main.name and not hits:
        return ""
    if len(hits) != 1:
        listed = ", ".join([build.main.name, *units]) or build.main.name
        why = "names more than one unit" if hits else "is not one of the program's units"
        raise UserError(
            f"--answer-unit {printable(name)} {why} (they are: {listed}); name one of "
            "the .c files given to problem init (not with --join)"
        )
    return hits[0]


def with_answer(build: BuildFiles, unit: str) -> BuildFiles:
    """``build`` with the further unit ``unit`` (a problem path of ``build.units``) as
    the answer: its text becomes ``source.c`` and the main file is a unit of its own
    (at its own name in the problem folder), compiled apart and linked as before. The
    unit's quoted includes of the problem's files name them from the problem's root
    when the unit was in a folder of its own (``#include "../vm.h"`` in ``src/vm.c``
    becomes ``#include "vm.h"``), so they resolve as they did beside it."""
    if not unit:
        return build
    if unit not in build.units:
        raise ValueError(f"{unit} is not a unit of the build")
    text = build.texts.get(unit)
    if text is None:
        text = build.files[unit].read_text(errors="replace")
    main_rel, n = build.main.name, 2
    while main_rel in build.files or main_rel == "source.c":
        main_rel, n = f"{build.main.stem}_{n}{build.main.suffix}", n + 1
    files = {k: v for k, v in build.files.items() if k != unit}
    files[main_rel] = build.main
    texts = {k: v for k, v in build.texts.items() if k != unit}
    texts[main_rel] = build.source
    folder = os.path.dirname(unit)
    if folder and folder != ".":  # its quoted includes of the problem's files, from the root

        def here(m: re.Match) -> str:
            target = os.path.normpath(os.path.join(folder, m[2]))
            return f'{m[1]}"{target}"' if target in build.files else m[0]

        text = re.sub(r'^([ \t]*#[ \t]*include[ \t]*)"([^"\n]+)"', here, text, flags=re.M)
    cflags = build.cflags
    units = tuple(main_rel if u == unit else u for u in build.units)
    moved = (
        *(m for m in build.moved if not m.startswith(f"{build.files[unit]} -> {unit} (")),
        f"{build.files[unit]} -> source.c (the answer unit); {build.main} -> {main_rel} "
        "(compiled apart, linked with source.c)",
    )
    return BuildFiles(
        build.main, text, files, cflags, moved, texts, units, answer=unit, main_unit=main_rel
    )


def main_file(sources: Sequence[Path]) -> Path:
    """The one file of ``sources`` that defines ``main``; else the first."""
    with_main = [p for p in sources if p.is_file() and _MAIN.search(p.read_bytes())]
    return with_main[0] if len(with_main) == 1 else sources[0]


def with_build_flags(
    cflags: str | Sequence[str], include: Sequence[Path] = (), define: Sequence[str] = ()
) -> tuple[str, ...]:
    """``cflags`` (one shell-quoted line, split once, or a list) with include folders
    (``-I DIR``) and defines (``-D NAME[=VALUE]``, each one flag as given: a value with
    spaces or quotes, ``-D 'FLAGS_STR="-O2 -lrt"'``, is kept whole) given apart: the
    flags as a list (``gather`` places what they name)."""
    extra = [f"-I{d}" for d in include] + [f"-D{d}" for d in define]
    return (*extra, *split_flags(cflags))


def gather(sources: Sequence[Path], cflags: str | Sequence[str], join: bool = False) -> BuildFiles:
    """The files a build of ``sources`` with ``cflags`` reads, placed in a problem folder
    (see the module docstring); UserError for a missing file or too many files. The
    further source files are translation units of their own (``units``), or, with
    ``join``, included at the end of ``source.c`` (one unit)."""
    for path in sources:
        if not path.is_file():
            raise UserError(f"{path}: no such C file")
    main = main_file(sources)
    root = main.resolve().parent
    places: dict[Path, str] = {root: "."}  # a user's folder -> where it is in the problem
    moved: list[str] = []

    def place(folder: Path) -> str:
        folder = folder.resolve()
        if folder in places:
            return places[folder]
        if folder.is_relative_to(root):
            return str(folder.relative_to(root))
        taken = set(places.values())
        name, n = f"{LIB}/{_safe(folder.name)}", 2
        while name in taken or (root / name).exists():
            name, n = f"{LIB}/{_safe(folder.name)}{n}", n + 1
        places[folder] = name
        moved.append(f"{folder} -> {name}/")
        return name

    flags, quote_dirs, search_dirs = _rewrite(split_flags(cflags), place)
    files: dict[str, Path] = {}

    def problem_path(path: Path) -> str | None:
        for folder in sorted(places, key=lambda f: len(f.parts), reverse=True):
            if path.is_relative_to(folder):
                rel = Path(places[folder]) / path.relative_to(folder)
                return str(rel).removeprefix("./")
        return None

    extra = []
    for path in sources:
        if path == main:
            continue
        where = problem_path(path.resolve())
        if where is None:
            where = f"{place(path.resolve().parent)}/{path.name}"
        extra.append((where, path.resolve()))
    links: list[tuple[Path, bytes, Path]] = []  # (includer, as written, the file it names)
    included = _closure(
        [main.resolve(), *(p for _, p in extra)],
        quote_dirs,
        search_dirs,
        problem_path,
        lambda folder: place(folder),
        links,
    )
    files.update(included)
    joined = [where for where, _ in extra if where not in included]
    files.update((where, path) for where, path in extra)
    if "source.c" in files:
        raise UserError(
            f"{files['source.c']}: a file named source.c beside the program is not supported "
            "(the problem's own source.c is the program); rename it"
        )
    _check_size(files)
    where_of = {path: where for where, path in files.items()} | {main.resolve(): "source.c"}
    rewritten = _rewrite_includes(links, where_of)
    text = rewritten.pop("source.c", None) or main.read_text(errors="replace")
    if joined and join:
        text += (
            "\n/* the program's other source files (problem init --join: one translation "
            "unit) */\n" + "".join(f'#include "{where}"\n' for where in joined)
        )
    how = "joined to source.c" if join else "compiled apart, linked with source.c"
    moved += [f"{path} -> {where} ({how})" for where, path in extra]
    moved += [f"{where}: an include above its folder now names its copy" for where in rewritten]
    return BuildFiles(
        main,
        text,
        files,
        tuple(flags),
        tuple(dict.fromkeys(moved)),
        texts=rewritten,
        units=() if join else tuple(joined),
    )


def _rewrite(flags: tuple[str, ...], place) -> tuple[list[str], list[Path], list[Path]]:
    """The flags with each include folder pointing inside the problem, and the user's
    folders searched for quoted (``-iquote`` then the rest) and angle includes."""
    out: list[str] = []
    quote: list[Path] = []
    search: list[Path] = []
    i = 0
    while i < len(flags):
        flag = flags[i]
        prefix = next((p for p in _DIR_FLAGS if flag.startswith(p)), None)
        if prefix is None or (prefix != "-I" and flag != prefix):
            out.append(flag)
            i += 1
            continue
        value = flag[len(prefix) :] or (flags[i + 1] if i + 1 < len(flags) else "")
        i += 1 if flag != prefix else 2
        folder = Path(value)
        if not value or not folder.is_dir() or str(folder.resolve()).startswith("/usr/"):
            out += [prefix, value] if flag == prefix and value else [flag]
            continue
        (quote if prefix == "-iquote" else search).append(folder.resolve())
        out.append(f"{prefix}{place(folder)}" if prefix == "-I" else prefix)
        if prefix != "-I":
            out.append(place(folder))
    return out, quote, search


def _closure(
    starts: list[Path],
    quote_dirs: list[Path],
    search_dirs: list[Path],
    problem_path,
    place=None,
    links: list | None = None,
):
    """Every file the ``starts`` include, transitively, that lies where the problem can
    hold it: problem path -> the user's file. A quoted include resolved beside its
    includer as the compiler resolves it, ``"../x.h"`` included, is copied even above the
    program's folder (its folder placed under ``lib/`` by ``place``, keeping the layout
    below it); ``links`` gets (includer, name as written, file) for those."""
    found: dict[str, Path] = {}
    todo = list(starts)
    seen = set(todo)
    while todo:
        current = todo.pop()
        for kind, name in _INCLUDE.findall(current.read_bytes()):
            rel = name.decode(errors="replace").strip()
            bases = [current.parent, *quote_dirs, *search_dirs] if kind == b'"' else search_dirs
            for base in bases:
                candidate = (base / rel).resolve()
                if not candidate.is_file():
                    continue
                where = problem_path(candidate)
                beside = kind == b'"' and base == current.parent and not Path(rel).is_absolute()
                if where is None and beside and place is not None and _placeable(candidate):
                    place(candidate.parent)
                    where = problem_path(candidate)
                if beside and links is not None and ".." in Path(rel).parts:
                    links.append((current, name, candidate))
                if where is not None and candidate not in seen:
                    seen.add(candidate)
                    found[where] = candidate
                    todo.append(candidate)
                    if len(found) > MAX_FILES:
                        raise UserError(
                            f"{starts[0]}: the build includes more than {MAX_FILES} files; "
                            "a problem holds what one program needs"
                        )
                break
    return found


_SYSTEM = ("/usr/", "/etc/", "/proc/", "/sys/", "/dev/", "/run/", "/var/", "/boot/")


def _placeable(path: Path) -> bool:
    """A file above the program's folder that a problem may hold (not the system's)."""
    return not str(path).startswith(_SYSTEM)


def _rewrite_includes(
    links: list[tuple[Path, bytes, Path]], where_of: dict[Path, str]
) -> dict[str, str]:
    """The copies whose ``#include "../x.h"`` no longer reaches its file from the
    copy's place: that directive names the file's copy, relative to the includer's copy
    (one line for one: line numbers are kept). Problem path -> the new text."""
    out: dict[str, str] = {}
    for includer, name, target in links:
        at, there = where_of.get(includer), where_of.get(target)
        if at is None or there is None:
            continue
        folder = os.path.dirname(at) or "."
        as_written = os.path.normpath(os.path.join(folder, name.decode(errors="replace")))
        if as_written == there:
            continue
        text = out.get(at) or includer.read_text(errors="replace")
        new = os.path.relpath(there, folder)
        pattern = re.compile(
            r'^([ \t]*#[ \t]*include[ \t]*)"' + re.escape(name.decode(errors="replace")) + '"',
            re.MULTILINE,
        )
        out[at] = pattern.sub(lambda m, new=new: f'{m[1]}"{new}"', text)
    return out


def _check_size(files: dict[str, Path]) -> None:
    total = sum(p.stat().st_size for p in files.values())
    if total > MAX_BYTES:
        raise UserError(
            f"the files the build includes hold {total >> 20} MiB (at most {MAX_BYTES >> 20} "
            "MiB are copied into a problem)"
        )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", printable(name)).strip(".") or "include"
