"""A strategy keeps its own tables: it declares them (``runs/tables.py`` ``Tables``), the
run store applies them and knows none of them itself; stores of every earlier schema
(evolve's tables made by store schema 4, none before it) still read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.runs.archive import StoredArchive
from supercoder.runs.programs import baseline_program
from supercoder.runs.store import SCHEMA, SCHEMA_VERSION, RunJournal, Store
from supercoder.runs.tables import KeepsTables, Tables
from supercoder.types import Speedup, Status, Verdict

ASM = "\t.text\n\t.globl main\nmain:\n\txorl %eax, %eax\n\tret\n"

# What supercoder wrote up to store schema 4, word for word (its migrations 2-4): the
# store itself made evolve's tables then.
OLD_MIGRATIONS = {
    2: "CREATE INDEX IF NOT EXISTS attempts_problem ON attempts (run, problem, status);",
    3: "CREATE TABLE IF NOT EXISTS baselines (digest TEXT PRIMARY KEY, asm TEXT NOT NULL);",
    4: """
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
""",
}


def old_store(path: Path, schema: int) -> Path:
    """A store as the code of ``schema`` wrote it, with one run (and, from 4, one evolve
    program and one re-measurement, the rows as it wrote them)."""
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
        for version in range(2, schema + 1):
            db.executescript(OLD_MIGRATIONS[version])
        db.execute(
            "INSERT INTO runs (name, model, benchmark, options, started, context) "
            "VALUES ('evo', 'openai:m', 'val', '{\"strategy\": \"evolve\"}', 1.0, '{}')"
        )
        if schema >= 4:
            fast = Verdict("p", Status.OK, speedup=Speedup(1.8, 1.6, 2.0, 10, 2))
            db.execute(
                "INSERT INTO programs VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ("evo", "p", 1, "[0]", 0, 0, 1, "improve", "openai:m", 120, 80, 0.01, "ok", 1)
                + (1.8, 1.6, 2.0, json.dumps(fast.to_json()), '{"instructions": 5}')
                + ("an old normalized digest", ASM, "SEARCH...", 1.0),
            )
            db.execute(
                "INSERT INTO program_measures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ("evo", "p", 1, 3, 1.7, 1.5, 1.9, json.dumps(fast.to_json()), 2.0),
            )
        db.execute(f"PRAGMA user_version = {schema}")
    return path


def tables_of(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_the_store_makes_no_strategy_table_itself(tmp_path):
    db = tmp_path / "new.sqlite"
    Store(db).close()
    assert {"runs", "attempts", "problems", "baselines", "strategy_tables"} <= tables_of(db)
    assert not {"programs", "program_measures"} & tables_of(db)


def test_an_evolve_store_written_by_schema_4_reads_as_it_is_and_is_adopted(tmp_path):
    db = old_store(tmp_path / "v4.sqlite", 4)
    before = db.read_bytes()
    store = Store(db, read_only=True)  # the report: read as it is, never migrated
    archive = StoredArchive.in_store(store, "evo")
    assert archive.problems() == ["p"]
    (program,) = archive.programs("p")
    assert (program.kind, program.parents, program.tokens) == ("improve", (0,), 200)
    assert program.features.instructions == 5 and program.verdict.speedup.value == 1.8
    assert program.digest != "an old normalized digest"  # the exact text's digest
    assert archive.measures("p")[(1, 3)].speedup.value == 1.8
    store.close()
    assert db.read_bytes() == before

    store = Store(db)  # a writable open migrates the store; evolve's tables are adopted
    journal = RunJournal(store, "evo")
    assert isinstance(journal, KeepsTables)
    archive = StoredArchive.of(journal)
    assert archive is not None and [p.id for p in archive.programs("p")] == [1]
    archive.add_program("p", baseline_program("p", ASM))
    assert [p.id for p in archive.programs("p")] == [0, 1]
    store.close()
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("SELECT * FROM strategy_tables").fetchall() == [("evolve", 1)]


@pytest.mark.parametrize("schema", [0, 1, 2, 3])
def test_a_store_from_before_evolve_reads_with_no_programs_and_gets_them_when_kept(
    tmp_path, schema
):
    db = old_store(tmp_path / f"v{schema}.sqlite", max(schema, 1))
    if schema == 0:  # before versioning
        with sqlite3.connect(db) as raw:
            raw.execute("PRAGMA user_version = 0")
    store = Store(db, read_only=True)
    archive = StoredArchive.in_store(store, "evo")
    assert archive.problems() == [] and archive.programs("p") == [] and not archive.measures("p")
    assert [r.name for r in store.runs()] == ["evo"]
    store.close()
    assert "programs" not in tables_of(db)

    store = Store(db)
    archive = StoredArchive.in_store(store, "evo")
    archive.add_program("p", baseline_program("p", ASM))
    assert [p.kind for p in archive.programs("p")] == ["baseline"]
    store.close()
    assert {"programs", "program_measures"} <= tables_of(db)


def test_a_strategys_migrations_are_applied_once_in_order_and_a_newer_file_is_refused(tmp_path):
    v1 = Tables("toy", ("toy_notes",), {1: "CREATE TABLE IF NOT EXISTS toy_notes (run, note)"})
    v2 = Tables(
        "toy", ("toy_notes",), {**v1.migrations, 2: "ALTER TABLE toy_notes ADD COLUMN score"}
    )
    db = tmp_path / "s.sqlite"
    store = Store(db)
    notes = store.tables(v1, "r")
    notes.write("INSERT INTO toy_notes VALUES (?, ?)", ("r", "kept"))
    store.close()
    for _ in range(2):  # a second open applies nothing again (ALTER twice would fail)
        store = Store(db)
        notes = store.tables(v2, "r")
        assert [tuple(r) for r in notes.read("SELECT * FROM toy_notes")] == [("r", "kept", None)]
        store.close()
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT * FROM strategy_tables").fetchall() == [("toy", 2)]
    for read_only in (False, True):
        store = Store(db, read_only=read_only)
        with pytest.raises(UserError, match="toy tables were written by a newer supercoder"):
            store.tables(v1, "r")
        store.close()


def test_a_strategys_migrations_are_numbered_from_one():
    with pytest.raises(ValueError, match="numbered 1, 2"):
        Tables("toy", ("t",), {2: "CREATE TABLE t (x)"})
