"""One CodeNet submission: build at -O0 and -O3, run both in the sandbox, time them.

Runs in a worker process; the result is a plain JSON-serialisable dict, cached under
the output folder so an interrupted build resumes where it stopped.

Each input is run twice per build. The submission is dropped if it does not compile,
fails or times out, prints different output on two runs (non-deterministic), or
prints different output at -O0 and -O3 (undefined behaviour). Times are CPU seconds
(the minimum of the two runs), floored at 1 ms per input so that start-up noise of
trivial programs reads as no speedup.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.errors import UserError
from supercoder.paths import atomic_write_text
from supercoder.toolchain.baseline import compile_baseline
from supercoder.toolchain.reference import (
    MISMATCH,
    NONDETERMINISTIC,
    RUNTIME_ERROR,
    TIMEOUT,
    ReferenceBuildError,
    RefResult,
    run_reference,
)

CACHE_VERSION = 1
TIME_FLOOR = 0.001


@dataclass(frozen=True)
class Job:
    problem_id: str
    submission_id: str
    user_id: str
    source_path: str
    input_paths: tuple[str, ...]
    cache_path: str
    timeout: float


def job_key(job: Job, source: str) -> str:
    h = hashlib.sha256(f"v{CACHE_VERSION}|{job.timeout}|".encode())
    h.update(source.encode(errors="surrogateescape"))
    for p in job.input_paths:
        h.update(hashlib.sha256(Path(p).read_bytes()).digest())
    return h.hexdigest()[:24]


def cached_result(job: Job) -> dict[str, Any] | None:
    path = Path(job.cache_path)
    if not path.is_file():
        return None
    try:
        result = json.loads(path.read_text())
        source = Path(job.source_path).read_text(errors="surrogateescape")
    except (OSError, json.JSONDecodeError):
        return None
    return result if result.get("key") == job_key(job, source) else None


def run_job(job: Job) -> dict[str, Any]:
    """Process one submission (or return its cached result); never raises for bad C."""
    cached = cached_result(job)
    if cached is not None:
        return {**cached, "cached": True}
    try:
        source = Path(job.source_path).read_text()
    except UnicodeDecodeError:
        source = None
    base = {
        "problem_id": job.problem_id,
        "submission_id": job.submission_id,
        "user_id": job.user_id,
    }
    if source is None:
        result = {**base, "ok": False, "reason": "non_utf8", "detail": "source is not UTF-8"}
        key = job_key(job, Path(job.source_path).read_text(errors="surrogateescape"))
    else:
        result = {**base, **_measure(source, [Path(p).read_bytes() for p in job.input_paths], job)}
        key = job_key(job, source)
    result["key"] = key
    atomic_write_text(Path(job.cache_path), json.dumps(result))
    return {**result, "cached": False}


def _drop(reason: str, detail: str = "") -> dict[str, Any]:
    return {"ok": False, "reason": reason, "detail": detail[:500]}


class Dropped(Exception):
    """A submission is not kept: ``reason`` is the summary's key."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def _measure(source: str, inputs: list[bytes], job: Job) -> dict[str, Any]:
    try:
        results = run_reference(source, inputs, runs={"O3": 2, "O0": 2}, timeout=job.timeout)
        outputs = [_output(i, r) for i, r in enumerate(results)]
        asm = compile_baseline(source)
    except ReferenceBuildError as e:
        return _drop("compile_error", e.log)
    except UserError as e:  # the -O3 assembly
        return _drop("compile_error", str(e))
    except Dropped as d:
        return _drop(d.reason, d.detail)
    seconds = {
        level: sum(max(TIME_FLOOR, r.cpu_seconds[level]) for r in results) for level in ("O0", "O3")
    }
    return {
        "ok": True,
        "reason": "",
        "source": source,
        "asm_o3": asm,
        "outputs": outputs,
        "seconds_o0": seconds["O0"],
        "seconds_o3": seconds["O3"],
        "speedup": seconds["O0"] / seconds["O3"],
    }


def _output(i: int, r: RefResult) -> str:
    """The expected output on input ``i`` (two runs per build agreed, -O0 = -O3), or Dropped."""
    if r.failure in (TIMEOUT, RUNTIME_ERROR):
        raise Dropped(r.failure, f"-{r.level} on input #{i}: {r.detail}")
    if r.failure == NONDETERMINISTIC:
        raise Dropped(NONDETERMINISTIC, f"-{r.level}, input #{i}: two runs differ")
    if r.failure == MISMATCH:
        raise Dropped("o0_o3_mismatch", f"input #{i}: -O0 and -O3 print different output")
    try:
        return r.output.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Dropped("non_utf8", f"output on input #{i} is not UTF-8") from e
