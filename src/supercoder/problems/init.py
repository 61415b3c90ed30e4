"""Make problem folders: expected outputs come from running the reference build.

The reference is the user's own C program (not model output); it is still run in
the sandbox when one is available, with the same limits as candidates. The folder is
built next to its destination under a temporary name and renamed into place at the
end: a failed init leaves nothing behind (``force`` replaces an existing problem).
Where the user's files hold official answers (Kattis ``.ans``, CodeNet ``output_N.txt``)
the reference output is kept as the expected output (the baseline must pass its own
tests) and every test where the two disagree is reported.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import shlex
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from supercoder.errors import InfraError, UserError, read_regular
from supercoder.paths import staging_prefix, temp_prefix
from supercoder.problems.constraints import constraint_lines, parse_constraint
from supercoder.problems.domain import FLOOR_SECONDS, calibrate, describe, too_small
from supercoder.problems.fuzz import BYTES_DOMAIN, BYTES_SPAN, byte_files
from supercoder.problems.generator import GeneratorConfig, generator_sizes, run_generator
from supercoder.problems.gensizes import generator_domain, generator_timed_range
from supercoder.problems.inputmodel import FILE, InputModel, infer
from supercoder.problems.layouts import Layout, TestFile, discover
from supercoder.problems.loading import MAX_FILE_BYTES, generator_source, load_problem
from supercoder.problems.outputs import Mode, Rule, diagnose, outputs_match, parse_mode
from supercoder.problems.sources import (
    BuildFiles,
    answer_unit_of,
    gather,
    join_into_answer,
    main_file,
    with_answer,
)
from supercoder.problems.validator import DEFAULT_FILE, check_inputs
from supercoder.sandbox.box import Limits
from supercoder.toolchain.reference import RefResult, reference_runs, run_reference
from supercoder.types import (
    MAX_FILES,
    NO_DRAW,
    Files,
    data_file_view,
    from_data_file_view,
    is_data_file_name,
    parse_args,
    split_flags,
    with_args,
)


@dataclass(frozen=True)
class InitConfig:
    """What ``problem init`` takes besides the C file and the inputs.

    Fields:
        hidden_dir: a folder of hidden tests (judged, never shown in prompts).
        cflags: extra compiler flags (a list, or one shell-quoted line split once),
            stored in ``problem.json`` as a list (e.g. ``["-fopenmp"]``): a flag holding
            spaces or quotes (``-DFLAGS_STR="-O2 -lrt"``) stays one flag in every build.
        ldflags: extra linker flags, stored in ``problem.json`` (e.g. ``-lgmp``).
        compare: how outputs are judged (``exact``, ``tokens``, ``float:TOL``).
        compare_rules: what is left out of every comparison first (lines, masked text,
            fields, fields within a tolerance: ``problems/outputs.py``), stored as
            ``problem.json`` ``compare_rules``; the reference's own runs are compared so.
        split: the ``problem.json`` split (``train``, ``val``; None: none).
        force: replace an existing problem (once the new one is complete).
        timeout: seconds per reference run.
        exit_code: the exit status the program's official runs end with (0 by default).
        stderr: compare what the runs write on stderr too: every build links
            ``STDERR_UNIT`` (stderr made stdout's pipe, as ``2>&1``).
        generator: an input generator to copy in as ``gen.py`` (``problems.generator``):
            the first source of the timed inputs; checked by a run in the sandbox.
        sources: further C files of the program (``problems/sources.py``).
        args: command-line arguments, each ``'ARGS'`` (one shell-quoted line) for every
            input, or ``NAME=ARGS`` for test ``NAME`` only (without inputs: a test
            ``NAME`` on empty stdin); a ``NAME.args`` file beside an input is that
            test's too. Stored as ``tests/NAME.args``.
        join: build the further C files as one translation unit with the program
            (``#include``d at the end of ``source.c``) instead of apart.
        constraints: declared constraints on the input (``N<=200000``, ``1<=A_i<=10^9``):
            stored in ``input_model.json`` ``constraints``; the domain never passes them.
        calibrate: find the input domain at init (``problems.domain``: extrapolated from
            the visible inputs while the reference handles it; stored with the model);
            None: yes, unless ``SUPERCODER_DOMAIN_AT_INIT=0`` (then the first check finds
            it, cached; the test suite's setting).
        files: data files every test ships (``tests/NAME.files/``): placed in the
            working folder of every run (a folder: its files, by their path in it). A
            test's arguments that name an existing file (``--args input.dat``) ship it
            too, and a ``NAME.files/`` folder beside an input is that test's.
        show_all: keep every input visible even where no fresh input can be drawn
            (by default init then keeps the largest inputs hidden: ``_keep_largest_hidden``).
        validator: an input validator to copy in as ``validate.py``
            (``problems/validator.py``: reads one input, exits 0 when it is valid): every
            input given must pass it, and a drawn input it rejects is never timed.
        answer_unit: the further C file whose assembly is the answer (``--answer-unit
            vm.c``): it becomes ``source.c`` and the main file a unit linked beside it
            (``sources.with_answer``); "": the profile's choice, else the main file.
        hot_unit: where the time goes, for a multi-unit program given no
            ``answer_unit``: called with the finished (staging) problem folder, returns
            (the unit's problem path, why) or None (keep the main file's unit); the
            command layer passes a profiler (``prompting.profiling.hot_unit``).
        progress: called with one line before each step that can take seconds.
        answer_why: why ``answer_unit`` is the answer, as init says it (set by init
            itself: named, or the profile's share).
        undrawable: where the input model can draw no fresh input and no test is hidden,
            called with the finished (staging) problem folder: None where some source
            of timed inputs still draws one, else why each other source cannot (one
            line, "" for none); the command layer passes ``verify.unseen``'s sources.
            None here: the model's word is taken.
        also_answer: further units named (``--answer-unit`` again) that the answer covers
            too: joined to ``source.c`` as one translation unit (``join_into_answer``).
    """

    hidden_dir: Path | None = None
    cflags: str | tuple[str, ...] = ()
    ldflags: str | tuple[str, ...] = ()
    compare: str = "exact"
    compare_rules: tuple[Rule, ...] = ()
    split: str | None = None
    force: bool = False
    timeout: float = 20.0
    exit_code: int = 0
    stderr: bool = False
    generator: Path | None = None
    sources: tuple[Path, ...] = ()
    constraints: tuple[str, ...] = ()
    calibrate: bool | None = None
    args: tuple[str, ...] = ()
    join: bool = False
    validator: Path | None = None
    files: tuple[Path, ...] = ()
    show_all: bool = False
    answer_unit: str = ""
    hot_unit: Callable[[Path], tuple[str, str] | None] | None = None
    undrawable: Callable[[Path], str | None] | None = None
    progress: Callable[[str], None] | None = None
    answer_why: str = ""  # why answer_unit is the answer (set by init itself)
    also_answer: tuple[str, ...] = ()


def _say(opts: InitConfig, line: str) -> None:
    if opts.progress is not None:
        opts.progress(line)


@dataclass(frozen=True)
class InitReport:
    folder: Path
    layout: str
    visible: int
    hidden: int
    disagreements: tuple[str, ...] = field(default=())  # one line per test
    found: tuple[str, ...] = ()  # which files became inputs, answers, were skipped
    headers: tuple[str, ...] = ()  # files the source includes, copied beside it
    reads_input: bool = True  # False: the output does not depend on the input (memorizable)
    warnings: tuple[str, ...] = ()  # what the user should know (empty outputs, ...)
    sizes: str = ""  # how the program's size is set when it reads no input (-D macros)
    moved: tuple[str, ...] = ()  # include folders and source files placed in the problem
    timed: str = ""  # where the timed inputs will be drawn from
    domain: str = ""  # the input domain and its source, in one line
    too_small: bool = False  # the whole domain runs under the meter's floor
    stale: str = ""  # why no input the model has not seen can be drawn ("": one can)
    kept_hidden: tuple[str, ...] = ()  # visible tests init made hidden (``stale``)
    answer: str = ""  # which unit is the answer and why (multi-unit programs)
    short: str = ""  # why drawn inputs may be too short to time where visible ones are not
    no_draw: str = ""  # why no input can be drawn: timed on its visible tests (memorizable)


def init_problem(
    source_path: Path,
    inputs_dir: Path,
    out_dir: Path,
    hidden_dir: Path | None = None,
    options: InitConfig | None = None,
) -> Path:
    """``supercoder problem init``: a problem folder from a C file and input files."""
    opts = options or InitConfig()
    if hidden_dir is not None:
        opts = replace(opts, hidden_dir=hidden_dir)
    return create_problem(source_path, inputs_dir, out_dir, opts).folder


def create_from_sources(
    sources: Sequence[Path], inputs_dir: Path | None, out_dir: Path | None, opts: InitConfig
) -> InitReport:
    """``create_problem`` for a program given as its C files: the one that defines
    ``main`` is the source, the others are joined to it (``opts.sources``); ``out_dir``
    None is a folder named for that source in the current folder."""
    source = main_file(sources)
    opts = replace(opts, sources=tuple(p for p in sources if p != source))
    return create_problem(source, inputs_dir, out_dir or Path(source.stem), opts)


NO_INPUT_TEST = "run"  # the one test of a program given no inputs (its stdin is empty)


def create_problem(
    source_path: Path, inputs_dir: Path | None, out_dir: Path, opts: InitConfig
) -> InitReport:
    """Like ``init_problem``, with the report of what was found (see the module docstring).
    ``inputs_dir`` None: the program reads no input; its one test runs it on empty stdin."""
    read_regular(source_path, MAX_FILE_BYTES, "C source")  # a regular file, or one line
    _check_options(opts)
    if opts.stderr and not any(p.name == STDERR_UNIT for p in opts.sources):
        with tempfile.TemporaryDirectory(prefix=temp_prefix("stderr")) as tmp:
            unit = Path(tmp) / "supercoder" / STDERR_UNIT
            unit.parent.mkdir()
            unit.write_text(STDERR_TO_STDOUT)
            return create_problem(
                source_path, inputs_dir, out_dir, replace(opts, sources=(*opts.sources, unit))
            )
    as_given = opts  # as the user gave them: a rebuild for another answer unit starts here
    build = gather((source_path, *opts.sources), opts.cflags, join=opts.join)
    if opts.answer_unit or opts.also_answer:
        build = with_answer(build, answer_unit_of(build, opts.answer_unit or build.main.name))
        for name in opts.also_answer:
            unit = answer_unit_of(build, name)
            if unit and unit in build.units:
                build = join_into_answer(build, unit)
        if (build.answer or build.joined) and not opts.answer_why:
            opts = replace(opts, answer_why="named by --answer-unit")
    source_path, opts = build.main, replace(opts, cflags=build.cflags)
    per_test, every = _arg_specs(opts.args, inputs_dir is None)
    layout = discover(inputs_dir) if inputs_dir is not None else _no_inputs(per_test)
    tests = list(layout.tests)
    if opts.hidden_dir is not None:
        hidden_layout = discover(opts.hidden_dir, hidden=True)
        tests += hidden_layout.tests
    args = _test_args(tests, per_test, every)
    files, shipped = _data_files(tests, args, opts.files)
    _check_target(out_dir, opts.force)
    created = _missing_parents(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    prefix = staging_prefix(out_dir.parent, f".{out_dir.name}.init")  # dead ones go first
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=out_dir.parent))
    try:
        given = inputs_dir is not None or any(args.values())
        _say(opts, f"building with gcc -O3, running the reference on {len(tests)} test(s)...")
        filled = _fill(staging, build, tests, opts, given_inputs=given, args=args, files=files)
        hot = _hot_unit(staging, build, opts)
        if hot is not None and hot[0] == "source.c":
            opts = replace(opts, answer_why=hot[1])
            _edit_meta(staging, answer_why=hot[1])
        elif hot is not None:  # the time goes in another unit: it is the answer
            shutil.rmtree(staging, ignore_errors=True)
            for d in created:
                _rmdir_quietly(d)
            _say(opts, f"the time goes in {hot[0]}: it is the answer unit; building again")
            # from the user's own options: ``opts.cflags`` now name the problem folder's
            # include folders (``-Ilib/include``), which mean nothing beside the sources
            again = replace(as_given, answer_unit=hot[0], answer_why=hot[1], hot_unit=None)
            return create_problem(source_path, inputs_dir, out_dir, again)
        if filled.reads_input:
            _say(opts, "finding the input domain (drawing and timing inputs)...")
        timed, domain, small, stale = (
            _timed_source(staging, tests, opts, args, files)
            if filled.reads_input
            else ("", "", False, "")
        )
        kept: tuple[str, ...] = ()
        worth = max(filled.cpu, default=0.0) >= FLOOR_SECONDS  # a hidden one can be timed
        top = max(filled.cpu, default=0.0) * BYTES_SPAN[1]
        if domain.startswith("bytes:") and top < FLOOR_SECONDS:  # drawn files at most 2x
            small = True
            _mark_too_small(staging)
        if not filled.reads_input and not worth:  # timed as given: every test too short
            small = True
            _mark_too_small(staging)
        short = "" if stale or not filled.reads_input else _short_draws(staging, filled.cpu)
        if (stale or short) and worth and not opts.show_all and not any(t.hidden for t in tests):
            kept = _keep_largest_hidden(staging, tests, filled.cpu)
            tests = [replace(t, hidden=True) if t.name in kept else t for t in tests]
            domain = (_say_no_fresh(staging, stale) or domain) if stale else domain
        no_draw = ""
        if stale and not small and not any(t.hidden for t in tests):
            no_draw = _no_draw(staging, stale, opts)
        elif (small or short) and worth and not kept and not any(t.hidden for t in tests):
            # one input given runs long enough, every draw runs under the floor (the model
            # misses what makes it long): nothing drawn can be timed and nothing can be
            # kept hidden, so its visible tests are timed
            longest = max(filled.cpu, default=0.0) * 1000
            no_draw = _mark_no_draw(staging, short or _every_draw_short(longest))
        if no_draw:  # timed as given: too small where every test is
            domain = f"none: {NO_DRAW}: {no_draw} (memorizable)"
            timed = "timed inputs: the visible tests (no input can be drawn)"
            small = not worth
            if small:
                _mark_too_small(staging)
        _install(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for d in created:
            _rmdir_quietly(d)
        raise
    hidden = sum(t.hidden for t in tests)
    found = layout.describe(inputs_dir) if inputs_dir is not None else []
    with_args_ = [f"{n}: {shlex.join(a)}" for n, a in args.items() if a]
    if with_args_:
        more = f" (and {len(with_args_) - 6} more)" if len(with_args_) > 6 else ""
        found.append(f"arguments (tests/NAME.args): {'; '.join(with_args_[:6])}{more}")
    found += shipped
    if opts.hidden_dir is not None:
        found += [f"hidden {line}" for line in hidden_layout.describe(opts.hidden_dir)]
    return InitReport(
        out_dir,
        layout.kind,
        len(tests) - hidden,
        hidden,
        tuple(filled.disagreements),
        tuple(found),
        tuple(build.files),
        filled.reads_input,
        tuple(filled.warnings),
        "" if filled.reads_input else size_macros([build.main, *build.files.values()], opts.cflags),
        build.moved,
        timed,
        domain,
        small,
        stale,
        kept,
        _answer_line(build, opts),
        short if kept else "",
        no_draw,
    )


def _hot_unit(folder: Path, build: BuildFiles, opts: InitConfig) -> tuple[str, str] | None:
    """The further unit the profile says the time goes in (its path as gathered, why),
    for a multi-unit program whose answer was not named; None: keep main's unit."""
    if not build.units or build.answer or opts.answer_unit or opts.also_answer:
        return None
    if opts.hot_unit is None:
        return None
    _say(opts, f"profiling which of the {len(build.units) + 1} units the time goes in...")
    found = opts.hot_unit(folder)
    if found is None or found[0] not in (*build.units, "source.c"):
        return None
    return found


def _answer_line(build: BuildFiles, opts: InitConfig) -> str:
    """Which unit is the answer, for a program of several units."""
    if not build.units and not build.joined:
        return ""
    if build.joined:
        first = build.answer or build.main.name
        return (
            f"answer units: {', '.join((first, *build.joined))} ({opts.answer_why}: one "
            f"translation unit); the other units ({', '.join(build.units) or 'none'}) are "
            "linked as gcc -O3 builds them"
        )
    if not build.answer:
        why = opts.answer_why or "the unit with main"
        return f"answer unit: {build.main.name} ({why}); the other units are linked as gcc -O3 builds them"
    return (
        f"answer unit: {build.answer} ({opts.answer_why}); {build.main_unit} (main) and the "
        "other units are linked as gcc -O3 builds them"
    )


def _data_files(
    tests: Sequence[TestFile], args: dict[str, tuple[str, ...]], given: Sequence[Path]
) -> tuple[dict[str, Files], list[str]]:
    """Each test's data files: ``--files`` (every test), a ``NAME.files/`` folder beside
    its input, and the files its arguments name that exist here (``--args input.dat``);
    and one line per source, for the report."""
    every: dict[str, bytes] = {}
    for path in given:  # PATH, or NAME=PATH (shipped as NAME)
        name, eq, where = str(path).partition("=")
        if eq and not path.exists() and is_data_file_name(name):
            every.update(_read_data(Path(where), name))
        else:
            every.update(_read_data(path, path.name))
    out: dict[str, Files] = {}
    named: dict[str, None] = {}
    beside: dict[str, None] = {}
    moved: dict[str, str] = {}
    for t in tests:
        mine = dict(every)
        if t.input is not _EMPTY_STDIN:
            folder = t.input.parent / f"{t.input.stem}.files"
            if folder.is_dir() and not folder.is_symlink():
                mine.update(_read_data(folder, ""))
                beside[str(folder)] = None
        placed = []
        for arg in args.get(t.name, ()):
            if arg not in mine and is_data_file_name(arg) and Path(arg).is_file():
                mine.update(_read_data(Path(arg), arg))
                named[arg] = None
            base = _outside_file(arg)
            if base and base in mine and not Path(arg).is_file():  # --files gave it
                moved[arg] = arg = base
            elif base and Path(arg).is_file():  # ../data/x.pcm: shipped as x.pcm
                data = read_regular(Path(arg), MAX_FILE_BYTES, "data file")
                if mine.get(base, data) != data:
                    raise UserError(
                        f"test {t.name}: {arg} and another file would both be {base} in the "
                        f"run's folder: ship one under another name (--files NAME={arg}) "
                        "and name it so in the arguments"
                    )
                mine[base] = data
                moved[arg] = base
                arg = base
            placed.append(arg)
        if t.name in args:
            args[t.name] = tuple(placed)
        if len(mine) > MAX_FILES:
            raise UserError(f"test {t.name}: more than {MAX_FILES} data files")
        out[t.name] = tuple(sorted(mine.items()))
    lines = []
    if every:
        lines.append(f"data files (--files), in every run's folder: {', '.join(sorted(every))}")
    if named:
        lines.append(
            "data files named in the arguments, shipped with their tests (tests/NAME.files/): "
            + ", ".join(named)
        )
    if beside:
        lines.append(f"data files beside the inputs: {', '.join(list(beside)[:4])}")
    if moved:
        lines.append(
            "data files outside this folder, named in the arguments: shipped into every "
            "run's folder and named there by their file name (the runs' arguments say so): "
            + ", ".join(f"{a} -> {b}" for a, b in moved.items())
        )
    return out, lines


def _outside_file(arg: str) -> str:
    """The name a file an argument names outside the working folder (``../data/x.pcm``,
    an absolute path but a device's) takes in the run's folder: its file name; '' where
    the argument names no such file (a folder, a link, a file name no data file has)."""
    parts = arg.split("/")
    if not (arg.startswith("/") or ".." in parts) or arg.startswith(("/dev/", "/proc/")):
        return ""
    path = Path(arg)
    if path.is_symlink() or path.is_dir() or not is_data_file_name(path.name):
        return ""
    return path.name


def _read_data(path: Path, name: str) -> dict[str, bytes]:
    """A data file (as ``name``) or a folder's files (by their path below it, under
    ``name``): regular files only, never a link (a problem holds copies, never links out
    of its folder), each a name a run's folder can hold."""
    if path.is_symlink():
        raise UserError(f"--files {path}: a symbolic link (give the file itself)")
    if not path.is_dir():
        if not is_data_file_name(name):
            raise UserError(
                f"--files {path}: a data file's name is letters, digits and ._+- (not "
                "starting with a dot)"
            )
        return {name: read_regular(path, MAX_FILE_BYTES, "data file")}
    out: dict[str, bytes] = {}
    for item in sorted(path.rglob("*")):
        if item.is_symlink():
            raise UserError(f"--files {item}: a symbolic link (give the file itself)")
        if item.is_dir():
            continue
        rel = "/".join(p for p in (name, item.relative_to(path).as_posix()) if p)
        out.update(_read_data(item, rel))
    return out


def _label(t: TestFile, args: dict[str, tuple[str, ...]]) -> str:
    """A test as an error names it: its input file, and its arguments where it has any."""
    where = t.name if t.input is _EMPTY_STDIN else str(t.input)
    return f"{where} (arguments: {shlex.join(args[t.name])})" if args.get(t.name) else where


def _no_inputs(per_test: dict[str, tuple[str, ...]] | None = None) -> Layout:
    """The layout of a program given no inputs: one test on empty stdin (one per test
    named in ``--args NAME=ARGS``)."""
    names = list(per_test or ()) or [NO_INPUT_TEST]
    return Layout("no inputs", tuple(TestFile(n, _EMPTY_STDIN, None, False) for n in names))


_ARG_SPEC = re.compile(r"^([A-Za-z0-9_.-]{1,100})=(.*)$", re.S)


def _arg_specs(
    specs: Sequence[str], no_inputs: bool
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...] | None]:
    """``--args`` values: per test (``NAME=ARGS``) and for every input (the rest; at
    most one). A ``NAME=`` prefix names a test where such a test exists (checked with
    the tests: ``_test_args``); without inputs every ``NAME=ARGS`` makes test NAME."""
    per_test: dict[str, tuple[str, ...]] = {}
    every: tuple[str, ...] | None = None
    for spec in specs:
        m = _ARG_SPEC.match(spec)
        try:
            if m and not m[1].startswith("-"):
                per_test[m[1]] = parse_args(m[2])
                continue
            if every is not None:
                raise UserError(
                    f"--args {spec!r}: arguments for every input were given twice; name "
                    "a test's own as --args NAME='...'"
                )
            every = parse_args(spec)
        except ValueError as e:
            raise UserError(f"--args {spec!r}: {e}") from e
    if no_inputs and per_test and every is not None:
        raise UserError(
            "--args: without --inputs give either one argument line (one test) or "
            "NAME='...' lines (one test each), not both"
        )
    return per_test, every


def _test_args(
    tests: Sequence[TestFile],
    per_test: dict[str, tuple[str, ...]],
    every: tuple[str, ...] | None,
) -> dict[str, tuple[str, ...]]:
    """Each test's arguments: ``--args NAME=``, else its ``NAME.args`` file, else the
    ``--args`` for every input, else none. A ``NAME=`` naming no test is an error
    (quote the whole line, ``--args "'x=1'"``, to pass ``x=1`` to every input)."""
    names = {t.name for t in tests}
    unknown = [n for n in per_test if n not in names]
    if unknown:
        raise UserError(
            f"--args {unknown[0]}=...: no test named {unknown[0]!r} (tests: "
            f"{', '.join(sorted(names)[:8])}); to pass {unknown[0]}=... to every input, "
            f"quote it: --args \"'{unknown[0]}=...'\""
        )
    out: dict[str, tuple[str, ...]] = {}
    for t in tests:
        if t.name in per_test:
            out[t.name] = per_test[t.name]
        elif t.args is not None:
            try:
                out[t.name] = parse_args(read_regular(t.args, 1 << 17, "arguments").decode())
            except (ValueError, UnicodeDecodeError) as e:
                raise UserError(f"{t.args}: {e}") from e
        else:
            out[t.name] = every or ()
    return out


_EMPTY_STDIN = Path(os.devnull)  # the no-input test's "file": never read, its input is b''


def _check_options(opts: InitConfig) -> None:
    for key in ("cflags", "ldflags"):
        try:
            split_flags(getattr(opts, key))
        except ValueError as e:
            raise UserError(f"--{key} {getattr(opts, key)!r}: {e}") from e
    try:
        parse_mode(opts.compare)
    except ValueError as e:
        raise UserError(f"--compare: {e}") from e
    if not 0 <= opts.exit_code <= 255:
        raise UserError(f"--exit-code {opts.exit_code}: an exit status is 0-255")
    if opts.constraints and opts.generator is not None:
        raise UserError(
            "--constraint bounds the input model init infers; a --generator draws its own "
            "domain (give one or the other)"
        )

    for text in opts.constraints:
        parse_constraint(text)  # a constraint that does not parse stops init before work


def _check_target(out_dir: Path, force: bool) -> None:
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise UserError(f"{out_dir}: exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise UserError(f"{out_dir}: already exists and is not empty (--force replaces it)")


def _missing_parents(path: Path) -> list[Path]:
    """Folders above ``path`` that do not exist yet, deepest first."""
    out = []
    for parent in path.absolute().parents:
        if parent.exists():
            break
        out.append(parent)
    return out


def _rmdir_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


def _install(staging: Path, out_dir: Path) -> None:
    """Rename the finished folder into place; an existing one is replaced only after."""
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        out_dir.rename(old)
    try:
        staging.rename(out_dir)
    except OSError:
        if old is not None:
            old.rename(out_dir)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@dataclass(frozen=True)
class _Filled:
    disagreements: list[str]
    reads_input: bool
    warnings: list[str]
    cpu: tuple[float, ...] = ()  # the reference's -O3 CPU seconds on each test


def _fill(
    folder: Path,
    build: BuildFiles,
    tests: Sequence[TestFile],
    opts: InitConfig,
    given_inputs: bool = True,
    args: dict[str, tuple[str, ...]] | None = None,
    files: dict[str, Files] | None = None,
) -> _Filled:
    source_path, source = build.main, build.source
    args = args or {}
    (folder / "source.c").write_text(source)
    headers = tuple(build.files)
    for rel, path in build.files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / rel)
    for rel, text in build.texts.items():  # includes above the folder name their copies
        (folder / rel).write_text(text)
    if headers:  # every build copies the files problem.json lists
        (folder / "problem.json").write_text(json.dumps({"headers": list(headers)}) + "\n")
    stdins = [
        b"" if t.input is _EMPTY_STDIN else read_regular(t.input, MAX_FILE_BYTES, "test input")
        for t in tests
    ]
    files = files or {}
    datas = [
        with_args(args.get(t.name, ()), d, files.get(t.name, ()))
        for t, d in zip(tests, stdins, strict=True)
    ]
    include = ("-iquote", str(folder.resolve())) if headers else ()
    adapted: list[str] = []
    runs = reference_runs(
        source,
        datas,
        opts.timeout,
        cflags=(*split_flags(opts.cflags), *include),
        ldflags=split_flags(opts.ldflags),
        source_path=source_path,
        names=[_label(t, args) for t in tests],
        exit_code=opts.exit_code,
        units=build.units,
        differ=_differ(_mode(opts)),
        notes=adapted,
    )
    reads_input = _reads_input(source, datas, runs, opts, include, source_path, build.units)
    if reads_input and not given_inputs:
        raise UserError(
            f"{source_path} reads its input (its output changed when it was given some): "
            "give its tests with --inputs DIR"
        )
    warnings = _empty_outputs(source_path, [t.name for t in tests], runs, build.files.values())
    warnings += adapted  # how the tool's own build adapted to what gcc -O3 builds
    if not any(args.values()) and reads_argv([build.main, *build.files.values()]):
        warnings.append(
            f"{source_path} reads its command line (argc/argv) but no test has arguments: "
            "every run gets none (argv[0] only); give them with --args '...' (every input) "
            "or --args NAME='...' (one test), or a NAME.args file beside an input"
        )
    disagreements = []
    for t, data, run in zip(tests, stdins, runs, strict=True):
        sub = folder / ("hidden" if t.hidden else "tests")
        sub.mkdir(exist_ok=True)
        (sub / f"{t.name}.in").write_bytes(data)
        (sub / f"{t.name}.out").write_bytes(run.output)
        if args.get(t.name):
            (sub / f"{t.name}.args").write_text(shlex.join(args[t.name]) + "\n")
        for rel, content in files.get(t.name, ()):
            (sub / f"{t.name}.files" / rel).parent.mkdir(parents=True, exist_ok=True)
            (sub / f"{t.name}.files" / rel).write_bytes(content)
        answer = None if t.answer is None else read_regular(t.answer, MAX_FILE_BYTES, "answer")
        if answer is not None and not outputs_match(run.output, answer, _mode(opts)):
            disagreements.append(
                f"{t.name}: the reference output differs from {t.answer} "
                f"({_first_difference(run.output, answer)})"
            )
    if opts.generator is not None:
        _copy_generator(opts.generator, folder, opts.timeout)
    if opts.validator is not None:
        _copy_validator(
            opts.validator, folder, [(str(t.input), d) for t, d in zip(tests, datas, strict=True)]
        )
    meta = _meta(folder, source_path, opts)
    if headers:
        meta["headers"] = list(headers)
    if build.units:
        meta["units"] = list(build.units)
    if build.answer:
        meta["answer_unit"] = build.answer
        meta["main_unit"] = build.main_unit
    if build.joined:
        meta["answer_joined"] = list(build.joined)
    if (build.units or build.joined) and opts.answer_why:
        meta["answer_why"] = opts.answer_why
    if not reads_input:
        meta["reads_input"] = False
    cpu = tuple(float(r.cpu_seconds.get("O3", 0.0)) for r in runs)
    own_limit, slow = check_cpu_limit([t.name for t in tests], cpu)
    if own_limit is not None:
        meta["cpu_limit"] = own_limit
    (folder / "problem.json").write_text(json.dumps(meta, indent=2) + "\n")
    warnings += slow
    return _Filled(disagreements, reads_input, warnings, cpu)


NEAR_LIMIT_SHARE = 0.4  # a test whose reference takes more of a check's CPU limit is named
MAX_CHECK_CPU = 3600.0  # the most CPU seconds per run a problem may declare


def check_cpu_limit(names: Sequence[str], cpu: Sequence[float]) -> tuple[float | None, list[str]]:
    """The problem's own CPU limit per run of a check and the line that says so, where
    its -O3 reference takes over ``NEAR_LIMIT_SHARE`` of the default
    (``Limits().cpu_seconds``) on a test: the slowest test's CPU over that share, whole
    seconds, so the baseline and a candidate up to 2.5x slower than it are never stopped
    as a timeout on a test the problem itself brought (None, []: the default does)."""
    default = Limits().cpu_seconds
    slow = [(n, c) for n, c in zip(names, cpu, strict=True) if c > NEAR_LIMIT_SHARE * default]
    if not slow:
        return None, []
    limit = min(MAX_CHECK_CPU, float(math.ceil(max(c for _, c in slow) / NEAR_LIMIT_SHARE)))
    shown = ", ".join(f"{n} ({c:.1f} s)" for n, c in slow[:4])
    return limit, [
        f"the reference runs {shown} of CPU on a test, most of the {default:g} s a check "
        f"gives each run by default: this problem's checks give each run {limit:g} s "
        f"(problem.json cpu_limit) and take longer; a smaller input makes them quicker"
    ]


def _reads_input(
    source: str,
    datas: Sequence[bytes],
    runs: Sequence[RefResult],
    opts: InitConfig,
    include: tuple[str, ...],
    source_path: Path,
    units: Sequence[str] = (),
) -> bool:
    """Does the program's output depend on its input? Not when every input gave the same
    output and two probes print that output too: empty stdin, and an input it was not
    given (the first input with its digits changed; probes run only when the outputs
    agree: a program whose outputs differ reads its input). A probe that fails (a crash
    or a timeout) means the program needs its input."""
    mode = _mode(opts)
    if any(not outputs_match(r.output, runs[0].output, mode) for r in runs[1:]):
        return True
    probes = [p for p in dict.fromkeys((b"", _other_input(datas))) if p not in datas]
    if not probes:
        return False
    results = run_reference(
        source,
        probes,
        names=[f"probe input #{i}" for i in range(len(probes))],
        runs={"O3": 1},
        cflags=(*split_flags(opts.cflags), *include),
        ldflags=split_flags(opts.ldflags),
        timeout=probe_timeout(runs, opts.timeout),
        label=str(source_path),
        exit_code=opts.exit_code,
        units=units,
        differ=_differ(mode),
    )
    same = [r.ok and outputs_match(r.output, runs[0].output, mode) for r in results]
    return not (len(same) == len(probes) and all(same))


def probe_timeout(runs: Sequence[RefResult], limit: float) -> float:
    """CPU seconds a probe gets: 5, or four times the slowest visible run where that is
    more (a benchmark that computes for seconds whatever its input must not time out on a
    probe and be taken for a program that reads its input), never past ``limit``."""
    slowest = max((max(r.cpu_seconds.values(), default=0.0) for r in runs), default=0.0)
    return min(limit, max(5.0, 4 * slowest))


_PROBE = b"3\n1 2 3\nhello world 42\n"


def _other_input(datas: Sequence[bytes]) -> bytes:
    """An input the program was not given: the first non-empty one with each digit
    changed (else reversed), or a small mixed text when every input is empty."""
    first = next((d for d in datas if d), b"")
    if not first:
        return _PROBE
    view, name = data_file_view(first)  # a data file's digits, not its length's
    if name is not None:
        other = _other_input([view])
        return from_data_file_view(other, name) if other != view else first
    shifted = bytes((c - 47) % 10 + 48 if 48 <= c <= 57 else c for c in first)
    if shifted != first:
        return shifted
    return first[::-1] if first[::-1] != first else first + b"\n" + _PROBE


STDERR_UNIT = "stderr_to_stdout.c"
# ``--stderr``: linked into every build of the problem (reference, baseline, candidates,
# sanitizer, coverage, profile), so what a run writes on stderr is compared with stdout,
# in the order written (2>&1); a candidate cannot leave it out (it is another unit, and
# stderr's own pipe is closed before main)
STDERR_TO_STDOUT = """/* supercoder problem init --stderr: stderr is stdout's pipe (2>&1) */
#include <unistd.h>
__attribute__((constructor)) static void supercoder_stderr_to_stdout(void) { dup2(1, 2); }
"""


def _empty_outputs(
    source_path: Path, names: Sequence[str], runs: Sequence[RefResult], files: Iterable[Path]
) -> list[str]:
    """Refuse a program that prints nothing on stdout for every test (any candidate that
    prints nothing would pass: outputs are compared on stdout only); a warning per
    test whose expected output is empty when others are not."""
    empty = [(n, r) for n, r in zip(names, runs, strict=True) if not r.output]
    if not empty:
        return []
    on_stderr = sum(r.stderr_bytes for _, r in empty)
    where = (
        f"it wrote {on_stderr} bytes on stderr instead, which supercoder does not compare"
        if on_stderr
        else "nor on stderr"
    )
    if len(empty) == len(runs):
        hint = _stdout_hint([source_path, *files])
        also = (
            "; or compare stderr too: pass --stderr (problem init)"
            if on_stderr and not hint
            else ""
        )
        raise UserError(
            f"{source_path} prints nothing on stdout ({where}): every candidate that prints "
            "nothing would pass its tests; make it print its result on stdout"
            + (f" ({hint})" if hint else "")
            + also
        )
    return [
        f"test {name}: the expected output is empty (nothing on stdout"
        + (f"; {r.stderr_bytes} bytes on stderr, not compared" if r.stderr_bytes else "")
        + "): any candidate printing nothing passes it"
        for name, r in empty
    ]


_STDERR_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+stderr\b", re.MULTILINE)


def _stdout_hint(paths: Sequence[Path]) -> str:
    """A macro the program's files define as ``stderr`` (PolyBench's
    ``POLYBENCH_DUMP_TARGET``), as the flag that sends its output to stdout."""
    for path in paths:
        with contextlib.suppress(OSError):
            m = _STDERR_MACRO.search(path.read_bytes())
            if m:
                name = m[1].decode()
                if re.search(rb"#[ \t]*ifndef[ \t]+" + m[1] + rb"\b", path.read_bytes()):
                    return f"it defines {name} as stderr by default: --cflags -D{name}=stdout"
                return f"it defines {name} as stderr: define it as stdout"
    return ""


_DATASET = re.compile(rb"^[ \t]*#[ \t]*(?:if|elif|ifdef|ifndef)\b[^\n]*?\b(\w+_DATASET)\b", re.M)
_SIZE_DEFAULT = re.compile(
    rb"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n[ \t]*#[ \t]*define[ \t]+\1[ \t]+\(?\d+", re.M
)


def size_macros(paths: Sequence[Path], cflags: str | Sequence[str] = ()) -> str:
    """How a program that reads no input is sized, from its files: the dataset macros
    (``#ifdef LARGE_DATASET``, PolyBench) or ``#ifndef N / #define N 1000`` defaults it
    tests; one line saying what was found, or that nothing was."""
    datasets: dict[str, None] = {}
    defaults: dict[str, None] = {}
    for path in paths:
        with contextlib.suppress(OSError):
            text = path.read_bytes()
            datasets.update((m.decode(), None) for m in _DATASET.findall(text))
            defaults.update((m.decode(), None) for m in _SIZE_DEFAULT.findall(text))
    given = [f for f in split_flags(cflags) if f.startswith("-D")]
    if datasets:
        names = " ".join(f"-D{d}" for d in datasets)
        this = next((f for f in given if f[2:] in datasets), "")
        return (
            f"its size is set at compile time by one of {names} (this problem: "
            f"{this or 'the default'}): each size is a problem of its own (init it again "
            f"with -D{next(iter(datasets))} -o NAME-size); inputs cannot vary it"
        )
    if defaults:
        names = ", ".join(defaults)
        this = [f for f in given if f[2:].split("=")[0] in defaults]
        return (
            f"its size is set at compile time by {names} (#ifndef defaults; this problem: "
            f"{' '.join(this) or 'the defaults'}): each value is a problem of its own "
            f"(-D{next(iter(defaults))}=VALUE -o NAME-VALUE); inputs cannot vary it"
        )
    return "no compile-time size macro found (-D): the program has one size, its tests one run"


_MAIN_PARAMS = re.compile(
    rb"\bmain[ \t]*\([ \t\n]*int[ \t\n]+(\w+)[ \t\n]*,[^)]*?(\w+)[ \t\n]*(?:\[[ \t]*\])?[ \t\n]*\)"
)


def reads_argv(paths: Sequence[Path]) -> bool:
    """Does the program's ``main`` use its ``argc``/``argv`` (named in its parameter
    list and used again after it)? Read from the file that defines ``main``."""
    for path in paths:
        with contextlib.suppress(OSError):
            text = path.read_bytes()
            m = _MAIN_PARAMS.search(text)
            if m:
                rest = text[m.end() :]
                return any(re.search(rb"\b" + name + rb"\b", rest) for name in m.groups())
    return False


def _timed_source(
    folder: Path,
    tests: Sequence[TestFile],
    opts: InitConfig,
    args: dict[str, tuple[str, ...]] | None = None,
    files: dict[str, Files] | None = None,
) -> tuple[str, str, bool, str]:
    """Where checks will draw their timed inputs from, said at init: the generator, else
    an input model inferred from every input (with the declared constraints), its domain
    calibrated against the reference (``problems.domain``) and stored as
    ``input_model.json``; also the domain in one line and whether it is too small to time
    (then ``problem.json`` says ``"too_small": true``), and why no input the model has
    not seen can be drawn ("": one can)."""
    checked = " (each must pass the validator, validate.py)" if opts.validator is not None else ""
    at_init = os.environ.get("SUPERCODER_DOMAIN_AT_INIT", "1") != "0"
    calibrating = opts.calibrate or (opts.calibrate is None and at_init)
    own = [
        with_args((args or {}).get(t.name, ()), _stdin_of(t), (files or {}).get(t.name, ()))
        for t in tests
    ]
    if opts.generator is not None:
        line, small = "the problem's generator (gen.py), at the sizes it lists", False
        if calibrating:
            _say(opts, "  domain: probing the generator's sizes (the reference on each)...")
            line, small = _generator_domain(folder)
        stale = "every size the generator lists runs under 5 ms of reference CPU" if small else ""
        return (
            f"timed inputs: drawn from the generator (gen.py) for every check{checked}",
            f"generator: {line}",
            small,
            stale or _generator_stale(folder, own, calibrating),
        )
    try:
        model = infer(own)
    except UserError as e:
        if byte_files(list(own)):  # binary data files: drawn as random bytes
            return (
                f"timed inputs: drawn for every check as {BYTES_DOMAIN}",
                f"bytes: {BYTES_DOMAIN}",
                False,
                "",
            )
        return (
            f"timed inputs: none can be drawn ({e}); the hidden tests are timed",
            "",
            False,
            f"no input model ({e})",
        )
    if opts.constraints:
        model = model.with_constraints(opts.constraints)
    model.save(folder)
    said = "".join(f"\n  constraint {line}" for line in constraint_lines(model.spec))
    small = False
    if calibrating:
        model = calibrate(load_problem(folder), model, progress=opts.progress)
        model.save(folder)
        small = too_small(model)
        if small:
            _mark_too_small(folder)
    timed = (
        f"timed inputs: drawn for every check from the input model inferred from the "
        f"inputs ({FILE}: edit it to widen a range, fix the structure or declare "
        f"constraints){checked}{said}"
    )
    line = (
        describe(model)
        if model.domain
        else "the input model (its domain is found at the first check)"
    )
    return timed, f"model: {line}", small, _stale(model, own)


FRESH_TRIES = 12  # draws init makes to see whether the model can draw an input unseen


def _stale(model: InputModel, own: Sequence[bytes]) -> str:
    """Why no input the model has not seen can be drawn from ``model`` (refused by the
    reference, too small to time, or every draw one of the inputs given: a handful of
    values, ``fannkuch 7 8 9``); "" where one can."""
    d = model.domain
    if d.get("refused"):
        return f"the reference refuses the input model's draws ({d['refused']})"
    if too_small(model):
        return "the whole input domain runs under 5 ms of reference CPU"
    try:
        drawn = model.draw(random.Random(0), FRESH_TRIES)
    except UserError as e:
        return f"the input model cannot draw ({e})"
    seen = set(own)
    if all(x.encode() in seen for x in drawn):
        return "every input the model can draw is one of those given: a handful of values"
    return ""


HIDE_SHARE = 4  # at most a quarter of the inputs (at least one) are kept hidden
SHORT_FACTOR = 4  # drawn inputs this many times shorter than the longest visible one


def _short_draws(folder: Path, cpu: Sequence[float]) -> str:
    """Why the model's draws may all run under the meter's floor although the inputs
    given do not ("": they reach it): the domain's top stratum is within 2x the floor
    and the longest visible input runs ``SHORT_FACTOR`` times longer (the model misses
    what makes the real inputs long: a check would draw nothing it can time)."""
    path = folder / FILE
    if not path.is_file():
        return ""
    try:
        top = float(InputModel(json.loads(path.read_text())).domain.get("top_seconds") or 0)
    except (ValueError, TypeError, AttributeError):
        return ""
    longest = max(cpu, default=0.0)
    if top <= 0 or top >= 2 * FLOOR_SECONDS or longest < max(FLOOR_SECONDS, SHORT_FACTOR * top):
        return ""
    return (
        f"the input model's largest draws run {top * 1000:.1f} ms of reference CPU, the "
        f"longest input given {longest * 1000:.1f} ms: the model misses what makes it long"
    )


def _keep_largest_hidden(
    folder: Path, tests: Sequence[TestFile], cpu: Sequence[float]
) -> tuple[str, ...]:
    """Move the visible tests the reference runs longest on (a quarter, at least one,
    never all) from ``tests/`` to ``hidden/``: checks time them, the model never sees
    them. Their names."""
    visible = [(c, t.name) for t, c in zip(tests, cpu, strict=False) if not t.hidden]
    if len(visible) < 2:
        return ()
    count = max(1, len(visible) // HIDE_SHARE)
    names = tuple(sorted(n for _, n in sorted(visible, reverse=True)[:count]))
    (folder / "hidden").mkdir(exist_ok=True)
    for name in names:  # with its arguments and the data files they name
        for ext in (".in", ".out", ".args", ".files"):
            src = folder / "tests" / f"{name}{ext}"
            if src.exists():
                src.rename(folder / "hidden" / f"{name}{ext}")
    return names


def _no_draw(folder: Path, stale: str, opts: InitConfig) -> str:
    """Why no input the model never saw can be drawn for the problem in ``folder``
    ("": one can), marked in its ``problem.json`` (``no_draw``): with no hidden test to
    keep, checks then time its visible tests as they do a memorizable problem's (a gain
    may be memorized: never counted as improved, the default reward pays 0)."""
    others: str | None = ""
    if opts.undrawable is not None:
        _say(opts, "  no fresh input from the input model: trying the other sources once...")
        others = opts.undrawable(folder)
    if others is None:
        return ""
    return _mark_no_draw(folder, f"{stale}; {others}" if others else stale)


def _every_draw_short(longest_ms: float) -> str:
    return (
        f"every input drawn runs under 5 ms of reference CPU, the longest input given "
        f"{longest_ms:.1f} ms: the input model misses what makes it long"
    )


def _mark_no_draw(folder: Path, why: str) -> str:
    """Write ``no_draw`` (why) into the problem's ``problem.json``, and take back a
    ``too_small`` mark its domain earned: its visible tests are what checks time."""
    _edit_meta(folder, no_draw=why, too_small=None)
    return why


def _edit_meta(folder: Path, **fields: object) -> None:
    """Set ``fields`` in the problem's ``problem.json`` (a None value removes its key)."""
    meta = json.loads((folder / "problem.json").read_text())
    for key, value in fields.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    (folder / "problem.json").write_text(json.dumps(meta, indent=2) + "\n")


def _generator_domain(folder: Path) -> tuple[str, bool]:
    """The generator's domain in one line (its sizes, probed: the ones a check draws and
    the reference's CPU on them) and whether every size runs under the meter's floor
    (then marked ``too_small``)."""
    problem = load_problem(folder)
    source = generator_source(problem.settings)
    if source is None:
        return "the problem's generator", False
    line = generator_domain(problem, source)
    small = generator_timed_range(problem, source)[3] < FLOOR_SECONDS
    if small:
        _mark_too_small(folder)
    return line, small


def _say_no_fresh(folder: Path, stale: str) -> str:
    """The stored model's domain marked ``no_fresh`` (``problem show`` and every check's
    domain line then say the hidden tests are timed); its new domain line ("": none)."""
    path = folder / FILE
    if not path.is_file():
        return ""
    try:
        model = InputModel(json.loads(path.read_text()))
    except ValueError:
        return ""
    if not model.domain:
        return ""
    model = model.with_domain({**model.domain, "no_fresh": stale})
    model.save(folder)
    return f"model: {describe(model)}"


def _generator_stale(folder: Path, own: Sequence[bytes], calibrated: bool) -> str:
    """Why the generator draws no input the model has not seen ("": it does): two seeds
    at the top size a check draws give one input, or only inputs given (``fannkuch 9``
    whatever the seed)."""
    problem = load_problem(folder)
    source = generator_source(problem.settings)
    if source is None:
        return ""
    try:
        if calibrated:
            size = generator_timed_range(problem, source)[1]
        else:
            size = max(generator_sizes(source), default=1)
        drawn = run_generator(source, [(11, size), (12, size)], label=f"{problem.name}: gen.py")
    except (UserError, InfraError):
        return ""  # said where the generator's domain is
    if drawn[0] == drawn[1] or all(d in set(own) for d in drawn):
        return f"the generator's input at size {size} does not change with its seed"
    return ""


def _mark_too_small(folder: Path) -> None:
    _edit_meta(folder, too_small=True)


def _stdin_of(t: TestFile) -> bytes:
    return b"" if t.input is _EMPTY_STDIN else t.input.read_bytes()


def _copy_validator(path: Path, folder: Path, inputs: list[tuple[str, bytes]]) -> None:
    """Copy the user's validator in as ``validate.py`` once every input given passes it
    (run in the sandbox; a one-line error names the first input it rejects)."""
    if not path.is_file():
        raise UserError(f"--validator {path}: no such file")
    try:
        source = path.read_text()
    except UnicodeDecodeError as e:
        raise UserError(f"--validator {path}: not UTF-8 text") from e
    check_inputs(source, inputs, label=f"--validator {path}")
    (folder / DEFAULT_FILE).write_text(source)


def _copy_generator(path: Path, folder: Path, seconds: float) -> None:
    """Copy the user's generator in as ``gen.py``, once it has made an input in the
    sandbox within ``seconds`` (a broken generator is refused at init, not at a check)."""
    if not path.is_file():
        raise UserError(f"--generator {path}: no such file")
    try:
        source = path.read_text()
    except UnicodeDecodeError as e:
        raise UserError(f"--generator {path}: not UTF-8 text") from e
    config = GeneratorConfig(seconds=seconds)
    sizes = generator_sizes(source, config)
    run_generator(source, [(1, min(sizes) if sizes else 1)], config, label=str(path))
    (folder / "gen.py").write_text(source)


def _meta(folder: Path, source_path: Path, opts: InitConfig) -> dict:
    name = folder.name.split(".init-")[0].lstrip(".")
    meta: dict = {"name": name, "origin": str(source_path)}
    if opts.split:
        meta["split"] = opts.split
    for key in ("cflags", "ldflags"):  # lists: no flag is joined and split again
        flags = split_flags(getattr(opts, key))
        if flags:
            meta[key] = list(flags)
    if parse_mode(opts.compare).kind != "exact":
        meta["compare"] = str(parse_mode(opts.compare))
    if opts.compare_rules:
        meta["compare_rules"] = [r.to_json() for r in opts.compare_rules]
    if opts.exit_code:
        meta["exit_code"] = opts.exit_code
    return meta


def _mode(opts: InitConfig) -> Mode:
    """The problem's comparison: ``--compare`` with the rules given."""
    return parse_mode(opts.compare).with_rules(opts.compare_rules)


def _differ(mode: Mode):
    """How two runs of the reference differ under ``mode`` (None: they match), with the
    first differing lines, the cause and the rules that would leave it out."""

    def differ(a: bytes, b: bytes, *more: bytes) -> str | None:
        return None if outputs_match(a, b, mode) else diagnose(a, b, mode, more).message()

    return differ


def _first_difference(actual: bytes, expected: bytes) -> str:
    a = actual.decode(errors="replace").splitlines()
    e = expected.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(a, e, strict=False)):
        if x != y:
            return f"line {i + 1}: answer {y[:60]!r}, reference {x[:60]!r}"
    return f"answer has {len(e)} lines, reference {len(a)}"
