"""The tools ``supercoder mcp`` serves, as plain functions (``Toolbox``: arguments in,
an ``Answer``, its text and the same as JSON, out) and what bounds them (``McpConfig``);
``verify/mcp.py`` serves them over the Model Context Protocol. See that module's
docstring for the tools and their bounds."""

# no "from __future__ import annotations": the SDK reads the tools' annotations

import re
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supercoder.analysis import analyze
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import InfraError, UserError, inside, printable
from supercoder.problems.loading import BUNDLED_ROOT, is_problem_dir, load_problem
from supercoder.prompting.diffedit import DiffError, apply_diff, has_edit_blocks
from supercoder.prompting.hotspots import find_hotspots, to_json
from supercoder.prompting.profiling import profile_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.verify.access import check_access
from supercoder.verify.evaluate import check_config
from supercoder.verify.reward import verdict_json
from supercoder.verify.service import verify_together

if TYPE_CHECKING:
    from supercoder.types import Problem, Verdict

MAX_CANDIDATE_BYTES = 2 << 20  # an answer's assembly (a -O3 baseline is rarely 300 KiB)
MAX_ARGUMENT_BYTES = 4 << 20  # every argument of one call, as JSON
MAX_TEXT_CHARS = 1 << 20  # the source, the baseline: cut past this
TEST_CHARS = 2000  # one shown test's input or output: cut past this
MAX_SHOWN_TESTS = 20
MAX_LISTED = 1000
MAX_REF_CHARS = 1024  # a problem's name or path
MAX_ERROR_CHARS = 600  # a refusal's one line
PROGRESS_SECONDS = 5.0  # a long call's progress notifications
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}")


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@dataclass(frozen=True)
class McpConfig:
    """What ``supercoder mcp`` serves, where, and within which bounds.

    Fields:
        transport: ``stdio`` (the agent starts the server) or ``http`` (streamable HTTP).
        host: the address the HTTP transport listens on.
        port: its port (0: any free one, printed on stderr).
        token: the bearer token every HTTP request carries (None: only with
            ``insecure_loopback`` on a loopback host).
        insecure_loopback: serve HTTP without a token; refused off loopback.
        benchmarks: the problem sets served by name (``all``, ``train``, ``val``, a folder,
            a records file).
        allow_roots: folders whose problem folders a call may name by path (the folder
            itself, or any folder below it); nothing outside them is read.
        workers: tool calls working at once (more wait their turn).
        tool_seconds: the longest a tool call may take before it is answered with an error.
        cpu_limit: CPU seconds per test run of a checked candidate.
        memory_mb: memory per test run of a checked candidate (MiB).
        profile_seconds: the most a profile may spend (``problem profile --budget``).
        max_candidate_bytes: the largest assembly a call may send.
        max_argument_bytes: the largest arguments of one call (JSON bytes).
        max_text_chars: the source and the baseline are cut past this many characters.
        test_chars: a shown test's input and output are cut past this many characters.
    """

    transport: Transport = Transport.STDIO
    host: str = "127.0.0.1"
    port: int = 8766
    token: str | None = None
    insecure_loopback: bool = False
    benchmarks: tuple[str, ...] = ("all",)
    allow_roots: tuple[Path, ...] = ()
    workers: int = 2
    tool_seconds: float = 900.0
    cpu_limit: float = 10.0
    memory_mb: int = 2048
    profile_seconds: float = 60.0
    max_candidate_bytes: int = MAX_CANDIDATE_BYTES
    max_argument_bytes: int = MAX_ARGUMENT_BYTES
    max_text_chars: int = MAX_TEXT_CHARS
    test_chars: int = TEST_CHARS

    def check(self) -> None:
        """Refuse an HTTP server without a token off loopback (``verify/access.py``)."""
        if self.transport is Transport.HTTP:
            check_access(self.host, self.token, self.insecure_loopback)
        for root in self.allow_roots:
            if not Path(root).is_dir():
                raise UserError(f"--allow-root {printable(root, newlines=False)}: not a folder")


# --- the tools, as plain functions: arguments in, (text, structured content) out ---------


@dataclass(frozen=True)
class Answer:
    """What a tool returns: text for the model to read, and the same as JSON."""

    text: str
    data: dict[str, Any]


@dataclass
class Toolbox:
    """The problems this server may name, and the tools over them. ``describe``: a
    verdict as text for the agent (``supercoder mcp`` gives ``check``'s printout; by
    default one line of the verdict's figures)."""

    config: McpConfig
    describe: "Callable[[Verdict], str] | None" = None
    _served: "dict[str, Problem] | None" = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # problems ----------------------------------------------------------------------

    def served(self) -> "dict[str, Problem]":
        """The problems served by name (``--benchmark``), loaded once."""
        with self._lock:
            if self._served is None:
                served: dict[str, Problem] = {}
                for spec in self.config.benchmarks:
                    for p in load_benchmark(spec):
                        served.setdefault(p.name, p)
                self._served = served
            return self._served

    def roots(self) -> list[Path]:
        return [Path(r).resolve() for r in self.config.allow_roots]

    def folders(self) -> list[Path]:
        """The problem folders under the allowed roots (each root, and two levels below)."""
        found: list[Path] = []
        for root in self.roots():
            level = [root]
            for _ in range(3):
                found += [p for p in level if is_problem_dir(p)]
                level = [c for p in level if not is_problem_dir(p) for c in _children(p)]
                level = level[: 4 * MAX_LISTED]  # a huge tree costs a bounded walk
        return found[: MAX_LISTED + 1]

    def problem(self, ref: Any) -> "Problem":
        """The problem a call names: a served problem's name, or the path of a problem
        folder under an allowed root (absolute, or relative to a root)."""
        ref = _short(ref, "problem", MAX_REF_CHARS)
        if NAME.fullmatch(ref) and ref in self.served():
            return self.served()[ref]
        roots = self.roots()
        path = Path(ref)
        tries = [path] if path.is_absolute() else [r / path for r in roots]
        for place in tries:
            try:
                found = any(inside(root, place) for root in roots) and is_problem_dir(place)
            except (OSError, ValueError):  # a name no file system holds (too long, ...)
                found = False
            if found:
                return load_problem(place.resolve())
        shown = printable(ref, newlines=False)
        if not roots:
            raise UserError(
                f"no problem named {shown!r} here (list_problems names them; problem "
                "folders are served only under an --allow-root)"
            )
        if not path.is_absolute() and NAME.fullmatch(ref):
            raise UserError(f"no problem named {shown!r} here (list_problems names them)")
        raise UserError(
            f"{shown}: not a problem folder under an allowed root (list_problems names "
            "the ones served)"
        )

    # tools -------------------------------------------------------------------------

    def list_problems(self, match: str = "") -> Answer:
        match = _short(match, "match", 200).lower()
        rows = [
            {
                "problem": p.name,
                "where": "bundled" if _bundled(p) else "benchmark",
                "split": p.split,
                "tags": [str(t) for t in p.settings.tags],
                "visible_tests": len(p.visible_tests),
            }
            for p in self.served().values()
        ]
        for folder in self.folders():
            rows.append({"problem": str(folder), "where": "folder", "split": None, "tags": []})
        rows = [r for r in rows if match in r["problem"].lower()]
        shown = rows[:MAX_LISTED]
        lines = [
            f"{r['problem']}  ({r['where']}"
            + (f", {r['split']}" if r["split"] else "")
            + (f", {', '.join(r['tags'])}" if r["tags"] else "")
            + ")"
            for r in shown
        ]
        if len(rows) > len(shown):
            lines.append(f"... {len(rows) - len(shown)} more: narrow with match")
        head = (
            f"{len(rows)} problem(s); pass a name (or a folder's path) as `problem` to "
            "show_problem, profile_baseline, check_candidate and analyze_answer."
        )
        data = {"problems": shown, "total": len(rows), "truncated": len(rows) > len(shown)}
        return Answer("\n".join([head, *map(_line, lines)]), data)

    def show_problem(self, problem: str, tests: int = 3) -> Answer:
        p = self.problem(problem)
        if not isinstance(tests, int) or not 0 <= tests <= MAX_SHOWN_TESTS:
            raise UserError(f"tests: give 0 to {MAX_SHOWN_TESTS}")
        asm = baseline_asm(p)
        cap = self.config.max_text_chars
        source, source_cut = _cut(p.source, cap)
        baseline, baseline_cut = _cut(asm, cap)
        visible = p.visible_tests
        shown = []
        for t in visible[:tests]:
            given, given_cut = _cut(t.read_input().decode(errors="replace"), self.config.test_chars)
            want, want_cut = _cut(t.expected.decode(errors="replace"), self.config.test_chars)
            shown.append(
                {
                    "name": t.name,
                    "args": list(t.args),  # its command line's arguments (tests/NAME.args)
                    "input": given,
                    "expected": want,
                    "cut": given_cut or want_cut,
                }
            )
        hidden = len(p.tests) - len(visible)
        data = {
            "problem": p.name,
            "split": p.split,
            "compare": p.compare,
            "cflags": list(p.cflags),
            "ldflags": list(p.ldflags),
            "source": source,
            "source_cut": source_cut,
            "visible_tests": len(visible),
            "hidden_tests": hidden,
            "tests": shown,
            "baseline_asm": baseline,
            "baseline_cut": baseline_cut,
            "baseline_lines": len(asm.splitlines()),
        }
        parts = [
            f"# {p.name}",
            f"split {p.split or '-'}; outputs compared {data['compare']}; "
            f"cflags {' '.join(p.cflags) or '-'}; ldflags {' '.join(p.ldflags) or '-'}",
            f"{len(visible)} visible test(s), {len(shown)} shown; {hidden} hidden test(s) and "
            "inputs drawn afresh for every check are never shown (the speedup is timed on them).",
            "",
            "## source.c" + (" (cut)" if source_cut else ""),
            "```c",
            source,
            "```",
        ]
        for t in shown:
            cut = " (cut)" if t["cut"] else ""
            parts.append(f"## test {t['name']}{cut}")
            if t["args"]:
                parts.append(f"command line: `{shlex.join(['./program', *t['args']])}`")
            parts += ["input:", "```", t["input"], "```"]
            parts += ["expected output:", "```", t["expected"], "```"]
        parts += [
            f"## gcc -O3 baseline ({data['baseline_lines']} lines)"
            + (" (cut: get it whole with supercoder problem baseline)" if baseline_cut else ""),
            "Answer check_candidate with a whole x86-64 AT&T program in this form "
            "(assembly), or with SEARCH/REPLACE blocks against it (edits).",
            "```asm",
            baseline,
            "```",
        ]
        return Answer("\n".join(parts), data)

    def profile_baseline(self, problem: str, top: int = 15) -> Answer:
        if not isinstance(top, int) or not 1 <= top <= 200:
            raise UserError("top: give 1 to 200")
        p = self.problem(problem)
        if not p.visible_tests:
            raise UserError(f"{p.name}: no visible tests to profile on")
        asm = baseline_asm(p)
        prof = profile_problem(p, budget_seconds=self.config.profile_seconds)
        data = {"problem": p.name, **to_json(prof, find_hotspots(prof, asm), asm, top=top)}
        info = data["profile"]
        lines = [
            f"{p.name}: {data['instructions']:,} instructions in the program's code "
            f"({data['outside_instructions']:,} in libraries), {len(info['tests'])} visible "
            f"test(s) profiled in {info['seconds']:.1f}s (cachegrind, the -O3 baseline)"
        ]
        if info.get("gave_up"):
            lines.append(f"gave up: {info['gave_up']}; not profiled: {', '.join(info['skipped'])}")
        for title in ("functions", "loops"):
            lines.append(f"{title}:")
            for s in data[title]:
                where = f" in {s['function']}" if s.get("function") else ""
                lines.append(
                    f"  {s['name']}{where}: lines {s['lines'][0]}-{s['lines'][1]}, "
                    f"{100 * s['share']:.1f}% ({s['count']:,})"
                )
        lines.append("hottest lines of the baseline (line: share, instructions, text):")
        for ln in data["lines"]:
            lines.append(
                f"  {ln['line']}: {100 * ln['share']:.1f}%, {ln['count']:,}, {ln['text'].strip()}"
            )
        return Answer("\n".join(_line(x) for x in lines), data)

    def check_candidate(
        self, problem: str, assembly: str = "", time: bool = True, edits: str = ""
    ) -> Answer:
        p = self.problem(problem)
        asm = self._program(p, assembly, edits)
        if not isinstance(time, bool):
            raise UserError("time: give true or false")
        config = check_config(
            time=time, cpu_limit=self.config.cpu_limit, memory_mb=self.config.memory_mb
        )
        (verdict,) = verify_together(p, [asm], config)
        if verdict.is_infra_failure:
            raise InfraError(
                f"the check could not run (not your answer's fault): {verdict.message}"
            )
        return Answer((self.describe or _verdict_line)(verdict), verdict_json(verdict))

    def analyze_answer(self, problem: str, assembly: str = "", edits: str = "") -> Answer:
        p = self.problem(problem)
        asm = self._program(p, assembly, edits)
        result = analyze(baseline_asm(p), asm)
        lines = [f"{p.name}: the -O3 baseline -> this answer"]
        for label in result.labels:
            lines.append(f"{label.kind}:")
            lines += [f"  {e}" for e in label.evidence]
        if not result.labels:
            lines.append("no transformation kind found")
        return Answer("\n".join(_line(x) for x in lines), {"problem": p.name, **result.to_json()})

    def _program(self, problem: "Problem", assembly: Any, edits: Any) -> str:
        """The answer's whole program: ``assembly`` as given, or the SEARCH/REPLACE
        ``edits`` applied to the -O3 baseline (one of the two, each within the cap)."""
        assembly, edits = self._sized(assembly, "assembly"), self._sized(edits, "edits")
        if bool(assembly.strip()) == bool(edits.strip()):
            raise UserError(
                "give the whole program as assembly, or SEARCH/REPLACE blocks against the "
                "baseline as edits (one of the two)"
            )
        if assembly.strip():
            return assembly
        if not has_edit_blocks(edits):
            raise UserError("edits: no <<<<<<< SEARCH / ======= / >>>>>>> REPLACE block")
        try:
            program = apply_diff(baseline_asm(problem), edits)
        except DiffError as e:
            raise UserError(f"edits: {e}") from e
        return self._sized(program, "the edited program")

    def _sized(self, text: Any, what: str) -> str:
        if not isinstance(text, str):
            raise UserError(f"{what}: give text")
        size = len(text.encode(errors="replace"))
        if size > self.config.max_candidate_bytes:
            raise UserError(
                f"{what}: {size:,} bytes, over the cap of {self.config.max_candidate_bytes:,}"
            )
        return text


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(
            p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and p.name[:1] != "."
        )[:MAX_LISTED]
    except OSError:
        return []


def _bundled(problem: "Problem") -> bool:
    return Path(problem.path or "").parent == BUNDLED_ROOT


def _short(value: Any, what: str, limit: int) -> str:
    """A string argument of bounded length, refused in one line otherwise."""
    if not isinstance(value, str):
        raise UserError(f"{what}: give a string")
    if len(value) > limit:
        raise UserError(f"{what}: {len(value):,} characters, over the cap of {limit:,}")
    if "\0" in value:
        raise UserError(f"{what}: holds a NUL character")
    return value


def _cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut at ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n... [cut: {len(text) - limit:,} more characters]", True


def _line(text: str) -> str:
    return printable(text, newlines=False)


def _verdict_line(verdict: "Verdict") -> str:
    """A verdict in one line: its status, tests passed and speedup with its CI."""
    text = f"{verdict.problem}: {verdict.status} ({verdict.tests_passed}/{verdict.tests_total} tests passed)"
    s = verdict.speedup
    if s is not None and s.value is not None:
        text += f"; speedup {s.value:.2f}x [{s.low:.2f}, {s.high:.2f}] (95% CI)"
    return _line(text + (f"; {verdict.message}" if verdict.message else ""))


def one_line(error: BaseException) -> str:
    """A refusal as one line: what went wrong, never a traceback."""
    if isinstance(error, UserError):
        text = f"refused: {error}"
    elif isinstance(error, InfraError):
        text = f"machine trouble: {error}"
    else:
        text = f"unexpected {type(error).__name__}: {error} (a bug in supercoder)"
    return clip(text)


def clip(text: str) -> str:
    text = printable(" ".join(str(text).split()), newlines=False)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."
