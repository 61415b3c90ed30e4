"""Search/replace answers: edit blocks applied in order to the baseline assembly.

A diff answer holds one or more blocks::

    <<<<<<< SEARCH
    lines copied from the current program
    =======
    replacement lines
    >>>>>>> REPLACE

Matching compares *significant* lines: trailing ``#`` comments (outside string
literals), surrounding and repeated whitespace, blank lines and directives that do not
change the program (``.cfi_*``, ``.loc``, ``.file``, ``.ident``) are ignored, so a block
copied from a profile-annotated view (``# 12.3%`` comments, no ``.cfi`` lines) matches
the plain ``gcc -O3`` text. Where that finds no unique place (a SEARCH part holding only
``.cfi_*`` / ``.file`` lines, as a model copies them from the full listing, or lines
that only those directives tell apart), the lines are matched as written instead
(comments and spacing still ignored). A block must match exactly one place; it replaces
the lines from its first to its last matched line. Replacing across ``.cfi`` directives would leave
the unwind info unbalanced, so such a program loses all its ``.cfi`` directives (they
only describe stack frames to debuggers and exception unwinders).

Elided functions: the ``hot`` prompt context shows cold functions as their label and one
marker line (``elision_marker``); a whole-program answer that keeps the marker gets the
original body back (``expand_elisions``).

Leaf module: standard library and the ``asmtext`` lexer only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass

from supercoder.toolchain.asmtext import strip_comments

SEARCH = "<<<<<<< SEARCH"
DIVIDER = "======="
REPLACE = ">>>>>>> REPLACE"
ERROR_PREFIX = "search/replace edit failed: "

_OPEN = re.compile(r"^\s*<{5,}\s*SEARCH\s*$")
_MID = re.compile(r"^\s*={5,}\s*$")
_CLOSE = re.compile(r"^\s*>{5,}\s*REPLACE\s*$")
_NOISE = re.compile(r"^\.(ident|file|loc|cfi_\w+)\b")
_CFI = re.compile(r"^\s*\.cfi_\w+")
_MARKER = re.compile(r"#\s*supercoder: body of (\S+) elided \(\d+ lines\)")


class DiffError(ValueError):
    """A block that could not be applied; ``str()`` quotes the block."""


@dataclass(frozen=True)
class EditBlock:
    index: int  # 1-based, in answer order
    search: tuple[str, ...]
    replace: tuple[str, ...]

    def quote(self) -> str:
        return "\n".join([SEARCH, *self.search, DIVIDER, *self.replace, REPLACE])


def strip_comment(line: str) -> str:
    """``line`` without its comments; a ``#`` inside a string or character constant is kept
    (``asmtext``'s lexer, the one the build and the analysis use)."""
    return strip_comments(line)


def significant(line: str) -> str:
    """The matching key of a line: no comment, single spaces; '' when it doesn't count."""
    text = " ".join(strip_comment(line).split())
    return "" if not text or _NOISE.match(text) else text


def has_edit_blocks(text: str) -> bool:
    return any(_OPEN.match(line) for line in text.splitlines())


def parse_blocks(text: str) -> list[EditBlock]:
    """Every SEARCH/REPLACE block in ``text``, in order; DiffError on a broken one."""
    blocks: list[EditBlock] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not _OPEN.match(lines[i]):
            i += 1
            continue
        n = len(blocks) + 1
        start = i + 1
        mid = next((k for k in range(start, len(lines)) if _MID.match(lines[k])), None)
        if mid is None:
            raise DiffError(f"block {n} has no '{DIVIDER}' line after its '{SEARCH}' line")
        end = next((k for k in range(mid + 1, len(lines)) if _CLOSE.match(lines[k])), None)
        if end is None:
            raise DiffError(f"block {n} has no '{REPLACE}' line")
        blocks.append(EditBlock(n, tuple(lines[start:mid]), tuple(lines[mid + 1 : end])))
        i = end + 1
    return blocks


Unseen = Collection[tuple[int, int]]  # (label line, last line), 1-based: bodies not shown


def apply_blocks(program: str, blocks: list[EditBlock], unseen: Unseen = ()) -> str:
    """``program`` with every block applied in order (DiffError names the failing one).
    ``unseen``: the line spans of function bodies the prompt elided; a block that matches
    several places, exactly one of them outside those bodies, applies there (the model
    could not see the others). Spans refer to ``program`` as given."""
    lines = program.splitlines()
    drop_cfi = False
    spans = list(unseen)
    for block in blocks:
        before = len(lines)
        lines, crossed, last = _apply_one(lines, block, len(blocks), spans)
        delta = len(lines) - before  # spans after the edit move with it
        spans = [(lo + delta, hi + delta) if lo > last + 1 else (lo, hi) for lo, hi in spans]
        drop_cfi = drop_cfi or crossed
    if drop_cfi:
        lines = [ln for ln in lines if not _CFI.match(ln)]
    return "\n".join(lines) + "\n"


def literal(line: str) -> str:
    """A line as written, for literal matching: no comment, single spaces ('' when blank).
    Unlike ``significant``, ``.cfi_*`` / ``.file`` / ``.loc`` / ``.ident`` lines count."""
    return " ".join(strip_comment(line).split())


def _find(
    lines: list[str], search: tuple[str, ...], key
) -> tuple[list[int], list[tuple[int, str]]]:
    """Where the SEARCH lines' keys (``key`` of each, blanks skipped) occur in ``lines``:
    the start of each hit among the program's keyed lines, and those keyed lines."""
    keys = [k for k in (key(s) for s in search) if k]
    sig = [(k, s) for k, s in ((k, key(line)) for k, line in enumerate(lines)) if s]
    texts = [s for _, s in sig]
    if not keys:
        return [], sig
    return [j for j in range(len(texts) - len(keys) + 1) if texts[j : j + len(keys)] == keys], sig


def _apply_one(
    lines: list[str], block: EditBlock, total: int, unseen: Unseen = ()
) -> tuple[list[str], bool, int]:
    """Match on significant lines; where that finds nothing unique (a SEARCH part of only
    ``.cfi_*`` / ``.file`` lines, or one the ignored lines tell apart), match the lines as
    written. Either way the match must be unique."""
    keys = [k for k in (significant(s) for s in block.search) if k]
    lits = [k for k in (literal(s) for s in block.search) if k]
    where = f"block {block.index} of {total}"
    if not lits:
        raise DiffError(f"{where}: its SEARCH part has no instruction or directive to find")
    hits, sig = _find(lines, block.search, significant)
    n = len(lits)
    if len(hits) == 1:
        n = len(keys)
    else:
        literal_hits, literal_sig = _find(lines, block.search, literal)
        if len(literal_hits) == 1 or not keys:
            hits, sig = literal_hits, literal_sig
        else:
            n = len(keys)
        seen = [j for j in hits if not any(lo < sig[j][0] + 1 <= hi for lo, hi in unseen)]
        if len(hits) > 1 and len(seen) == 1:
            hits = seen
    if not hits:
        texts = [s for _, s in sig]
        raise DiffError(
            f"{where}: its SEARCH lines match nothing in the program{_near(texts, keys or lits)}"
        )
    if len(hits) > 1:
        raise DiffError(
            f"{where}: its SEARCH lines match {len(hits)} places; add neighbouring lines "
            "to make it unique"
        )
    first, last = sig[hits[0]][0], sig[hits[0] + n - 1][0]
    crossed = any(_CFI.match(ln) for ln in lines[first : last + 1])
    return lines[:first] + list(block.replace) + lines[last + 1 :], crossed, last


def _near(texts: list[str], keys: list[str]) -> str:
    """Which SEARCH line first fails to match where the block's first line does."""
    starts = [j for j, t in enumerate(texts) if t == keys[0]]
    if not starts:
        return f" (its first line {keys[0]!r} is not in the program)"
    best = 0
    for j in starts:
        n = 0
        while n < len(keys) and j + n < len(texts) and texts[j + n] == keys[n]:
            n += 1
        best = max(best, n)
    return f" (lines 1-{best} match, then {keys[best]!r} differs from the program)"


def apply_diff(program: str, answer: str, unseen: Unseen = ()) -> str:
    """Parse and apply the blocks in ``answer``; DiffError when there are none or one fails."""
    blocks = parse_blocks(answer)
    if not blocks:
        raise DiffError(f"no '{SEARCH}' ... '{REPLACE}' block in the answer")
    try:
        return apply_blocks(program, blocks, unseen)
    except DiffError as e:
        failing = _failing(blocks, str(e))
        raise DiffError(f"{e}\n{failing.quote()}" if failing else str(e)) from None


def _failing(blocks: list[EditBlock], message: str) -> EditBlock | None:
    m = re.match(r"block (\d+) of", message)
    return blocks[int(m.group(1)) - 1] if m else None


# --- elided functions -------------------------------------------------------------


def elision_marker(function: str, lines: int) -> str:
    return (
        f"\t# supercoder: body of {function} elided ({lines} lines); "
        "it must stay unchanged: keep this line and the label above it"
    )


def elided_in(messages: Collection[dict[str, str]]) -> tuple[str, ...]:
    """The functions whose bodies the prompt's messages elided (their marker lines)."""
    found = (m.group(1) for msg in messages for m in _MARKER.finditer(msg.get("content", "")))
    return tuple(dict.fromkeys(found))


def expand_elisions(answer: str, originals: dict[str, list[str]]) -> str:
    """Put back the original body of each elided function whose marker the answer kept."""
    out: list[str] = []
    for line in answer.splitlines():
        m = _MARKER.search(line)
        if m and m.group(1) in originals and not strip_comment(line).strip():
            out.extend(originals[m.group(1)])
        else:
            out.append(line)
    return "\n".join(out) + "\n"


# --- producing diffs (SFT targets, token accounting) ------------------------------


def make_diff(base: str, program: str, context: int = 2) -> str:
    """SEARCH/REPLACE blocks that turn ``base`` into ``program`` (checked by applying)."""
    a, b = base.splitlines(), program.splitlines()
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    changes = [op[1:] for op in ops if op[0] != "equal"]
    blocks: list[str] = []
    k = 0
    while k < len(changes):
        i1, _, j1, _ = changes[k]
        m = k
        lo, hi = _unique_span(a, i1, changes[m][1], context)
        while m + 1 < len(changes) and changes[m + 1][0] <= hi:
            m += 1
            lo, hi = _unique_span(a, i1, changes[m][1], context)
        i2, j2 = changes[m][1], changes[m][3]
        replace = a[lo:i1] + b[j1:j2] + a[i2:hi]
        blocks.append("\n".join([SEARCH, *a[lo:hi], DIVIDER, *replace, REPLACE]))
        k = m + 1
    text = "\n\n".join(blocks) + ("\n" if blocks else "")
    if blocks and significant_text(apply_diff(base, text)) != significant_text(program):
        raise DiffError("the produced diff does not reproduce the program")
    return text


def _unique_span(a: list[str], i1: int, i2: int, context: int) -> tuple[int, int]:
    """Lines [lo, hi) around a change whose significant lines occur once in ``a``."""
    lo, hi = max(0, i1 - context), min(len(a), i2 + context)
    keys_all = [significant(x) for x in a]
    while True:
        keys = [k for k in keys_all[lo:hi] if k]
        if keys and _count(keys_all, keys) == 1:
            return lo, hi
        if lo == 0 and hi == len(a):
            return lo, hi
        lo, hi = max(0, lo - 1), min(len(a), hi + 1)


def _count(keys_all: list[str], keys: list[str]) -> int:
    texts = [k for k in keys_all if k]
    return sum(texts[j : j + len(keys)] == keys for j in range(len(texts) - len(keys) + 1))


def significant_text(program: str) -> str:
    return "\n".join(k for k in (significant(x) for x in program.splitlines()) if k)
