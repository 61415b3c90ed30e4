"""A strategy's own tables in the run store: the strategy declares them, the store applies them.

The run store (``runs/store.py``) holds what every run has (runs, attempts, problems,
baselines) and knows no strategy's tables. A strategy that keeps more (evolve: its
program database) declares its tables as a ``Tables`` value in its own module: an
``owner`` name, the ``tables`` it owns and numbered ``migrations`` (``{1: SQL, 2: SQL}``:
the SQL that brings its tables from the version before to that one). Given one
(``Store.tables(schema, run)``, or ``journal.tables(schema)`` from inside a search: a
journal that keeps tables is a ``KeepsTables``), the store applies the migrations the
file lacks, under its migration lock, records the owner's version in its
``strategy_tables`` table, and hands back ``RunTables``: reads and writes of one run's
rows. A store opened read-only (the report) is never migrated: its reads of tables the
file does not hold yet give no rows. A file whose owner version is newer than the
strategy declares is refused (a one-line ``UserError``).

Migration 1 of a strategy uses ``CREATE TABLE IF NOT EXISTS``: a store may already hold
the tables from before their owner kept them (evolve's, made by store schema 4).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Tables:
    """A strategy's own tables: what it declares, what the store applies.

    Fields:
        owner: who owns them (the strategy's name: one version per owner per file).
        tables: the names of the tables it owns (a read of a file that lacks one gives
            no rows).
        migrations: version -> the SQL that brings the tables from the version before to
            it (from 1, consecutive; 1 creates them with ``IF NOT EXISTS``).
    """

    owner: str
    tables: tuple[str, ...]
    migrations: Mapping[int, str]

    def __post_init__(self) -> None:
        if sorted(self.migrations) != list(range(1, len(self.migrations) + 1)):
            raise ValueError(f"{self.owner}: migrations must be numbered 1, 2, ... in order")
        object.__setattr__(self, "migrations", MappingProxyType(dict(self.migrations)))

    @property
    def version(self) -> int:
        """The version the migrations reach (the newest this strategy writes)."""
        return len(self.migrations)


Read = Callable[[str, Sequence[Any]], list[sqlite3.Row]]
Write = Callable[[str, Sequence[Any]], None]


@dataclass(frozen=True)
class RunTables:
    """One run's view of a strategy's tables in a store (``Store.tables``).

    Fields:
        schema: the tables (``Tables``).
        run: the run whose rows a strategy reads and writes (its SQL names it: ``run = ?``).
        ready: the file holds every table of ``schema`` (False: a read-only store from
            before the strategy kept them; its reads give no rows).
        reader: runs a query on the store (under its lock).
        writer: runs a statement and commits (under its lock).
    """

    schema: Tables
    run: str
    ready: bool
    reader: Read
    writer: Write

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows of a query of these tables (none where the file does not hold them)."""
        return self.reader(sql, args) if self.ready else []

    def write(self, sql: str, args: Sequence[Any]) -> None:
        """One statement, committed."""
        self.writer(sql, args)


@runtime_checkable
class KeepsTables(Protocol):
    """A journal that keeps a strategy's own tables (the run store's ``RunJournal``); a
    journal without them (``NoJournal``, a library call) keeps only attempts."""

    def tables(self, schema: Tables) -> RunTables: ...


__all__ = ["KeepsTables", "RunTables", "Tables"]
