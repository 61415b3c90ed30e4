"""A new built-in strategy is its module and one line of pyproject.toml, nothing else.

A copy of this tree (``src/`` and ``pyproject.toml``) gets a module of its own,
``src/supercoder/runs/patient.py`` (written below from the strategy kit alone), and its
entry point in pyproject.toml's ``supercoder.strategies`` table: no other file changes.
From that copy the CLI shows the strategy's own flag in ``eval --help`` (its help from
its ``Config``'s docstring, its default), runs it with that flag against a loopback model
server, stores its provenance, and says what its provenance reports (a budget note) in
``eval``'s summary and in the answer file ``optimize`` writes: the readers ask the
provenance protocol (``StrategyProvenance``), never a strategy's class."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_strategies import BROKEN

ROOT = Path(__file__).resolve().parents[2]

MODULE = '''\
"""``patient``: one answer at a time until one is correct, ``--patience`` at most."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from supercoder.runs.kit import (
    Attempt,
    Conversation,
    Origin,
    Outcome,
    StrategyProvenance,
    check,
    flag,
    outcome,
    register_provenance,
)


@dataclass(frozen=True)
class PatientConfig:
    """The patient search's options.

    Fields:
        patience: answers asked at most, one at a time, before it gives up.
    """

    patience: int = field(default=3, metadata=flag("--patience", min=1))


@register_provenance("patient")
@dataclass(frozen=True, kw_only=True)
class PatientProvenance(StrategyProvenance):
    """What the patient search records of an answer.

    Fields:
        attempt: which try it was.
        patience: the tries it had.
        gave_up: its last try, and wrong.
    """

    attempt: int = 0
    patience: int = 0
    gave_up: bool = False

    def budget_note(self) -> str:
        if not self.gave_up:
            return ""
        more = 2 * self.patience
        return f"gave up after {self.patience} answers; rerun with --patience {more}"


class Patient:
    name: ClassVar[str] = "patient"
    Config: ClassVar[type] = PatientConfig
    models: ClassVar[tuple[int, int | None]] = (1, 1)

    def __init__(self, settings, on_progress=None) -> None:
        self.settings = settings
        self.config: PatientConfig = settings.config

    def search(self, problem, ask, verify, journal) -> Outcome:
        talk = Conversation(problem, self.settings)
        messages = talk.first()
        attempts: list[Attempt] = []
        n = self.config.patience
        for i in range(n):
            sampling = replace(self.settings.sampling, n=1, seed=self.settings.sampling.seed + i)
            (completion,) = ask(messages, sampling, problem)
            kept = PatientProvenance(attempt=i, patience=n)
            candidate = talk.resolve(completion, Origin(sample=i, provenance=kept), messages)
            (checked,) = check(verify, problem, [candidate])
            if not checked.verdict.correct and i == n - 1:
                kept = replace(kept, gave_up=True)
                candidate = replace(
                    candidate, origin=replace(candidate.origin, provenance=kept)
                )
            attempt = Attempt(i, 0, candidate, checked.verdict, completion.text, checked.tries)
            journal.record(problem.name, attempt)
            attempts.append(attempt)
            if checked.verdict.correct:
                break
        return outcome(problem, attempts, talk.baseline)
'''

ENTRY = 'builds = "supercoder.runs.buildsearch:BuildSearch"\n'


def _tree_with_a_new_builtin(into: Path) -> Path:
    """This tree's ``src/`` and ``pyproject.toml``, plus the new strategy's module and its
    entry point: the only two changes."""
    shutil.copytree(ROOT / "src", into / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (into / "src" / "supercoder" / "runs" / "patient.py").write_text(MODULE)
    project = (ROOT / "pyproject.toml").read_text()
    assert ENTRY in project
    entry = 'patient = "supercoder.runs.patient:Patient"\n'
    (into / "pyproject.toml").write_text(project.replace(ENTRY, ENTRY + entry))
    return into


def _cli(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    paths = [str(tree / "src"), str(ROOT)]  # the copy's supercoder; tests.fakes from here
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        timeout=300,
    )


def test_a_new_builtin_strategy_is_its_module_and_its_entry_point(tmp_path):
    tree = _tree_with_a_new_builtin(tmp_path / "tree")
    helped = _cli(tree, "eval", "--help")
    assert helped.returncode == 0, helped.stderr
    lines = [line for line in helped.stdout.splitlines() if "--patience" in line]
    assert lines and "patient: answers asked at most, one at a time" in lines[0], lines
    assert "[default: 3]" in helped.stdout.split("--patience", 1)[1]
    assert "patient" in _cli(tree, "eval", "--strategy", "nope", "--model", "m").stderr
    assert "--patience" not in _cli(ROOT, "eval", "--help").stdout  # not in this tree

    sandbox_or_skip()
    bench = tmp_path / "bench"
    make_sum_problem(bench / "sum")
    db = tmp_path / "runs.sqlite"
    with openai_server(lambda messages, request: BROKEN) as url:
        model = ("--model", "openai:m", "--base-url", url, "--no-time")
        ran = _cli(
            tree, "eval", "--benchmark", str(bench), "--db", str(db), "--run", "p",
            "--strategy", "patient", "--patience", "2", *model,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        assert len(url.requests) == 2  # its own flag reached it: two answers, no more
        said = ran.stdout + ran.stderr
        assert "the search's gave up after 2 answers; rerun with --patience 4" in said

        answer = tmp_path / "answer.s"
        opt = _cli(
            tree, "optimize", str(bench / "sum"), "-o", str(answer),
            "--strategy", "patient", "--patience", "1", *model,
        )  # fmt: skip
        assert opt.returncode == 1, opt.stderr  # no correct answer (its one, from the cache)
        assert "the search's gave up after 1 answers" in opt.stdout + opt.stderr
        head = answer.read_text().splitlines()[0]  # the baseline, saying why
        assert head == "# supercoder patient: gave up after 1 answers; rerun with --patience 2"

    with sqlite3.connect(db) as con:
        (options,) = con.execute("SELECT options FROM runs WHERE name = 'p'").fetchone()
        rows = con.execute("SELECT origin FROM attempts ORDER BY sample").fetchall()
    assert json.loads(options)["patient"] == {"patience": 2}  # the run's identity
    kept = [json.loads(o)["provenance"] for (o,) in rows]
    assert kept == [
        {"kind": "patient", "patience": 2},
        {"kind": "patient", "attempt": 1, "patience": 2, "gave_up": True},
    ]
