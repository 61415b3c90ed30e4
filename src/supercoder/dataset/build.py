"""``supercoder dataset build``: the SuperCoder benchmark from a Project CodeNet download.

Steps (paper defaults in brackets):

1. every Accepted C submission of every problem that has test inputs (at most
   ``max_tests`` inputs per problem [10]);
2. in a process pool: build at -O0 and -O3, run both twice on every input in the
   sandbox, regenerate expected outputs, drop failures, non-determinism and -O0/-O3
   disagreement (see ``process.py``); results are cached under ``OUT/.work/`` so a
   rerun skips finished submissions;
3. per problem: drop prompts over ``max_tokens`` [4000] (question + answer, approximate
   tokenizer), drop speedups below ``threshold`` [3.0], then take submissions by
   decreasing speedup, skipping near-duplicates of one already taken (similarity over
   ``dedup``), up to ``per_problem`` [10];
4. split by problem id (no problem in both splits): problems ranked by a seeded hash,
   the first ``round(n * val_fraction)`` (at least one when the fraction is positive and
   there are two or more problems) go to ``val``;
5. write ``OUT/problems/<split>/<pid>_<sid>/``, ``OUT/<split>.parquet`` and
   ``.jsonl`` (SuperCoder schema) and ``OUT/summary.json``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.dataset import codenet
from supercoder.dataset.process import Job, run_job
from supercoder.dataset.records import write_records
from supercoder.dataset.text import approx_tokens, jaccard, shingles
from supercoder.engine import current
from supercoder.paths import atomic_write_text
from supercoder.problems.loading import write_problem
from supercoder.settings import ProblemSettings
from supercoder.types import Problem, TestCase

SPLITS = ("train", "val")


@dataclass(frozen=True)
class DatasetBuildConfig:
    """What ``supercoder dataset build`` keeps (the paper's defaults; steps in the module
    docstring).

    Fields:
        threshold: the least -O0/-O3 speedup a submission needs.
        per_problem: submissions kept per problem at most.
        max_tokens: the longest prompt (question + answer, approximate tokens).
        max_tests: test inputs per problem at most.
        val_fraction: the share of problems in ``val``.
        seed: the split's hash seed.
        workers: processes building and running submissions.
        limit: problems read at most (None: all).
        timeout: seconds per run.
        dedup: the similarity above which a submission is a near-duplicate.
    """

    threshold: float = 3.0
    per_problem: int = 10
    max_tokens: int = 4000
    max_tests: int = 10
    val_fraction: float = 0.025
    seed: int = 0
    workers: int = 1
    limit: int | None = None
    timeout: float = 10.0
    dedup: float = 0.9


def plan(
    root: Path, out: Path, opts: DatasetBuildConfig, notes: list[str] | None = None
) -> tuple[list[Job], Counter]:
    """The jobs to run and the counts of submissions excluded before running; a metadata
    row that cannot be read is counted (``unreadable_metadata_row``) and named in
    ``notes`` (``FILE:LINE: why``): the build goes on without it."""
    dropped: Counter = Counter()
    jobs = []
    pids = codenet.problem_ids(root)
    for pid in pids[: opts.limit] if opts.limit else pids:
        skipped: list[str] = []
        subs = codenet.read_submissions(root, pid, skipped)
        if skipped:
            dropped["unreadable_metadata_row"] += len(skipped)
        if notes is not None:
            notes.extend(skipped)
        accepted = [s for s in subs if codenet.is_accepted_c(s)]
        dropped["not_accepted_c"] += len(subs) - len(accepted)
        inputs = codenet.input_files(root, pid)[: opts.max_tests]
        if not inputs:
            dropped["no_inputs"] += len(accepted)
            continue
        for s in accepted:
            if not s.path.is_file():
                dropped["missing_source"] += 1
                continue
            cache = out / ".work" / "results" / pid / f"{s.submission_id}.json"
            jobs.append(
                Job(
                    pid,
                    s.submission_id,
                    s.user_id,
                    str(s.path),
                    tuple(map(str, inputs)),
                    str(cache),
                    opts.timeout,
                )
            )
    return jobs, dropped


def run_jobs(
    jobs: list[Job], workers: int | None = None, progress: Callable[[], None] | None = None
) -> list[dict]:
    """Every job run (built, run, timed) on the engine's verification workers
    (``workers``: a one-off engine of that many); results in the jobs' order."""
    with current().with_workers(workers) as engine:
        return engine.process_map(run_job, jobs, progress)


def select(results: Iterable[dict], opts: DatasetBuildConfig) -> tuple[list[dict], Counter]:
    """Kept submissions (sorted by problem, then decreasing speedup) and drop counts."""
    dropped: Counter = Counter()
    by_problem: dict[str, list[dict]] = {}
    for r in results:
        if not r["ok"]:
            dropped[r["reason"]] += 1
        elif prompt_tokens(r) > opts.max_tokens:
            dropped["too_many_tokens"] += 1
        elif r["speedup"] < opts.threshold:
            dropped["below_threshold"] += 1
        else:
            by_problem.setdefault(r["problem_id"], []).append(r)
    kept = []
    for pid in sorted(by_problem):
        ranked = sorted(by_problem[pid], key=lambda r: (-r["speedup"], r["submission_id"]))
        taken: list[tuple[dict, frozenset]] = []
        for r in ranked:
            sh = shingles(r["source"])
            if any(jaccard(sh, other) >= opts.dedup for _, other in taken):
                dropped["near_duplicate"] += 1
            elif len(taken) >= opts.per_problem:
                dropped["over_per_problem_cap"] += 1
            else:
                taken.append((r, sh))
        kept += [r for r, _ in taken]
    return kept, dropped


def prompt_tokens(r: dict) -> int:
    """Approximate tokens of question + answer: the C code and the -O3 assembly twice."""
    return approx_tokens(r["source"]) + 2 * approx_tokens(r["asm_o3"]) + 120


def assign_splits(problem_ids: Iterable[str], fraction: float, seed: int) -> dict[str, str]:
    ids = sorted(set(problem_ids))
    ranked = sorted(ids, key=lambda p: hashlib.sha256(f"{seed}:{p}".encode()).hexdigest())
    n_val = round(len(ids) * fraction)
    if fraction > 0 and len(ids) >= 2:
        n_val = max(1, n_val)
    n_val = min(n_val, len(ids) - 1) if fraction < 1 else len(ids)
    val = set(ranked[:n_val])
    return {p: "val" if p in val else "train" for p in ids}


def to_problem(r: dict, split: str, inputs: list[str]) -> Problem:
    tests = tuple(
        TestCase(f"t{i:02d}", out.encode(), input_bytes=Path(p).read_bytes())
        for i, (p, out) in enumerate(zip(inputs, r["outputs"], strict=True))
    )
    settings = ProblemSettings(
        tags=("codenet",),
        codenet={k: r[k] for k in ("problem_id", "submission_id", "user_id")},
        seconds_o0=round(r["seconds_o0"], 6),
        seconds_o3=round(r["seconds_o3"], 6),
        speedup_o0_o3=round(r["speedup"], 3),
    )
    name = f"{r['problem_id']}_{r['submission_id']}"
    return Problem(
        name, r["source"], tests, baseline_asm=r["asm_o3"], split=split, settings=settings
    )


def write_outputs(out: Path, problems: list[Problem], summary: dict[str, Any]) -> None:
    shutil.rmtree(out / "problems", ignore_errors=True)
    for p in problems:
        write_problem(p, out / "problems" / str(p.split) / p.name)
    for split in SPLITS:
        chosen = [p for p in problems if p.split == split]
        for ext in (".parquet", ".jsonl"):
            write_records(chosen, out / f"{split}{ext}")

    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")


def build_counts(
    jobs: list[Job], results: list[dict], kept: list[Problem], dropped: Counter
) -> dict:
    return {
        "submissions_considered": len(jobs) + sum(v for k, v in dropped.items() if k in PRE_RUN),
        "submissions_run": len(jobs),
        "reused_from_cache": sum(1 for r in results if r.get("cached")),
        "kept": len(kept),
        "kept_per_split": dict(Counter(str(p.split) for p in kept)),
        "problems_per_split": {
            s: len({(p.settings.codenet or {}).get("problem_id") for p in kept if p.split == s})
            for s in SPLITS
        },
        "dropped": dict(sorted(dropped.items())),
    }


PRE_RUN = ("not_accepted_c", "no_inputs", "missing_source", "unreadable_metadata_row")


def finish(
    out: Path, jobs: list[Job], results: list[dict], pre: Counter, opts: DatasetBuildConfig
) -> dict:
    """Select, split and write everything; returns the summary (also in summary.json)."""
    kept, dropped = select(results, opts)
    dropped.update(pre)
    splits = assign_splits((r["problem_id"] for r in kept), opts.val_fraction, opts.seed)
    inputs = {j.problem_id: list(j.input_paths) for j in jobs}
    problems = [to_problem(r, splits[r["problem_id"]], inputs[r["problem_id"]]) for r in kept]
    summary = build_counts(jobs, results, problems, dropped)
    summary["options"] = {k: v for k, v in vars(opts).items() if k not in ("workers",)}
    write_outputs(out, problems, summary)
    return summary


def build_dataset(root: Path, out: Path, opts: DatasetBuildConfig) -> dict:
    """The whole build without a progress bar (the CLI shows one)."""
    jobs, pre = plan(root, out, opts)
    return finish(out, jobs, run_jobs(jobs, opts.workers), pre, opts)
