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
   one check spans that end;
2. ``model``: the problem's input model (``problems.inputmodel``: ``input_model.json``,
   written by ``problem init``; else inferred from all its tests, cached by content);
3. ``fuzzer``: mutations of its inputs (``problems.fuzz``).

``llm-generator``, the generator a model wrote for the problem (``llm_gen.py``,
``prompting/inputgen.py``), comes right after the problem's own. An input equal to one
of the problem's own is dropped, and so is one that a validator of the problem
(``validate.py``, ``llm_validate.py``: ``problems/validator.py``) rejects, whatever its
source. A source is *validated* once per
problem and source (cached, ``_validate``): a batch of its draws runs through the
reference at -O3 twice, at -O0 and in a sanitizer build (``-fsanitize=address,undefined``);
a source whose draws make the reference misbehave (a crash, undefined behaviour or an
out-of-bounds access, output that differs between builds or runs) is skipped for the
next. Each check then keeps the draws the reference (the -O3 build of the source: the
baseline itself when the problem has no ``baseline.s``) runs cleanly on within
``DRAW_SECONDS``, its output the expected one. A problem that reads no input
(problem.json ``"reads_input": false``) is timed on its visible tests and says so
(``memorizable``: a candidate may precompute its output). Without any source, the
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import (
    atomic_write_text,
    cache_dir,
    sibling_temp,
    staging_prefix,
    temp_prefix,
)
from supercoder.problems.outputs import expected_output
from supercoder.problems.validator import (
    llm_generator_source,
    valid_inputs,
    validators_digest,
)
from supercoder.types import Problem

log = logging.getLogger("supercoder")

DRAWS = 5  # inputs drawn for every check (their spread enters the CI: more than 3)
MIN_UNSEEN = DRAWS  # kept for callers: the timed tests a check aims for
DRAW_SECONDS = 5.0  # CPU seconds the reference may take on a drawn input
# what one drawn input's reference run is aimed at: a generator's draw that runs longer
# than twice this is drawn again once, smaller (2.4x the meter's 5 ms floor: long enough
# to time; five of them cost about what timing the largest hidden test did)
TARGET_SECONDS = 0.012
VALIDATE = 4  # draws a source is validated on (once per problem and source)
GENERATED_PREFIX = "unseen/"
VERSION = 3
SANITIZE = ("-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")
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
        """The drawn tests' names: their data is never quoted."""
        return frozenset(name for name, _, _ in self.drawn)


def unseen_tests(problem: Problem, generate: bool = True, seed: int | None = None) -> Unseen:
    """What one check times: ``DRAWS`` inputs drawn afresh (``seed``: None, a new secret
    one; see the module docstring); ``generate=False``: the hidden tests only, for the
    correctness pass."""
    hidden = [
        (t.name, t.run_input(), expected_output(t.expected, problem.compare))
        for t in problem.tests
        if t.hidden
    ]
    if not generate:
        return Unseen(tuple(hidden), len(hidden), 0, "", "hidden")
    if problem.memorizable:
        visible = tuple(
            (t.name, t.run_input(), expected_output(t.expected, problem.compare))
            for t in problem.tests
            if not t.hidden
        )
        why = (
            "memorizable: the program reads no input, so it is timed on its visible tests "
            "(a candidate may precompute its output)"
        )
        return Unseen(visible, 0, 0, why, "memorizable")
    if os.environ.get("SUPERCODER_UNSEEN") == "cached":
        return _cached_unseen(problem, hidden)
    drawn, source, cpu = draw_tests(problem, DRAWS, seed)
    if drawn:
        what = {
            "generator": "the problem's generator",
            "llm-generator": "the generator a model wrote for the problem",
            "model": "the problem's input model",
            "fuzzer": "mutations of the problem's inputs",
        }[source]
        why = (
            f"timed on {len(drawn)} input(s) drawn for this check from {what} (a new secret "
            "seed every check; expected outputs from the reference build), never shown: "
            "the speedup over the problem's input distribution; visible and hidden tests "
            "decide correctness only"
        )
        return Unseen(tuple(drawn), 0, len(drawn), why, source, tuple(drawn), cpu)
    if hidden:
        why = (
            f"timed on {len(hidden)} hidden test(s) (no input could be drawn for this "
            "problem): inputs the model never saw; visible tests decide correctness only"
        )
        return Unseen(tuple(hidden), len(hidden), 0, why, "hidden")
    why = (
        "no test the model never saw (no hidden test, no input could be drawn: no "
        "generator, input model or fuzzable input): no speedup is measured"
    )
    return Unseen((), 0, 0, why, "none")


def draw_tests(
    problem: Problem, count: int, seed: int | None = None
) -> tuple[list[Test], str, float]:
    """Up to ``count`` drawn tests from the problem's first usable source, its name (""
    when none gave any) and the CPU seconds of the reference's runs on them."""
    if count <= 0 or not problem.tests:
        return [], "", 0.0
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    own = {t.run_input() for t in problem.tests}
    for name, draw in _sources(problem):
        try:
            if not _validate(problem, name, draw):
                continue
            drawn = draw(rng, count)
            inputs = valid_inputs(problem, _fresh(drawn, own))
        except (UserError, InfraError) as e:
            log.warning("warning: %s: no timed inputs from the %s (%s)", problem.name, name, e)
            continue
        if not inputs:
            continue
        try:
            outputs, took = reference_runs(problem, inputs)
            cpu = sum(took)
            if isinstance(drawn, _Sized):
                size_of = dict(zip(drawn, drawn.sizes, strict=True))
                inputs, outputs, again = _to_target(
                    problem, rng, inputs, outputs, took, size_of, drawn.source
                )
                cpu += again
        except (UserError, InfraError) as e:  # no sandbox here, a baseline that fails
            log.warning("warning: %s: no timed inputs (%s)", problem.name, e)
            return [], "", 0.0
        tests = [
            (f"{GENERATED_PREFIX}u{i + 1}", data, expected_output(out, problem.compare))
            for i, (data, out) in enumerate(
                (d, o) for d, o in zip(inputs, outputs, strict=True) if o is not None
            )
        ]
        if tests:
            return tests, name, cpu
    return [], "", 0.0


def _fresh(inputs: list[bytes], own: set[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for data in inputs:
        if data and data not in own and data not in out:
            out.append(data)
    return out


def _sources(problem: Problem) -> list[tuple[str, Draw]]:
    from supercoder.problems.loading import generator_source

    out: list[tuple[str, Draw]] = []
    try:
        source = generator_source(problem.meta)
    except UserError:
        source = None
    if source is not None:
        out.append(("generator", _generator_draw(problem, source)))
    written = llm_generator_source(problem)
    if written is not None:
        out.append(("llm-generator", _generator_draw(problem, written)))
    model = _model(problem)
    if model is not None:
        out.append(("model", lambda rng, k: [m.encode() for m in model.draw(rng, k)]))
    out.append(("fuzzer", lambda rng, k: _variants(problem, k, 2 * k, rng)))
    return out


def _model(problem: Problem):
    from supercoder.problems.inputmodel import model_for

    try:
        return model_for(problem)
    except UserError as e:
        log.warning("warning: %s: %s", problem.name, e)
        return None


# ---------------------------------------------------------------- the generator


def _generator_draw(problem: Problem, source: str) -> Draw:
    def draw(rng: random.Random, k: int) -> list[bytes]:
        from supercoder.problems.generator import run_generator

        sizes = generator_size_range(problem, source)
        requests = [(rng.getrandbits(62), draw_size(sizes, rng, i, k)) for i in range(k)]
        out = _Sized(run_generator(source, requests, label=f"{problem.name}: gen.py"))
        out.sizes = [n for _, n in requests]
        out.source = source
        return out

    return draw


def _to_target(
    problem: Problem,
    rng: random.Random,
    inputs: list[bytes],
    outputs: list[bytes | None],
    cpu: list[float],
    size_of: dict[bytes, int],
    source: str | None = None,
) -> tuple[list[bytes], list[bytes | None], float]:
    """Draws whose reference run took over twice ``TARGET_SECONDS`` drawn once more, at
    their size scaled by the square root of target/took (a linear cost lands at about
    1.4x the target, a quadratic one at it), kept when clean; the rest as drawn. Also the
    CPU seconds of the reference's runs on the new draws."""
    from supercoder.problems.generator import run_generator
    from supercoder.problems.loading import generator_source

    over = [
        i
        for i, t in enumerate(cpu)
        if t > 2 * TARGET_SECONDS and outputs[i] is not None and inputs[i] in size_of
    ]
    if not over:
        return inputs, outputs, 0.0
    source = source or generator_source(problem.meta)
    if source is None:
        return inputs, outputs, 0.0
    low = generator_size_range(problem, source)[0]
    scaled = [max(low, int(size_of[inputs[i]] * math.sqrt(TARGET_SECONDS / cpu[i]))) for i in over]
    requests = [(rng.getrandbits(62), n) for n in scaled]
    again = valid_inputs(problem, run_generator(source, requests, label=f"{problem.name}: gen.py"))
    if len(again) != len(over):  # a redraw the validator rejects: keep the first draws
        return inputs, outputs, 0.0
    new_out, new_cpu = reference_runs(problem, again)
    inputs, outputs = list(inputs), list(outputs)
    for i, data, out in zip(over, again, new_out, strict=True):
        if out is not None and data not in size_of and data not in inputs:
            inputs[i], outputs[i] = data, out
    return inputs, outputs, float(sum(new_cpu))


class _Sized(list):
    """A generator's draws, with the size each was drawn at (``sizes``) and the
    generator's text (``source``)."""

    sizes: list[int]
    source: str


def draw_size(sizes: tuple[int, int], rng: random.Random, i: int, k: int) -> int:
    """A size in ``sizes`` (low, high) for draw ``i`` of ``k``: the upper half of the
    range, stratified (draw i in its own k-th of it) and favouring the top."""
    low, high = sizes
    base = max(low, high // 2)
    u = (i + rng.random()) / max(1, k)
    return int(round(base + (high - base) * math.sqrt(u)))


def generator_size_range(problem: Problem, source: str) -> tuple[int, int]:
    """(low, high): the sizes the generator lists, else the sizes whose inputs are about
    as long as the problem's (probed once, cached)."""
    from supercoder.problems.generator import generator_sizes, run_generator

    key = hashlib.sha256(source.encode() + _tests_digest(problem).encode()).hexdigest()[:24]
    path = cache_dir() / "unseen" / "sizes" / f"{key}.json"
    try:
        low, high = json.loads(path.read_text())
        return int(low), int(high)
    except (OSError, ValueError, TypeError):
        pass
    listed = generator_sizes(source)
    if listed:
        found = (min(listed), max(listed))
    else:  # grow the size until the input is as long as the longest of the problem's
        longest = max(len(t.run_input()) for t in problem.tests)
        size, seed = 1, 12345
        while size < 1 << 30:
            (data,) = run_generator(source, [(seed, size)], label=f"{problem.name}: gen.py")
            if len(data) >= longest:
                break
            size *= 2
        found = (1, size)
    _write_json(path, list(found))
    return found


# ---------------------------------------------------------------- the reference


def reference_runs(
    problem: Problem, inputs: Sequence[bytes]
) -> tuple[list[bytes | None], list[float]]:
    """The reference's output on each input (None: it did not run cleanly within
    ``DRAW_SECONDS``), run once each in a fresh sandbox, and the CPU seconds of each."""
    from supercoder.sandbox.box import Limits, open_sandbox

    with tempfile.TemporaryDirectory(prefix=temp_prefix("draw")) as tmp:
        binary = _reference_binary(problem, Path(tmp))
        limits = Limits(cpu_seconds=DRAW_SECONDS, wall_seconds=4 * DRAW_SECONDS, idle_seconds=None)
        out: list[bytes | None] = []
        cpu: list[float] = []
        with open_sandbox({"reference": binary}, limits=limits, exit_code=problem.exit_code) as box:
            for data in inputs:
                run = box.run("reference", data)
                cpu.append(run.cpu_seconds)
                ok = run.clean_exit and not run.leftover
                out.append(run.stdout if ok else None)
    return out, cpu


def reference_outputs(
    problem: Problem, inputs: Sequence[bytes]
) -> tuple[list[bytes | None], float]:
    """``reference_runs``, with the CPU seconds of all the runs together."""
    outputs, cpu = reference_runs(problem, inputs)
    return outputs, float(sum(cpu))


def _reference_binary(problem: Problem, workdir: Path) -> Path:
    """The -O3 build of the problem's source: its baseline binary when the baseline is
    that build (no ``baseline.s``), else built and cached here."""
    from supercoder.build.baseline import baseline_asm, baseline_binary, unit_asms

    if not problem.baseline_asm:
        units = unit_asms(problem)
        return baseline_binary(baseline_asm(problem), workdir, problem.link_flags, True, units)
    from supercoder.build.reference import build_reference

    key = hashlib.sha256(
        (problem.source_hash() + " ".join((*problem.compile_flags, "|", *problem.ldflags))).encode()
    ).hexdigest()[:24]
    cached = cache_dir() / "unseen" / "reference" / key
    if not cached.is_file():
        built = build_reference(
            problem.source,
            workdir,
            ("O3",),
            problem.compile_flags,
            problem.ldflags,
            units=problem.units,
        )["O3"]
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = sibling_temp(cached)
        shutil.copyfile(built, tmp)
        tmp.chmod(0o755)
        tmp.replace(cached)
    return cached


def _validate(problem: Problem, name: str, draw: Draw) -> bool:
    """Whether a source's draws are inputs the reference handles soundly: decided once
    per problem and source on ``VALIDATE`` draws (-O3 twice, -O0, a sanitizer build;
    at least half must pass all), cached."""
    key = hashlib.sha256(
        f"v{VERSION}\n{name}\n{_tests_digest(problem)}\n{_source_digest(problem, name)}"
        f"\n{validators_digest(problem)}".encode()
    ).hexdigest()[:32]
    path = cache_dir() / "unseen" / "valid" / f"{key}.json"
    try:
        return bool(json.loads(path.read_text())["ok"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ok, why = _check_source(problem, draw)
    if not ok:
        log.warning("warning: %s: the %s's inputs are not used (%s)", problem.name, name, why)
    _write_json(path, {"ok": ok, "why": why})
    return ok


def _check_source(problem: Problem, draw: Draw) -> tuple[bool, str]:
    from supercoder.build.reference import ReferenceBuildError, run_reference

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
        results = run_reference(
            problem.source,
            inputs,
            runs={"O3": 2, "O0": 1},
            cflags=problem.compile_flags,
            ldflags=problem.ldflags,
            units=problem.units,
            timeout=DRAW_SECONDS,
            stop_at_failure=False,
            exit_code=problem.exit_code,
        )
    except (ReferenceBuildError, UserError, InfraError) as e:
        return False, f"the reference could not be run: {e}"
    clean = [data for data, r in zip(inputs, results, strict=True) if r.ok]
    try:
        sane = sanitizer_clean(problem, clean)
    except InfraError:
        sane = None
    if sane is None:  # no sanitizer build here: the builds' agreement decides
        sane = clean
    if 2 * len(sane) < len(inputs):
        failures = sorted({r.failure for r in results if not r.ok})
        return False, (
            f"{len(inputs) - len(sane)} of {len(inputs)} drawn inputs made the reference "
            f"misbehave ({', '.join(failures) or 'sanitizer report'})"
        )
    return True, f"{len(sane)} of {len(inputs)} drawn inputs clean"


def sanitizer_clean(problem: Problem, inputs: Sequence[bytes]) -> list[bytes] | None:
    """The inputs on which the reference built with ``SANITIZE`` reports nothing (None:
    no sanitizer build on this machine). Run in the one-shot sandbox (its address space
    is left wide for the sanitizer's shadow memory; its RSS is capped by the sanitizer)."""
    from supercoder.build.toolchain import compile_c
    from supercoder.sandbox.box import Limits
    from supercoder.sandbox.oneshot import run_isolated

    if not inputs:
        return []
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("san")))
    try:
        os.chmod(work, 0o755)
        build = compile_c(
            problem.source,
            work / "san",
            (*SANITIZE, *problem.compile_flags),
            (*SANITIZE[2:3], *problem.compile_flags, *problem.ldflags),
            units=problem.units,
        )
        if not build.ok or build.binary is None:
            return None
        limits = Limits(
            cpu_seconds=4 * DRAW_SECONDS,
            wall_seconds=8 * DRAW_SECONDS,
            memory_mb=1 << 25,  # the shadow's reservation; RSS: hard_rss_limit_mb below
            idle_seconds=None,
        )
        env = {
            "ASAN_OPTIONS": "hard_rss_limit_mb=2048:detect_leaks=0:abort_on_error=0",
            "UBSAN_OPTIONS": "halt_on_error=1",
        }
        out = []
        for data in inputs:
            run = run_isolated(["./san"], work, limits=limits, stdin=data, env=env)
            if run.clean_exit and b"Sanitizer" not in run.stderr:
                out.append(data)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _tests_digest(problem: Problem) -> str:
    h = hashlib.sha256(f"{problem.compare}\n{problem.exit_code}\n".encode())
    h.update(problem.source.encode())
    h.update(" ".join((*problem.cflags, "|", *problem.ldflags)).encode())
    for t in problem.tests:
        h.update(hashlib.sha256(t.run_input()).digest())
    return h.hexdigest()[:32]


def _source_digest(problem: Problem, name: str) -> str:
    from supercoder.problems.loading import generator_source

    if name == "generator":
        return hashlib.sha256((generator_source(problem.meta) or "").encode()).hexdigest()
    if name == "llm-generator":
        return hashlib.sha256((llm_generator_source(problem) or "").encode()).hexdigest()
    if name == "model":
        model = _model(problem)
        return model.digest() if model is not None else ""
    return ""


def _write_json(path: Path, value: object) -> None:
    atomic_write_text(path, json.dumps(value))


# ---------------------------------------------------------------- the fuzzer


def _variants(problem: Problem, sources_used: int, count: int, rng: random.Random) -> list[bytes]:
    """Distinct mutations of the problem's ``sources_used`` largest text inputs (the
    ones most worth timing), none equal to a test."""
    from supercoder.problems.fuzz import SOURCE_LIMIT, hint_of, mutate

    try:
        hint = hint_of(problem)
    except UserError:
        return []
    sources = sorted({t.run_input() for t in problem.tests}, key=len, reverse=True)
    texts = []
    for data in sources:
        if len(data) <= SOURCE_LIMIT:
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
                (f"{GENERATED_PREFIX}u{i + 1}", data, expected_output(raw, problem.compare))
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
