"""The run store: one SQLite file of eval runs, their attempts and baselines.

It knows no strategy's own tables: a strategy that keeps more than its attempts declares
them (``runs/tables.py`` ``Tables``: evolve's in ``runs/archive.py``) and ``Store.tables``
applies their migrations and records their version per owner (``strategy_tables``).

A run's identity (``runs/identity.py`` ``RunConfig``: model and options) is fixed when it
is opened; a resume
with different ones is refused. Each verified attempt is one row, committed as it
finishes (``RunJournal`` is the strategies' journal over it); each finished problem is
marked. The file carries its schema version (``PRAGMA user_version``) and is migrated
forward on opening (``MIGRATIONS``); a newer file is refused, and ``read_only`` opens a
store as it is (the report). Summaries are recomputed from the stored attempts with
``metrics.summarize`` (``Store.summary``), so they match what ``eval`` printed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.codec import decode, encode
from supercoder.errors import InfraError, UserError, machine_trouble, printable
from supercoder.paths import default_store
from supercoder.runs.identity import RunConfig, RunIdentity
from supercoder.runs.metrics import summarize
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import RunContext, RunSummary
from supercoder.runs.tables import RunTables, Tables
from supercoder.toolchain.gcc import asm_digest
from supercoder.types import Candidate, Origin, Speedup, Status, Verdict, check_format_version

# Seconds to wait for another process's lock on the store: when opening (creating or
# migrating it) and on each write afterwards.
OPEN_WAIT = 10.0
BUSY_WAIT = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  name TEXT PRIMARY KEY, model TEXT NOT NULL, benchmark TEXT NOT NULL,
  options TEXT NOT NULL, started REAL NOT NULL, finished REAL, context TEXT NOT NULL,
  summary TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
  run TEXT NOT NULL, problem TEXT NOT NULL, sample INTEGER NOT NULL, round INTEGER NOT NULL,
  status TEXT NOT NULL, correct INTEGER NOT NULL, speedup REAL, paper_speedup REAL,
  verdict TEXT NOT NULL, asm TEXT, completion TEXT, origin TEXT NOT NULL,
  baseline_digest TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, cost_usd REAL,
  tries INTEGER NOT NULL, gen_seconds REAL, verify_seconds REAL, created REAL NOT NULL,
  PRIMARY KEY (run, problem, sample, round)
);
CREATE TABLE IF NOT EXISTS problems (
  run TEXT NOT NULL, problem TEXT NOT NULL, finished REAL NOT NULL,
  best_sample INTEGER, best_round INTEGER, PRIMARY KEY (run, problem)
);
"""


# Each strategy's own tables (``runs/tables.py``): the version of its migrations applied.
STRATEGY_TABLES = (
    "CREATE TABLE IF NOT EXISTS strategy_tables (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"
)

# The options each eval run was started with, as a TOML run file (``keep_run_file``).
RUN_FILES = "CREATE TABLE IF NOT EXISTS run_files (run TEXT PRIMARY KEY, toml TEXT NOT NULL)"

# The reference pools a run's ``percentile`` reward ranked its answers against, by
# problem (``keep_pools``): the run's summary is recomputed from them, never re-measured.
RUN_POOLS = (
    "CREATE TABLE IF NOT EXISTS run_pools (run TEXT NOT NULL, problem TEXT NOT NULL, "
    "speedups TEXT NOT NULL, PRIMARY KEY (run, problem))"
)

# The store's schema version (PRAGMA user_version). Files from before versioning read 0
# and hold the version-1 tables. A change to the tables bumps SCHEMA_VERSION and adds
# MIGRATIONS[new_version]: the SQL that brings a file from the version before to it.
SCHEMA_VERSION = 5
MIGRATIONS = {
    # 2: reads by problem (the resume and summary queries) use an index
    2: "CREATE INDEX IF NOT EXISTS attempts_problem ON attempts (run, problem, status);",
    # 3: the baseline listings the attempts were compared with (attempts.baseline_digest),
    # so the report reads them from the store instead of rebuilding them
    3: "CREATE TABLE IF NOT EXISTS baselines (digest TEXT PRIMARY KEY, asm TEXT NOT NULL);",
    # 4: made the evolutionary search's tables (``programs``, ``program_measures``); a
    # strategy keeps its own tables now (5), so a file brought from 3 gets none here: the
    # search makes them when it first keeps a program (``runs/archive.py``)
    4: "",
    # 5: strategies own their tables (``runs/tables.py``): each owner's version
    5: STRATEGY_TABLES,
}

# The format of the JSON the store keeps in its rows besides verdicts and summaries (which
# carry their own ``format_version``): a run's ``options`` and ``context`` and an attempt's
# ``origin``. Written as ``format_version`` in ``runs.options`` (never part of a run's
# identity); ``Store.runs()`` gives it as the row's ``format_version``. A change bumps it
# and adds a line here:
#   1: before versioning (no ``format_version``); read as 1.
#   2: ``format_version``; the context names the supercoder version, the date and (per
#      verdict) the meter protocol and noise floor.
#   3: an origin's strategy provenance is one ``provenance`` object with its ``kind``
#      (``evolve``, ``build``, a plugin's), no longer flat keys of the origin.
# An attempt's ``origin`` is ``Origin.to_json()`` and is read by ``Origin.from_json`` (a
# field at its default is left out and reads back as itself; the flat provenance keys of
# versions 1-2 read into their provenance; a key no field names is kept in
# ``Origin.extra``).
JSON_FORMAT_VERSION = 3


@dataclass(frozen=True)
class RunRow:
    """One stored run (``Store.runs()``), its JSON read through the codec.

    Fields:
        name: the run's name.
        model: its model spec.
        benchmark: its problem set.
        options: its identity as stored (``RunIdentity``, from ``RunConfig.identity``:
            what must match to resume; ``format_version`` taken out).
        started: when it was opened (Unix seconds).
        finished: when it finished (None: not finished).
        context: how it was made (``RunContext``).
        format_version: the row's ``JSON_FORMAT_VERSION`` (1: stored before versioning).
    """

    name: str
    model: str
    benchmark: str
    options: RunIdentity
    started: float
    finished: float | None
    context: RunContext
    format_version: int


@dataclass(frozen=True)
class LeaderboardRow:
    """A stored run with its summary recomputed from its stored attempts."""

    run: RunRow
    summary: RunSummary


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """The file opened read-only (``mode=ro``: no write, no WAL switch, no migration); on a
    read-only file system, where SQLite cannot even take its shared-memory lock, as an
    immutable file."""
    if not path.is_file():
        raise FileNotFoundError(2, "no such file", str(path))
    base = path.resolve().as_uri()
    db = sqlite3.connect(f"{base}?mode=ro", uri=True, check_same_thread=False, timeout=OPEN_WAIT)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        db.close()
        if os.access(path.parent, os.W_OK):
            raise
    return sqlite3.connect(
        f"{base}?mode=ro&immutable=1", uri=True, check_same_thread=False, timeout=OPEN_WAIT
    )


def store_error(path: Path, e: BaseException) -> UserError | InfraError:
    """The one-line error for a store that cannot be used: machine trouble (locked by
    another process, full disk, I/O error) exits 3, a file that is not a store exits 2."""
    text = str(e)
    where = printable(path, newlines=False)
    if "locked" in text or "busy" in text:
        return InfraError(
            f"{where}: the run store is locked by another process (waited {OPEN_WAIT:g} s; "
            "another eval or sqlite3 session holds it): wait for it to finish and rerun"
        )
    trouble = machine_trouble(e) or (
        "No space left on device"
        if "full" in text
        else "Input/output error"
        if "I/O" in text
        else None
    )
    if trouble:
        return InfraError(
            f"{where}: the run store cannot be written ({trouble}): machine trouble, not a "
            "problem with the file; free some space and rerun (finished work is kept)"
        )
    if isinstance(e, FileNotFoundError):
        return UserError(f"{where}: no run store there (run supercoder eval first, or pass --db)")
    return UserError(
        f"{where}: cannot use this file as the run store ({printable(e, newlines=False)}); "
        "pass another --db (a supercoder SQLite file, or a new path)"
    )


class Store:
    """The SQLite file of eval runs (thread-safe; one commit per write)."""

    def __init__(self, path: str | Path | None = None, read_only: bool = False) -> None:
        """``path`` None: the default store (``default_store()``). ``read_only`` (report,
        leaderboard, analyze): an existing store read as it is, never migrated nor
        switched to WAL, also on a read-only file system. A file that is not a run store
        is refused before anything is written to it (it stays byte-identical)."""
        self.path = Path(path) if path is not None else default_store()
        self.read_only = read_only
        self._lock = threading.Lock()
        self._owned: dict[str, bool] = {}  # owner -> its tables are there (``tables``)
        try:
            if self.path.is_dir():
                raise IsADirectoryError(21, "is a folder, expected an SQLite file")
            if self.path.is_file() and self.path.stat().st_size:
                self._identify()  # a foreign file is refused before SQLite touches it
            if read_only:
                self._db = _connect_read_only(self.path)
                self._version()
                self._check_ours()
                if not self._db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall():
                    self._db.close()
                    raise UserError(
                        f"{printable(self.path, newlines=False)}: no eval runs yet (an empty "
                        "file; run supercoder eval first, or pass another --db)"
                    )
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=OPEN_WAIT)
                self._version()
                self._check_ours()
                self._db.execute("PRAGMA journal_mode=WAL")
                self._migrate()
                self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_WAIT * 1000)}")
            self._db.row_factory = sqlite3.Row
            self._db.execute("SELECT name, model, options, context FROM runs LIMIT 1").fetchall()
        except (sqlite3.DatabaseError, OSError) as e:
            with contextlib.suppress(Exception):
                self._db.close()
            raise store_error(self.path, e) from e

    def _identify(self) -> None:
        """Read the file as it is (immutable: no lock, no ``-wal``/``-shm`` made beside
        it) and refuse it if it is not a run store or is newer than this supercoder."""
        uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            self._version()
            self._check_ours()
        finally:
            self._db.close()

    def _check_ours(self) -> None:
        """Refuse a file that holds tables but not ours (an unrelated SQLite file)."""
        tables = {
            r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not tables:
            return
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(runs)")}
        if not {"name", "model", "options", "context"} <= cols:
            shown = ", ".join(sorted(tables)[:5])
            raise sqlite3.DatabaseError(
                f"an SQLite file of other tables ({shown}), not a supercoder run store; "
                "it was left as it is"
            )

    def _version(self) -> int:
        """The file's schema version; a newer file than this supercoder reads is refused."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"written by a newer supercoder (store schema {version}, this one reads up to "
                f"{SCHEMA_VERSION}): upgrade supercoder"
            )
        return version

    def _migrate(self) -> None:
        """Bring the file to SCHEMA_VERSION (PRAGMA user_version); refuse newer files.
        One process at a time (a lock file beside the store): two evals starting on one
        new store must not both create or migrate it."""
        with self._migration_lock():
            self._migrate_locked()

    @contextlib.contextmanager
    def _migration_lock(self) -> Iterator[None]:
        """One process at a time creates or migrates the file (a lock file beside it)."""
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _migrate_locked(self) -> None:
        version = self._version()
        self._db.executescript(SCHEMA)  # version 0 (new file or before versioning) -> 1
        for target in range(max(version, 1) + 1, SCHEMA_VERSION + 1):
            self._db.executescript(MIGRATIONS[target])
        if version != SCHEMA_VERSION:
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: Sequence[Any]) -> None:
        with self._lock:
            self._db.execute(sql, args)
            self._db.commit()

    def _insert(self, sql: str, args: Sequence[Any]) -> bool:
        """Run an INSERT OR IGNORE; True when it added the row."""
        with self._lock:
            cursor = self._db.execute(sql, args)
            self._db.commit()
            return cursor.rowcount > 0

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def check_run_name(self, name: str) -> None:
        """Refuse a name that cannot name a run (UserError, one line saying why)."""
        if printable(name, newlines=False) == name and name.strip():
            return
        what = (
            "bytes that are not UTF-8 text"
            if re.search(r"[\ud800-\udfff]", name)
            else "control characters (a newline, ESC, ...) or an empty name"
        )
        raise UserError(
            f"run name {printable(name, newlines=False)!r}: {what} cannot name a run; "
            "pick another --run"
        )

    def open_run(self, run_config: RunConfig, context: RunContext | Mapping[str, object]) -> bool:
        """Create the run, or check that it may be resumed; True when resuming. ``context``
        (how the run is made) is stored as given: a mapping as its keys, a ``RunContext``
        as the codec writes it."""
        name, identity = run_config.run_name, encode(run_config.identity())
        assert isinstance(identity, dict)
        self.check_run_name(name)
        rows = self._read("SELECT model, options FROM runs WHERE name = ?", (name,))
        if not rows:  # another eval may create it at the same moment: then resume it
            created = self._insert(
                "INSERT OR IGNORE INTO runs (name, model, benchmark, options, started, context) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    name,
                    run_config.model,
                    run_config.benchmark,
                    json.dumps({**identity, "format_version": JSON_FORMAT_VERSION}),
                    time.time(),
                    json.dumps(
                        encode(context) if isinstance(context, RunContext) else dict(context),
                        default=str,
                    ),
                ),
            )
            if created:
                return False
            rows = self._read("SELECT model, options FROM runs WHERE name = ?", (name,))
        stored = {"model": rows[0]["model"], **json.loads(rows[0]["options"])}
        wanted = {"model": run_config.model, **identity}
        diff = [
            f"{k}: stored {stored.get(k)!r}, now {wanted[k]!r}"
            for k in wanted
            if _same(stored.get(k)) != _same(wanted[k])  # nan is nan here
        ]
        if diff:
            raise UserError(
                f"run {name!r} exists with different settings ({'; '.join(diff)}): "
                "re-run with the same model and options to resume it, or pick a new --run name"
            )
        return True

    def record(self, run: str, problem: str, attempt: Attempt, baseline_digest: str) -> None:
        v, o = attempt.checked, attempt.origin  # a pending attempt is never stored
        self._write(
            "INSERT OR REPLACE INTO attempts VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run,
                problem,
                attempt.sample,
                attempt.round,
                v.status.value,
                int(v.correct),
                v.speedup.value if v.speedup else None,
                v.paper_speedup,
                json.dumps(v.to_json(), default=str),
                attempt.candidate.asm,  # the answer itself, whole: it must re-check as reported
                capped(attempt.completion),
                json.dumps(o.to_json(), default=str),
                baseline_digest,
                o.prompt_tokens,
                o.completion_tokens,
                o.usd,
                attempt.tries,
                attempt.gen_seconds,
                attempt.verify_seconds,
                time.time(),
            ),
        )

    def attempts(self, run: str, problem: str, include_dropped: bool = True) -> list[Attempt]:
        rows = self._read(
            "SELECT * FROM attempts WHERE run = ? AND problem = ? ORDER BY round, sample",
            (run, problem),
        )
        out = [_attempt_from_row(r) for r in rows]
        return out if include_dropped else [a for a in out if not a.dropped]

    def finish_problem(self, run: str, outcome: Outcome) -> None:
        """Mark the problem done with ``outcome``; dropped attempts of an earlier try that
        the outcome does not hold (the model answered fewer times on the retry) go."""
        best = outcome.best
        kept = {(a.sample, a.round) for a in outcome.attempts}
        with self._lock:
            stale = self._db.execute(
                "SELECT sample, round FROM attempts WHERE run = ? AND problem = ? AND status = ?",
                (run, outcome.problem, Status.INFRA_ERROR.value),
            ).fetchall()
            for row in stale:
                if (row["sample"], row["round"]) not in kept:
                    self._db.execute(
                        "DELETE FROM attempts WHERE run = ? AND problem = ? AND sample = ? "
                        "AND round = ?",
                        (run, outcome.problem, row["sample"], row["round"]),
                    )
            self._db.execute(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)",
                (
                    run,
                    outcome.problem,
                    time.time(),
                    best.sample if best else None,
                    best.round if best else None,
                ),
            )
            self._db.commit()

    def finished_problems(self, run: str) -> list[str]:
        """Problems marked finished that hold a scored attempt and no dropped
        (infrastructure) one: what a resumed run may skip."""
        rows = self._read(
            "SELECT problem FROM problems p WHERE run = ? AND NOT EXISTS (SELECT 1 FROM attempts "
            "a WHERE a.run = p.run AND a.problem = p.problem AND a.status = ?) AND EXISTS "
            "(SELECT 1 FROM attempts a WHERE a.run = p.run AND a.problem = p.problem) "
            "ORDER BY problem",
            (run, Status.INFRA_ERROR.value),
        )
        return [r["problem"] for r in rows]

    def outcomes(self, run: str) -> list[Outcome]:
        """Finished problems with their attempts; the answer is the one marked when the
        problem finished (the strategy's choice)."""
        rows = self._read(
            "SELECT problem, best_sample, best_round FROM problems WHERE run = ?", (run,)
        )
        marked = {
            r["problem"]: (r["best_sample"], r["best_round"])
            for r in rows
            if r["best_sample"] is not None and r["best_round"] is not None
        }
        return [
            Outcome(p, tuple(self.attempts(run, p)), chosen=marked.get(p))
            for p in self.finished_problems(run)
        ]

    def finish_run(self, run: str, summary: RunSummary) -> None:
        self._write(
            "UPDATE runs SET finished = ?, summary = ? WHERE name = ?",
            (time.time(), json.dumps(summary.to_json(), default=str), run),
        )

    def save_baseline(self, digest: str, asm: str) -> None:
        """Keep a baseline listing (by ``gcc.asm_digest``, its exact text), once."""
        self._write("INSERT OR IGNORE INTO baselines VALUES (?, ?)", (digest, asm))

    def baselines(self, run: str) -> dict[str, str]:
        """problem -> the baseline listing its attempts were compared with (stored ones;
        none in a store from before schema 3, read without migrating)."""
        if not self._read("SELECT 1 FROM sqlite_master WHERE name = 'baselines'"):
            return {}
        rows = self._read(
            "SELECT DISTINCT a.problem, b.asm FROM attempts a JOIN baselines b "
            "ON b.digest = a.baseline_digest WHERE a.run = ?",
            (run,),
        )
        return {r["problem"]: r["asm"] for r in rows}

    def summary(self, run: RunRow, outcomes: Sequence[Outcome] | None = None) -> RunSummary:
        """A stored run's summary (a ``runs()`` row), recomputed from its stored attempts
        (``outcomes``, when the caller has read them already) with ``metrics.summarize``:
        the figures ``eval`` printed, also for unfinished runs."""
        total = _int(run.context.problems_in_benchmark)
        if outcomes is None:
            outcomes = self.outcomes(run.name)
        return summarize(outcomes, run.context, total=total, pools=self.pools(run.name))

    def keep_pools(self, run: str, pools: Mapping[str, Sequence[Speedup]]) -> None:
        """Keep the reference pools ``run``'s ``percentile`` reward paid its answers
        against (by problem: the members' speedups), so a recomputed summary pays as
        ``eval`` did without measuring anything. Its own table, made when first written."""
        with self._lock:
            self._db.execute(RUN_POOLS)
            self._db.executemany(
                "INSERT OR REPLACE INTO run_pools (run, problem, speedups) VALUES (?, ?, ?)",
                [
                    (run, problem, json.dumps([encode(s) for s in speedups]))
                    for problem, speedups in pools.items()
                ],
            )
            self._db.commit()

    def pools(self, run: str) -> dict[str, tuple[Speedup, ...]] | None:
        """The pools ``keep_pools`` kept for ``run``; None when it kept none (a run that
        does not pay ``percentile``, or one stored before the pools were kept)."""
        try:
            rows = self._read("SELECT problem, speedups FROM run_pools WHERE run = ?", (run,))
        except sqlite3.OperationalError:  # no run kept pools yet: no table
            return None
        if not rows:
            return None
        return {
            r["problem"]: tuple(decode(Speedup, s) for s in json.loads(r["speedups"])) for r in rows
        }

    def keep_run_file(self, run: str, toml: str) -> None:
        """Keep the options a run was started or last continued with (a TOML run file,
        what ``eval --resume RUN`` reads back). Its own table, made when first written:
        stores without it read as before and older supercoders ignore it."""
        with self._lock:
            self._db.execute(RUN_FILES)
            self._db.execute(
                "INSERT OR REPLACE INTO run_files (run, toml) VALUES (?, ?)", (run, toml)
            )
            self._db.commit()

    def run_file(self, run: str) -> str | None:
        """The run file kept for ``run`` (``keep_run_file``); None when none was."""
        try:
            rows = self._read("SELECT toml FROM run_files WHERE run = ?", (run,))
        except sqlite3.OperationalError:  # no run kept one yet: no table
            return None
        return rows[0]["toml"] if rows else None

    def runs(self) -> list[RunRow]:
        """Every run's row, its JSON read (``format_version``: the row's ``JSON_FORMAT_VERSION``,
        1 for a run stored before versioning; newer ones are refused)."""
        out = []
        for r in self._read("SELECT * FROM runs ORDER BY started"):
            options = json.loads(r["options"])
            version = check_format_version("run store", options, JSON_FORMAT_VERSION)
            options.pop("format_version", None)
            out.append(
                RunRow(
                    name=r["name"],
                    model=r["model"],
                    benchmark=r["benchmark"],
                    options=decode(RunIdentity, options),
                    started=r["started"],
                    finished=r["finished"],
                    context=decode(RunContext, json.loads(r["context"])),
                    format_version=version,
                )
            )
        return out

    def tables(self, schema: Tables, run: str) -> RunTables:
        """``run``'s view of a strategy's own tables (``runs/tables.py``): on a writable
        store the migrations the file lacks are applied first (once per store object);
        a read-only one is read as it is (a table it lacks gives no rows). A file that
        holds a newer version of them than ``schema`` declares is refused."""
        ready = self._owned.get(schema.owner)
        if ready is None:
            ready = self._owned[schema.owner] = self._own(schema)
        return RunTables(schema, run, ready, self._read, self._write)

    def _own(self, schema: Tables) -> bool:
        """Bring ``schema``'s tables to its version; True when the file holds them all."""
        if self.read_only:
            self._owner_version(schema)
            return all(self._has(t) for t in schema.tables)
        with self._migration_lock(), self._lock:
            version = self._owner_version(schema)
            for target in range(version + 1, schema.version + 1):
                self._db.executescript(schema.migrations[target])
            if version != schema.version:
                self._db.execute(STRATEGY_TABLES)
                self._db.execute(
                    "INSERT OR REPLACE INTO strategy_tables VALUES (?, ?)",
                    (schema.owner, schema.version),
                )
                self._db.commit()
        return True

    def _owner_version(self, schema: Tables) -> int:
        """The version of ``schema``'s tables the file holds (0: none recorded)."""
        if not self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'strategy_tables'"
        ).fetchall():
            return 0
        row = self._db.execute(
            "SELECT version FROM strategy_tables WHERE owner = ?", (schema.owner,)
        ).fetchone()
        version = row[0] if row else 0
        if version > schema.version:
            raise UserError(
                f"{printable(self.path, newlines=False)}: its {schema.owner} tables were "
                f"written by a newer supercoder (version {version}, this one reads up to "
                f"{schema.version}): upgrade supercoder"
            )
        return version

    def _has(self, table: str) -> bool:
        return bool(self._read("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)))


# A model's reply text beyond this is cut (and says so); the answer program (the
# candidate's assembly, what was verified) is always kept whole.
MAX_STORED_CHARS = 256 * 1024


def capped(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_STORED_CHARS:
        return text
    return (
        text[:MAX_STORED_CHARS]
        + f"\n[supercoder: cut, {len(text) - MAX_STORED_CHARS} more characters]"
    )


def _attempt_from_row(r: sqlite3.Row) -> Attempt:
    return Attempt(
        sample=r["sample"],
        round=r["round"],
        candidate=Candidate(r["asm"], Origin.from_json(json.loads(r["origin"]))),
        verdict=Verdict.from_json(json.loads(r["verdict"])),
        completion=r["completion"],
        tries=r["tries"],
        gen_seconds=r["gen_seconds"] or 0.0,
        verify_seconds=r["verify_seconds"] or 0.0,
    )


@dataclass
class RunJournal:
    """The strategies' Journal for one run (stored infra failures are not re-used); it
    keeps a strategy's own tables too (``KeepsTables``: evolve's program database)."""

    store: Store
    run: str
    digests: dict[str, str] = field(default_factory=dict)

    def stored(self, problem: str) -> dict[tuple[int, int], Attempt]:
        attempts = self.store.attempts(self.run, problem, include_dropped=False)
        return {(a.sample, a.round): a for a in attempts}

    def record(self, problem: str, attempt: Attempt) -> None:
        self.store.record(self.run, problem, attempt, self.digests.get(problem, ""))

    def baseline(self, problem: str, asm: str) -> None:
        """The baseline listing this problem's attempts are compared with (stored once)."""
        self.digests[problem] = digest = asm_digest(asm)
        self.store.save_baseline(digest, asm)

    def tables(self, schema: Tables) -> RunTables:
        """This run's view of a strategy's own tables (``KeepsTables``; ``Store.tables``)."""
        return self.store.tables(schema, self.run)


def _same(value: Any) -> str:
    """A stored option as comparable text (JSON: ``NaN`` equals ``NaN``)."""
    return json.dumps(value, sort_keys=True, default=str)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def leaderboard_rows(db: str | Path) -> list[LeaderboardRow]:
    """Every stored run with its summary (a ``RunSummary``) recomputed from the stored
    attempts (``Store.summary``)."""
    store = Store(db, read_only=True)
    try:
        return [LeaderboardRow(r, store.summary(r)) for r in store.runs()]
    finally:
        store.close()
