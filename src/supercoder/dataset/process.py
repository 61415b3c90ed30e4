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
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.errors import UserError

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
    _write_atomic(Path(job.cache_path), json.dumps(result))
    return {**result, "cached": False}


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _drop(reason: str, detail: str = "") -> dict[str, Any]:
    return {"ok": False, "reason": reason, "detail": detail[:500]}


class Dropped(Exception):
    """A submission is not kept: ``reason`` is the summary's key."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def _measure(source: str, inputs: list[bytes], job: Job) -> dict[str, Any]:
    from supercoder.sandbox import Limits, open_sandbox

    try:
        with tempfile.TemporaryDirectory(prefix="sc-codenet-") as tmp:
            builds, asm = _build(source, Path(tmp))
            limits = Limits(cpu_seconds=job.timeout, wall_seconds=2 * job.timeout)
            with open_sandbox(builds, limits=limits) as box:
                runs = [_run_input(box, i, data) for i, data in enumerate(inputs)]
    except Dropped as d:
        return _drop(d.reason, d.detail)
    seconds = {level: sum(r[1][level] for r in runs) for level in ("O0", "O3")}
    return {
        "ok": True,
        "reason": "",
        "source": source,
        "asm_o3": asm,
        "outputs": [r[0] for r in runs],
        "seconds_o0": seconds["O0"],
        "seconds_o3": seconds["O3"],
        "speedup": seconds["O0"] / seconds["O3"],
    }


def _build(source: str, tmp: Path) -> tuple[dict[str, Path], str]:
    """-O0 and -O3 binaries and the -O3 assembly."""
    from supercoder.toolchain import compile_c, compile_to_asm

    builds = {}
    for level in ("O0", "O3"):
        build = compile_c(source, tmp / level, flags=(f"-{level}",))
        if not build.ok or build.binary is None:
            raise Dropped("compile_error", build.log)
        builds[level] = build.binary
    try:
        return builds, compile_to_asm(source)
    except UserError as e:
        raise Dropped("compile_error", str(e)) from e


def _run_input(box: Any, i: int, data: bytes) -> tuple[str, dict[str, float]]:
    """Expected output and per-build CPU seconds on one input (two runs per build)."""
    seen, seconds = {}, {}
    for level in ("O3", "O0"):
        runs = [box.run(level, data), box.run(level, data)]
        for run in runs:
            if not run.clean_exit:
                kind = "timeout" if run.outcome == "timeout" else "runtime_error"
                raise Dropped(kind, f"-{level} on input #{i}: {run.describe()}")
        if runs[0].stdout != runs[1].stdout:
            raise Dropped("nondeterministic", f"-{level}, input #{i}: two runs differ")
        seen[level] = runs[0].stdout
        seconds[level] = max(TIME_FLOOR, min(r.cpu_seconds for r in runs))
    if seen["O0"] != seen["O3"]:
        raise Dropped("o0_o3_mismatch", f"input #{i}: -O0 and -O3 print different output")
    try:
        return seen["O3"].decode("utf-8"), seconds
    except UnicodeDecodeError as e:
        raise Dropped("non_utf8", f"output on input #{i} is not UTF-8") from e
