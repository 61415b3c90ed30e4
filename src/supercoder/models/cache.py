"""Response cache: SQLite (WAL) under ``cache_dir()/responses.sqlite``.

Key: (model identity, messages, temperature, max_tokens, sample index, seed). The model
identity is its spec plus, for HTTP models, the server URL. Sample ``i`` of a call with
seed ``s`` is stored under index ``i``; missing samples are asked of the model in
contiguous runs with seed ``s + first index``, so asking for 8 after 4 only samples 4
new ones. Safe across threads and processes (one short connection per operation).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from supercoder.models.base import DEFAULT_SAMPLING, Completion, Model, Sampling

if TYPE_CHECKING:
    from supercoder.types import Problem

SCHEMA = """CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, completion TEXT NOT NULL,
    created REAL NOT NULL)"""


class ResponseCache:
    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from supercoder.paths import cache_dir

            path = cache_dir() / "responses.sqlite"
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60.0)

    def get(self, key: str) -> Completion | None:
        db = self._connect()
        try:
            row = db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        finally:
            db.close()
        return (
            None if row is None else replace(Completion.from_json(json.loads(row[0])), cached=True)
        )

    def put(self, key: str, completion: Completion) -> None:
        data = json.dumps(replace(completion, cached=False).to_json())
        db = self._connect()
        try:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                    (key, completion.model, data, time.time()),
                )
        finally:
            db.close()


def cache_key(identity: str, messages: list[dict[str, str]], sampling: Sampling, index: int) -> str:
    """Sample ``index`` of a call: the key does not depend on ``sampling.n`` (asking for
    8 after 4 finds the first 4), and is the same JSON as before ``Sampling`` existed."""
    payload = json.dumps(
        [
            identity,
            messages,
            float(sampling.temperature),
            sampling.max_tokens,
            index,
            sampling.seed,
        ],
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class CachedModel:
    """Wraps a Model; cached samples come back with ``cached=True``."""

    def __init__(self, inner: Model, cache: ResponseCache | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.identity = getattr(inner, "cache_identity", inner.name)
        self.cache = cache or ResponseCache()

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        keys = [cache_key(self.identity, messages, sampling, i) for i in range(sampling.n)]
        found: list[Completion | None] = [self.cache.get(k) for k in keys]
        for start, count in _missing_runs(found):
            fresh = self.inner.complete(messages, sampling.part(start, count), context)
            for offset, completion in enumerate(fresh[:count]):
                self.cache.put(keys[start + offset], completion)
                found[start + offset] = completion
        return [c for c in found if c is not None]


def _missing_runs(found: list[Completion | None]) -> list[tuple[int, int]]:
    """(start, length) of each run of consecutive missing entries."""
    runs: list[tuple[int, int]] = []
    for i, item in enumerate(found):
        if item is not None:
            continue
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs
