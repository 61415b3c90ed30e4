"""Traces of the evolutionary search for training: parent -> improved child.

``trace_pairs(db, run)`` reads a stored ``--strategy evolve`` run's program database and
keeps every child that is correct and *significantly* faster than its (first) parent
(``programs.faster_than``: the ratio's CI above the practical band), with the parent.

- ``sft_records``: conversational prompt/completion rows, the prompt being the one the
  search showed (``prompting/parent_prompts.evolve_messages``: the parent and its speedup), the
  completion the model's answer (its SEARCH/REPLACE blocks, or the program in an
  ```assembly fence); ``train sft --examples FILE`` trains on them.
- ``grpo_prompts``: one row per parent that was improved, with its ``problem`` column
  (the reward verifies against that problem's tests, speedup vs gcc -O3) and the parent
  id and speedup; ``train grpo --prompts FILE`` trains on them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.errors import UserError, parse_json
from supercoder.paths import atomic_write_text, default_store
from supercoder.prompting.diffedit import has_edit_blocks
from supercoder.prompting.parent_prompts import Parent, evolve_messages
from supercoder.prompting.prompts import fence
from supercoder.runs.archive import StoredArchive
from supercoder.runs.programs import SEED_KIND, Program, faster_than
from supercoder.runs.store import Store
from supercoder.types import Problem, Speedup
from supercoder.verify.reward import BASELINE_SPEEDUP, credited_speedup


@dataclass(frozen=True)
class TracePair:
    """A child significantly faster than its parent (both vs gcc -O3)."""

    problem: str
    parent: Program
    child: Program

    @property
    def parent_speedup(self) -> Speedup:
        return _speedup(self.parent)

    @property
    def child_speedup(self) -> Speedup:
        return _speedup(self.child)


def _speedup(p: Program) -> Speedup:
    """What the program is credited with (``verify.reward.credited_speedup``)."""
    return credited_speedup(p.verdict) or BASELINE_SPEEDUP


def trace_pairs(db: str | Path | None, run: str) -> list[TracePair]:
    """Every improving parent -> child step of a stored evolve run (see module docstring)."""
    path = Path(db) if db else default_store()
    if not path.is_file():
        raise UserError(f"{path}: no run store here (run supercoder eval first, or pass --db)")
    store = Store(path, read_only=True)
    try:
        if run not in {r.name for r in store.runs()}:
            raise UserError(f"{path}: no run named {run!r}")
        archive = StoredArchive.in_store(store, run)
        by_key = {(name, p.id): p for name in archive.problems() for p in archive.programs(name)}
    finally:
        store.close()
    if not by_key:
        raise UserError(f"run {run!r} has no program database (was it run with --strategy evolve?)")
    pairs = []
    for (problem, _), child in sorted(by_key.items()):
        if not child.parents or not child.correct or child.kind in ("baseline", SEED_KIND):
            continue
        parent = by_key.get((problem, child.parents[0]))
        if parent is None or not parent.correct:
            continue
        if faster_than(_speedup(child), _speedup(parent)):
            pairs.append(TracePair(problem, parent, child))
    return pairs


def _prompt(problem: Problem, pair: TracePair, answer: str) -> list[dict[str, str]]:
    sp = pair.parent_speedup
    shown = Parent(pair.parent.asm, f"{sp.value:.2f}x" if sp.samples else None)
    return evolve_messages(problem, [shown], answer=answer)


def sft_records(pairs: Sequence[TracePair], problems: dict[str, Problem]) -> list[dict[str, Any]]:
    """Prompt/completion rows (conversational) for ``train sft --examples``."""
    rows = []
    for pair in pairs:
        problem = problems.get(pair.problem)
        if problem is None:
            continue
        edit = pair.child.edit or ""
        diff = pair.child.kind == "diff" and has_edit_blocks(edit)
        target = edit if diff else fence(pair.child.asm, "assembly")
        rows.append(
            {
                "prompt": _prompt(problem, pair, "diff" if diff else "whole"),
                "completion": [{"role": "assistant", "content": target}],
                "problem": pair.problem,
                "parent": pair.parent.id,
                "child": pair.child.id,
                "parent_speedup": round(pair.parent_speedup.value, 4),
                "speedup": round(pair.child_speedup.value, 4),
            }
        )
    return rows


def grpo_prompts(pairs: Sequence[TracePair], problems: dict[str, Problem]) -> list[dict[str, Any]]:
    """One prompt per improved parent, with its ``problem`` column, for ``train grpo``."""
    rows, seen = [], set()
    for pair in pairs:
        key = (pair.problem, pair.parent.id)
        problem = problems.get(pair.problem)
        if problem is None or key in seen:
            continue
        seen.add(key)
        rows.append(
            {
                "prompt": _prompt(problem, pair, "whole"),
                "problem": pair.problem,
                "parent": pair.parent.id,
                "parent_speedup": round(pair.parent_speedup.value, 4),
            }
        )
    return rows


def read_rows(path: Path, what: str) -> list[dict[str, Any]]:
    """The JSONL rows of an exported trace (one clear error for a bad file)."""
    try:
        lines = path.read_text().splitlines()
        rows = [parse_json(line, f"line {i}") for i, line in enumerate(lines, 1) if line.strip()]
    except (OSError, ValueError, UserError) as e:
        raise UserError(f"{path}: cannot read {what} ({e})") from e
    if not rows or not all(isinstance(r, dict) and "prompt" in r for r in rows):
        raise UserError(f"{path}: expected JSONL rows with a 'prompt' ({what})")
    return rows


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    atomic_write_text(path, "".join(json.dumps(r) + "\n" for r in rows))
