"""A problem's input domain: how far its drawn inputs reach, judged by the reference.

The inputs a check times are drawn from a *source* (``verify/unseen.py``: a generator,
the input model, the fuzzer). What the visible inputs show is only a corner of what the
program takes; a candidate that keys a table on that corner must gain nothing, so the
inferred input model is **extrapolated** (``calibrate``), once per problem (at ``problem
init``, stored in ``input_model.json`` ``domain``; else cached by content):

1. **base**: draws over the visible span must be inputs the reference handles as it
   handles the visible ones (``Judge``); where they are not, the model is **refined**
   instead of dropped: the first of ``REFINEMENTS`` that makes them all clean is kept,
   else the first that makes at least half clean (``bounded``: a number stays within the
   earlier number it stayed within on every visible input, e.g. an index within a
   length; ``nonempty``: counts and sizes at least 1; ``multiples``: a number every
   visible value of which is a multiple of one step is drawn as multiples of it,
   mandelbrot's widths 200 1000 2000); runs seen sorted are drawn sorted (inferred);
2. **values**: numbers that are not sizes (and span at least ``WIDEN_MIN`` values: an op
   code 1-3 is not widened) are drawn beyond the range seen, up to the integer type the
   values fit (``widen``: first to that type's top, else 64x, else 4x the range; a
   widening whose draws run past ``PROBE_OVER`` times the budget is not taken: a number
   that sets the work, factored or counted to, widened to 2^31 runs for seconds), and
   words from whole letter classes (``letters``: ``ab`` -> a-z), kept only where the
   reference stays clean on every draw;
3. **sizes**: sizes (header numbers, counts, lengths) are grown upward (``grow``) while
   the reference runs the largest draws cleanly within ``TOP_SECONDS`` of CPU and the
   draw within the host's budget (``inputmodel.DRAW_CHARS``); a model whose visible
   inputs already run longer than ``SLOW_SECONDS`` is **shrunk first** (``shrink``),
   before any draw is judged at the visible sizes (seconds each, minutes judged in
   full): cheap sizes probed first, -O3 only, each run stopped at ``PROBE_OVER`` times
   the budget; an interpreter's scripts each on their own (``pick_grow``). The top
   stratum of every check's draws is that size;
4. a final batch over the whole domain runs the full judge; a refusal there narrows the
   values first, then the sizes (halved), never the source.

The search's budgets (``SEARCH_SECONDS``, ``FINAL_SECONDS``) are CPU seconds actually
spent (the judge's runs and the host's drawing), ``WALL_FACTOR`` times that in wall
seconds at most.

Declared constraints (``input_model.json`` ``constraints``, ``problem init
--constraint``) bound every field they name: growth and widening never pass them.

``Judge`` runs the reference on draws (the ``-O3`` build in the sandbox, within
``DRAW_SECONDS``; for a full judgement also ``-O0`` and a sanitizer build) and holds
against a draw only what the visible inputs do not show: a sanitizer report the visible
inputs also trigger (same kind, same place) is the program's, not the draw's; a
difference between ``-O0`` and ``-O3`` that a visible input shows too is the program's.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.codec import FormatError, decode, encode, opts
from supercoder.errors import InfraError, UserError
from supercoder.paths import atomic_write_text, cache_dir, sibling_temp, temp_prefix
from supercoder.problems.constraints import (
    constraint_lines,
    resolve_constraints,
    size_caps,
    top_sizes,
)
from supercoder.problems.inputmodel import DRAW_CHARS, INT32, WIDEN_MIN, DrawRefused, InputModel
from supercoder.problems.outputs import outputs_match, problem_mode
from supercoder.problems.validator import valid_inputs, validators_digest
from supercoder.sandbox.box import Limits, open_sandbox
from supercoder.sandbox.oneshot import run_isolated
from supercoder.toolchain.baseline import baseline_binary, built_baseline, unit_asms
from supercoder.toolchain.gcc import compile_c
from supercoder.toolchain.reference import build_failure
from supercoder.types import Problem

DRAW_SECONDS = 5.0  # CPU seconds the reference may take on a drawn input
TOP_SECONDS = 0.025  # the reference's CPU on the top stratum of a model's draws
FLOOR_SECONDS = 0.005  # the meter's floor: a test whose baseline runs shorter is not timed
GROW_MAX = float(1 << 20)  # sizes grow at most this many times the largest seen
# CPU seconds (the reference's runs and the host's drawing, as spent: a loaded machine's
# waiting is not counted) the domain's search may take before its final check
SEARCH_SECONDS = 90.0
# CPU seconds its final check may take after that (a draw is judged by -O3 twice, -O0
# and a sanitizer build: of a program whose visible input runs for seconds, minutes):
# past it the draws not yet judged are not, and the visible span is kept
FINAL_SECONDS = 60.0
WALL_FACTOR = 4.0  # either budget also ends this many times over in wall seconds
# visible inputs whose reference run is longer than this are shrunk first (``shrink``):
# every later draw is judged at the sizes found, never at the visible ones
SLOW_SECONDS = 8 * 0.025
PROBE_OVER = 4.0  # a probe's reference run is stopped past this many times TOP_SECONDS
START_AT = (0.0, 0.2, 0.4, 0.6, 0.8)  # the positions probed for where a script's draws start
SHRINK_PROBES = 12  # probes at most per script (or model) while shrinking
HOST_SHARE = 0.12  # host CPU seconds drawing one input may take (a check draws five)
VERSION = 1
SANITIZE = ("-O1", "-g", "-fsanitize=address,undefined", "-fsanitize-recover=all")
SANITIZE_ENV = {
    "ASAN_OPTIONS": "hard_rss_limit_mb=2048:detect_leaks=0:abort_on_error=0:halt_on_error=0",
    "UBSAN_OPTIONS": "halt_on_error=0:print_stacktrace=0",
}
REFINEMENTS = (
    ("bounded",),
    ("nonempty",),
    ("bounded", "nonempty"),
    ("multiples",),
    ("multiples", "bounded", "nonempty"),
)
# The one rule every check reads (eval's, ``check``'s, ``problem init``'s timed check: all
# draw in ``verify.unseen``) for draws that land under the meter's floor (``FLOOR_SECONDS``, its
# ``min_test_seconds``): a check wants ``REACH`` draws at ``REACH_OVER`` times the floor or
# above (where the meter's median of three runs still reads them at the floor); where fewer
# reach it (a domain whose top was fitted on a busier machine, a top stratum that
# straddles the floor), it draws again, up to ``REDRAWS`` rounds: at the top of the
# source's domain, then past the cut its time budget makes (where it has one), each
# longer clean draw taking the place of the shortest. Only a domain none of whose draws
# reaches the floor then leaves a check untimed, on every path alike. The domain's fit
# reads it too (``_Calibration.confirm_top``): a top stratum under ``REACH_OVER`` times
# the floor is drawn again as a check would before the domain is called too small.
REACH = 2
CONFIRM_DRAWS = 5  # draws of each batch ``confirm_top`` makes (a check's ``DRAWS``)
REACH_OVER = 1.2
REDRAWS = 2
VISIBLE_LIMIT = 8  # visible inputs the judge's baseline runs (the smallest, up to this)


# ---------------------------------------------------------------- the reference


def reference_runs(
    problem: Problem, inputs: Sequence[bytes], seconds: float = DRAW_SECONDS
) -> tuple[list[bytes | None], list[float]]:
    """The reference's output on each input (None: it did not run cleanly within
    ``seconds``), run once each in a fresh sandbox, and the CPU seconds of each."""
    with tempfile.TemporaryDirectory(prefix=temp_prefix("draw")) as tmp:
        binary = reference_binary(problem, Path(tmp))
        limits = Limits(cpu_seconds=seconds, wall_seconds=4 * seconds, idle_seconds=None)
        out: list[bytes | None] = []
        cpu: list[float] = []
        with open_sandbox({"reference": binary}, limits=limits, exit_code=problem.exit_code) as box:
            for data in inputs:
                run = box.run("reference", data)
                cpu.append(run.cpu_seconds)
                ok = run.clean_exit and not run.leftover
                out.append(run.stdout if ok else None)
    return out, cpu


def reference_binary(problem: Problem, workdir: Path) -> Path:
    """The -O3 build of the problem's source, built here (``toolchain.baseline.
    built_baseline``: whatever the problem carries), as the baseline is built."""
    units = unit_asms(problem)
    return baseline_binary(built_baseline(problem), workdir, problem.link_flags, True, units)


def _cached_build(problem: Problem, tag: str, flags: tuple[str, ...]) -> Path:
    """The problem's source built with ``flags`` (then its cflags), cached by content."""
    key = hashlib.sha256(
        (
            f"{tag}\n{' '.join(flags)}\n{' '.join(problem.units)}\n"
            + problem.source_hash()
            + " ".join((*problem.compile_flags, "|", *problem.ldflags))
        ).encode()
    ).hexdigest()[:24]
    cached = cache_dir() / "unseen" / "reference" / key
    if cached.is_file():
        return cached
    with tempfile.TemporaryDirectory(prefix=temp_prefix("ref")) as tmp:
        out = Path(tmp) / "program"
        link = (*problem.compile_flags, *problem.ldflags)
        if tag == "san":
            link = (SANITIZE[2], *link)
        build = compile_c(
            problem.source, out, (*flags, *problem.compile_flags), link, units=problem.units
        )
        if not build.ok or build.binary is None:
            full = (*flags, *problem.compile_flags)
            label = f"{problem.name}: the reference"
            raise UserError(build_failure(build.log, full, problem.ldflags, label, problem.source))
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp_file = sibling_temp(cached)
        shutil.copyfile(build.binary, tmp_file)
        tmp_file.chmod(0o755)
        tmp_file.replace(cached)
    return cached


_UBSAN = re.compile(rb"^(?:[^\n:]*/)?([^/\n:]+):(\d+):\d+: runtime error: ([a-z -]+)", re.M)
_ASAN = re.compile(rb"ERROR: AddressSanitizer: ([\w-]+)")
_FRAME = re.compile(rb"#\d+ 0x[0-9a-f]+ in (\w+) (?:[^\n:]*/)?([^/\n:]+:\d+)")


def signatures(stderr: bytes) -> set[str]:
    """The sanitizer reports in ``stderr``, each as its kind and place (no values)."""
    out = {
        f"{f.decode()}:{ln.decode()}: {what.decode().strip()}"
        for f, ln, what in _UBSAN.findall(stderr)
    }
    for m in _ASAN.finditer(stderr):
        frame = _FRAME.search(stderr, m.end())
        where = f" in {frame[1].decode()} {frame[2].decode()}" if frame else ""
        out.add(f"AddressSanitizer {m[1].decode()}{where}")
    return out


@dataclass(frozen=True)
class Behaviour:
    """How the reference behaves on the visible inputs: the sanitizer reports they
    trigger, whether the sanitizer build exits cleanly on them, and whether -O0 prints
    what -O3 does on every one."""

    signatures: frozenset[str]
    sanitizer_exits_cleanly: bool = field(metadata=opts(key="san_clean"))
    o0_agrees: bool
    sanitizer: bool  # a sanitizer build exists here


@dataclass(frozen=True)
class DrawRun:
    """The reference on one draw: ``ok`` (handled as the visible inputs are), its -O3
    ``output`` and ``cpu`` seconds, and ``why`` not."""

    ok: bool
    cpu: float
    why: str = ""
    output: bytes | None = None


class Spent(Exception):
    """A judge's wall deadline passed before every draw was judged (``Judge.judge``)."""


class Judge:
    """Runs the reference on draws and judges each against its behaviour on the visible
    inputs (module docstring)."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self._visible: Behaviour | None = None
        self._san: Path | None | bool = False
        self.cpu = 0.0  # CPU seconds of every run this judge made (its budget's meter)

    def _sanitizer(self) -> Path | None:
        if self._san is False:
            try:
                self._san = _cached_build(self.problem, "san", SANITIZE)
            except (UserError, InfraError):
                self._san = None  # no sanitizer build on this machine
        return self._san if isinstance(self._san, Path) else None

    def visible(self) -> Behaviour:
        if self._visible is None:
            key = hashlib.sha256(f"visible{VERSION}\n{tests_digest(self.problem)}".encode())
            path = cache_dir() / "unseen" / "visible" / f"{key.hexdigest()[:32]}.json"
            try:
                self._visible = decode(Behaviour, json.loads(path.read_text()))
            except (OSError, ValueError, KeyError, TypeError, FormatError):
                self._visible = self._measure_visible()
                atomic_write_text(path, json.dumps(encode(self._visible)))
        return self._visible

    def _measure_visible(self) -> Behaviour:
        inputs = sorted({t.run_input() for t in self.problem.tests}, key=len)[:VISIBLE_LIMIT]
        sigs: set[str] = set()
        clean = True
        san = self._sanitizer()
        for data in inputs if san else ():
            run = self._run_sanitizer(san, data)
            sigs |= signatures(run.stderr)
            clean = clean and run.clean_exit
        o3, o0 = self._runs(["O3", "O0"], inputs)
        mode = problem_mode(self.problem.settings)
        agrees = all(outputs_match(a.stdout, b.stdout, mode) for a, b in zip(o3, o0, strict=True))
        return Behaviour(frozenset(sigs), clean, agrees, san is not None)

    def _runs(
        self, levels: Sequence[str], inputs: Sequence[bytes], seconds: float = DRAW_SECONDS
    ) -> list[list]:
        """Each level's runs on every input (a level named twice runs twice), in one
        sandbox."""
        with tempfile.TemporaryDirectory(prefix=temp_prefix("judge")) as tmp:
            binaries = {
                level: (
                    reference_binary(self.problem, Path(tmp))
                    if level == "O3"
                    else _cached_build(self.problem, level, (f"-{level}",))
                )
                for level in dict.fromkeys(levels)
            }
            limits = Limits(cpu_seconds=seconds, wall_seconds=4 * seconds, idle_seconds=None)
            exit_code = self.problem.exit_code
            with open_sandbox(binaries, limits=limits, exit_code=exit_code) as box:

                def run(level: str, data: bytes):
                    done = box.run(level, data)
                    self.cpu += done.cpu_seconds
                    return done

                first = [run(levels[0], data) for data in inputs]
                # the other levels only where the first ran cleanly: an input that timed
                # out once is not run to its limit again (a drawn loop count of 2^31)
                return [first] + [
                    [
                        run(level, d) if r.clean_exit else r
                        for d, r in zip(inputs, first, strict=True)
                    ]
                    for level in levels[1:]
                ]

    def _run_sanitizer(self, binary: Path, data: bytes):
        work = Path(tempfile.mkdtemp(prefix=temp_prefix("san")))
        try:
            os.chmod(work, 0o755)
            shutil.copyfile(binary, work / "san")
            (work / "san").chmod(0o755)
            limits = Limits(
                cpu_seconds=4 * DRAW_SECONDS,
                wall_seconds=8 * DRAW_SECONDS,
                memory_mb=1 << 25,  # the shadow's reservation; RSS: hard_rss_limit_mb
                idle_seconds=None,
            )
            done = run_isolated(["./san"], work, limits=limits, stdin=data, env=SANITIZE_ENV)
            self.cpu += done.cpu_seconds
            return done
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def judge(
        self,
        inputs: Sequence[bytes],
        full: bool = True,
        seconds: float = DRAW_SECONDS,
        deadline: float | Callable[[], bool] | None = None,
    ) -> list[DrawRun]:
        """Each input judged: the -O3 reference runs cleanly within ``seconds`` (twice,
        printing the same, when ``full``), and with ``full`` also -O0 prints the same
        (where it does on the visible inputs) and the sanitizer build reports nothing
        the visible inputs do not. ``deadline`` (``time.monotonic()``): ``Spent`` where
        it passes before a draw's sanitizer run (the longest: minutes on a slow program),
        never a draw judged as failing for want of time; a callable: whether it passed."""
        if not inputs:
            return []
        levels = ["O3", "O3"] if full else ["O3"]
        if full and self.visible().o0_agrees:
            levels.append("O0")
        found = self._runs(levels, inputs, seconds)
        runs, again = found[0], found[1] if full else found[0]
        o0 = found[2] if len(levels) > 2 else None
        out = []
        san = self._sanitizer() if full else None
        mode = problem_mode(self.problem.settings)
        for i, (data, run) in enumerate(zip(inputs, runs, strict=True)):
            if not run.clean_exit:
                kind = "timeout" if run.outcome == "timeout" else "runtime_error"
                out.append(DrawRun(False, run.cpu_seconds, kind))
                continue
            if not outputs_match(again[i].stdout, run.stdout, mode):
                out.append(DrawRun(False, run.cpu_seconds, "nondeterministic"))
                continue
            if o0 is not None and (
                not o0[i].clean_exit or not outputs_match(o0[i].stdout, run.stdout, mode)
            ):
                out.append(DrawRun(False, run.cpu_seconds, "-O0 prints something else"))
                continue
            if san is not None:
                seen = self.visible()
                if deadline is not None and (
                    deadline() if callable(deadline) else time.monotonic() > deadline
                ):
                    raise Spent()
                srun = self._run_sanitizer(san, data)
                new = signatures(srun.stderr) - seen.signatures
                if new:
                    what = sorted(new)[0]
                    out.append(DrawRun(False, run.cpu_seconds, f"sanitizer report ({what})"))
                    continue
                if seen.sanitizer_exits_cleanly and not srun.clean_exit:
                    out.append(DrawRun(False, run.cpu_seconds, "sanitizer build failed"))
                    continue
            out.append(DrawRun(True, run.cpu_seconds, "", run.stdout))
        return out


def sanitizer_clean(problem: Problem, inputs: Sequence[bytes]) -> list[bytes] | None:
    """The inputs on which the reference's sanitizer build reports nothing the visible
    inputs do not (None: no sanitizer build on this machine)."""
    judge = Judge(problem)
    san = judge._sanitizer()
    if san is None:
        return None
    seen = judge.visible()
    out = []
    for data in inputs:
        run = judge._run_sanitizer(san, data)
        if signatures(run.stderr) <= seen.signatures and (
            run.clean_exit or not seen.sanitizer_exits_cleanly
        ):
            out.append(data)
    return out


def tests_digest(problem: Problem) -> str:
    mode = problem_mode(problem.settings)
    h = hashlib.sha256(f"{mode.describe()}\n{problem.exit_code}\n".encode())
    h.update(problem.source.encode())
    h.update(" ".join((*problem.cflags, "|", *problem.ldflags)).encode())
    for t in problem.tests:
        h.update(hashlib.sha256(t.run_input()).digest())
    return h.hexdigest()[:32]


# ---------------------------------------------------------------- calibration


def _sizes(model: InputModel) -> bool:
    text = json.dumps(model.spec.get("body"))
    return '"size": true' in text or '"range"' in text


STEPS_MAX = 8  # steps by one at most before sizes grow by factors instead
STEP_RATIO = 1.5  # a step costing less than this many times the last: not exploding
STEP_OVER = 4.0  # the step beyond the largest integer size seen may cost this much more
SMALL_TOP = 64  # sizes all at most this, outside repeats: a handful of values (steps)


def small_top(model: InputModel) -> int | None:
    """The largest seen of a model's sizes where they are a handful of integers (every
    size outside repeats at most ``SMALL_TOP``, not a power-of-two exponent: a depth,
    ``fannkuch N``): sizes then step by one; None otherwise."""
    tops = []
    for node in model.spec.get("body") or []:
        for f in node.get("line", ()):
            if "int" in f and f.get("size"):
                if f.get("exp"):
                    return None
                tops.append(int(f["int"][1]))
    text = json.dumps(model.spec.get("body"))
    if not tops or '"repeat"' in text or '"var"' in text or '"max"' in text:
        return None  # a size that counts or bounds something is a count, not a handful
    return max(tops) if 1 <= max(tops) <= SMALL_TOP else None


NO_SMALLER = "no smaller size ran cleanly within the budget: the visible sizes kept"


def _scripts(model: InputModel) -> int:
    """How many visible scripts an interpreter's model draws from (0: not scripts)."""
    if not model.spec.get("script"):
        return 0
    for node in model.spec.get("body") or []:
        if isinstance(node, dict) and isinstance(node.get("pick"), list):
            return len(node["pick"])
    return 0


def _has_steps(model: InputModel) -> bool:
    """Does some integer of the model have a common step (``"mult"``) to draw by?"""
    return '"mult"' in json.dumps(model.spec.get("body"))


def _widenable(model: InputModel) -> bool:
    declared = resolve_constraints(model.spec)

    def walk(nodes: list) -> bool:
        for node in nodes:
            if "line" in node:
                for f in node["line"]:
                    f = f["run"]["of"] if "run" in f else f
                    if "int" in f and not f.get("size") and not f.get("max"):
                        lo, hi = f["int"]
                        if hi - lo >= WIDEN_MIN and id(f) not in declared:
                            return True
            elif walk(node.get("body") or []):
                return True
        return False

    return walk(model.spec.get("body") or [])


def _words(model: InputModel) -> bool:
    return '"chars"' in json.dumps(model.spec.get("body"))  # not flags drawn as seen


class _Calibration:
    def __init__(
        self,
        problem: Problem,
        model: InputModel,
        rng: random.Random,
        progress: Callable[[str], None] | None = None,
    ):
        self.problem, self.model, self.rng = problem, model, rng
        self.progress = progress
        self.started = time.monotonic()
        self.judge = Judge(problem)
        self.own = {t.run_input() for t in problem.tests}
        self.notes: list[str] = []
        self.host = 0.0  # host CPU seconds per input of the last batch
        self.scale = 1.0  # the smallest scale the last batch's draws were made at
        self.outputs: list[bytes] = []  # the reference's outputs on the last batch's draws
        self.cpus: list[float] = []  # the reference's CPU on the last batch's clean draws
        self._limit: float | None = None
        # the search stops trying larger or wider draws once it has spent
        # ``SEARCH_SECONDS`` of CPU (the final check of what it found still runs, up to
        # ``FINAL_SECONDS`` more: past it nothing more is judged)
        self.host_start = time.process_time()
        self.searching = True
        self.visible_cpu = 0.0  # the reference's CPU on the longest visible input
        self._found: dict = {}  # what ``shrink`` found (kept where the budget runs out)

    def limit(self) -> float:
        """The reference's CPU limit on a draw: 1 s, or 3x the longest visible input's run
        where that runs longer (a draw like it is no timeout; at most ``DRAW_SECONDS``)."""
        if self._limit is None:
            own = sorted(self.own, key=len)[-VISIBLE_LIMIT:]
            runs = self.judge.judge(own, full=False, seconds=DRAW_SECONDS)
            longest = max((o.cpu if o.ok else DRAW_SECONDS for o in runs), default=0.0)
            self.visible_cpu = longest
            self._limit = min(DRAW_SECONDS, max(1.0, 40 * TOP_SECONDS, 3 * longest))
        return self._limit

    def used(self) -> float:
        """CPU seconds the search has spent: the reference's runs (every build) and the
        host's drawing."""
        return self.judge.cpu + time.process_time() - self.host_start

    def over(self) -> bool:
        """Whether the search's budget (or, searching no more, its check's) is spent:
        ``SEARCH_SECONDS`` (+ ``FINAL_SECONDS``) of CPU, or ``WALL_FACTOR`` times that in
        wall seconds (a machine so loaded that the CPU budget would take hours)."""
        budget = SEARCH_SECONDS if self.searching else SEARCH_SECONDS + FINAL_SECONDS
        wall = time.monotonic() - self.started
        return self.used() > budget or wall > WALL_FACTOR * budget

    def say(self, stage: str) -> None:
        if self.progress is not None:
            self.progress(f"  domain: {stage} ({time.monotonic() - self.started:.0f} s)...")

    def spent(self) -> str:
        """The note that the search's (or, searching no more, its check's) wall budget
        is spent; noted once."""
        kept = "the sizes shrunk to the budget kept" if "shrunk" in self._found else ""
        why = (
            self.spent_note()
            if self.searching
            else f"the domain search's {SEARCH_SECONDS + FINAL_SECONDS:.0f} s CPU budget is "
            f"spent before its check: {kept or 'the visible span kept'}"
        )
        if why not in self.notes:
            self.notes.append(why)
        return why

    def batch(
        self, domain: dict, strata: Sequence[float], full: bool, seconds: float | None = None
    ) -> tuple[int, int, float, str]:
        """(clean, drawn, the largest CPU seconds, why not) of draws at ``strata``, the
        reference held to ``seconds`` of CPU on each (default ``limit()``)."""
        if self.over():
            return 0, 0, 0.0, self.spent()
        model = self.model.with_domain(domain)
        start = time.process_time()
        scales: list[float] = []
        try:
            drawn = model.draw(self.rng, len(strata), strata=strata, scales=scales)
        except DrawRefused as e:
            return 0, 0, 0.0, str(e)
        self.host = (time.process_time() - start) / max(1, len(drawn))
        self.scale = min(scales, default=1.0)
        if len(drawn) < len(strata):
            return 0, 0, 0.0, "the draws exceed the host's budget"
        inputs = [d.encode() for d in dict.fromkeys(drawn) if d.encode() not in self.own]
        if not inputs:
            return 0, 0, 0.0, "it drew no new input"

        valid = valid_inputs(self.problem, inputs)  # a validator's no is a refusal too
        limit = self.limit() if seconds is None else seconds
        try:
            outcomes = self.judge.judge(valid, full=full, seconds=limit, deadline=self.over)
        except Spent:
            why = self.spent()
            return 0, 0, 0.0, why
        outcomes += [DrawRun(False, 0.0, "the validator rejects it")] * (len(inputs) - len(valid))
        clean = [o for o in outcomes if o.ok]
        self.outputs = [o.output for o in clean if o.output is not None]
        self.cpus = [o.cpu for o in clean]
        why = ", ".join(sorted({o.why for o in outcomes if not o.ok}))
        top = max((o.cpu for o in outcomes), default=0.0)
        return len(clean), len(inputs), top, why

    def run(self) -> dict:
        domain: dict = {}
        if _sizes(self.model):
            self.limit()  # the visible inputs' own CPU (once)
            if self.visible_cpu > SLOW_SECONDS:
                self.say(
                    f"the visible inputs run up to {self.visible_cpu:.2f} s: finding "
                    f"the sizes that run within {1000 * TOP_SECONDS:.0f} ms first"
                )
                domain = self.shrink(domain)
        self.say("drawing within the " + ("sizes found" if domain else "visible span"))
        clean, n, top, why = self.batch(domain, (0.3, 0.6, 0.9), True)
        if domain and n and clean < n:  # the sizes found are refused in full (a path
            # small sizes take that the visible ones do not, a width that must be a
            # multiple of 8): as before, from the visible span (refined, then sized)
            self.notes.append(f"the sizes shrunk to the budget refused ({why})")
            domain, self._found = {}, {}
            clean, n, top, why = self.batch(domain, (0.3, 0.6, 0.9), True)
        if not n and why == self.spent_note():  # out of time, not refused: as seen
            return self.final(domain)
        handful = not n and small_top(self.model) is not None  # 7 8 9: all seen
        if 2 * clean < max(n, 1) and not handful:
            first = why or "no input drawn"
            # the first refinement whose draws are all clean, else the first with at
            # least half (a refusal that comes and goes, a race: only a clean one holds)
            fallback: dict | None = None
            multiples = _has_steps(self.model)
            for refine in REFINEMENTS:
                if "multiples" in refine and not multiples:
                    continue
                trial = {**domain, "refine": list(refine)}
                clean, n, top, why = self.batch(trial, (0.3, 0.6, 0.9), True)
                if n and clean == n:
                    domain, fallback = trial, None
                    self.notes.append(f"refined ({', '.join(refine)}) after {first}")
                    break
                if n and 2 * clean >= n and fallback is None:
                    fallback = trial
            else:
                if fallback is None:
                    return {
                        "refused": f"{n - clean} of {n} drawn inputs made the reference "
                        f"misbehave ({first})"
                        if n
                        else first
                    }
                domain = fallback
                self.notes.append(f"refined ({', '.join(fallback['refine'])}) after {first}")
        if _widenable(self.model):
            self.say("trying values beyond the range seen")
            over = PROBE_OVER * TOP_SECONDS
            for widen in (float(INT32), 64.0, 4.0):
                trial = {**domain, "widen": widen}
                # first -O3 alone, each run stopped past the budget: a value that sets the
                # work (a number to factor) widened to 2^31 runs far past it, and is not
                # judged in full for that (the next, narrower widening is tried)
                clean, n, top, why = self.batch(trial, (0.2, 0.5, 0.8), False, over)
                if n and (top > over or "timeout" in why):
                    why = f"a draw runs past {1000 * over:.0f} ms"
                    continue
                clean, n, _, why = self.batch(trial, (0.2, 0.5, 0.8), True)
                if n and clean == n:
                    domain = trial
                    break
            else:
                self.notes.append(f"values beyond the seen refused ({why})")
        if _words(self.model):
            trial = {**domain, "letters": True}
            clean, n, _, why = self.batch(trial, (0.2, 0.5, 0.8), True)
            if n and clean == n:
                domain = trial
        if domain.get("shrunk"):  # found at the start: the top again, as widened
            if "widen" in domain or "letters" in domain:
                _, n, top, _ = self.batch(domain, (0.95, 1.0), False)
                if n:
                    domain["top_seconds"] = round(top, 4)
        elif _sizes(self.model):
            self.say("growing sizes while the reference runs them within 25 ms")
            grown = self.grow(domain)
            if grown.get("letters") and float(grown.get("top_seconds", 0)) < 1.5 * FLOOR_SECONDS:
                # whole letter classes made the work vanish (palindromes, runs of one
                # letter): the seen alphabet, where it reaches a timeable size
                plain = self.grow({k: v for k, v in domain.items() if k != "letters"})
                if float(plain.get("top_seconds", 0)) > float(grown.get("top_seconds", 0)):
                    grown = plain
                    self.notes.append("whole letter classes ran under the floor")
            domain = grown
        else:
            _, _, top, _ = self.batch(domain, (0.9, 1.0), False)
            domain["top_seconds"] = round(top, 4)
        return self.final(self.confirm_top(domain))

    def confirm_top(self, domain: dict) -> dict:
        """The top stratum's CPU read as a check reads its draws (``REACH``): where the
        batch that fitted it ran under ``REACH_OVER`` times the floor (but half of it at
        least: a top that may straddle it), up to ``REDRAWS`` batches of draws at the top
        stratum; the longest clean one is the top. A domain is then called too small only
        where a check's own redraws would not reach the floor either."""
        top = float(domain.get("top_seconds", 0) or 0)
        strata = [0.9 + 0.1 * (i + 0.5) / CONFIRM_DRAWS for i in range(CONFIRM_DRAWS)]
        if top >= REACH_OVER * FLOOR_SECONDS and not domain.get("steps"):
            return self.typical_top(domain, top, strata)
        if not FLOOR_SECONDS / 2 <= top < REACH_OVER * FLOOR_SECONDS:
            return domain
        for _ in range(REDRAWS):
            clean, n, longest, _ = self.batch(domain, strata, False)
            if n and clean == n:
                top = max(top, longest)
            if top >= REACH_OVER * FLOOR_SECONDS:
                break
        out = {**domain, "top_seconds": round(top, 4)}
        if "low" in domain:
            out["low"] = round(min(0.5, (1.5 * FLOOR_SECONDS / top) ** 2), 3)
        return out

    def typical_top(self, domain: dict, top: float, strata: Sequence[float]) -> dict:
        """A top stratum read off its longest draw may rest on an outlier: a draw stopped
        at its limit (a malformed input looping) or one that happened on the program's
        slow path while the rest run in a millisecond. One batch at the top as a check
        draws it: where fewer than ``REACH`` of its clean draws reach the floor (a
        check's, which drops the failing ones, would not either), the top is their
        median."""
        self.batch(domain, strata, False)
        cpus = sorted(self.cpus)
        if not cpus or sum(c >= REACH_OVER * FLOOR_SECONDS for c in cpus) >= REACH:
            return domain
        typical = cpus[len(cpus) // 2]
        self.notes.append(
            f"the top stratum's clean draws run {1000 * typical:.1f} ms (the longest run "
            f"{1000 * top:.1f} ms)"
        )
        return {**domain, "top_seconds": round(typical, 4)}

    def visible_top(self) -> float | None:
        """The reference's CPU on the largest visible input (every top draw being one)."""
        own = sorted(self.own, key=len)[-VISIBLE_LIMIT:]
        outcomes = self.judge.judge(own, full=False, seconds=max(1.0, 40 * TOP_SECONDS))
        return max((o.cpu for o in outcomes if o.ok), default=None)

    def steps(self, domain: dict, top: int) -> dict | None:
        """``grow`` for a handful of integer sizes (``fannkuch 7 8 9``, a depth): the
        top stepped up by one while the reference runs it within ``TOP_SECONDS`` (a
        cost that explodes with each step), never below the largest seen; None where a
        step costs little more (under ``STEP_RATIO`` times, or still short after
        ``STEPS_MAX`` steps): sizes then grow by factors (``grow``)."""
        clean, n, t, why = self.batch(domain, (0.95, 1.0), False)
        ok_t = t if n and clean == n else None
        if not n:  # every top draw is a visible input: time the largest visible one
            ok_t = self.visible_top()
        if ok_t is None:
            self.notes.append(f"the largest sizes seen fail ({why or 'no clean run'})")
            return {**domain, "grow": 1.0, "top_seconds": round(t, 4), "steps": True}
        ok_g, most = 1.0, min(GROW_MAX, size_caps(self.model.spec))
        # one step beyond the largest seen is taken even over the budget, within
        # STEP_OVER times the larger of it and the largest seen's own CPU
        over = STEP_OVER * max(TOP_SECONDS, ok_t)
        taken = 0
        while ok_t < TOP_SECONDS / 2 or ok_g == 1.0:
            g = (round(ok_g * top) + 1) / top
            if g > most:
                break
            if taken >= STEPS_MAX:
                return None  # still short after as many steps: a cost that grows slowly
            clean, n, t, why = self.batch({**domain, "grow": g}, (1.0,), False)
            if not (n and clean == n):
                self.notes.append(f"sizes beyond {round(ok_g * top)} fail ({why})")
                break
            if t > TOP_SECONDS and (ok_g > 1.0 or t > over):
                break
            if min(t, ok_t) >= 0.001 and t < STEP_RATIO * ok_t:
                return None  # a step costs little more: sizes grow by factors instead
            ok_g, ok_t, taken = g, t, taken + 1
        low = min(0.5, (1.5 * FLOOR_SECONDS / ok_t) ** 2) if ok_t > 0 else 0.5
        return {
            **domain,
            "grow": round(ok_g, 6),
            "top_seconds": round(ok_t, 4),
            "low": round(low, 3),
            "steps": True,
        }

    def grow(self, domain: dict) -> dict:
        small = small_top(self.model)
        if small is not None:
            stepped = self.steps(domain, small)
            if stepped is not None:
                return stepped
        ok_g, ok_t, bad_g = 1.0, None, math.inf
        most = min(GROW_MAX, size_caps(self.model.spec))  # the declared constraints' end
        clean, n, top, why = self.batch(domain, (0.95, 1.0), False)
        if n and clean == n:
            ok_t = top
        elif not n and small is not None:  # every top draw a visible input: its own CPU
            ok_t = self.visible_top()
        g = 1.0
        for _ in range(8):
            if ok_t is None:  # the visible span itself runs long or fails: smaller
                g = g / 4
                if g < 1 / 256:
                    break
            elif ok_t >= TOP_SECONDS / 2 or ok_g >= most:
                break
            else:
                step = min(16.0, max(2.0, TOP_SECONDS / max(ok_t, 1e-4)))
                g = min(
                    most, ok_g * step, math.sqrt(ok_g * bad_g) if bad_g < math.inf else math.inf
                )
                if g <= ok_g * 1.2:
                    break
            clean, n, top, why = self.batch({**domain, "grow": g}, (0.95, 1.0), False)
            if self.host > HOST_SHARE:  # drawing it costs the host too much: no larger
                why, clean = "the host's drawing budget", 0
            if n and clean == n and top <= TOP_SECONDS:
                ok_g, ok_t = g, top
                if self.scale < 1 and g >= 1:  # drawn smaller than asked (an input over
                    # the drawing budget): the sizes the draws reach, said as they are
                    ok_g = max(1.0, g * self.scale)
                    self.notes.append(
                        f"growth stopped at {_x(ok_g)} (the host's drawing budget: an input "
                        f"of {_x(g)} is over {DRAW_CHARS} characters or too long to draw)"
                    )
                    break
                if g < 1:  # shrunk to the budget: done
                    break
            else:
                if ok_t is not None:
                    bad_g = g
                    if n and clean == n:
                        pass  # over budget only
                    else:
                        self.notes.append(f"growth stopped at {_x(ok_g)} ({why or 'budget'})")
                elif g < 1 and n and clean == n:  # still over budget: keep shrinking
                    continue
        if ok_t is None:
            return {**domain, "grow": 1.0, "top_seconds": round(top, 4)}
        # the strata start where the reference runs 1.5x the floor (a size's cost taken as
        # linear in it; sizes are drawn at the square root of the position)
        low = min(0.5, (1.5 * FLOOR_SECONDS / ok_t) ** 2) if ok_t > 0 else 0.5
        return {**domain, "grow": ok_g, "top_seconds": round(ok_t, 4), "low": round(low, 3)}

    def shrink(self, domain: dict) -> dict:
        """``domain`` with its sizes shrunk to the budget, found before any draw is judged
        at the visible sizes (which run for seconds): each visible script on its own
        (``pick_grow``: fib's cost is exponential in its literal, a loop's linear),
        else the whole model (``grow``). Probed cheap sizes first (``fit``), every probe
        -O3 only, its runs stopped at ``PROBE_OVER`` times the budget. Where no smaller
        size runs cleanly, ``domain`` as it is (the visible span)."""
        scripts = _scripts(self.model)
        start = max(1e-6, min(1.0, TOP_SECONDS / max(self.visible_cpu, TOP_SECONDS) / 4))
        if scripts > 1:
            found = [self.fit({**domain, "pick": i}, start) for i in range(scripts)]
            if all(f is None for f in found):
                self.notes.append(NO_SMALLER)
                return domain
            factors = [f[0] if f else 1.0 for f in found]
            top = max(f[1] for f in found if f)
            lows = [
                self.start_at({**domain, "pick": i, "grow": f[0]}) if f else 0.0
                for i, f in enumerate(found)
            ]
            shrunk = {
                **domain,
                "pick_grow": [round(g, 6) for g in factors],
                "pick_low": [round(x, 3) for x in lows],
            }
        else:
            one = self.fit(domain, start)
            if one is None:
                self.notes.append(NO_SMALLER)
                return domain
            shrunk = {**domain, "grow": round(one[0], 6)}
            top = one[1]
        low = min(0.5, (1.5 * FLOOR_SECONDS / top) ** 2) if top > 0 else 0.5
        if "pick_low" in shrunk:
            low = 0.0  # each script starts at its own (``pick_low``)
        self._found = {
            **shrunk,
            "top_seconds": round(top, 4),
            "low": round(low, 3),
            "shrunk": round(self.visible_cpu, 3),
        }
        return dict(self._found)

    def start_at(self, domain: dict) -> float:
        """The lowest of ``START_AT`` positions whose draw the reference runs for 1.5x
        the meter's floor, every higher one too (a cost that falls off fast below the
        top, fib's, leaves the lower strata under the floor: not timed); 0.9 where none
        does. One probe of ``START_AT`` draws, -O3 alone."""
        try:
            drawn = self.model.with_domain(domain).draw(self.rng, len(START_AT), strata=START_AT)
        except DrawRefused:
            return 0.0
        if len(drawn) < len(START_AT) or self.over():
            return 0.0
        runs = self.judge.judge(
            [d.encode() for d in drawn], full=False, seconds=PROBE_OVER * TOP_SECONDS
        )
        long = [r.ok and r.cpu >= 1.5 * FLOOR_SECONDS for r in runs]
        start = 0.9
        for u, ok in reversed(list(zip(START_AT, long, strict=True))):
            if not ok:
                break
            start = u
        return 0.0 if start == START_AT[0] else start

    def fit(self, domain: dict, start: float) -> tuple[float, float] | None:
        """(the growth factor whose top draws run nearest under ``TOP_SECONDS``, their
        CPU): from ``start`` (a size cheap to run) up by the measured shortfall, then
        bisected between the largest within the budget and the smallest over it; at
        most ``SHRINK_PROBES`` probes of two draws. None: no probed size ran cleanly
        within the budget and 1.5x the meter's floor, or one larger than it failed."""
        ok: tuple[float, float] | None = None
        bad = math.inf
        failed: list[float] = []  # factors whose draws the reference refused
        most = min(16.0, size_caps(self.model.spec))
        g = start
        stop = PROBE_OVER * TOP_SECONDS
        for _ in range(SHRINK_PROBES):
            clean, n, t, why = self.batch({**domain, "grow": g}, (0.95, 1.0), False, stop)
            if not n and why == self.spent_note():
                break
            if n and clean == n and t <= TOP_SECONDS:
                ok = (g, t)
                if t >= TOP_SECONDS / 2:
                    break
                nxt = g * min(16.0, max(1.25, TOP_SECONDS / max(t, 1e-4)))
            elif (n and clean == n) or "timeout" in why or not n:  # over the budget
                # (or only visible inputs drawn: those run long)
                bad = g
                nxt = g / 16 if ok is None else g
            elif ok is None:  # a size the program refuses (too small?): larger
                failed.append(g)
                nxt = g * 4
            else:
                failed.append(g)
                bad = g
                nxt = g
            if ok is not None and bad < math.inf:
                nxt = math.sqrt(ok[0] * bad)
            nxt = min(nxt, most)
            if ok is not None and (nxt <= ok[0] * 1.05 or nxt >= bad / 1.05):
                break
            if nxt < 1e-6 or (ok is None and nxt == g):
                break
            g = nxt
        if ok is None or ok[1] < 1.5 * FLOOR_SECONDS or any(ok[0] < f <= 1 for f in failed):
            # nothing timeable found, or sizes within the span seen refused above the
            # one found (a width that must be a multiple of 8): not shrunk first
            # (refined, then sized); beyond the span seen a failure is the program's
            # limit (fib(199) overflows its stack), the draws never reach it
            return None
        return ok

    def spent_note(self) -> str:
        return f"the domain search's {SEARCH_SECONDS:.0f} s CPU budget is spent"

    def final(self, domain: dict) -> dict:
        self.searching = False
        self.say("checking the domain found")
        for _ in range(4):
            clean, n, _, why = self.batch(domain, (0.25, 0.5, 0.75, 1.0), True)
            if not n and why.startswith("the domain search's"):  # out of time: nothing
                # found beyond the visible span was checked, so none of it is kept but
                # the sizes shrunk to the budget (the visible ones run for seconds)
                keep = {k: v for k, v in domain.items() if k == "refine"}
                domain = {**keep, **self._found} if self._found else {**keep, "grow": 1.0}
                break
            if n and 2 * clean >= n and (clean == n or "widen" not in domain):
                break
            if "widen" in domain:
                domain = {k: v for k, v in domain.items() if k != "widen"}
                self.notes.append(f"values beyond the seen refused ({why})")
            elif "letters" in domain:
                domain = {k: v for k, v in domain.items() if k != "letters"}
            elif domain.get("grow", 1.0) > 1:
                domain = {**domain, "grow": max(1.0, domain["grow"] / 2)}
                self.notes.append(f"sizes narrowed ({why})")
            else:
                break
        one = one_path(self.outputs, [t.expected for t in self.problem.tests])
        if one is not None:
            domain["one_output"] = one
        if self.notes:
            domain["notes"] = self.notes[-3:]
        return domain


def one_path(drawn: Sequence[bytes], visible: Sequence[bytes]) -> str | None:
    """The first line of the one output every drawn input got, where the visible
    inputs get varied outputs and none of them that one: the draws reach one path of the
    program (an interpreter's parse error on token soup), not the work the visible
    inputs do. None otherwise."""
    if len(drawn) < 2 or len(set(drawn)) != 1 or len(set(visible)) < 2 or drawn[0] in visible:
        return None
    line = drawn[0].decode(errors="replace").strip().split("\n", 1)[0].strip()
    return line[:60] or "(empty output)"


def _x(g: float) -> str:
    return f"{g:.3g}x"


def calibrate(
    problem: Problem,
    model: InputModel,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> InputModel:
    """``model`` with its ``domain`` section found (module docstring); a model whose
    draws the reference refuses even refined has ``domain.refused`` saying why.
    ``progress`` is called with one line as each stage of the search starts."""
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    found = _Calibration(problem, model, rng, progress).run()
    return model.with_domain({"version": VERSION, **found})


def calibrated(problem: Problem, model: InputModel) -> InputModel:
    """``model`` as calibrated: its own ``domain`` section where it has one of this
    version, else ``calibrate`` once per problem and model (cached by content)."""
    if model.domain.get("version") == VERSION:
        return model

    key = hashlib.sha256(
        f"domain{VERSION}s\n{tests_digest(problem)}\n{model.digest()}\n"
        f"{validators_digest(problem)}".encode()
    )
    path = cache_dir() / "unseen" / "domain" / f"{key.hexdigest()[:32]}.json"
    try:
        return model.with_domain(json.loads(path.read_text()))
    except (OSError, ValueError):
        pass
    found = calibrate(problem, model)
    atomic_write_text(path, json.dumps(found.domain))
    return found


# ---------------------------------------------------------------- saying it


def describe(model: InputModel) -> str:
    """The domain a model draws from, in one line: its source and how far it reaches."""
    d = model.domain
    declared = constraint_lines(model.spec)
    head = (
        f"declared constraints ({'; '.join(model.constraints)}) on the inferred structure"
        if declared
        else "the input model inferred from the visible inputs"
    )
    if model.spec.get("script"):
        head += (
            " (an interpreter's scripts: each visible script as written, its integer "
            "literals drawn anew)"
        )
    if d.get("refused"):
        return f"{head}: refused by the reference ({d['refused']})"
    if d.get("one_output"):
        return (
            f"{head}: every drawn input gets the same output ({d['one_output']!r}) and no "
            "visible input does: the draws reach one path of the program (an error path), "
            "not its work, so they tell nothing of the sizes it can take; give a "
            "--generator (or a --validator) that draws valid inputs"
        )
    parts = []
    grow, widen = float(d.get("grow", 1) or 1), float(d.get("widen", 1) or 1)
    tops = ", ".join(top_sizes(model.spec)[:3])
    if d.get("steps"):
        seen = small_top(model)
        reach = round(grow * seen) if seen else None
        parts.append(
            f"integer sizes stepped by one up to {reach} (the largest seen {seen})"
            if grow > 1
            else f"integer sizes up to the largest seen ({seen}; the next one runs over "
            f"the {1000 * TOP_SECONDS:.0f} ms budget or fails)"
        )
    elif grow > 1:
        parts.append(
            f"sizes grown to {_x(grow)} the largest seen ({tops})"
            if tops
            else f"sizes grown to {_x(grow)} the largest seen"
        )
    elif d.get("pick_grow"):
        each = ", ".join(_x(float(g)) for g in d["pick_grow"][:6])
        parts.append(
            f"each script's integer literals scaled on their own to the time budget ({each} "
            "the literals seen"
            + (
                f"; the visible scripts run up to {float(d['shrunk']):.2f} s"
                if d.get("shrunk")
                else ""
            )
            + ")"
        )
    elif grow < 1:
        why = (
            f"the visible inputs run up to {float(d['shrunk']):.2f} s: drawn at the "
            f"{1000 * TOP_SECONDS:.0f} ms budget"
            if d.get("shrunk")
            else "the time budget"
        )
        parts.append(f"sizes shrunk to {_x(grow)} the largest seen ({why})")
    if widen > 1:
        parts.append("values beyond the range seen (to the integer type)")
    if d.get("letters"):
        parts.append("whole letter classes")
    if d.get("refine"):
        parts.append(f"refined from the reference's refusals ({', '.join(d['refine'])})")
    if "top_seconds" in d:
        parts.append(f"top stratum {1000 * float(d['top_seconds']):.1f} ms of reference CPU")
    if d.get("too_small"):
        parts.append("too small to time: the whole domain runs under 5 ms")
    if d.get("no_fresh"):
        parts.append(
            f"no input unseen can be drawn ({d['no_fresh']}): checks time the hidden tests"
        )
    values = [str(n) for n in d.get("notes") or () if str(n).startswith("values beyond")]
    if values and widen <= 1:
        parts.append(f"values within the range seen ({values[-1]})")
    if not d:
        return f"{head}: the visible span only (not extrapolated yet)"
    if d.get("shrunk"):
        return f"{head}, drawn smaller than seen: " + ", ".join(parts)
    if grow <= 1 and widen <= 1 and not d.get("letters") and not declared:
        why = "" if d.get("steps") else f" ({_why_not_grown(d, model)})"
        return f"{head}: the visible span only{why}; " + ", ".join(parts)
    return f"{head}, extrapolated: " + ", ".join(parts)


# the notes the search leaves when it stops growing sizes (the others are of values)
GROWTH_NOTES = (
    "growth stopped",
    "sizes narrowed",
    "sizes beyond",
    "the largest sizes seen fail",
    "the domain search's",
    "no smaller size",
    "the sizes shrunk to the budget refused",
)


def _why_not_grown(d: dict, model: InputModel) -> str:
    """Why a calibrated domain kept the visible sizes: the cause that happened (a note
    of the sizes' search, never one of values: a refusal of values beyond the range seen
    is no reason the sizes stayed)."""
    notes = [str(n) for n in d.get("notes") or ()]
    stopped = [n for n in notes if n.startswith(GROWTH_NOTES)]
    if stopped:
        return stopped[-1]
    top = d.get("top_seconds")
    if float(d.get("grow", 1) or 1) < 1:
        return "the visible sizes already run past the time budget"
    if top is not None and float(top) >= TOP_SECONDS / 2:
        how = "past" if float(top) > 2 * TOP_SECONDS else "about"
        return (
            f"the largest visible sizes already run {1000 * float(top):.1f} ms, {how} the "
            f"{1000 * TOP_SECONDS:.0f} ms budget"
        )
    if not _sizes(model):
        return "the input model has no size to grow"
    return f"a larger size ran past the {1000 * TOP_SECONDS:.0f} ms budget"


def too_small(model: InputModel) -> bool:
    """Whether the whole domain runs under the meter's floor (the top stratum does)."""
    top = model.domain.get("top_seconds")
    return top is not None and float(top) < FLOOR_SECONDS and not model.domain.get("refused")
