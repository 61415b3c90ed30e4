"""Model-shaped diff answers: SEARCH/REPLACE blocks copied from the listing a prompt shows.

A model answering with edit blocks copies lines as it sees them: with ``--context full``
that includes ``.cfi_*`` and ``.file`` lines, with ``--context hot`` the ``# 12.3%``
annotations. ``model_shaped_diff(shown, seed)`` writes such an answer: a few blocks,
each a window of consecutive lines of ``shown`` copied as written (never an elision
marker), grown until it occurs once in ``shown`` (a model copies enough to be
unambiguous *in what it sees*), replaced by the same lines (the program is unchanged:
only whether the blocks apply is measured). Some blocks are only ignorable lines
(``.cfi_*``, ``.file``) when the listing has such lines. ``apply_rate`` runs answers
through the real ``resolve_answer``. ``benchmarks/diff_apply.py`` reports the rates.
"""

from __future__ import annotations

import random

from supercoder.prompting.diffedit import DIVIDER, REPLACE, SEARCH, literal, significant

MARKER = "supercoder: body of"


def shown_listing(prompt: str) -> str:
    """The assembly listing a prompt shows (its ```assembly block)."""
    from supercoder.prompting.prompts import fenced_blocks

    return next(b.body for b in fenced_blocks(prompt) if b.lang == "assembly")


def _unique(keys: list[str], window: list[str]) -> bool:
    want = [k for k in window if k]
    if not want:
        return False
    texts = [k for k in keys if k]
    return sum(texts[j : j + len(want)] == want for j in range(len(texts) - len(want) + 1)) == 1


def model_shaped_diff(shown: str, seed: int, blocks: int = 4) -> str:
    """An answer of up to ``blocks`` edit blocks copied from ``shown`` (module docstring)."""
    rng = random.Random(seed)
    lines = shown.splitlines()
    keys = [literal(line) for line in lines]
    usable = [k for k, line in enumerate(lines) if keys[k] and MARKER not in line]
    ignorable = [k for k in usable if not significant(lines[k])]
    taken: set[int] = set()
    out: list[str] = []
    for b in range(blocks * 4):
        if len(out) == blocks or not usable:
            break
        pool = ignorable if (b % 2 == 0 and ignorable) else usable
        start = rng.choice(pool)
        end = start + (1 if pool is ignorable else rng.randint(1, 5))
        while end <= len(lines) and not _unique(keys, keys[start:end]):
            end += 1
        window = range(start, min(end, len(lines)))
        if end > len(lines) or taken & set(window) or any(MARKER in lines[k] for k in window):
            continue
        taken |= set(range(start - 1, end + 1))  # blocks neither overlap nor touch
        copied = lines[start:end]
        out.append("\n".join([SEARCH, *copied, DIVIDER, *copied, REPLACE]))
    return "I will make these changes.\n\n" + "\n\n".join(out) + "\n"


def apply_rate(shown: str, baseline: str, seeds: range) -> tuple[float, list[str]]:
    """% of model-shaped answers (one per seed) that apply to ``baseline``, and the
    errors of those that do not (resolved as ``solve`` does: knowing what was elided)."""
    from supercoder.prompting.answers import resolve_answer
    from supercoder.prompting.diffedit import elided_in

    errors = []
    elided = elided_in([{"content": shown}])
    for seed in seeds:
        resolved = resolve_answer(model_shaped_diff(shown, seed), baseline, elided)
        if resolved.kind != "diff" or resolved.error or resolved.asm is None:
            errors.append(resolved.error or f"resolved as {resolved.kind}")
    return 100.0 * (len(seeds) - len(errors)) / max(len(seeds), 1), errors
