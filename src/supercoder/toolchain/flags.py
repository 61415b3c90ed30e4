"""A problem's compiler and linker flags are untrusted input: only what a build needs.

Problems come from other people too (shared benchmark folders, imported datasets), and
their ``cflags``/``ldflags`` go onto gcc's command line. ``check_flags`` accepts what
a build of a competitive-programming C program needs and nothing that runs or loads
other code or reads files outside the problem:

- optimisation and code generation: ``-O*``, ``-m*``, ``-f*`` (not ``-fplugin*``,
  ``-fprofile*``, ``-fauto-profile*``, ``-fdump*`` or any ``-f`` flag naming a path),
  ``-g*``, ``-pipe``, ``-pthread``, ``-fopenmp``, ``-static``;
- the language: ``-std=``, ``-ansi``, ``-pedantic*``, ``-W<warning>`` (not ``-Wl,``,
  ``-Wa,``, ``-Wp,``: they pass options to other tools), ``-w``;
- defines: ``-D``/``-U`` (joined or as two words);
- include and library folders inside the problem: ``-I``/``-iquote``/``-isystem``/``-L``
  with a relative path without ``..`` (or a folder under ``/usr``, the toolchain's);
- libraries: ``-l<name>``.

Refused with a one-line ``UserError`` naming the field (``problem.json "cflags"``,
``record extra_info.cflags``): ``-wrapper``, ``-B``, ``-specs``, ``@file``,
``-include``/``-imacros``, ``--sysroot``, ``-save-temps``, ``-o``, ``-x`` and anything
else not listed. Every compile of a problem's C also runs in the build sandbox, so
this check is the first of two walls, not the only one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from supercoder.errors import UserError

_SIMPLE = frozenset(
    {"-pipe", "-pthread", "-fopenmp", "-static", "-ansi", "-w", "-pedantic", "-pedantic-errors"}
)
_OPT = re.compile(r"-O([0-3s]|fast|g|z)?")
_NAME = re.compile(r"[A-Za-z0-9_+.\-]+")
_VALUE = re.compile(r"[A-Za-z0-9_+.,=:\-]*")
_F_REFUSED = (
    "-fplugin",
    "-fprofile",
    "-fauto-profile",
    "-fdump",
    "-fcallgraph-info",
    "-fstack-usage",
    "-fcoverage",
    "-fcompare-debug",
    "-fdebug-prefix-map",
    "-ffile-prefix-map",
    "-fmacro-prefix-map",
    "-fsave-optimization-record",
    "-fopt-info",
    "-flto",
)
_W_TOOLS = ("-Wl,", "-Wa,", "-Wp,", "-Xlinker", "-Xassembler", "-Xpreprocessor")
_WITH_PATH = {
    "-I": "-I",
    "-iquote": "-iquote",
    "-isystem": "-isystem",
    "-idirafter": "-idirafter",
    "-L": "-L",
}
_ALLOWED = (
    "optimisation and code generation (-O, -f, -m, -g), -std, -W, defines (-D, -U), "
    "include and library folders inside the problem (-I, -L), libraries (-l)"
)


def check_flags(flags: Sequence[str], field: str) -> tuple[str, ...]:
    """``flags`` unchanged when every one is allowed (see the module docstring); else a
    one-line UserError naming ``field`` and the flag."""
    flags = tuple(flags)
    i = 0
    while i < len(flags):
        flag = flags[i]
        why = _refusal(flag, flags[i + 1] if i + 1 < len(flags) else None)
        if why is None and flag in ("-D", "-U", *_WITH_PATH):
            i += 1  # the value was checked with the flag
        elif why is not None:
            shown = flag if len(flag) <= 60 and flag.isprintable() else repr(flag[:60])
            raise UserError(f"{field}: {shown} is not allowed ({why}); allowed: {_ALLOWED}")
        i += 1
    return flags


def _refusal(flag: str, following: str | None) -> str | None:
    """Why ``flag`` is refused (None: allowed). ``following`` is the next word, the
    value of a two-word flag (``-D X``, ``-I dir``)."""
    if not flag.isprintable() or not flag:
        return "not a printable flag"
    if flag.startswith("@"):
        return "it reads options from a file"
    if not flag.startswith("-"):
        return "not a flag: a build takes no extra files"
    if flag in _SIMPLE or _OPT.fullmatch(flag):
        return None
    if flag in ("-D", "-U"):
        return None if following is not None else "it needs a value"
    if flag.startswith(("-D", "-U")):
        return None
    if flag.startswith(_W_TOOLS):
        return "it passes options to another tool"
    if flag.startswith("-W") or flag.startswith("-std=") or flag.startswith("-pedantic"):
        return None if _VALUE.fullmatch(flag[2:]) else "it has an unexpected value"
    if flag.startswith("-l"):
        return None if _NAME.fullmatch(flag[2:]) else "not a library name"
    for prefix in sorted(_WITH_PATH, key=len, reverse=True):
        if flag.startswith(prefix) and (flag == prefix or prefix in ("-I", "-L")):
            path = flag[len(prefix) :] or following
            return _path_refusal(path)
    if flag.startswith("-f"):
        if flag.startswith(_F_REFUSED):
            return "it loads code or reads or writes files"
        return None if _VALUE.fullmatch(flag[2:]) else "it names a path"
    if flag.startswith("-m"):
        return None if _VALUE.fullmatch(flag[2:]) else "it names a path"
    if flag.startswith("-g"):
        return None if _VALUE.fullmatch(flag[2:]) else "it names a path"
    return "it is not a flag a build needs, or it runs or loads other code"


def _path_refusal(path: str | None) -> str | None:
    if not path:
        return "it needs a folder"
    p = PurePosixPath(path)
    if ".." in p.parts:
        return "the folder must be inside the problem"
    if p.is_absolute() and p.parts[:2] != ("/", "usr"):
        return "the folder must be inside the problem"
    return None


def check_build_flags(flags: Sequence[str], field: str) -> tuple[str, ...]:
    """``check_flags`` for a build's flags as supercoder composes them
    (``Problem.compile_flags``: the checked cflags, then ``-iquote <the problem folder>``
    where it holds headers): that one pair of ours is let through (the folder is bound
    read-only into the build sandbox); everything else must pass ``check_flags``."""
    flags = tuple(flags)
    rest: list[str] = []
    i = 0
    while i < len(flags):
        if flags[i] == "-iquote" and i + 1 < len(flags) and own_folder(flags[i + 1]):
            i += 2
            continue
        rest.append(flags[i])
        i += 1
    check_flags(rest, field)
    return flags


def own_folder(path: str) -> bool:
    """Is ``path`` a problem folder (absolute, holding ``source.c``)?"""
    from pathlib import Path

    p = Path(path)
    return p.is_absolute() and (p / "source.c").is_file()


def include_folders(args: Sequence[str]) -> list[str]:
    """The problem folders a build's arguments put on the include path (``-iquote``)."""
    return [
        args[i + 1]
        for i in range(len(args) - 1)
        if args[i] == "-iquote" and own_folder(args[i + 1])
    ]
