"""How a program's output is compared with the expected output (``problem.json`` ``compare``).

- ``exact`` (the default, and the paper's rule): the bytes must be identical;
- ``tokens``: the same whitespace-separated tokens (spacing and line breaks may differ);
- ``float:TOL``: the same tokens, except that two tokens that both read as numbers match
  when their absolute *or* relative difference is at most ``TOL`` (e.g. ``float:1e-6``,
  the usual contest rule: ``|a - b| <= TOL`` or ``|a - b| <= TOL * |b|``, where ``b`` is the
  expected value). ``nan`` matches only ``nan``; infinities match only themselves.

The evaluator passes expected outputs around as ``Expected`` (bytes that carry their
mode), so every check of an output — the correctness pass and the re-check of each
timing run — applies the problem's rule through ``outputs_match``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class CompareKind(StrEnum):
    """The comparison rules (the module docstring); ``float`` takes a tolerance."""

    EXACT = "exact"
    TOKENS = "tokens"
    FLOAT = "float"


MODES = ("exact", "tokens", "float:TOL")


@dataclass(frozen=True)
class Mode:
    """A comparison rule: its kind (a ``CompareKind``; its text is accepted) and, for
    ``float``, the tolerance."""

    kind: CompareKind
    tolerance: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", CompareKind(self.kind))

    def __str__(self) -> str:
        if self.kind is CompareKind.FLOAT:
            return f"float:{self.tolerance:g}"
        return self.kind.value


def parse_mode(spec: str | None) -> Mode:
    """``exact`` | ``tokens`` | ``float:TOL``; raises ValueError naming the choices."""
    text = (spec or "exact").strip()
    if text in (CompareKind.EXACT, CompareKind.TOKENS):
        return Mode(CompareKind(text))
    kind, _, tol = text.partition(":")
    if kind == CompareKind.FLOAT:
        try:
            tolerance = float(tol)
        except ValueError:
            tolerance = -1.0
        if 0 <= tolerance < 1 and math.isfinite(tolerance):
            return Mode(CompareKind.FLOAT, tolerance)
        raise ValueError(
            f"compare {text!r}: the tolerance must be a number in [0, 1), e.g. float:1e-6"
        )
    raise ValueError(f"compare {text!r}: use one of {', '.join(MODES)}")


class Expected(bytes):
    """Expected output bytes that know how to be compared (``mode``)."""

    mode: Mode

    def __new__(cls, data: bytes, mode: Mode | str | None = None) -> Expected:
        obj = super().__new__(cls, data)
        obj.mode = mode if isinstance(mode, Mode) else parse_mode(mode)
        return obj

    def __reduce__(self):  # picklable with its mode (process pools, Ray)
        return (Expected, (bytes(self), self.mode))


def expected_output(data: bytes, mode: Mode | str | None) -> bytes:
    """``data`` as plain bytes for the exact rule, else an ``Expected`` carrying ``mode``."""
    m = mode if isinstance(mode, Mode) else parse_mode(mode)
    return bytes(data) if m.kind == "exact" else Expected(data, m)


def outputs_match(actual: bytes, expected: bytes, mode: Mode | str | None = None) -> bool:
    """Does ``actual`` match ``expected`` under ``mode`` (default: the one ``expected``
    carries, else exact)?"""
    if mode is None:
        m = expected.mode if isinstance(expected, Expected) else Mode(CompareKind.EXACT)
    else:
        m = mode if isinstance(mode, Mode) else parse_mode(mode)
    if m.kind == "exact":
        return bytes(actual) == bytes(expected)
    got, want = actual.split(), expected.split()
    if len(got) != len(want):
        return False
    if m.kind == "tokens":
        return got == want
    return all(a == b or _close(a, b, m.tolerance) for a, b in zip(got, want, strict=True))


def _close(actual: bytes, expected: bytes, tol: float) -> bool:
    try:
        a, b = float(actual), float(expected)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    diff = abs(a - b)
    return diff <= tol or diff <= tol * abs(b)
