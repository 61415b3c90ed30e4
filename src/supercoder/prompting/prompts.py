"""The paper's prompts in our own words, refinement turns, and answer extraction.

Prompt (``variant="asm"``): the C program in a ```c fence, its ``gcc -O3`` assembly in
an ```assembly fence, and a request for a faster, complete x86-64 program in AT&T
syntax, assembly only, in one ```assembly fence. ``variant="c_only"`` omits the
assembly. Few-shot pairs come first as user/assistant turns.

Test data: by default the prompt shows no tests at all (as in the paper).
``show_inputs=k`` lists up to ``k`` short *visible* inputs (each trimmed) to show the
input format; hidden tests never appear in any prompt or feedback.

``context="hot"`` shows the profile-annotated assembly instead (``hotspots.hot_view``:
``# NN.N%`` per hot line, cold functions elided) after a one-line profile summary;
``answer="diff"`` asks for SEARCH/REPLACE edit blocks (``diffedit``) instead of the
whole program. ``full``/``whole`` is the paper's prompt.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from supercoder.errors import InfraError
from supercoder.prompting.diffedit import ERROR_PREFIX
from supercoder.prompting.hotspots import find_hotspots, hot_view, summary_text
from supercoder.prompting.profiling import profile_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.isa import describe, parse_target
from supercoder.types import Problem, Status, TestCase, TestResult, Verdict


class Variant(StrEnum):
    """The paper's prompt: ``asm`` (C and its -O3 assembly) or ``c_only`` (C alone)."""

    ASM = "asm"
    C_ONLY = "c_only"


VARIANTS = tuple(v.value for v in Variant)
ASM_LANGS = frozenset({"assembly", "asm", "s", "x86asm", "x86", "x86-64", "gas", "att", "nasm"})
INPUT_PREVIEW_CHARS = 300
PROFILE_BUDGET = 60.0  # seconds of profiling per problem for --context hot (then cached)
DETAIL_CHARS = 1500

_INSTRUCTIONS = (
    "Write a faster version of this program in x86-64 assembly for Linux, in AT&T syntax "
    "as gcc emits it. It must be the complete program: `gcc program.s -o program -lm` "
    "must assemble and link it, and it must print exactly the same output as the "
    "original on every input. Reply with the assembly only, with no explanation and no "
    "comments, inside one ```assembly fenced block."
)


def build_messages(
    problem: Problem,
    *,
    variant: str = "asm",
    fewshot: Sequence[tuple[Problem, str]] = (),
    baseline_asm: str | None = None,
    show_inputs: int = 0,
    context: str = "full",
    answer: str = "whole",
    target: str = "native",
) -> list[dict[str, str]]:
    """Chat messages asking for faster assembly for ``problem``; a ``target`` level
    (``--target``) is said in the request.

    ``baseline_asm`` defaults to the reader's own gcc -O3 build (``toolchain.baseline``:
    a ``baseline.s`` the problem carries is shown only when it is that build).
    Each few-shot pair is (problem, its optimized assembly).
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown prompt variant {variant!r}: use one of {VARIANTS}")
    messages: list[dict[str, str]] = []
    for shot, answer in fewshot:
        messages.append({"role": "user", "content": question(shot, variant=variant)})
        messages.append({"role": "assistant", "content": fence(answer, "assembly")})
    text = question(
        problem,
        variant=variant,
        baseline_asm=baseline_asm,
        show_inputs=show_inputs,
        context=context,
        answer=answer,
        target=target,
    )
    messages.append({"role": "user", "content": text})
    return messages


def requirements(problem: Problem, target: str = "native") -> list[str]:
    """What every answer must also do, said in each prompt that asks for one: exit with
    the problem's exit status; run on every CPU of a ``target`` level (``--target``)."""
    out = []
    if problem.exit_code:
        out.append(
            f"The program ends with exit status {problem.exit_code} by design: every run of "
            "yours must exit with that status too."
        )
    if target != "native":
        out.append(
            f"It must run on every {target} CPU: use no instruction beyond "
            f"{describe(parse_target(target))}; the assembler refuses any other."
        )
    return out


def question(
    problem: Problem,
    *,
    variant: str = "asm",
    baseline_asm: str | None = None,
    show_inputs: int = 0,
    context: str = "full",
    answer: str = "whole",
    target: str = "native",
) -> str:
    """The user turn for one problem."""
    parts = (
        _unit_parts(problem)
        if problem.answer_unit or problem.answer_joined
        else [
            "Here is a C program that reads standard input and writes standard output:",
            fence(problem.source, "c"),
        ]
    )
    if variant == "asm":
        asm = baseline_asm or _compile_baseline(problem)
        build = " ".join(("gcc -O3", *problem.cflags))
        if context == "hot":
            parts += hot_parts(problem, asm)
        else:
            parts += [
                f"This is the assembly that `{build}` generates for it:",
                fence(asm, "assembly"),
            ]
    inputs = [t for t in problem.visible_tests if not t.hidden][: max(show_inputs, 0)]
    shown = next((t for t in problem.visible_tests if t.args), None)
    if shown is not None and not inputs:
        parts.append(
            "Each test runs the program with command-line arguments of its own (argv[0] is "
            f"always `./program`); for example: {_args_line(shown).strip()}"
        )
    if inputs:
        if any(t.args for t in problem.tests):
            parts.append(
                "Example runs (each test runs `./program ARGUMENTS` with its own arguments, "
                "argv[0] always `./program`, then reads the input from standard input):"
            )
        else:
            parts.append("Example inputs (the program reads them from standard input):")
        parts += [
            _args_line(t) + fence(_trim(_decode(t.read_input()), INPUT_PREVIEW_CHARS), "")
            for t in inputs
        ]
    parts += requirements(problem, target)
    if answer == "diff" and variant == "asm":
        parts.append(_with_link(problem, DIFF_INSTRUCTIONS))
    else:
        parts.append(
            _with_link(problem, _INSTRUCTIONS + (_KEEP_ELIDED if context == "hot" else ""))
        )
    return "\n\n".join(parts)


HEADER_CHARS = 6000  # of the headers an answer unit includes, shown as its context


def _unit_parts(problem: Problem) -> list[str]:
    """The answer unit of a multi-unit program (``Problem.answer_unit``), then as its
    context the program's headers it includes (``.h`` files of the problem, up to
    ``HEADER_CHARS``): the types and declarations the other units share with it."""
    others = ", ".join(problem.units) or "none"
    first = problem.answer_unit or "the file with `main`"
    main = problem.main_unit if problem.answer_unit else "it"
    parts = [
        f"Here is {first}, the translation unit of a C program (it reads standard input "
        "and writes standard output) that the program spends its time in; `main` is in "
        f"{main or 'another unit'}, and the other units ({others}) are built by `gcc -O3` "
        "and linked beside it:",
        fence(problem.source, "c"),
    ]
    folder = problem.path
    for rel in problem.answer_joined:  # part of the answer: #included at its end
        try:
            text = (Path(str(folder or "")) / rel).read_text(errors="replace")
        except OSError:
            continue
        parts += [f"{rel}, which it includes at its end (part of your answer):", fence(text, "c")]
    included = set(re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', problem.source, re.M))
    left = HEADER_CHARS
    for rel in problem.settings.headers:
        if not str(rel).endswith(".h") or Path(rel).name not in {Path(i).name for i in included}:
            continue
        path = Path(str(folder or "")) / rel
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if len(text) > left:
            break
        left -= len(text)
        parts += [f"{rel}, which it includes:", fence(text, "c")]
    return parts


def _with_link(problem: Problem, text: str) -> str:
    """The task; the link command names the problem's flags (e.g. -fopenmp) and its other
    translation units (linked as gcc -O3 builds them) when it has any."""
    if not problem.link_flags and not problem.units:
        return text
    others = [f"{Path(u).with_suffix('.s').name}" for u in problem.units]
    link = " ".join(("gcc program.s", *others, "-o program -lm", *problem.link_flags))
    text = text.replace("`gcc program.s -o program -lm`", f"`{link}`")
    if problem.units:
        text += (
            f" The program's other source files ({', '.join(problem.units)}) are translation "
            "units of their own, built by `gcc -O3` and linked beside yours unchanged: "
            "your answer is the assembly of the source shown above only."
        )
    if problem.answer_unit or problem.answer_joined:
        names = ", ".join((problem.answer_unit or "source.c", *problem.answer_joined))
        text += (
            f" The source shown is {names}, the unit the program spends its "
            f"time in; `main` is in {problem.main_unit or 'it'}. Keep every "
            "function and object the other units use (its name, its calling convention "
            "and its layout): they call into your assembly as they were compiled."
        )
    return text


DIFF_INSTRUCTIONS = (
    "Make this program faster by editing its x86-64 assembly (AT&T syntax, as gcc emits "
    "it). Answer with one or more edit blocks of exactly this form, and nothing else:\n\n"
    "<<<<<<< SEARCH\nlines copied from the current program\n=======\nreplacement lines\n"
    ">>>>>>> REPLACE\n\n"
    "The blocks are applied in order to the assembly shown above. Each SEARCH part must "
    "match exactly one place of it (trailing # comments and surrounding whitespace are "
    "ignored); copy enough lines to make it unique. The edited program must still "
    "assemble and link with `gcc program.s -o program -lm` and print exactly the same "
    "output as the original on every input."
)
_KEEP_ELIDED = (
    " Keep every `# supercoder: body of ... elided` line and the label above it as they "
    "are: the original code of that function is put back there."
)
_HOT_NOTE = (
    "Lines ending in `# NN.N%` carry their share of the instructions the program executed "
    "on example inputs. Functions shown only as a label and a `# supercoder: body of ... "
    "elided` line run rarely: they must stay unchanged."
)


def hot_parts(problem: Problem, asm: str) -> list[str]:
    """The ``hot`` context: profile summary, annotated assembly (unannotated if the
    profile cannot run on this machine)."""
    try:
        profile = profile_problem(problem, asm=asm, budget_seconds=PROFILE_BUDGET)
    except InfraError as e:
        note = f"(No profile is available: {str(e).splitlines()[0]}.)"
        return [
            "This is the assembly that `gcc -O3` generates for it " + note,
            fence(hot_view(asm, None), "assembly"),
        ]
    hot = find_hotspots(profile, asm)
    return [
        "This is the assembly that `gcc -O3` generates for it. " + summary_text(hot, profile),
        _HOT_NOTE,
        fence(hot_view(asm, hot), "assembly"),
    ]


def refinement_messages(
    previous_messages: Sequence[dict[str, str]], previous_answer: str, feedback: str
) -> list[dict[str, str]]:
    """The next turn: the model's previous answer, then our feedback on it."""
    return [
        *(dict(m) for m in previous_messages),
        {"role": "assistant", "content": previous_answer},
        {"role": "user", "content": feedback},
    ]


def feedback_for(verdict: Verdict, problem: Problem | None = None, answer: str = "whole") -> str:
    """What went wrong (or how fast it was) and what to do next, for a refinement turn.

    ``answer="diff"`` asks for edit blocks again (always against the original assembly);
    an edit block that could not be applied is quoted.
    """
    text = _feedback(verdict, problem)
    if answer == "diff":
        for whole, diff in _DIFF_ASKS:
            text = text.replace(whole, diff)
    return text


def _feedback(verdict: Verdict, problem: Problem | None = None) -> str:
    """What went wrong (or how fast it was) and what to do next, for a refinement turn.

    Pass ``problem`` to show the first failing *visible* test's input, expected output
    and the evaluator's detail; a failing hidden test (or any test, without ``problem``)
    is reported without any of its data.
    """
    status = verdict.status
    if status is Status.OK:
        return _speed_feedback(verdict)
    if status is Status.NO_ANSWER:
        return "Your reply did not contain an assembly program. " + _ASK_FIX
    if status is Status.COMPILE_ERROR and verdict.message.startswith(ERROR_PREFIX):
        why = _trim(verdict.message[len(ERROR_PREFIX) :], DETAIL_CHARS)
        return f"Your edits could not be applied:\n\n{fence(why, '')}\n\n{_ASK_FIX}"
    if status is Status.COMPILE_ERROR:
        log = _trim(verdict.message or "(no assembler output)", DETAIL_CHARS)
        return f"Your assembly does not assemble and link:\n\n{fence(log, '')}\n\n{_ASK_FIX}"
    if status is Status.INFRA_ERROR:
        return "Your program could not be evaluated for reasons unrelated to it. " + _ASK_AGAIN
    return _test_feedback(verdict, problem)


_ASK_FIX = (
    "Reply with the complete corrected program: the assembly only, no explanation, "
    "in one ```assembly fenced block."
)
_ASK_AGAIN = "Reply with the complete program again, in one ```assembly fenced block."
_ASK_FASTER = (
    "Try a different optimization to make it faster while keeping the output identical. "
    "Reply with the complete program: the assembly only, in one ```assembly fenced block."
)
_ASK_STILL = "Reply with the complete program: the assembly only, in one ```assembly fenced block."
_DIFF_AGAINST = (
    "They apply to the original assembly of the first message, not to your previous "
    "answer, so give all your edits again."
)
_DIFF_ASKS = (
    (
        _ASK_FIX,
        "Reply with corrected edit blocks (<<<<<<< SEARCH ... >>>>>>> REPLACE). " + _DIFF_AGAINST,
    ),
    (_ASK_AGAIN, "Reply with your edit blocks again. " + _DIFF_AGAINST),
    (
        _ASK_FASTER,
        "Try a different optimization to make it faster while keeping the output "
        "identical. Reply with edit blocks only. " + _DIFF_AGAINST,
    ),
    (_ASK_STILL, "Reply with edit blocks only. " + _DIFF_AGAINST),
)
_STATUS_TEXT = {
    Status.WRONG_OUTPUT: "printed the wrong output",
    Status.RUNTIME_ERROR: "crashed",
    Status.TIMEOUT: "ran out of time",
    Status.OUTPUT_LIMIT: "printed too much output",
    Status.MEMORY_LIMIT: "ran out of memory",
}


def _speed_feedback(verdict: Verdict) -> str:
    if verdict.identical_to_baseline:
        return (
            "Your program is the same as the gcc -O3 assembly, so it is not faster. " + _ASK_FASTER
        )
    sp = verdict.speedup
    if sp is None:
        return "Your program is correct. " + _ASK_FASTER
    measured = f"{sp.value:.3f}x (95% confidence interval {sp.low:.3f}x to {sp.high:.3f}x)"
    if sp.significantly_faster:
        return (
            f"Your program is correct and {measured} faster than gcc -O3. "
            "Try to make it faster still. " + _ASK_STILL
        )
    return (
        f"Your program is correct, but it is not faster than gcc -O3: speedup {measured}. "
        + _ASK_FASTER
    )


def _test_feedback(verdict: Verdict, problem: Problem | None) -> str:
    """The first failing visible test in full; of the tests the model never saw (and,
    without the problem, tests not known to be visible) only that some failed: their
    data, which of them, and how many are never shown."""
    failing = [t for t in verdict.tests if t.status is not Status.OK]
    visible = [t for t in failing if not _is_hidden(t, problem)]
    unseen = verdict.unseen
    secret_failed = len(failing) > len(visible) or bool(unseen and not unseen.passed)
    what = _STATUS_TEXT.get(verdict.status, str(verdict.status))
    if not failing and not secret_failed:
        return f"Your program {what}. {_ASK_FIX}"
    if not visible:
        return f"Your program {what} on tests whose data cannot be shown. {_ASK_FIX}"
    first = visible[0]
    lines = [
        f"Your program {_STATUS_TEXT.get(first.status, str(first.status))} on test {first.name!r}"
        + (f" ({len(visible)} visible tests failed in all)." if len(visible) > 1 else ".")
    ]
    lines += _test_data(first, problem)
    if secret_failed:
        lines.append("It also failed on tests whose data cannot be shown.")
    lines.append(_ASK_FIX)
    return "\n\n".join(lines)


def _args_line(test: TestCase) -> str:
    """``Command line: ./program ARGS`` for a test with arguments ('' without)."""
    return f"Command line: `{shlex.join(('./program', *test.args))}`\n" if test.args else ""


def _test_data(result: TestResult, problem: Problem | None) -> list[str]:
    out = []
    case = _case(result.name, problem)
    if case is not None:
        out.append(
            _args_line(case)
            + "Input:\n"
            + fence(_trim(_decode(case.read_input()), DETAIL_CHARS), "")
        )
        out.append("Expected output:\n" + fence(_trim(_decode(case.expected), DETAIL_CHARS), ""))
    if result.detail:  # the evaluator's comparison: where the output differed
        out.append("Details: " + _trim(result.detail, DETAIL_CHARS))
    return out


def _case(name: str, problem: Problem | None):
    if problem is None:
        return None
    return next((t for t in problem.tests if t.name == name and not t.hidden), None)


def _is_hidden(result: TestResult, problem: Problem | None) -> bool:
    """Hidden unless the problem's test list shows it visible."""
    if problem is None:
        return True
    return not any(t.name == result.name and not t.hidden for t in problem.tests)


# --- extraction -------------------------------------------------------------------

_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+.#-]*)")
_INSTRUCTION = re.compile(r"^(?:[A-Za-z_.$][\w.$]*:\s*)?[a-z][a-z0-9]*(?:\s|$)")
_MAIN = re.compile(r"^\s*main\s*:|\.globl\s+main\b|\.global\s+main\b", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    closed: bool


def fence(text: str, lang: str) -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def strip_reasoning(text: str) -> str:
    """Drop ``<think>...</think>`` reasoning; an unclosed ``<think>`` drops the rest."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block in order; a block left open at the end runs to the end."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        marker, lang = m.group(1), m.group(2).lower()
        body, i, closed = [], i + 1, False
        while i < len(lines):
            if lines[i].strip().startswith(marker) and not lines[i].strip().strip(marker[0]):
                closed = True
                break
            body.append(lines[i])
            i += 1
        blocks.append(Block(lang, "\n".join(body), closed))
        i += 1
    return blocks


def looks_like_program(asm: str, needs_main: bool = True) -> bool:
    """A whole program: at least one instruction and a ``main`` (``needs_main=False``: an
    answer for a translation unit without one, ``--answer-unit``: instructions suffice)."""
    has_instruction = any(
        _INSTRUCTION.match(line.split("#", 1)[0].strip()) for line in asm.splitlines()
    )
    return has_instruction and (not needs_main or bool(_MAIN.search(asm)))


def defines_main(asm: str) -> bool:
    """Does this assembly define ``main`` (the answer unit holds the program's entry)?"""
    return bool(_MAIN.search(asm))


def extract_assembly(text: str | None, needs_main: bool = True) -> str | None:
    """The assembly program in a model's answer, or None when there is none.

    Takes the last usable ```assembly (or ```asm/```s/```x86asm/...) block, else the last
    usable bare ``` block; an unfenced answer counts only if it is nothing but a program.
    ``needs_main=False`` where the answer is a unit without ``main`` (``--answer-unit``).
    """
    if not text:
        return None
    text = strip_reasoning(text)
    blocks = fenced_blocks(text)
    for wanted in (lambda b: b.lang in ASM_LANGS, lambda b: b.lang == ""):
        for block in reversed([b for b in blocks if wanted(b)]):
            if looks_like_program(block.body, needs_main):
                return block.body.strip("\n") + "\n"
    if not blocks and _only_assembly(text, needs_main):
        return text.strip("\n") + "\n"
    return None


_ASM_LINE = re.compile(r"^(?:\.[\w.]+|[\w.$@]+:|[a-z][a-z0-9]*)(?:\s|$)")


def _only_assembly(text: str, needs_main: bool = True) -> bool:
    """An unfenced answer: it must open with a directive or label and hold nothing else."""
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines or not (lines[0].startswith(".") or lines[0].endswith(":")):
        return False
    return all(_ASM_LINE.match(ln) for ln in lines) and looks_like_program(text, needs_main)


# --- helpers ----------------------------------------------------------------------


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _compile_baseline(problem: Problem) -> str:
    return baseline_asm(problem)
