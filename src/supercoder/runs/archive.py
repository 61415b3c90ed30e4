"""Where the evolutionary search keeps its programs: in memory, or in its own store tables.

An ``Archive`` keeps a problem's programs (``runs/programs.py``'s ``Program``) and their
re-measurements, so a resumed search replays them instead of asking or measuring again.
``MemoryArchive`` keeps them for one call (the Python API without a store);
``StoredArchive`` keeps them in the run store, in tables evolve owns and declares here
(``PROGRAM_TABLES``: ``programs``, ``program_measures``; ``runs/tables.py`` says how a
strategy's tables are applied). The store knows nothing of them: ``StoredArchive.of``
asks a run's journal (``KeepsTables``) or a store for them. A store written before evolve
owned its tables (store schema 4 made the same two) reads as it is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from supercoder.codec import decode, encode
from supercoder.runs.programs import Features, Program
from supercoder.runs.store import Store, capped
from supercoder.runs.tables import KeepsTables, RunTables, Tables
from supercoder.toolchain.gcc import asm_digest
from supercoder.types import Verdict

if TYPE_CHECKING:
    import sqlite3

# evolve's tables: every distinct program with its parents, the model, prompt kind and
# tokens that made it, verdict, speedup and CI, features; and its re-measurements. Version
# 1 is what store schema 4 made, so the tables of a store from then are adopted as they are.
PROGRAM_TABLES = Tables(
    owner="evolve",
    tables=("programs", "program_measures"),
    migrations={
        1: """
CREATE TABLE IF NOT EXISTS programs (
  run TEXT NOT NULL, problem TEXT NOT NULL, id INTEGER NOT NULL, parents TEXT NOT NULL,
  island INTEGER NOT NULL, generation INTEGER NOT NULL, slot INTEGER NOT NULL,
  kind TEXT NOT NULL, model TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
  cost_usd REAL, status TEXT NOT NULL, correct INTEGER NOT NULL, speedup REAL,
  speedup_low REAL, speedup_high REAL, verdict TEXT NOT NULL, features TEXT NOT NULL,
  digest TEXT NOT NULL, asm TEXT NOT NULL, edit TEXT, created REAL NOT NULL,
  PRIMARY KEY (run, problem, id)
);
CREATE TABLE IF NOT EXISTS program_measures (
  run TEXT NOT NULL, problem TEXT NOT NULL, program INTEGER NOT NULL,
  generation INTEGER NOT NULL, speedup REAL, speedup_low REAL, speedup_high REAL,
  verdict TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (run, problem, program, generation)
);
"""
    },
)


@runtime_checkable
class Archive(Protocol):
    """Where a problem's programs and measurements are kept."""

    def programs(self, problem: str) -> list[Program]: ...

    def add_program(self, problem: str, program: Program) -> None: ...

    def measures(self, problem: str) -> dict[tuple[int, int], Verdict]: ...

    def add_measure(
        self, problem: str, program: int, generation: int, verdict: Verdict
    ) -> None: ...


@dataclass
class MemoryArchive:
    """An ``Archive`` in memory (the Python API without a store)."""

    kept: dict[str, dict[int, Program]] = field(default_factory=dict)
    measured: dict[str, dict[tuple[int, int], Verdict]] = field(default_factory=dict)

    def programs(self, problem: str) -> list[Program]:
        return sorted(self.kept.get(problem, {}).values(), key=lambda p: p.id)

    def add_program(self, problem: str, program: Program) -> None:
        self.kept.setdefault(problem, {})[program.id] = program

    def measures(self, problem: str) -> dict[tuple[int, int], Verdict]:
        return dict(self.measured.get(problem, {}))

    def add_measure(self, problem: str, program: int, generation: int, verdict: Verdict) -> None:
        self.measured.setdefault(problem, {})[(program, generation)] = verdict


@dataclass(frozen=True)
class StoredArchive:
    """An ``Archive`` in one run's rows of evolve's tables (``PROGRAM_TABLES``).

    Fields:
        tables: the run's view of them (``Store.tables``, ``KeepsTables.tables``).
    """

    tables: RunTables

    @classmethod
    def of(cls, journal: object) -> StoredArchive | None:
        """The archive of a journal that keeps tables (the run store's), else None."""
        if isinstance(journal, KeepsTables):
            return cls(journal.tables(PROGRAM_TABLES))
        return None

    @classmethod
    def in_store(cls, store: Store, run: str) -> StoredArchive:
        """A stored run's archive (the report, the training trace: a read-only store)."""
        return cls(store.tables(PROGRAM_TABLES, run))

    def problems(self) -> list[str]:
        """The problems the run kept programs of, by name."""
        rows = self.tables.read(
            "SELECT DISTINCT problem FROM programs WHERE run = ? ORDER BY problem",
            (self.tables.run,),
        )
        return [r["problem"] for r in rows]

    def programs(self, problem: str) -> list[Program]:
        """A problem's programs, by id."""
        rows = self.tables.read(
            "SELECT * FROM programs WHERE run = ? AND problem = ? ORDER BY id",
            (self.tables.run, problem),
        )
        return [_program_from_row(r) for r in rows]

    def add_program(self, problem: str, program: Program) -> None:
        v = program.verdict
        sp = v.speedup
        self.tables.write(
            "INSERT OR IGNORE INTO programs VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.tables.run,
                problem,
                program.id,
                json.dumps(list(program.parents)),
                program.island,
                program.generation,
                program.slot,
                program.kind,
                program.model,
                program.prompt_tokens,
                program.completion_tokens,
                program.cost_usd,
                v.status.value,
                int(v.correct),
                sp.value if sp else None,
                sp.low if sp else None,
                sp.high if sp else None,
                json.dumps(v.to_json(), default=str),
                json.dumps(encode(program.features)),
                program.digest,
                program.asm,
                capped(program.edit),
                time.time(),
            ),
        )

    def measures(self, problem: str) -> dict[tuple[int, int], Verdict]:
        rows = self.tables.read(
            "SELECT program, generation, verdict FROM program_measures WHERE run = ? AND problem = ?",
            (self.tables.run, problem),
        )
        return {
            (r["program"], r["generation"]): Verdict.from_json(json.loads(r["verdict"]))
            for r in rows
        }

    def add_measure(self, problem: str, program: int, generation: int, verdict: Verdict) -> None:
        sp = verdict.speedup
        self.tables.write(
            "INSERT OR REPLACE INTO program_measures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.tables.run,
                problem,
                program,
                generation,
                sp.value if sp else None,
                sp.low if sp else None,
                sp.high if sp else None,
                json.dumps(verdict.to_json(), default=str),
                time.time(),
            ),
        )


def _program_from_row(r: sqlite3.Row) -> Program:
    return Program(
        id=r["id"],
        asm=r["asm"],
        # the exact text's digest, whatever a store from before computed (a normalized one)
        digest=asm_digest(r["asm"]),
        parents=tuple(json.loads(r["parents"])),
        island=r["island"],
        generation=r["generation"],
        slot=r["slot"],
        kind=r["kind"],
        model=r["model"],
        verdict=Verdict.from_json(json.loads(r["verdict"])),
        features=decode(Features, json.loads(r["features"])),
        prompt_tokens=r["prompt_tokens"] or 0,
        completion_tokens=r["completion_tokens"] or 0,
        cost_usd=r["cost_usd"] or 0.0,
        edit=r["edit"],
    )


__all__ = ["PROGRAM_TABLES", "Archive", "MemoryArchive", "StoredArchive"]
