"""The fields of ``problem.json``, each checked for its type and shape.

``check_fields(meta, where)`` raises a one-line UserError naming the file and the field
(``where: field 'compare' must be ...``) for the first field that is not what it must
be. Only types and shapes are checked here (which flags a problem may carry is a policy
checked elsewhere); unknown fields are kept as they are. The fields are
``supercoder.settings.ProblemSettings``'s: each is checked by its type, and those below by
a check of their own (``_CHECKS``: a shape beyond the type).

========================  ==========================================================
``name``, ``split``       non-empty strings without control characters
``origin``                a string
``tags``                  a list of strings
``cflags``, ``ldflags``   a shell-quoted string of flags or a list of strings; no
                          NUL or other control characters
``compare``               a string: ``exact``, ``tokens`` or ``float:TOL``
``compare_rules``         a list of rules applied to both outputs first (output the
                          program does not control): ``{"ignore_line": REGEX}``,
                          ``{"mask": REGEX}``, ``{"field": N, "line": REGEX,
                          "tolerance": TOL}`` (``supercoder.problems.outputs``)
``fuzz``                  an object: ``shuffle_lines_after`` (integer >= 0 or null),
                          ``frozen_lines`` (integer >= 0), ``numbers`` (true/false)
``headers``               a list of relative paths (files the source includes)
``units``                 a list of relative ``.c`` paths, each also in ``headers``:
                          the program's other translation units, compiled apart
``answer_unit``           a relative ``.c`` path: the further unit whose text is
                          ``source.c`` (``problem init --answer-unit``/the profile)
``main_unit``             a relative ``.c`` path of ``units``: where main's unit is
                          when ``answer_unit`` is set
``answer_why``            a string: why that unit is the answer
``answer_joined``         a list of relative ``.c`` paths: further units ``#include``d
                          at the end of ``source.c`` (part of the answer)
``generator``             a relative path: the input generator (``problems.generator``)
``exit_code``             an integer 0-255: the exit status of every official run
                          (the reference's and every candidate's), 0 by default
``cpu_limit``             a number of seconds, 0.01-3600: the CPU a check gives each run
                          when above the default (``problem init`` writes it for a slow
                          reference)
``reads_input``           true/false: false when the program's output does not depend
                          on its input (``problem init`` found it; ``Problem.memorizable``)
``no_draw``               a string: why no input can be drawn (``problem init`` found
                          every source refused or dropped and no hidden test): the
                          problem is timed on its visible tests like a memorizable one
``llm_generator``         a string: the model that wrote ``llm_gen.py`` and
                          ``llm_validate.py`` (``prompting/inputgen.py``)
========================  ==========================================================
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from supercoder.errors import UserError, printable
from supercoder.problems.outputs import parse_mode, parse_rules
from supercoder.settings import ProblemSettings
from supercoder.types import split_flags

FUZZ_KEYS = ("shuffle_lines_after", "frozen_lines", "numbers")


def check_fields(meta: Any, where: str) -> None:
    """Raise UserError (one line, naming ``where`` and the field) on the first bad field:
    a field of ``_CHECKS`` by its check, every other field of ``ProblemSettings`` by its
    type (so a new setting is checked with no line here)."""
    if not isinstance(meta, dict):
        raise UserError(f"{where}: expected a JSON object, got {_kind(meta)}")
    for key, value in meta.items():
        check = _CHECKS.get(key) or _typed_checks().get(key)
        if check is not None and value is not None:
            problem = check(value)
            if problem:
                raise UserError(f"{where}: field {key!r} {problem}")


@functools.cache
def _typed_checks() -> dict[str, Callable[[Any], str | None]]:
    """A check per ``ProblemSettings`` field the file may hold, from its type."""
    hints = typing.get_type_hints(ProblemSettings)
    return {
        f.name: _type_check(hints[f.name])
        for f in dataclasses.fields(ProblemSettings)
        if not f.metadata.get("skip") and not f.metadata.get("extra")
    }


def _type_check(tp: object) -> Callable[[Any], str | None]:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if len(args) == 1:
            return _type_check(args[0])
        return lambda value: None  # a JSON value, or one of several shapes
    if tp is bool:
        return _boolean
    if tp is int:
        return lambda v: None if _count(v) or _integer(v) else f"must be an integer, got {_kind(v)}"
    if tp is float:
        return lambda v: None if _integer(v) or isinstance(v, float) else _number(v)
    if tp is str:
        return _string
    if origin is tuple and args == [str, ...] or (origin is tuple and args[:1] == [str]):
        return _strings
    if origin in (dict, Mapping, collections.abc.Mapping) or dataclasses.is_dataclass(tp):
        return lambda v: None if isinstance(v, dict) else f"must be an object, got {_kind(v)}"
    return lambda value: None


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> str:
    return f"must be a number, got {_kind(value)}"


def _kind(value: Any) -> str:
    text = printable(repr(value))
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def _text(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"must be a non-empty string, got {_kind(value)}"
    if printable(value) != value or "\n" in value:
        return f"has control characters: {printable(value)!r}"
    return None


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {_kind(value)}"


def _strings(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f"must be a list of strings, got {_kind(value)}"
    return None


def _flags(value: Any) -> str | None:
    if not (isinstance(value, str) or _strings(value) is None):
        return f'must be a string of flags, e.g. "-fopenmp", got {_kind(value)}'
    try:
        flags = split_flags(value)
    except ValueError as e:
        return f"is not a valid string of flags ({e})"
    for flag in flags:
        if printable(flag, newlines=False) != flag or "\0" in flag:
            return f"holds a flag with a NUL or control character: {printable(flag)!r}"
    return None


def _compare(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be a string (exact, tokens or float:TOL), got {_kind(value)}"
    try:
        parse_mode(value)
    except ValueError as e:
        return f"is not a comparison mode: {e}"
    return None


def _compare_rules(value: Any) -> str | None:
    try:
        parse_rules(value)
    except ValueError as e:
        return f"is not a list of comparison rules: {e}"
    return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _fuzz(value: Any) -> str | None:
    if not isinstance(value, dict):
        return f"must be an object with keys {', '.join(FUZZ_KEYS)}, got {_kind(value)}"
    unknown = sorted(set(value) - set(FUZZ_KEYS))
    if unknown:
        return (
            f"has unknown keys {', '.join(map(printable, unknown))} (known: {', '.join(FUZZ_KEYS)})"
        )
    for key in ("shuffle_lines_after", "frozen_lines"):
        if value.get(key) is not None and not _count(value[key]):
            return f"key {key!r} must be an integer >= 0, got {_kind(value[key])}"
    if "numbers" in value and not isinstance(value["numbers"], bool):
        return f"key 'numbers' must be true or false, got {_kind(value['numbers'])}"
    return None


def _headers(value: Any) -> str | None:
    bad = _strings(value)
    if bad:
        return bad
    for name in value:
        parts = name.replace("\\", "/").split("/")
        if not name or name.startswith("/") or ".." in parts or printable(name) != name:
            return f"must hold paths inside the problem folder, got {printable(name)!r}"
    return None


def _units(value: Any) -> str | None:
    bad = _headers(value)
    if bad:
        return bad
    odd = [u for u in value if not u.endswith(".c") or u.startswith("-")]
    return f"must hold .c files of the problem, got {printable(odd[0])!r}" if odd else None


def _generator(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be a path inside the problem folder, got {_kind(value)}"
    return _headers([value])


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, got {_kind(value)}"


def _cpu_limit(value: Any) -> str | None:
    ok = (_integer(value) or isinstance(value, float)) and 0.01 <= value <= 3600
    return None if ok else f"must be a number of seconds from 0.01 to 3600, got {_kind(value)}"


def _exit_code(value: Any) -> str | None:
    if not _count(value) or value > 255:
        return f"must be an integer from 0 to 255, got {_kind(value)}"
    return None


_CHECKS = {
    "name": _text,
    "split": _text,
    "origin": _string,
    "tags": _strings,
    "cflags": _flags,
    "ldflags": _flags,
    "compare": _compare,
    "compare_rules": _compare_rules,
    "fuzz": _fuzz,
    "headers": _headers,
    "units": _units,
    "answer_unit": lambda v: _units([v]) if isinstance(v, str) else _units(v),
    "main_unit": lambda v: _units([v]) if isinstance(v, str) else _units(v),
    "answer_why": _string,
    "answer_joined": _headers,
    "exit_code": _exit_code,
    "cpu_limit": _cpu_limit,
    "generator": _generator,
    "reads_input": _boolean,
    "no_draw": _text,
    "llm_generator": _text,
}
