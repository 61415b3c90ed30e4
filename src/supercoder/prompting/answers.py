"""From a model's reply to the full candidate program, in either answer mode.

``resolve_answer(text, baseline)``: a reply holding SEARCH/REPLACE blocks is applied to
``baseline`` (the ``gcc -O3`` assembly the prompt showed; see ``diffedit``); otherwise
the last ```assembly block is the program (a whole-program reply is accepted in ``diff``
mode too), with any elided cold function put back (``--context hot``). The result is
always the full program, so the evaluator, reports and SFT data need no change.

A diff that cannot be applied is the candidate's failure: a ``compile_error`` whose
message (``diffedit.ERROR_PREFIX`` ...) names and quotes the failing block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from supercoder.errors import UserError
from supercoder.prompting.diffedit import ERROR_PREFIX, DiffError, apply_diff, has_edit_blocks
from supercoder.prompting.hotspots import expand, function_spans
from supercoder.prompting.prompts import defines_main, extract_assembly, strip_reasoning
from supercoder.types import Status, Verdict


class Context(StrEnum):
    """What the prompt shows of the baseline: ``full`` (the whole listing) or ``hot``
    (profile-annotated, cold functions elided)."""

    FULL = "full"
    HOT = "hot"


class AnswerForm(StrEnum):
    """What the model is asked to answer: ``whole`` (a program) or ``diff``
    (SEARCH/REPLACE blocks against the baseline)."""

    WHOLE = "whole"
    DIFF = "diff"


CONTEXTS = tuple(c.value for c in Context)
ANSWERS = tuple(a.value for a in AnswerForm)


@dataclass(frozen=True)
class Resolved:
    asm: str | None  # the full program, or None
    error: str | None = None  # why a diff could not be applied
    kind: str = "whole"  # whole | diff | none


def resolve_answer(text: str | None, baseline: str | None, elided: Sequence[str] = ()) -> Resolved:
    """The full program of a reply (module docstring). ``elided``: the functions whose
    bodies the prompt did not show (``diffedit.elided_in(messages)``); a block matching
    there and once in what was shown applies where the model saw it."""
    if not text:
        return Resolved(None, None, "none")
    # an answer unit without main (--answer-unit vm.c): its answers have none either
    needs_main = baseline is None or defines_main(baseline)
    body = strip_reasoning(text)
    if baseline and has_edit_blocks(body):
        spans = function_spans(baseline) if elided else {}
        unseen = [spans[name] for name in elided if name in spans]
        try:
            return Resolved(apply_diff(baseline, body, unseen), None, "diff")
        except DiffError as e:
            whole = extract_assembly(text, needs_main)
            if whole and "SEARCH" not in whole:
                return Resolved(expand(whole, baseline), None, "whole")
            return Resolved(None, f"{ERROR_PREFIX}{e}", "diff")
    asm = extract_assembly(text, needs_main)
    if asm is None:
        return Resolved(None, None, "none")
    return Resolved(expand(asm, baseline) if baseline else asm, None, "whole")


def failure_verdict(problem: str, resolved: Resolved) -> Verdict:
    """The verdict of a reply that yields no program (no answer, or a failed diff)."""
    if resolved.error:
        return Verdict(problem, Status.COMPILE_ERROR, message=resolved.error)
    return Verdict(problem, Status.NO_ANSWER, message="no assembly program in the answer")


def check_modes(context: str, answer: str) -> None:
    if context not in CONTEXTS:
        raise UserError(f"unknown --context {context!r}: use one of {', '.join(CONTEXTS)}")
    if answer not in ANSWERS:
        raise UserError(f"unknown --answer {answer!r}: use one of {', '.join(ANSWERS)}")
