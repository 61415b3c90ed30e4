"""How a program's output is compared with the expected output (``problem.json``
``compare`` and ``compare_rules``): the ONE place outputs are compared.

The base rule (``compare``):

- ``exact`` (the default, and the paper's rule): the bytes must be identical;
- ``tokens``: the same whitespace-separated tokens (spacing and line breaks may differ);
- ``float:TOL``: the same tokens, except that two tokens that both read as numbers match
  when their absolute *or* relative difference is at most ``TOL`` (e.g. ``float:1e-6``,
  the usual contest rule: ``|a - b| <= TOL`` or ``|a - b| <= TOL * |b|``, where ``b`` is the
  expected value). ``nan`` matches only ``nan``; infinities match only themselves.

Output the program does not control (its own clock, pointer values) is left out by
rules applied to both outputs before the base rule (``compare_rules``, a list; what
SPEC's ``specdiff`` and contest checkers offer, declared once per problem):

- ``{"ignore_line": REGEX}``: every line the regex matches (a search) is dropped;
- ``{"mask": REGEX}``: every match (each group's span, when the regex has groups) is
  replaced by ``<masked>``;
- ``{"field": N, "line": REGEX, "tolerance": TOL}``: the ``N``-th whitespace-separated
  field (1-based) of each line the regex matches (every line without ``line``) is left
  out (no ``tolerance``), or compared as a number within ``TOL`` (absolute or relative).

``problem init --ignore-line/--mask/--ignore-field/--tolerance`` declare them. The
evaluator passes expected outputs around as ``Expected`` (bytes that carry their mode),
so every check of an output — the correctness pass, the re-check of each timing run,
the reference's own determinism check — applies the problem's rules through
``outputs_match``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from supercoder.codec import decode, encode, reads_with
from supercoder.settings import ProblemSettings


class CompareKind(StrEnum):
    """The comparison rules (the module docstring); ``float`` takes a tolerance."""

    EXACT = "exact"
    TOKENS = "tokens"
    FLOAT = "float"


MODES = ("exact", "tokens", "float:TOL")
MASKED = b"<masked>"
MAX_RULES = 64


class RuleKind(StrEnum):
    """What a ``compare_rules`` entry does (the module docstring)."""

    IGNORE_LINE = "ignore_line"
    MASK = "mask"
    FIELD = "field"


@dataclass(frozen=True)
class RuleForm:
    """A rule's ``problem.json`` object: one of ``{"ignore_line": REGEX}``,
    ``{"mask": REGEX}``, ``{"field": N, "line": REGEX, "tolerance": TOL}``."""

    OMIT_DEFAULTS = True

    ignore_line: str | None = None
    mask: str | None = None
    field: int | None = None
    line: str = ""
    tolerance: float | None = None


def _read_rule(
    value: Mapping[str, object], read: Callable[[Mapping[str, object]], object]
) -> object:
    """A rule from its ``problem.json`` object (strict: a hand-written file), reshaped to
    the record's own keys; ValueError saying what is wrong."""
    keys = set(value)
    if "kind" in keys and keys <= {"kind", "regex", "field", "tolerance"}:
        return read(value)  # the record's own keys (a rule nested in a stored record)
    for kind in (RuleKind.IGNORE_LINE, RuleKind.MASK):
        if kind.value in keys:
            if keys != {kind.value} or not isinstance(value[kind.value], str):
                raise ValueError(f'a {kind.value} rule is {{"{kind.value}": REGEX}}')
            return read({"kind": kind.value, "regex": value[kind.value]})
    if "field" not in keys or keys - {"field", "line", "tolerance"}:
        raise ValueError(
            f"unknown rule keys {sorted(map(str, keys))} (known: ignore_line, "
            "mask, field with line and tolerance)"
        )
    n, line, tol = value["field"], value.get("line", ""), value.get("tolerance")
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError("'field' is a field number (1 is the line's first)")
    if not isinstance(line, str):
        raise ValueError("'line' is a regex")
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, int | float)):
        raise ValueError("'tolerance' is a number")
    return read({"kind": RuleKind.FIELD.value, "regex": line, "field": n, "tolerance": tol})


@reads_with(_read_rule)
@dataclass(frozen=True)
class Rule:
    """One ``compare_rules`` entry: ``kind``; ``regex`` (the line's for ``ignore_line``
    and ``field``, the masked text's for ``mask``; '' for a field rule on every line);
    ``field`` (1-based, ``field`` rules); ``tolerance`` (None: the field is ignored)."""

    kind: RuleKind
    regex: str = ""
    field: int = 0
    tolerance: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", RuleKind(self.kind))
        if self.regex:
            _compiled(self.regex)  # ValueError for a bad regex
        if self.kind is RuleKind.FIELD and not 1 <= self.field <= 10_000:
            raise ValueError(f"field {self.field}: a field number is 1 or more")
        if self.kind is not RuleKind.FIELD and not self.regex:
            raise ValueError(f"{self.kind} needs a regex")
        tol = self.tolerance
        if tol is not None and not (math.isfinite(tol) and tol >= 0):
            raise ValueError(f"tolerance {tol}: a number >= 0")

    def to_json(self) -> dict[str, Any]:
        """The ``problem.json`` form."""
        return encode(self.stored())  # type: ignore[return-value]

    def stored(self) -> RuleForm:
        """The rule as its ``problem.json`` object, a record of its keys."""
        if self.kind is RuleKind.IGNORE_LINE:
            return RuleForm(ignore_line=self.regex)
        if self.kind is RuleKind.MASK:
            return RuleForm(mask=self.regex)
        return RuleForm(field=self.field, line=self.regex, tolerance=self.tolerance)

    @classmethod
    def from_json(cls, value: object) -> Rule:
        """A rule from its ``problem.json`` form; ValueError saying what is wrong."""
        return decode(cls, value)

    def describe(self) -> str:
        """The rule as ``problem init`` takes it."""
        if self.kind is RuleKind.IGNORE_LINE:
            return f"--ignore-line {_quote(self.regex)}"
        if self.kind is RuleKind.MASK:
            return f"--mask {_quote(self.regex)}"
        spec = f"{self.regex}@{self.field}" if self.regex else str(self.field)
        if self.tolerance is None:
            return f"--ignore-field {_quote(spec)}"
        return f"--tolerance {_quote(f'{spec}:{self.tolerance:g}')}"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


@functools.lru_cache(maxsize=256)
def _compiled(regex: str) -> re.Pattern[bytes]:
    try:
        return re.compile(regex.encode(errors="surrogateescape"))
    except re.error as e:
        raise ValueError(f"regex {regex!r}: {e}") from e


def parse_field_spec(text: str, with_tolerance: bool) -> Rule:
    """``problem init``'s ``--ignore-field [REGEX@]N`` and ``--tolerance [REGEX@]N:TOL``
    as a rule; ValueError naming the form."""
    form = "[REGEX@]N:TOL" if with_tolerance else "[REGEX@]N"
    body, tol = text, None
    if with_tolerance:
        body, _, tol_text = text.rpartition(":")
        try:
            tol = float(tol_text)
        except ValueError:
            raise ValueError(f"{text!r}: expected {form}, e.g. 'Result@2:1e-6'") from None
    regex, _, n_text = body.rpartition("@")
    if not n_text.strip().isdigit():
        raise ValueError(f"{text!r}: expected {form} (N: a field number, 1 is the first)")
    return Rule(RuleKind.FIELD, regex, int(n_text), tol)


def parse_rules(value: object) -> tuple[Rule, ...]:
    """``problem.json`` ``compare_rules`` (a list of rule objects); ValueError."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise ValueError("must be a list of rules")
    if len(value) > MAX_RULES:
        raise ValueError(f"at most {MAX_RULES} rules")
    for v in value:
        if not isinstance(v, Mapping):
            raise ValueError(
                'each rule is an object: {"ignore_line": REGEX}, '
                '{"mask": REGEX} or {"field": N, "line": REGEX, '
                '"tolerance": TOL}'
            )
    return tuple(Rule.from_json(v) for v in value)


@dataclass(frozen=True)
class Mode:
    """A comparison: its base kind (a ``CompareKind``; its text is accepted), for
    ``float`` the tolerance, and the rules applied first (``compare_rules``)."""

    kind: CompareKind
    tolerance: float = 0.0
    rules: tuple[Rule, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", CompareKind(self.kind))
        object.__setattr__(self, "rules", tuple(self.rules))

    def __str__(self) -> str:
        """The base rule as ``problem.json`` ``compare`` writes it (rules apart)."""
        if self.kind is CompareKind.FLOAT:
            return f"float:{self.tolerance:g}"
        return self.kind.value

    def describe(self) -> str:
        """The base rule and every rule, in one line."""
        if not self.rules:
            return str(self)
        return f"{self} after {', '.join(r.describe() for r in self.rules)}"

    def with_rules(self, rules: Sequence[Rule]) -> Mode:
        return Mode(self.kind, self.tolerance, tuple(rules))


def problem_mode(settings: ProblemSettings) -> Mode:
    """A problem's comparison from its ``problem.json`` (``compare``, ``compare_rules``)."""
    return parse_mode(settings.compare, list(settings.compare_rules))


def parse_mode(spec: str | None, rules: object = None) -> Mode:
    """``exact`` | ``tokens`` | ``float:TOL`` (with ``compare_rules``); raises ValueError
    naming the choices."""
    extra = parse_rules(rules)
    text = (spec or "exact").strip()
    if text in (CompareKind.EXACT, CompareKind.TOKENS):
        return Mode(CompareKind(text), rules=extra)
    kind, _, tol = text.partition(":")
    if kind == CompareKind.FLOAT:
        try:
            tolerance = float(tol)
        except ValueError:
            tolerance = -1.0
        if 0 <= tolerance < 1 and math.isfinite(tolerance):
            return Mode(CompareKind.FLOAT, tolerance, extra)
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
        obj._prepared = None
        return obj

    def prepared(self) -> tuple[bytes, tuple[bytes, ...]]:
        """The expected output with the rules applied (computed once)."""
        if self._prepared is None:
            self._prepared = apply_rules(bytes(self), self.mode.rules)
        return self._prepared

    def __reduce__(self):  # picklable with its mode (process pools, Ray)
        return (Expected, (bytes(self), self.mode))


def expected_output(data: bytes, mode: Mode | str | None) -> bytes:
    """``data`` as plain bytes for the exact rule, else an ``Expected`` carrying ``mode``."""
    m = mode if isinstance(mode, Mode) else parse_mode(mode)
    return bytes(data) if m.kind == "exact" and not m.rules else Expected(data, m)


def outputs_match(actual: bytes, expected: bytes, mode: Mode | str | None = None) -> bool:
    """Does ``actual`` match ``expected`` under ``mode`` (default: the one ``expected``
    carries, else exact)?"""
    if mode is None:
        m = expected.mode if isinstance(expected, Expected) else Mode(CompareKind.EXACT)
    else:
        m = mode if isinstance(mode, Mode) else parse_mode(mode)
    if m.rules:
        if isinstance(expected, Expected) and expected.mode == m:
            want, want_nums = expected.prepared()
        else:
            want, want_nums = apply_rules(bytes(expected), m.rules)
        got, got_nums = apply_rules(bytes(actual), m.rules)
        if not _numbers_close(got_nums, want_nums, m.rules):
            return False
        actual, expected = got, want
    if m.kind == "exact":
        return bytes(actual) == bytes(expected)
    got_t, want_t = actual.split(), expected.split()
    if len(got_t) != len(want_t):
        return False
    if m.kind == "tokens":
        return got_t == want_t
    return all(a == b or _close(a, b, m.tolerance) for a, b in zip(got_t, want_t, strict=True))


_TOLERANCE_MARK = b"<number>"


def apply_rules(text: bytes, rules: Sequence[Rule]) -> tuple[bytes, tuple[bytes, ...]]:
    """``text`` with ``rules`` applied (lines dropped, matches masked, fields left out),
    and the fields compared within a tolerance, in order (each tagged with its rule's
    index: ``_numbers_close``). A line is what lies between newlines; a match is one
    line's (a mask never spans a newline). Lines are dropped by one combined regex and
    masks run over the whole text, so only field rules visit lines one by one
    (``benchmarks/compare_rules.py``)."""
    if not rules:
        return text, ()
    drops = [r.regex for r in rules if r.kind is RuleKind.IGNORE_LINE]
    if drops:
        drop = _combined(tuple(drops))
        text = b"\n".join([line for line in text.split(b"\n") if not drop.search(line)])
    for r in rules:
        if r.kind is RuleKind.MASK:
            text = _mask(_compiled(r.regex), text)
    fields = [(i, r) for i, r in enumerate(rules) if r.kind is RuleKind.FIELD]
    if not fields:
        return text, ()
    numbers: list[bytes] = []
    out = text.split(b"\n")
    plan = [
        (
            b"%d " % i,
            _compiled(r.regex).search if r.regex else None,
            _nth_field(r.field).match,
            _TOLERANCE_MARK if r.tolerance is not None else MASKED,
            r.tolerance is not None,
        )
        for i, r in fields
    ]
    for k, body in enumerate(out):
        for tag, on_line, nth, mark, within in plan:
            if on_line is not None and on_line(body) is None:
                continue
            m = nth(body)
            if m is None:
                continue
            if within:
                numbers.append(tag + m.group(2))
            body = m.group(1) + mark + body[m.end() :]
        out[k] = body
    return b"\n".join(out), tuple(numbers)


@functools.lru_cache(maxsize=64)
def _combined(regexes: tuple[str, ...]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(b"(?:" + _compiled(r).pattern + b")" for r in regexes))


def _mask(pattern: re.Pattern[bytes], body: bytes) -> bytes:
    """Every match of ``pattern`` in ``body`` (each group's span, if it has groups)
    replaced by ``MASKED``; a match that spans a newline is left as it is."""

    def one(m: re.Match[bytes]) -> bytes:
        text, start = m.group(0), m.start()
        if b"\n" in text:
            return text
        if not pattern.groups:
            return MASKED
        spans = sorted(
            (m.start(g) - start, m.end(g) - start)
            for g in range(1, pattern.groups + 1)
            if m.start(g) >= 0
        )
        out, at = b"", 0
        for a, b in spans:
            if a < at:
                continue
            out += text[at:a] + MASKED
            at = b
        return out + text[at:]

    return pattern.sub(one, body)


@functools.lru_cache(maxsize=64)
def _nth_field(n: int) -> re.Pattern[bytes]:
    return re.compile(rb"^(\s*(?:\S+\s+){%d})(\S+)" % (n - 1))


def _numbers_close(got: Sequence[bytes], want: Sequence[bytes], rules: Sequence[Rule]) -> bool:
    if len(got) != len(want):
        return False
    for a, b in zip(got, want, strict=True):
        ia, _, va = a.partition(b" ")
        ib, _, vb = b.partition(b" ")
        if ia != ib:
            return False
        tol = rules[int(ia)].tolerance or 0.0
        if va != vb and not _close(va, vb, tol):
            return False
    return True


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


# -- why two runs differ ----------------------------------------------------------------

_HEX_POINTER = re.compile(rb"\b0x[0-9a-fA-F]{6,}\b|\b[0-9a-fA-F]{12,16}\b")
_ADDRESS_WORDS = re.compile(rb"ptr|pointer|addr|address|\(nil\)", re.I)
_CLOCK_WORDS = re.compile(
    rb"time|sec|second|clock|tick|elapsed|duration|\bms\b|\bus\b|msec|usec|nsec|mhz|mips|"
    rb"per second|/s\b|dhrystones|whetstones|iterations/s|date|\d\d:\d\d:\d\d",
    re.I,
)
_NUMBER = re.compile(rb"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[a-zA-Z%]*$")
SHOWN_LINES = 3
# a line holding one number with a fraction and nothing else: what a benchmark script's
# `print clock() - start` prints (a result with a fraction that differs from run to run
# is rare; one that is a whole number, a word or a labelled value is never taken for it),
# also as `%g` prints it when the run is short: `2e-05`, or `0` where the clock did not
# tick (a drawn input of a few milliseconds; 1 run in 150 of clox's)
LONE_DECIMAL = r"^\s*-?([0-9]*\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|0)\s*$"
_LONE_DECIMAL = re.compile(LONE_DECIMAL.encode())


@dataclass(frozen=True)
class Difference:
    """How two outputs of one program differ (``diagnose``): ``lines``, the first
    differing lines of both (one text line each, ready to print); ``cause``, ``a clock``
    or ``an address`` when that is what differs ('' otherwise); ``rules``, rules that
    make the two outputs match (verified; empty when none was found)."""

    lines: tuple[str, ...]
    cause: str = ""
    rules: tuple[Rule, ...] = ()

    def message(self) -> str:
        """The difference, the cause and the fix, as lines after a one-line head."""
        out = list(self.lines)
        if self.cause:
            out.append(f"what differs is {self.cause}")
        if self.rules:
            out.append(
                "the runs differ only there: pass "
                + " ".join(r.describe() for r in self.rules)
                + " (problem init) to leave it out of every comparison"
            )
        return "\n".join(out)


def diagnose(
    first: bytes, second: bytes, mode: Mode | None = None, more: Sequence[bytes] = ()
) -> Difference:
    """How ``first`` and ``second`` (two runs of one program) differ under ``mode``: the
    first differing lines of both, whether a clock or an address is the cause, and the
    rules that would leave it out (``Difference``), found so that ``more`` runs of it
    match ``first`` too (a line that differed in none of the two, e.g. a second choice
    made from the clock)."""
    mode = mode or Mode(CompareKind.EXACT)
    found = _diagnose(first, second, mode)
    rules = found.rules
    for other in more:
        if not rules:
            break
        ruled = mode.with_rules((*mode.rules, *rules))
        if outputs_match(first, other, ruled):
            continue
        extra = _diagnose(first, other, ruled, clocked=bool(found.cause)).rules
        rules = (*rules, *extra) if extra else ()
    return Difference(found.lines, found.cause, rules)


def _diagnose(first: bytes, second: bytes, mode: Mode, clocked: bool = False) -> Difference:
    a, b = first.splitlines(), second.splitlines()
    pairs = [(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    if len(a) != len(b):
        at = pairs[0][0] if pairs else min(len(a), len(b))
        shown = (
            f"run 1 printed {len(a)} lines, run 2 {len(b)}; first difference at line {at + 1}:",
            f"run 1, line {at + 1}: {_show(a[at] if at < len(a) else None)}",
            f"run 2, line {at + 1}: {_show(b[at] if at < len(b) else None)}",
        )
        causes = {_cause(a[at], b[at])} if at < min(len(a), len(b)) else set()
        return Difference(shown, _worst(causes))
    if not pairs:  # the same lines: line endings or a final newline differ
        return Difference(("the two runs differ only in line endings or the final newline",))
    shown = []
    for i, x, y in pairs[:SHOWN_LINES]:
        shown += [f"run 1, line {i + 1}: {_show(x)}", f"run 2, line {i + 1}: {_show(y)}"]
    if len(pairs) > SHOWN_LINES:
        shown.append(f"... and {len(pairs) - SHOWN_LINES} more differing line(s)")
    causes = {_cause(x, y) for _, x, y in pairs}
    rules: list[Rule] = []
    derived = []
    for i, x, y in pairs:
        # only output a program does not control is left out: a result that differs is
        # the program's own non-determinism, never a line to ignore -- unless other lines
        # show the clock (or an address) and this one is a labelled choice made from it
        # (MiBench bitcount's "Best  > <the fastest method>"): its label goes whole
        if _cause(x, y):
            found = _rules_for(x, y)
        elif clocked or causes - {""}:
            found = _label_rule(x, y)
            if found is not None:
                derived.append(i + 1)
        else:
            found = None
        if found is None:
            rules = []
            break
        if not _covered(rules, x, y, mode):
            rules += [r for r in found if r not in rules]
        if len(rules) > 6:
            rules = []
            break
    found = tuple(rules)
    if found and not outputs_match(first, second, mode.with_rules((*mode.rules, *found))):
        found = ()
    if found and derived:
        shown.append(
            f"line(s) {', '.join(map(str, derived[:SHOWN_LINES]))}: what the program chose"
            " from what it timed (e.g. its fastest method)"
        )
    return Difference(tuple(shown), _worst(causes - {""}), found)


def _show(line: bytes | None) -> str:
    if line is None:
        return "(no such line)"
    text = line.decode(errors="replace")
    return repr(text if len(text) <= 120 else text[:117] + "...")


def _covered(rules: list[Rule], x: bytes, y: bytes, mode: Mode) -> bool:
    return bool(rules) and outputs_match(x, y, mode.with_rules((*mode.rules, *rules)))


def _cause(x: bytes, y: bytes) -> str:
    tx, ty = x.split(), y.split()
    differing = (
        [(p, q) for p, q in zip(tx, ty, strict=False) if p != q] if len(tx) == len(ty) else []
    )
    tokens = [t for pair in differing for t in pair] or tx + ty
    if any(_HEX_POINTER.search(t) for t in tokens) or (
        _ADDRESS_WORDS.search(x) and all(_NUMBER.match(t) for t in tokens)
    ):
        return "an address"
    if _CLOCK_WORDS.search(x) and differing and all(_NUMBER.match(t) or b":" in t for t in tokens):
        return "a clock"
    if _LONE_DECIMAL.match(x) and _LONE_DECIMAL.match(y):  # "print clock() - start"
        return "a clock"
    return ""


def _worst(causes: set[str]) -> str:
    named = {
        "an address": "an address (a pointer value printed: it changes with the memory "
        "layout, which differs from run to run)",
        "a clock": "a clock (the program prints its own time, or what it measured with it)",
    }
    return " and ".join(named[c] for c in ("an address", "a clock") if c in causes)


def _rules_for(x: bytes, y: bytes) -> list[Rule] | None:
    r"""Rules that leave out where ``x`` and ``y`` differ and nothing else they hold: a
    line whose other fields are labels only goes whole (``--ignore-line`` by the text
    before its first differing field); a line that also holds results (numbers that
    agree: MiBench's ``Time: 0.12 sec; Bits: 1234``) keeps them, only the differing
    values masked, each by the words just before it (``--mask 'Time:\s+(\S+)'``)."""
    if _LONE_DECIMAL.match(x) and _LONE_DECIMAL.match(y):
        return [Rule(RuleKind.IGNORE_LINE, LONE_DECIMAL)]
    tx, ty = x.split(), y.split()
    if len(tx) != len(ty):
        return None
    pairs = list(zip(tx, ty, strict=True))
    at = [k for k, (p, q) in enumerate(pairs) if p != q]
    differing = [t for k in at for t in pairs[k]]
    if all(re.search(rb"0x[0-9a-fA-F]{4,}", t) for t in differing):
        return [Rule(RuleKind.MASK, "0x[0-9a-fA-F]+")]
    results = any(p == q and re.search(rb"\d", p) for p, q in pairs)
    lead_tokens = list(tx[: at[0]])
    digit = next((k for k, t in enumerate(lead_tokens) if re.search(rb"\d", t)), len(lead_tokens))
    lead = b" ".join(lead_tokens[:digit])
    if not results and re.search(rb"[A-Za-z]{2}", lead):
        return [Rule(RuleKind.IGNORE_LINE, _literal(lead))]
    rules = []
    for k in at:
        anchor = _anchor(tx, k)
        if anchor is None:
            return None
        rules.append(Rule(RuleKind.MASK, _literal(anchor) + r"\s+(\S+)"))
    return rules


def _label_rule(x: bytes, y: bytes) -> list[Rule] | None:
    """``--ignore-line`` by the label that leads both ``x`` and ``y`` (words before the
    first text that differs: ``Best  >``), None when they share no label of words."""
    tx, ty = x.split(), y.split()
    lead: list[bytes] = []
    for p, q in zip(tx, ty, strict=False):
        if p != q or re.search(rb"\d", p):
            break
        lead.append(p)
    text = b" ".join(lead)
    if not re.search(rb"[A-Za-z]{2}", text):
        return None
    return [Rule(RuleKind.IGNORE_LINE, r"^\s*" + _literal(text))]


def _anchor(tokens: list[bytes], k: int) -> bytes | None:
    """The tokens just before ``tokens[k]``, back to the nearest word (at most three)."""
    for start in range(k - 1, max(-1, k - 4), -1):
        if re.search(rb"[A-Za-z]{2}", tokens[start]):
            return b" ".join(tokens[start:k])
    return None


def _literal(text: bytes) -> str:
    """A regex matching ``text`` (runs of spaces as ``\\s+``), kept readable."""
    parts = re.split(rb"\s+", text.strip())
    return r"\s+".join(
        re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", p.decode(errors="replace")) for p in parts
    )
