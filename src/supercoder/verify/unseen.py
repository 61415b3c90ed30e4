"""The tests a speedup is measured on: inputs drawn afresh for every check.

Visible tests are shown in prompts and refinement feedback, so a candidate can key a
lookup table on them; hidden tests never change, so whatever a candidate learns of them
in one check (by its statuses, its timing, anything) applies to the next. Speedups (and
so rewards) therefore come from inputs nobody has seen or can predict: every timing
session (``evaluate.time_group``, one per check) calls ``unseen_tests`` and draws
``DRAWS`` new inputs with a new secret seed (``secrets``); nothing is reused between
checks. The inputs come from the first source of these that the problem has:

1. ``generator``: the problem's generator (``gen.py``, or ``generator`` in problem.json;
   run in the build sandbox, ``problems.generator``) at sizes drawn over the range it
   lists (``SIZES``, ``CASES``/``HIDDEN``; none listed: the sizes whose inputs are as long
   as the visible ones), favouring the large end (the inputs worth timing), stratified so
   one check spans that end, each stratum fitted once per problem (``size_fit``): every
   check draws the same sizes whatever the machine's load;
2. ``model``: the problem's input model (``problems.inputmodel``: ``input_model.json``,
   written by ``problem init``; else inferred from all its tests, cached by content);
3. ``fuzzer``: mutations of its inputs (``problems.fuzz``).

``llm-generator``, the generator a model wrote for the problem (``llm_gen.py``,
``prompting/inputgen.py``), comes right after the problem's own. An input that a
validator of the problem (``validate.py``, ``llm_validate.py``: ``problems/validator.py``)
rejects is dropped, whatever its source.

Fresh means fresh: a generator whose draws do not change with the seed (two seeds, one
input, at the sizes a check draws: it ignores its seed or seeds by the size) is refused
as a source when it is validated, with its reason, and the next source follows; so is
any source whose draws for one check (each with its own seed) are all the same input.
The verdict says how many distinct inputs a check timed (``Measurement.distinct_inputs``).

An input equal to one of the problem's own is dropped. A source is *validated* once per
problem and source (cached, ``_validate``): a batch of its draws runs through the
reference at -O3 twice, at -O0 and in a sanitizer build (``-fsanitize=address,undefined``);
a source whose draws make the reference misbehave (a crash, undefined behaviour or an
out-of-bounds access, output that differs between builds or runs) is skipped for the
next. Each check then keeps the draws the reference (the -O3 build of the source: the
baseline itself when the problem has no ``baseline.s``) runs cleanly on within
``DRAW_SECONDS``, its output the expected one. A problem that reads no input
(problem.json ``"reads_input": false``) is timed on its visible tests and says so
(``memorizable``: a candidate may precompute its output); so is one no input can be
drawn for (``"no_draw"``: ``problem init`` found every source refused or dropped and no
hidden test to keep, as for a fixed workload named in its arguments). Without any source, the
hidden tests are timed. Drawn tests are named ``unseen/uN`` and, like hidden tests,
never quoted. ``SUPERCODER_UNSEEN=cached`` selects the earlier scheme (inputs made once
per machine and reused; for ``benchmarks/timed_inputs.py``' side-by-side only).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import random
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import (
    atomic_write_text,
    cache_dir,
    staging_prefix,
)
from supercoder.problems.constraints import size_caps
from supercoder.problems.domain import (
    DRAW_SECONDS,
    FLOOR_SECONDS,
    GROW_MAX,
    REACH,
    REACH_OVER,
    REDRAWS,
    SANITIZE,
    TOP_SECONDS,
    Judge,
    calibrated,
    describe,
    reference_runs,
    sanitizer_clean,
    tests_digest,
)
from supercoder.problems.fuzz import (
    BYTES_DOMAIN,
    SOURCE_LIMIT,
    byte_files,
    draw_byte_files,
    hint_of,
    mutable_size,
    mutate,
)
from supercoder.problems.generator import run_generator
from supercoder.problems.gensizes import (
    PROBES,
    TOP_GEN_SECONDS,
    _timed_range,
    generator_domain,
    generator_size_range,
    generator_timed_range,
    listed_between,
)
from supercoder.problems.inputmodel import DRAW_CHARS, model_for
from supercoder.problems.loading import generator_source
from supercoder.problems.outputs import expected_output, problem_mode
from supercoder.problems.validator import (
    llm_generator_source,
    valid_inputs,
    validators_digest,
)
from supercoder.types import NO_DRAW, NO_DRAW_NOTE, Problem

__all__ = [
    "DRAW_SECONDS",
    "PROBES",
    "SANITIZE",
    "TOP_GEN_SECONDS",
    "_timed_range",
    "generator_size_range",
    "generator_timed_range",
    "reference_runs",
    "sanitizer_clean",
    "unseen_tests",
]

log = logging.getLogger("supercoder")

DRAWS = 5  # inputs drawn for every check (their spread enters the CI: more than 3)
# what one drawn input's reference run is aimed at: a generator's draw that runs longer
# than twice this is drawn again once, smaller (2.4x the meter's 5 ms floor: long enough
# to time; five of them cost about what timing the largest hidden test did)
TARGET_SECONDS = 0.012
VALIDATE = 4  # draws a source is validated on (once per problem and source)
# draws past the cut the reference's time budget makes in the domain, each check (0:
# none); at BEYOND_GROWTH (low, high) times the largest size within the budget (just
# past it: a table up to the cut misses, and the draw costs a check little), the
# reference held to BEYOND_SECONDS on them (a check times them with ``BEYOND_PAIRS``)
BEYOND = 1
BEYOND_GROWTH = (1.15, 1.3)
BEYOND_SECONDS = 0.25
GENERATED_PREFIX = "unseen/"
VERSION = 5
_LONE_INT = re.compile(r"(?<![\w.+-])(\d{2,18})(?![\w.])")

Test = tuple[str, bytes, bytes]  # (name, input, expected output as compared)
Draw = Callable[[random.Random, int], list[bytes]]


@dataclass(frozen=True)
class Unseen:
    """What to time: ``tests`` and why (``why``); ``source`` names where they come from
    (``generator``, ``model``, ``fuzzer``, ``hidden``, ``memorizable``, ``none``)."""

    tests: tuple[Test, ...]
    hidden: int
    generated: int
    why: str
    source: str = "hidden"
    drawn: tuple[Test, ...] = ()
    cpu_seconds: float = 0.0  # the reference's runs on the drawn inputs
    domain: str = ""  # the input domain the source draws from, in one line
    dropped: tuple[str, ...] = ()  # each source not used before it, with why
    sizes: str = ""  # which sizes were drawn (and the reference's CPU on them)
    round_seconds: float = 0.0  # the reference's CPU on the drawn tests, all together
    # draws past the cut the reference's time budget makes in the domain (``BEYOND``),
    # timed apart (``evaluate``: their own stratum); empty where no budget cuts it
    beyond: tuple[Test, ...] = ()
    cut: str = ""  # where the budget cuts the domain, in words ("": it does not)

    @property
    def names(self) -> frozenset[str]:
        """The timed tests' names."""
        return frozenset(name for name, _, _ in self.tests)

    @property
    def generated_tests(self) -> tuple[Test, ...]:
        """The drawn tests (not among the problem's own), to run besides them."""
        return self.drawn

    @property
    def secret_names(self) -> frozenset[str]:
        """The drawn tests' names (beyond the cut too): their data is never quoted."""
        return frozenset(name for name, _, _ in (*self.drawn, *self.beyond))


def unseen_tests(problem: Problem, generate: bool = True, seed: int | None = None) -> Unseen:
    """What one check times: ``DRAWS`` inputs drawn afresh (``seed``: None, a new secret
    one; see the module docstring); ``generate=False``: the hidden tests only, for the
    correctness pass."""
    hidden = [
        (t.name, t.run_input(), expected_output(t.expected, problem_mode(problem.settings)))
        for t in problem.tests
        if t.hidden
    ]
    if not generate:
        return Unseen(tuple(hidden), len(hidden), 0, "", "hidden")
    if problem.memorizable:
        visible = tuple(
            (t.name, t.run_input(), expected_output(t.expected, problem_mode(problem.settings)))
            for t in problem.tests
            if not t.hidden
        )
        said = problem.memorizable_why
        why = (
            f"memorizable: {said}; {NO_DRAW_NOTE}"
            if said.startswith(NO_DRAW)
            else f"memorizable: {said}, so it is timed on its visible tests "
            "(a candidate may precompute its output)"
        )
        return Unseen(visible, 0, 0, why, "memorizable", domain=f"none: {said}")
    if os.environ.get("SUPERCODER_UNSEEN") == "cached":
        return _cached_unseen(problem, hidden)
    found = draw_from_sources(problem, DRAWS, seed)
    dropped = tuple(found.dropped)
    said = f"; dropped: {'; '.join(dropped)}" if dropped else ""
    small = (
        "; too small to time: the whole domain runs under 5 ms (marked at problem init)"
        if problem.settings.too_small
        else ""
    )
    if found.tests:
        what = {
            "generator": "the problem's generator",
            "llm-generator": "the generator a model wrote for the problem",
            "model": "the problem's input model",
            "fuzzer": "mutations of the problem's inputs",
        }.get(found.source, f"the {found.source}")
        why = (
            f"timed on {len(found.tests)} input(s) drawn for this check from {what} (a new "
            "secret seed every check; expected outputs from the reference build), never "
            "shown: the speedup over the problem's input domain; visible and hidden tests "
            f"decide correctness only; {found.sizes}{small}{said}"
        )
        drawn = tuple(found.tests)
        tests, also = drawn, []
        if hidden and found.top_seconds < FLOOR_SECONDS:  # nothing drawn can be timed:
            # the hidden tests too (inputs the model never saw; init keeps the largest
            # hidden where no fresh input can be drawn)
            also = hidden
            tests = (*drawn, *hidden)
            why += (
                f"; every drawn input runs under 5 ms: timed on the {len(hidden)} hidden "
                "test(s) too"
            )
        if found.beyond:
            why += (
                f"; {found.cut}: {len(found.beyond)} more input(s) drawn past the cut, "
                "timed apart (the speedup must hold there too)"
            )
        return Unseen(
            tests,
            len(also),
            len(drawn),
            why,
            found.source,
            drawn,
            found.cpu + found.beyond_cpu,
            found.domain,
            dropped,
            found.sizes,
            found.round_seconds,
            tuple(found.beyond),
            found.cut,
        )
    if hidden:
        why = (
            f"timed on {len(hidden)} hidden test(s) (no input could be drawn for this "
            f"problem{said}): inputs the model never saw; visible tests decide correctness only"
        )
        return Unseen(
            tuple(hidden),
            len(hidden),
            0,
            why,
            "hidden",
            domain="the hidden tests only",
            dropped=dropped,
        )
    why = (
        "no test the model never saw (no hidden test, no input could be drawn"
        f"{said or ': no generator, input model or fuzzable input'}): no speedup is measured"
    )
    return Unseen((), 0, 0, why, "none", domain="none: no source could draw", dropped=dropped)


@dataclass(frozen=True)
class Source:
    """One source of timed inputs: its ``name``, how it draws (``draw(rng, k)``), its
    ``domain`` in one line (``""``: said once it has drawn), whether its draws are
    judged once per problem before use (``validate``), and ``dropped``: why it cannot
    be used at all (``""``: it can)."""

    name: str
    draw: Draw
    domain: str = ""
    validate: bool = True
    dropped: str = ""
    # why its draws are not fresh ("" : they are), asked once per problem and source
    # with its validation (a generator whose input does not change with the seed)
    stale: Callable[[], str] | None = None
    # draws past the cut the reference's time budget makes in its domain (None: no
    # budget cuts it, the problem's own bounds do), and that cut in words
    beyond: Draw | None = None
    cut: str = ""
    # draws at the top of its domain (the largest sizes a check draws), for a check
    # whose draws landed under the meter's floor (``REACH``); None: ``draw`` again
    top: Draw | None = None


# Further sources, each (the name of the source it goes before, factory(problem) ->
# Source or None): the seam for sources made elsewhere (a generator+validator pair, a
# model-written generator); every one lands in the ordered list ``sources`` returns.
SOURCE_FACTORIES: list[tuple[str, Callable[[Problem], Source | None]]] = []


@dataclass
class Drawn:
    """What ``draw_from_sources`` found: the tests, the source they came from, its
    domain, the sizes timed, the reference's CPU seconds, and each source dropped
    before it with its reason."""

    tests: list[Test] = field(default_factory=list)
    source: str = ""
    domain: str = ""
    sizes: str = ""
    cpu: float = 0.0
    dropped: list[str] = field(default_factory=list)
    round_seconds: float = 0.0  # the reference's CPU on the tests kept, together
    beyond: list[Test] = field(default_factory=list)  # past the budget's cut
    beyond_cpu: float = 0.0
    cut: str = ""
    top_seconds: float = 0.0  # the reference's CPU on the longest test kept


def draw_tests(
    problem: Problem, count: int, seed: int | None = None
) -> tuple[list[Test], str, float]:
    """Up to ``count`` drawn tests from the problem's first usable source, its name (""
    when none gave any) and the CPU seconds of the reference's runs on them."""
    found = draw_from_sources(problem, count, seed)
    return found.tests, found.source, found.cpu


def draw_from_sources(problem: Problem, count: int, seed: int | None = None) -> Drawn:
    """``Drawn`` from the first source of ``sources(problem)`` that gives tests."""
    found = Drawn()
    if count <= 0 or not problem.tests:
        return found
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    own = {t.run_input() for t in problem.tests}
    for src in sources(problem):
        if src.dropped:
            found.dropped.append(f"{src.name}: {src.dropped}")
            continue
        try:
            if src.validate:
                ok, why = _validate(problem, src.name, src.draw, src.stale)
                if not ok:
                    found.dropped.append(f"{src.name}: {why}")
                    continue
            drawn = src.draw(rng, count)
            if count >= 3 and len(drawn) >= count and len(set(drawn)) == 1:
                # every seed drew the same input: a check would time one predictable input
                found.dropped.append(
                    f"{src.name}: not fresh: its {len(drawn)} draws for this check (each "
                    "with its own seed) were one and the same input"
                )
                continue
            fresh = _fresh(drawn, own)
            inputs = valid_inputs(problem, fresh)
        except (UserError, InfraError) as e:
            log.warning("warning: %s: no timed inputs from the %s (%s)", problem.name, src.name, e)
            found.dropped.append(f"{src.name}: {e}")
            continue
        if not inputs:
            why = f"the validator rejected all {len(fresh)} drawn inputs" if fresh else ""
            found.dropped.append(f"{src.name}: {why or 'it drew no new input'}")
            continue
        try:
            inputs, outputs, took = _reference_up_to(problem, inputs, count)
            cpu = sum(took)
        except (UserError, InfraError) as e:  # no sandbox here, a baseline that fails
            log.warning("warning: %s: no timed inputs (%s)", problem.name, e)
            found.dropped.append(f"{src.name}: {e}")
            return found
        kept = [(d, o, t) for d, o, t in zip(inputs, outputs, took, strict=True) if o is not None]
        size_of: dict[bytes, int] = (
            dict(zip(drawn, drawn.sizes, strict=True)) if isinstance(drawn, _Sized) else {}
        )
        kept, cpu = _reach_floor(problem, src, rng, own, kept, count, size_of, cpu)
        tests = [
            (
                f"{GENERATED_PREFIX}u{i + 1}",
                data,
                expected_output(out, problem_mode(problem.settings)),
            )
            for i, (data, out, _) in enumerate(kept)
        ]
        if tests:
            found.tests, found.source, found.cpu = tests, src.name, cpu
            found.domain = src.domain
            sizes = size_of or None
            found.sizes = _sizes_line(sizes, [(d, t) for d, _, t in kept])
            found.round_seconds = float(sum(t for _, _, t in kept))
            if src.beyond is not None and BEYOND:
                found.beyond, found.beyond_cpu = _beyond(problem, src, rng, own, kept)
                found.cut = src.cut if found.beyond else ""
            found.top_seconds = float(max(t for _, _, t in kept))
            return found
        found.dropped.append(f"{src.name}: the reference failed on every draw")
    return found


# draws that land under the meter's floor: the one rule (``problems.domain.REACH``) every
# check reads and ``problem init``'s domain fit reads too


def _reach_floor(
    problem: Problem,
    src: Source,
    rng: random.Random,
    own: set[bytes],
    kept: list[tuple[bytes, bytes | None, float]],
    count: int,
    size_of: dict[bytes, int],
    cpu: float,
) -> tuple[list[tuple[bytes, bytes | None, float]], float]:
    """``kept`` with its shortest draws replaced by longer ones drawn again (``REACH``)
    until ``REACH`` of them run the reference at ``REACH_OVER`` times the floor or more; and the reference's
    CPU on every run (the redraws' too). ``size_of`` gets the redrawn generator sizes."""
    need = min(REACH, count, len(kept))
    if not kept or problem.settings.too_small:
        return kept, cpu
    rounds = [src.top or src.draw, src.beyond or src.top or src.draw][:REDRAWS]
    for again in rounds:
        reach = REACH_OVER * FLOOR_SECONDS
        short = sorted(
            (i for i, (_, _, t) in enumerate(kept) if t < reach), key=lambda i: kept[i][2]
        )
        missing = need - (len(kept) - len(short))
        if missing <= 0:
            break
        try:
            drawn = again(rng, count)
            seen = {d for d, _, _ in kept}
            inputs = valid_inputs(problem, [d for d in _fresh(drawn, own) if d not in seen])
            top = max(t for _, _, t in kept)
            outputs, took = reference_runs(problem, inputs, max(BEYOND_SECONDS, 3 * top))
        except (UserError, InfraError) as e:
            log.warning("warning: %s: no draws again past the floor (%s)", problem.name, e)
            break
        cpu += sum(took)
        if isinstance(drawn, _Sized):
            size_of.update(zip(drawn, drawn.sizes, strict=True))
        more = sorted(
            ((d, o, t) for d, o, t in zip(inputs, outputs, took, strict=True) if o is not None),
            key=lambda x: -x[2],
        )
        kept = list(kept)
        for i, new in zip(short[:missing], more, strict=False):
            if new[2] > kept[i][2]:
                kept[i] = new
    return kept, cpu


def _reference_up_to(
    problem: Problem, inputs: list[bytes], count: int
) -> tuple[list[bytes], list[bytes | None], list[float]]:
    """The inputs run, the reference's output on each (None: refused) and its CPU: the
    first ``count`` of ``inputs``, then the next ones (a source's spares: the fuzzer
    makes twice as many) only in place of those the reference refused. A check times
    ``count`` draws (``DRAWS``), never every spare: a spare that runs for seconds would
    cost every round of timing."""
    ran = inputs[:count]
    outputs, took = reference_runs(problem, ran)
    while len(ran) < len(inputs) and (need := count - sum(o is not None for o in outputs)) > 0:
        more = inputs[len(ran) : len(ran) + need]
        out, cpu = reference_runs(problem, more)
        ran, outputs, took = [*ran, *more], [*outputs, *out], [*took, *cpu]
    return ran, outputs, took


def _beyond(
    problem: Problem,
    src: Source,
    rng: random.Random,
    own: set[bytes],
    kept: list[tuple[bytes, bytes | None, float]],
) -> tuple[list[Test], float]:
    """``BEYOND`` draws past the source's cut (``src.beyond``), kept where the reference
    runs them cleanly within ``BEYOND_SECONDS`` (a cost that explodes past the cut gives
    none: the stratum is not measured), and the reference's CPU on them."""
    assert src.beyond is not None
    try:
        drawn = [d for d in _fresh(src.beyond(rng, BEYOND), own) if d not in {k[0] for k in kept}]
        inputs = valid_inputs(problem, drawn)
        if not inputs:
            return [], 0.0
        top = max((t for _, _, t in kept), default=TOP_SECONDS)
        outputs, took = reference_runs(problem, inputs, max(BEYOND_SECONDS, 3 * top))
    except (UserError, InfraError) as e:
        log.warning("warning: %s: no draws past the cut (%s)", problem.name, e)
        return [], 0.0
    tests = [
        (f"{GENERATED_PREFIX}b{i + 1}", data, expected_output(out, problem_mode(problem.settings)))
        for i, (data, out) in enumerate(zip(inputs, outputs, strict=True))
        if out is not None
    ]
    return tests, float(sum(took))


def _sizes_line(size_of: dict[bytes, int] | None, kept: list[tuple[bytes, float]]) -> str:
    """Which sizes were drawn, in words: the generator's sizes, else the inputs' lengths,
    with the reference's CPU on them (the meter times those of 5 ms and more)."""
    if not kept:
        return ""
    ms = sorted(1000 * t for _, t in kept)
    timed = sum(m >= 1000 * FLOOR_SECONDS for m in ms)
    if size_of:
        sizes = sorted(size_of.get(d, 0) for d, _ in kept)
        what = f"generator sizes {sizes[0]}-{sizes[-1]}"
    else:
        lengths = sorted(len(d) for d, _ in kept)
        what = f"inputs of {lengths[0]}-{lengths[-1]} bytes"
    return (
        f"drawn: {what}, the reference's CPU {ms[0]:.1f}-{ms[-1]:.1f} ms "
        f"({timed} of {len(ms)} at 5 ms or more: those are timed)"
    )


def _fresh(inputs: list[bytes], own: set[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for data in inputs:
        if data and data not in own and data not in out:
            out.append(data)
    return out


def sources(problem: Problem) -> Iterator[Source]:
    """The problem's sources of timed inputs, in order (module docstring), each made when
    it is reached (a later one is not looked at when an earlier one is used); one that
    cannot be used says why in ``dropped``."""
    makers: list[tuple[str, Callable[[Problem], Source | None]]] = [
        ("generator", _generator_source),
        ("llm-generator", _llm_generator_source),
        ("model", _model_source),
        ("tiled", _tiled_source),
        ("bytes", _bytes_source),
        ("fuzzer", _fuzzer_source),
    ]
    for before, factory in SOURCE_FACTORIES:
        at = next((i for i, (name, _) in enumerate(makers) if name == before), len(makers))
        makers.insert(at, (before, factory))
    for _, make in makers:
        made = make(problem)
        if made is not None:
            yield made


def _generator_source(problem: Problem) -> Source | None:
    try:
        source = generator_source(problem.settings)
    except UserError as e:
        return Source("generator", _nothing, dropped=str(e))
    if source is None:
        return None
    beyond, cut = _generator_beyond(problem, source)
    return Source(
        "generator",
        _generator_draw(problem, source),
        generator_domain(problem, source),
        stale=lambda: _stale(problem, source),
        beyond=beyond,
        cut=cut,
        top=_generator_draw(problem, source, top=True),
    )


def _llm_generator_source(problem: Problem) -> Source | None:
    written = llm_generator_source(problem)
    if written is None:
        return None
    draw = _generator_draw(problem, written)
    domain = generator_domain(problem, written, "llm_gen.py")
    beyond, cut = _generator_beyond(problem, written)
    return Source(
        "llm-generator",
        draw,
        domain,
        stale=lambda: _stale(problem, written),
        beyond=beyond,
        cut=cut,
        top=_generator_draw(problem, written, top=True),
    )


def _model_source(problem: Problem) -> Source | None:
    model, why = _model(problem)
    if model is None:
        return Source("model", _nothing, dropped=why) if why else None
    refused = model.domain.get("refused", "")
    beyond, cut = _model_beyond(model)
    return Source(
        "model",
        _model_draw(model),
        describe(model),
        validate=False,
        dropped=refused,
        beyond=beyond,
        cut=cut,
        top=_model_draw(model, top=True),
    )


def _tiled_source(problem: Problem) -> Source | None:
    """Where the model cannot draw valid inputs (operations valid only in order: a pop
    on a non-empty stack): a visible input whose first line counts the lines after it,
    those lines repeated (``tile``), each copy's numbers after a line's first drawn anew
    within the ranges seen at that place; a sequence valid from an empty state stays
    valid repeated. The repeat count reaches the largest the reference runs within the
    model's budget (probed once, cached)."""
    template = _tile_template(problem)
    if template is None:
        return None
    factor = _tile_factor(problem, template)
    if factor < 2:
        return Source("tiled", _nothing, dropped="no repeat of the visible input runs cleanly")

    def draw(rng: random.Random, k: int) -> list[bytes]:
        out = []
        for i in range(k):
            u = (i + rng.random()) / max(1, k)
            out.append(_tile(template, max(2, round(factor * math.sqrt(u))), rng).encode())
        return out

    what = (
        f"the visible input's counted lines repeated up to {factor}x, their numbers drawn "
        "anew within the ranges seen (the model's draws were refused)"
    )
    return Source("tiled", draw, what)


def _tile_template(problem: Problem) -> tuple[list[str], list[list[str]]] | None:
    """(the header line's tokens, the lines it counts) of the largest visible text input
    whose first line is one number counting the lines after it (at least two)."""
    best = None
    for t in problem.tests:
        data = t.run_input()
        if data.startswith(b"\0") or len(data) > 1 << 20:
            continue
        try:
            lines = [ln.split() for ln in data.decode().split("\n") if ln.strip()]
        except UnicodeDecodeError:
            continue
        if len(lines) < 3 or len(lines[0]) != 1 or not lines[0][0].isdigit():
            continue
        if int(lines[0][0]) != len(lines) - 1:
            continue
        if best is None or len(lines) > len(best[1]) + 1:
            best = (lines[0], lines[1:])
    return best


WIDEN_FIRST = 8  # a line's first number with more values seen than this is not a code


def _tile(template: tuple[list[str], list[list[str]]], times: int, rng: random.Random) -> str:
    _, body = template
    ranges: dict[tuple[int, int], tuple[int, int]] = {}
    firsts: dict[int, set[str]] = {}
    for ln in body:
        firsts.setdefault(len(ln), set()).add(ln[0])
        for j, tok in enumerate(ln):
            if tok.lstrip("-").isdigit():
                lo, hi = ranges.get((len(ln), j), (int(tok), int(tok)))
                ranges[(len(ln), j)] = (min(lo, int(tok)), max(hi, int(tok)))
    # a line's first number is kept (an operation's code) unless it takes many values
    for width, seen in firsts.items():
        if len(seen) <= WIDEN_FIRST:
            ranges.pop((width, 0), None)
    out = [str(len(body) * times)]
    for _ in range(times):
        for ln in body:
            toks = list(ln)
            for j in range(len(toks)):
                if (len(ln), j) in ranges:
                    toks[j] = str(rng.randint(*ranges[(len(ln), j)]))
            out.append(" ".join(toks))
    return "\n".join(out) + "\n"


def _tile_factor(problem: Problem, template: tuple[list[str], list[list[str]]]) -> int:
    """The largest repeat count (4^k) whose tiled input the reference runs cleanly within
    the model's top-stratum budget, without drawing more than the host's budget."""
    key = hashlib.sha256(f"tile1\n{_tests_digest(problem)}".encode()).hexdigest()[:24]
    path = cache_dir() / "unseen" / "tiles" / f"{key}.json"
    try:
        return int(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        pass
    rng = random.Random(int(key[:12], 16))
    size = sum(len(" ".join(ln)) + 1 for ln in template[1])
    factors = [f for f in (4, 16, 64, 256, 1024, 4096, 16384) if f * size < DRAW_CHARS // 4]
    inputs = [_tile(template, f, rng).encode() for f in factors]
    best = 1
    try:
        outputs, cpu = reference_runs(problem, inputs) if inputs else ([], [])
    except (UserError, InfraError):
        outputs, cpu = [], []
    for f, o, t in zip(factors, outputs, cpu, strict=True):
        if o is None or t > TOP_SECONDS:
            break
        best = f
    _write_json(path, best)
    return best


def _bytes_source(problem: Problem) -> Source | None:
    """Where every visible test is one binary data file (no text to model): files like
    them, drawn as random bytes (``problems.fuzz.draw_byte_files``)."""
    files = byte_files([t.run_input() for t in problem.visible_tests])
    if not files:
        return None

    def draw(rng: random.Random, k: int) -> list[bytes]:
        return draw_byte_files(files, rng, k)

    return Source("bytes", draw, BYTES_DOMAIN)


def _fuzzer_source(problem: Problem) -> Source:
    def draw(rng: random.Random, k: int) -> list[bytes]:
        return _variants(problem, k, 2 * k, rng)

    return Source("fuzzer", draw, "mutations of the visible inputs")


def _nothing(rng: random.Random, k: int) -> list[bytes]:
    return []


TOP_STRATUM = 0.9  # where a draw "at the top" of a model's domain is (a position 0-1)


def _model_draw(model, top: bool = False) -> Draw:
    """The model's draws over its domain; ``top``: at its top stratum only."""

    def draw(rng: random.Random, k: int) -> list[bytes]:
        if top:
            strata = [TOP_STRATUM + (1 - TOP_STRATUM) * rng.random() for _ in range(k)]
            return [m.encode() for m in model.draw(rng, k, strata=strata)]
        return [m.encode() for m in model.draw(rng, k)]

    return draw


def _model(problem: Problem):
    """The problem's input model, calibrated (``problems.domain``), and why not."""
    try:
        model = model_for(problem)
    except UserError as e:
        log.warning("warning: %s: %s", problem.name, e)
        return None, str(e)
    if model is None:
        return None, "the inputs are not text"
    try:
        return calibrated(problem, model), ""
    except (UserError, InfraError) as e:
        log.warning("warning: %s: the input model's domain: %s", problem.name, e)
        return model, ""


def domain_line(problem: Problem) -> str:
    """The problem's input domain and its source, in one line (``check``, ``problem
    init``, ``problem show``): from the first source that can be used."""
    if problem.memorizable:
        return f"none: {problem.memorizable_why} (memorizable)"
    for src in sources(problem):
        if not src.dropped:
            return f"{src.name}: {src.domain}" if src.domain else src.name
    if any(t.hidden for t in problem.tests):
        return "the hidden tests only (no source can draw)"
    return "none (no source can draw)"


# ---------------------------------------------------------------- the generator


def _generator_draw(problem: Problem, source: str, top: bool = False) -> Draw:
    """The generator's draws over the sizes a check draws; ``top``: at the largest."""

    def draw(rng: random.Random, k: int) -> list[bytes]:
        sizes = generator_timed_range(problem, source)[:2]
        if top:
            requests = [(rng.getrandbits(62), sizes[1]) for _ in range(k)]
            out = _Sized(run_generator(source, requests, label=f"{problem.name}: gen.py"))
            out.sizes, out.source = [n for _, n in requests], source
            return out
        listed = listed_between(problem, source)
        # a check's draws at the sizes fitted once per problem (``size_fit``), never
        # resized by what this check's runs took: eval and every check draw alike
        fit = size_fit(problem, source) if k == DRAWS else (1.0,) * k
        bounds = (*generator_size_range(problem, source), sizes[0])
        requests = []
        for i in range(k):
            seed = rng.getrandbits(62)
            requests.append(
                (seed, _fitted(draw_size(sizes, rng, i, k, listed), fit[i], bounds, listed))
            )
        out = _Sized(run_generator(source, requests, label=f"{problem.name}: gen.py"))
        out.sizes = [n for _, n in requests]
        out.source = source
        return out

    return draw


def _generator_beyond(problem: Problem, source: str) -> tuple[Draw | None, str]:
    """Draws past the cut (sizes ``BEYOND_GROWTH`` times the largest within the time
    budget, within the sizes the generator lists) where the
    reference's budget, not the generator's own sizes, ends the timed range; else
    (None, "")."""
    try:
        high = generator_size_range(problem, source)[1]
        top = generator_timed_range(problem, source)[1]
    except (UserError, InfraError):
        return None, ""
    if top >= high:
        return None, ""
    upper = min(high, max(top + 1, int(top * BEYOND_GROWTH[1])))
    lower = min(upper, max(top + 1, int(top * BEYOND_GROWTH[0])))

    def draw(rng: random.Random, k: int) -> list[bytes]:
        requests = [(rng.getrandbits(62), rng.randint(lower, upper)) for _ in range(k)]
        return run_generator(source, requests, label=f"{problem.name}: gen.py")

    cut = (
        f"the reference's {1000 * TOP_GEN_SECONDS:.0f} ms budget cuts the generator's sizes "
        f"at {top} (it lists up to {high})"
    )
    return draw, cut


def _model_beyond(model) -> tuple[Draw | None, str]:
    """Draws past the cut where the reference's budget stopped the input model's sizes
    from growing (not its declared constraints, not ``GROW_MAX``): at the top of the
    model grown ``BEYOND_GROWTH`` (the top of it) times further; else (None, "")."""
    d = model.domain
    if d.get("refused") or "top_seconds" not in d or "grow" not in d:
        return None, ""
    grow = float(d.get("grow", 1) or 1)
    if float(d["top_seconds"]) < FLOOR_SECONDS:  # too small to time: nothing cuts it
        return None, ""
    further = grow * BEYOND_GROWTH[1]
    if further > min(GROW_MAX, size_caps(model.spec)):
        return None, ""
    past = model.with_domain({**d, "grow": further})
    # the top sizes of the grown model, as a position (sizes drawn at its square root)
    first = (BEYOND_GROWTH[0] / BEYOND_GROWTH[1]) ** 2

    def draw(rng: random.Random, k: int) -> list[bytes]:
        strata = [first + (1 - first) * (i + rng.random()) / max(1, k) for i in range(k)]
        return [m.encode() for m in past.draw(rng, k, strata=strata)]

    cut = (
        f"the reference's {1000 * TOP_SECONDS:.0f} ms budget cuts the input model's sizes "
        f"at {grow:.3g}x the largest seen"
    )
    return draw, cut


def _stale(problem: Problem, source: str) -> str:
    """Why a generator's draws are not fresh: at the top and the bottom of the sizes a
    check draws, two different seeds give the same input (it ignores its seed, or is
    seeded by its size: every check would time the same predictable inputs); "" when
    they differ at either size."""
    bottom, top = generator_timed_range(problem, source)[:2]
    sizes = list(dict.fromkeys((top, bottom)))
    rng = random.Random(secrets.randbits(64))
    requests = [(rng.getrandbits(62), n) for n in sizes for _ in range(2)]
    data = run_generator(source, requests, label=f"{problem.name}: generator (fresh?)")
    pairs = [data[i : i + 2] for i in range(0, len(data), 2)]
    if all(a == b for a, b in pairs):
        at = " and ".join(str(n) for n in sizes)
        return (
            f"not fresh: two different seeds drew the same input at size {at} (it ignores "
            "its seed, or seeds by the size): every check would time the same inputs"
        )
    return ""


FIT_VERSION = 1


def size_fit(problem: Problem, source: str) -> tuple[float, ...]:
    """How a check's ``DRAWS`` generator sizes are fitted to what a check can time: one
    factor per stratum, each draw's size times its stratum's factor (1: as drawn).
    Decided once per problem and generator (cached by their content, never by a
    candidate): a draw at each stratum's middle size, with a seed of the problem's own,
    whose reference run took over twice ``TARGET_SECONDS`` is drawn again at its size
    scaled by the square root of target/took (a linear cost lands at about 1.4x the
    target, a quadratic one at it), kept when clean and still long enough to time (1.5x
    the meter's floor: a size whose cost falls off a cliff below it keeps its long
    draw); a draw under 1.2x the floor drawn again larger (up to 4x, within the
    generator's sizes), kept when clean and longer. So every check, eval's and each
    later one, draws the same sizes however busy the machine is when it draws: the
    sizes are the problem's, not the load's."""
    key = hashlib.sha256(
        f"fit{FIT_VERSION}\n{TARGET_SECONDS}\n{DRAWS}\n{TOP_GEN_SECONDS}\n{FLOOR_SECONDS}\n".encode()
        + source.encode()
        + tests_digest(problem).encode()
    ).hexdigest()[:24]
    path = cache_dir() / "unseen" / "sizes" / f"f{key}.json"
    try:
        stored = [float(f) for f in json.loads(path.read_text())]
        if len(stored) == DRAWS:
            return tuple(stored)
    except (OSError, ValueError, TypeError):
        pass
    low, high = generator_size_range(problem, source)
    bottom, top = generator_timed_range(problem, source)[:2]
    listed = listed_between(problem, source)
    rng = random.Random(int(key[:12], 16))
    sizes = [_size_at((bottom, top), (i + 0.5) / DRAWS, listed) for i in range(DRAWS)]
    label = f"{problem.name}: gen.py"
    data = run_generator(source, [(rng.getrandbits(62), n) for n in sizes], label=label)
    factors = [1.0] * DRAWS
    if len(valid_inputs(problem, data)) == len(data):
        outputs, cpu = reference_runs(problem, data)
        fitted = _fit_sizes(problem, rng, source, sizes, outputs, cpu, (low, high, bottom))
        factors = [n / max(1, m) for n, m in zip(fitted, sizes, strict=True)]
    _write_json(path, factors)
    return tuple(factors)


def _fit_sizes(
    problem: Problem,
    rng: random.Random,
    source: str,
    sizes: list[int],
    outputs: list[bytes | None],
    cpu: list[float],
    bounds: tuple[int, int, int],
) -> list[int]:
    """``size_fit``'s one round: the size each draw is moved to (``sizes``: as drawn;
    ``bounds``: the generator's lowest and highest size and the timed range's bottom)."""
    low, high, bottom = bounds
    todo: list[tuple[int, int]] = []  # (draw, new size)
    for i, (size, out, t) in enumerate(zip(sizes, outputs, cpu, strict=True)):
        if out is None:
            continue
        if t > 2 * TARGET_SECONDS:  # smaller, not below the timed range (a cost
            # exponential in the size, bit_sos_naive's, would fall under the floor)
            smaller = int(size * math.sqrt(TARGET_SECONDS / t))
            todo.append((i, max(low, min(size - 1, max(bottom, smaller)))))
        elif t < 1.2 * FLOOR_SECONDS and size < high:
            factor = min(4.0, max(1.25, 1.5 * FLOOR_SECONDS / max(t, 1e-4)))
            todo.append((i, min(high, max(size + 1, int(size * factor)))))
    listed = listed_between(problem, source)
    if listed:  # a listed size, as listed: the nearest one on the side it was moved to
        todo = [(i, _snap(listed, n, n < sizes[i])) for i, n in todo]
    todo = [(i, n) for i, n in todo if n != sizes[i]]
    fitted = list(sizes)
    if not todo:
        return fitted
    requests = [(rng.getrandbits(62), n) for _, n in todo]
    again = valid_inputs(problem, run_generator(source, requests, label=f"{problem.name}: gen.py"))
    if len(again) != len(todo):  # a redraw the validator rejects: keep the first sizes
        return fitted
    new_out, new_cpu = reference_runs(problem, again)
    for (i, n), out, t in zip(todo, new_out, new_cpu, strict=True):
        if out is None:
            continue
        shorter = cpu[i] > 2 * TARGET_SECONDS
        if (shorter and t >= 1.5 * FLOOR_SECONDS) or (not shorter and t > cpu[i]):
            fitted[i] = n
    return fitted


def _fitted(
    n: int, factor: float, bounds: tuple[int, int, int], listed: Sequence[int] | None
) -> int:
    """Size ``n`` of a stratum whose fit is ``factor`` (``size_fit``), within the
    generator's sizes (``bounds``: lowest, highest, the timed range's bottom; a smaller
    size not below that bottom), a listed size where it lists them."""
    if factor == 1.0:
        return n
    low, high, bottom = bounds
    moved = int(round(n * factor))
    moved = max(max(low, bottom) if factor < 1 else low, min(high, moved))
    if listed:
        moved = _snap(listed, moved, factor < 1)
    return moved


def _snap(listed: Sequence[int], n: int, down: bool) -> int:
    """The listed size nearest ``n``: at most it (``down``), else at least it."""
    if down:
        return max((x for x in listed if x <= n), default=listed[0])
    return min((x for x in listed if x >= n), default=listed[-1])


class _Sized(list):
    """A generator's draws, with the size each was drawn at (``sizes``) and the
    generator's text (``source``)."""

    sizes: list[int]
    source: str


def draw_size(
    sizes: tuple[int, int],
    rng: random.Random,
    i: int,
    k: int,
    listed: Sequence[int] | None = None,
) -> int:
    """A size in ``sizes`` (low, high: the timed range) for draw ``i`` of ``k``:
    stratified over the whole range (draw i in its own k-th of it), favouring the top;
    with ``listed`` (the generator's own sizes in the range), one of those, as listed."""
    return _size_at(sizes, (i + rng.random()) / max(1, k), listed)


def _size_at(sizes: tuple[int, int], u: float, listed: Sequence[int] | None = None) -> int:
    """The size at position ``u`` (0-1) of the timed range ``sizes``, favouring the top
    (at its square root); with ``listed``, one of those."""
    low, high = sizes
    if listed:
        return listed[min(len(listed) - 1, int(len(listed) * math.sqrt(u)))]
    return int(round(low + (high - low) * math.sqrt(u)))


# ---------------------------------------------------------------- the reference


def reference_outputs(
    problem: Problem, inputs: Sequence[bytes]
) -> tuple[list[bytes | None], float]:
    """``reference_runs``, with the CPU seconds of all the runs together."""
    outputs, cpu = reference_runs(problem, inputs)
    return outputs, float(sum(cpu))


def _validate(
    problem: Problem, name: str, draw: Draw, stale: Callable[[], str] | None = None
) -> tuple[bool, str]:
    """Whether a source's draws are inputs the reference handles as it handles the
    visible ones (``problems.domain.Judge``: -O3 twice, -O0, a sanitizer build, each
    held against a draw only where the visible inputs do not show it too; at least half
    must pass) and, where the source can say (``stale``), whose draws change with the
    seed; and why not; decided once per problem and source, cached."""
    key = hashlib.sha256(
        f"v{VERSION}\n{name}\n{_tests_digest(problem)}\n{_source_digest(problem, name)}"
        f"\n{validators_digest(problem)}".encode()
    ).hexdigest()[:32]
    path = cache_dir() / "unseen" / "valid" / f"{key}.json"
    try:
        d = json.loads(path.read_text())
        return bool(d["ok"]), str(d.get("why", ""))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        why = stale() if stale is not None else ""
    except (UserError, InfraError) as e:
        why = str(e)
    ok = not why
    if ok:
        ok, why = _check_source(problem, draw)
    if not ok:
        log.warning("warning: %s: the %s's inputs are not used (%s)", problem.name, name, why)
    _write_json(path, {"ok": ok, "why": why})
    return ok, why


def _check_source(problem: Problem, draw: Draw) -> tuple[bool, str]:
    own = {t.run_input() for t in problem.tests}
    try:
        drawn = _fresh(draw(random.Random(secrets.randbits(64)), VALIDATE), own)
        inputs = valid_inputs(problem, drawn)
    except (UserError, InfraError) as e:
        return False, str(e)
    if drawn and not inputs:
        return False, f"the validator rejected all {len(drawn)} drawn inputs"
    if not inputs:
        return False, "it drew no new input"
    try:
        outcomes = Judge(problem).judge(inputs)
    except (UserError, InfraError) as e:
        return False, f"the reference could not be run: {e}"
    clean = sum(o.ok for o in outcomes)
    if 2 * clean < len(inputs):
        failures = sorted({o.why for o in outcomes if not o.ok})
        return False, (
            f"{len(inputs) - clean} of {len(inputs)} drawn inputs made the reference "
            f"misbehave ({', '.join(failures)})"
        )
    return True, f"{clean} of {len(inputs)} drawn inputs clean"


def _tests_digest(problem: Problem) -> str:
    return tests_digest(problem)


def _source_digest(problem: Problem, name: str) -> str:
    if name == "generator":
        return hashlib.sha256((generator_source(problem.settings) or "").encode()).hexdigest()
    if name == "llm-generator":
        return hashlib.sha256((llm_generator_source(problem) or "").encode()).hexdigest()
    if name == "model":
        model = _model(problem)[0]
        return model.digest() if model is not None else ""
    if name in ("fuzzer", "bytes"):  # how they draw: a verdict cached before is stale
        return "fuzz-2"
    return ""


def _write_json(path: Path, value: object) -> None:
    atomic_write_text(path, json.dumps(value))


# ---------------------------------------------------------------- the fuzzer


def _variants(problem: Problem, sources_used: int, count: int, rng: random.Random) -> list[bytes]:
    """Distinct mutations of the problem's ``sources_used`` largest text inputs (the
    ones most worth timing), none equal to a test."""
    try:
        hint = hint_of(problem)
    except UserError:
        return []
    sources = sorted({t.run_input() for t in problem.tests}, key=len, reverse=True)
    texts = []
    for data in sources:
        if mutable_size(data) <= SOURCE_LIMIT:
            try:
                texts.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    texts = texts[: max(1, sources_used)]
    if not texts:
        return []
    seen, out = set(sources), []
    for k in range(count * 10):
        if len(out) >= count:
            break
        text = texts[k % len(texts)]
        data = mutate(text, rng, hint).encode()
        if data in seen:
            data = _shrink_lone(text, rng).encode()
        if data not in seen:
            seen.add(data)
            out.append(data)
    return out


def _shrink_lone(text: str, rng: random.Random) -> str:
    """A lone number (the only one on its line, which the fuzzer keeps: it has no range)
    made a little smaller (by up to 5%, at least 1)."""
    lines = text.split("\n")
    spots = [i for i, ln in enumerate(lines) if _LONE_INT.fullmatch(ln.strip() or "x")]
    if not spots:
        return text
    i = rng.choice(spots)
    value = int(lines[i].strip())
    lines[i] = str(rng.randint(max(1, value * 95 // 100), max(1, value - 1)))
    return "\n".join(lines)


# ---------------------------------------------------------------- the earlier scheme


def _cached_unseen(problem: Problem, hidden: list[Test]) -> Unseen:
    """The earlier scheme (``SUPERCODER_UNSEEN=cached``): hidden tests topped up to 3
    with mutations made once per machine and reused by every check."""
    need = max(0, 3 - len(hidden))
    generated: list[Test] = []
    if need:
        key = hashlib.sha256(f"cached\n{need}\n{_tests_digest(problem)}".encode()).hexdigest()[:32]
        folder = cache_dir() / "unseen" / "cached" / key
        if not (folder / "done.json").is_file():
            inputs = _variants(problem, need, 2 * need, random.Random(key))
            outputs = reference_outputs(problem, inputs)[0] if inputs else []
            pairs = [(d, o) for d, o in zip(inputs, outputs, strict=True) if o is not None]
            _store(folder, pairs[:need])
        names = json.loads((folder / "done.json").read_text()).get("tests", [])
        for i, stem in enumerate(names):
            data = (folder / f"{stem}.in").read_bytes()
            raw = (folder / f"{stem}.out").read_bytes()
            generated.append(
                (
                    f"{GENERATED_PREFIX}u{i + 1}",
                    data,
                    expected_output(raw, problem_mode(problem.settings)),
                )
            )
    why = "timed on hidden tests and inputs made once per machine (the earlier scheme)"
    tests = tuple(hidden + generated)
    return Unseen(tests, len(hidden), len(generated), why, "cached", tuple(generated))


def _store(folder: Path, pairs: list[tuple[bytes, bytes]]) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=staging_prefix(folder.parent, ".tmp"), dir=folder.parent))
    names = []
    for i, (data, out) in enumerate(pairs, 1):
        (tmp / f"g{i:02d}.in").write_bytes(data)
        (tmp / f"g{i:02d}.out").write_bytes(out)
        names.append(f"g{i:02d}")
    (tmp / "done.json").write_text(json.dumps({"tests": names}))
    try:
        tmp.rename(folder)
    except OSError:  # another process stored it first
        shutil.rmtree(tmp, ignore_errors=True)
