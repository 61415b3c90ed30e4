"""A profile read against the assembly: shares per line, loop and function; the ``hot`` view.

``find_hotspots(profile, asm)`` -> ``Hotspots`` (functions and loops with their share of the
instructions executed in the program's code, hottest first). ``hot_view(asm, hotspots)``
is the assembly shown by ``--context hot``: ``.cfi``/``.loc``/``.file``/``.ident``
directives dropped, each hot line (>= 0.5% of executed instructions) ending in
``# NN.N%``, the functions that together cover >= 99% of executed instructions in full
and every other function elided to its label and one marker line
(``diffedit.elision_marker``) that must stay unchanged.
"""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass, field
from typing import Any, ClassVar

from supercoder.analysis.asm import LabelDef, parse
from supercoder.analysis.cfg import build_program, split_functions
from supercoder.codec import JsonObject, encode, opts
from supercoder.prompting.diffedit import elision_marker, expand_elisions
from supercoder.prompting.profiling import Profile

HOT_COVERAGE = 0.99
ANNOTATE_MIN = 0.005  # a "hot" line: at least 0.5% of the executed instructions
_DROP = re.compile(r"^\s*\.(cfi_\w+|loc|file|ident)\b")


def hidden_in_view(line: str) -> bool:
    """Directives the hot view leaves out (unwind info, debug lines, .file, .ident)."""
    return bool(_DROP.match(line))


@dataclass(frozen=True)
class Span:
    name: str  # function name, or the loop's header label
    first: int  # 1-based .s lines, inclusive
    last: int
    share: float
    count: int
    function: str = ""
    depth: int = 0
    innermost: bool = False


@dataclass(frozen=True)
class Hotspots:
    total: int
    functions: tuple[Span, ...]  # hottest first
    loops: tuple[Span, ...]  # hottest first
    lines: dict[int, float]  # .s line -> share

    def hot_functions(self, coverage: float = HOT_COVERAGE) -> set[str]:
        """The hottest functions that together cover ``coverage`` of the instructions."""
        chosen: set[str] = set()
        covered = 0.0
        for f in self.functions:
            if covered >= coverage or f.count == 0:
                break
            chosen.add(f.name)
            covered += f.share
        return chosen

    @property
    def hottest_loop(self) -> Span | None:
        """The innermost loop executing the most instructions (where the time goes; an
        outer loop's count includes its inner loops')."""
        inner = [s for s in self.loops if s.innermost and s.count]
        return max(inner, key=lambda s: (s.count, -s.first), default=None)


def function_spans(asm: str) -> dict[str, tuple[int, int]]:
    """Function name -> (label line, last line of its code), 1-based."""
    items = parse(asm)
    labels = {it.name: it.line for it in items if isinstance(it, LabelDef)}
    spans = {}
    for name, body in split_functions(items):
        if name in labels and body:
            spans[name] = (labels[name], max(it.line for it in body))
    return spans


def find_hotspots(profile: Profile, asm: str) -> Hotspots:
    total = profile.total
    counts = profile.lines

    def span_of(lines: set[int], name: str, **kw: Any) -> Span:
        n = sum(counts.get(k, 0) for k in lines)
        return Span(name, min(lines), max(lines), n / total if total else 0.0, n, **kw)

    functions = [
        span_of(set(range(lo, hi + 1)), name) for name, (lo, hi) in function_spans(asm).items()
    ]
    loops = []
    for fn in build_program(asm).functions:
        for loop in fn.loops:
            lines = {i.line for i in loop.instructions}
            if lines:
                loops.append(
                    span_of(
                        lines,
                        loop.header,
                        function=fn.name,
                        depth=loop.depth,
                        innermost=loop.innermost,
                    )
                )
    shares = {k: v / total for k, v in counts.items()} if total else {}
    by_share = lambda s: (-s.count, s.first)  # noqa: E731
    return Hotspots(
        total, tuple(sorted(functions, key=by_share)), tuple(sorted(loops, key=by_share)), shares
    )


@dataclass(frozen=True)
class SpanShown:
    """A function's span as ``problem profile --json`` shows it."""

    name: str
    lines: tuple[int, int]  # first and last .s line
    share: float
    count: int


@dataclass(frozen=True)
class LoopShown(SpanShown):
    """A loop's span as shown: its span, and where it sits."""

    function: str
    depth: int
    innermost: bool


@dataclass(frozen=True)
class LineShown:
    """One of the hottest lines as shown."""

    line: int
    share: float
    count: int
    text: str


@dataclass(frozen=True)
class HotspotsReport:
    """What ``problem profile --json`` (and the MCP ``profile`` tool) print, through the
    codec: the profile without its per-line counts (``lines``: null; the hottest lines
    follow), its spans and its ``top`` hottest lines."""

    profile: Profile = field(metadata=opts(skip=True))
    instructions: int
    outside_instructions: int
    functions: tuple[SpanShown, ...]
    loops: tuple[LoopShown, ...]
    hot_functions: tuple[str, ...]
    lines: tuple[LineShown, ...]

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("profile",)

    def derived_json(self) -> JsonObject:
        shown = encode(self.profile)
        assert isinstance(shown, dict)
        return {"profile": shown | {"lines": None}}


def report(profile: Profile, hot: Hotspots, asm: str, top: int = 40) -> HotspotsReport:
    text = asm.splitlines()
    lines = sorted(hot.lines.items(), key=lambda kv: -kv[1])[:top]
    return HotspotsReport(
        profile=profile,
        instructions=hot.total,
        outside_instructions=profile.outside,
        functions=tuple(_shown(s) for s in hot.functions),
        loops=tuple(
            LoopShown(*astuple(_shown(s)), s.function, s.depth, s.innermost) for s in hot.loops
        ),
        hot_functions=tuple(sorted(hot.hot_functions())),
        lines=tuple(
            LineShown(
                k,
                round(v, 6),
                profile.lines[k],
                text[k - 1].strip() if k <= len(text) else "",
            )
            for k, v in lines
        ),
    )


def to_json(profile: Profile, hot: Hotspots, asm: str, top: int = 40) -> JsonObject:
    return encode(report(profile, hot, asm, top))  # type: ignore[return-value]


def _shown(s: Span) -> SpanShown:
    return SpanShown(s.name, (s.first, s.last), round(s.share, 6), s.count)


# --- the hot view -------------------------------------------------------------------


def hot_view(asm: str, hot: Hotspots | None, coverage: float = HOT_COVERAGE) -> str:
    """The assembly as ``--context hot`` shows it (see the module docstring)."""
    spans = function_spans(asm)
    keep = hot.hot_functions(coverage) if hot and hot.total else set(spans)
    elided = {lo: (name, hi) for name, (lo, hi) in spans.items() if name not in keep}
    out: list[str] = []
    lines = asm.splitlines()
    k = 0
    while k < len(lines):
        number, line = k + 1, lines[k]
        k += 1
        if _DROP.match(line):
            continue
        share = hot.lines.get(number, 0.0) if hot else 0.0
        out.append(f"{line}\t# {100 * share:.1f}%" if share >= ANNOTATE_MIN else line)
        if number in elided:
            name, hi = elided[number]
            body = [ln for ln in lines[number:hi] if not _DROP.match(ln)]
            out.append(elision_marker(name, len(body)))
            k = hi
    return "\n".join(out) + "\n"


def expand(answer: str, asm: str) -> str:
    """A whole-program answer with every kept elision marker replaced by the original body."""
    if "supercoder: body of" not in answer:
        return answer
    lines = asm.splitlines()
    originals = {name: lines[lo:hi] for name, (lo, hi) in function_spans(asm).items()}
    return expand_elisions(answer, originals)


def summary_text(hot: Hotspots, profile: Profile, top: int = 5) -> str:
    """A few sentences for the prompt: where the instructions go."""
    tests = len(profile.tests)
    parts = [
        f"Profile of this assembly on {tests} example input(s): {hot.total:,} instructions "
        "executed in the program's own code (library calls not counted)."
    ]
    loops = [s for s in hot.loops if s.share >= 0.01][:top]
    if loops:
        parts.append(
            "Hottest loops: "
            + "; ".join(
                f"the loop at {s.name} in {s.function}: {100 * s.share:.1f}%" for s in loops
            )
            + "."
        )
    if profile.gave_up:
        parts.append(f"(Profiling stopped early: {profile.gave_up}.)")
    return " ".join(parts)
