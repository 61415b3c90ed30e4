"""A strategy from a separate package, with no change to the project: the plugin
(tests/fixtures/strategy_plugin: a module and its ``*.dist-info`` with the entry point,
as pip installs it, as a built-in is declared in pyproject.toml) is put on ``PYTHONPATH`` of a ``python -m supercoder.cli eval
--strategy greedy`` run against a scripted model behind a real loopback server; its
answers are verified, stored with its own provenance, read back typed, and resumed."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Status
from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_strategies import BROKEN

PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "strategy_plugin"
ROOT = Path(__file__).resolve().parents[2]


def _eval(site: Path | None, url: str, bench: Path, db: Path, *extra: str):
    paths = [str(site or ""), str(ROOT / "src"), str(ROOT)]  # this tree's supercoder
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    args = ["eval", "--benchmark", str(bench), "--db", str(db), "--no-time", *extra]
    args += ["--model", "openai:m", "--base-url", url, "--run", "plug"]
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_a_strategy_from_a_separate_package_runs_verified_stored_and_resumed(tmp_path, monkeypatch):
    sandbox_or_skip()
    site = tmp_path / "site"  # the plugin "installed": its module and its dist-info
    shutil.copytree(PLUGIN, site)
    bench = tmp_path / "bench"
    problem = load_problem(make_sum_problem(bench / "sum"))
    right = f"```assembly\n{baseline_asm(problem)}```"
    replies = [BROKEN, right, right]  # a wrong answer first, then a correct one
    db = tmp_path / "runs.sqlite"
    with openai_server(lambda messages, request: replies.pop(0)) as url:
        absent = _eval(None, url, bench, db, "--strategy", "greedy")
        assert absent.returncode == 2, absent.stderr  # not installed: one line
        assert "unknown --strategy 'greedy'" in absent.stderr
        assert "Traceback" not in absent.stderr and not url.requests

        # its Config's fields are eval's flags (help from its docstring), as a built-in's
        opts = ("--strategy", "greedy", "--tries", "2", "--note", "plug")
        first = _eval(site, url, bench, db, *opts)
        assert first.returncode == 0, first.stderr
        assert len(url.requests) == 2  # one answer at a time, stopped at the correct one

        run_file = tmp_path / "run.toml"  # the same options from a run file's table
        run_file.write_text('strategy = "greedy"\n[strategy_option]\ntries = 2\nnote = "plug"\n')
        again = _eval(site, url, bench, db, "--config", str(run_file))  # resumes: asks nothing
        assert again.returncode == 0, again.stderr
        assert len(url.requests) == 2 and "already done" in again.stderr + again.stdout

    with sqlite3.connect(db) as con:
        (options,) = con.execute("SELECT options FROM runs WHERE name = 'plug'").fetchone()
        rows = con.execute("SELECT sample, status, origin FROM attempts ORDER BY sample").fetchall()
    stored = json.loads(options)  # the run's identity names the strategy and its config
    assert stored["strategy"] == "greedy" and stored["greedy"] == {"tries": 2, "note": "plug"}
    assert [(s, st) for s, st, _ in rows] == [(0, "compile_error"), (1, "ok")]  # verified
    raw = [json.loads(o)["provenance"] for _, _, o in rows]
    assert raw[0] == {"kind": "greedy", "left": 1, "note": "plug"}  # attempt 0: a default

    # read back typed: the plugin's own class, once the plugin is importable
    monkeypatch.syspath_prepend(str(site))
    import sc_greedy

    from supercoder.runs.store import Store

    store = Store(db, read_only=True)
    try:
        attempts = store.attempts("plug", problem.name)
    finally:
        store.close()
    kinds = [a.origin.provenance for a in attempts]
    assert all(isinstance(k, sc_greedy.GreedyProvenance) for k in kinds)
    assert [(k.attempt, k.left, k.note) for k in kinds] == [(0, 1, "plug"), (1, 0, "plug")]
    assert attempts[0].verdict.status is Status.COMPILE_ERROR and attempts[1].verdict.correct
    assert attempts[1].origin.model == "openai:m" and attempts[1].origin.prompt_tokens > 0


def test_the_plugin_runs_from_the_library_with_no_journal(tmp_path, monkeypatch):
    """``supercoder.search()`` keeps no run: the strategy gets a journal that keeps
    nothing (``kit.NoJournal``), never None, and its answers are verified all the same."""
    sandbox_or_skip()
    site = tmp_path / "site"
    shutil.copytree(PLUGIN, site)
    monkeypatch.syspath_prepend(str(site))
    import supercoder
    from supercoder.models.scripted import ScriptedModel
    from supercoder.runs.strategies import StrategyConfig

    problem = load_problem(make_sum_problem(tmp_path / "sum"))
    right = f"```assembly\n{baseline_asm(problem)}```"
    model = ScriptedModel(lambda messages, i: BROKEN if len(model.calls) == 1 else right)
    import sc_greedy

    settings = StrategyConfig(strategy="greedy", config=sc_greedy.GreedyConfig(tries=3))
    outcome = supercoder.search(problem, [model], settings)
    assert [a.verdict.status for a in outcome.attempts] == [Status.COMPILE_ERROR, Status.OK]
    assert len(model.calls) == 2 and outcome.best is not None and outcome.best.verdict.correct
    second = model.calls[1][-1]["content"]
    assert second == model.calls[0][-1]["content"]  # greedy asks the first prompt again


def test_the_docs_sample_is_the_plugin_the_tests_run():
    """docs/eval.md's plugin sample is this fixture, whole (imports included)."""
    docs = (ROOT / "docs" / "eval.md").read_text()
    fence = "```python\n# sc_greedy.py\n"
    start = docs.index(fence) + len(fence)
    sample = docs[start : docs.index("```\n", start)]
    assert sample == (PLUGIN / "sc_greedy.py").read_text()


def test_a_strategys_config_fields_are_its_flags_and_reach_it(tmp_path):
    """Adding a strategy is its module and its entry point: its ``Config``'s fields
    (``tries``, ``note``) become ``eval --help`` flags with their docstring help and
    default, a flag of another strategy is refused in one line, and neither flag exists
    without the plugin."""
    site = tmp_path / "site"
    shutil.copytree(PLUGIN, site)

    def run(where, *args):
        paths = [str(where or ""), str(ROOT / "src"), str(ROOT)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths)), "COLUMNS": "200"}
        return subprocess.run(
            [sys.executable, "-m", "supercoder.cli", "eval", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    helped = run(site, "--help")
    assert helped.returncode == 0, helped.stderr
    lines = [line for line in helped.stdout.splitlines() if "--tries" in line]
    assert lines and "greedy: answers asked at most, one at a time" in lines[0]
    assert "[default: 3]" in helped.stdout.split("--tries", 1)[1].split("--note", 1)[0]
    assert "--note" in helped.stdout and "--generation" in helped.stdout  # evolve's, too
    assert "--tries" not in run(None, "--help").stdout  # no plugin, no flag

    stray = run(site, "--model", "openai:m", "--tries", "2", "--benchmark", str(tmp_path))
    assert stray.returncode == 2 and "Traceback" not in stray.stderr
    assert "--tries applies to --strategy greedy only" in stray.stderr


def test_a_provenance_reads_back_typed_from_its_strategys_module():
    """No module names ``EvolveProvenance`` before the record is read: the registry's
    strategy modules are loaded to find its kind."""
    stored = {"model": "openai:m", "provenance": {"kind": "evolve", "generation": 3}}
    code = (
        "import json, sys\n"
        "from supercoder.types import Origin\n"
        "assert 'supercoder.runs.evolve' not in sys.modules\n"
        f"o = Origin.from_json(json.loads({json.dumps(json.dumps(stored))}))\n"
        "print(type(o.provenance).__module__, o.provenance.generation, dict(o.extra))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["supercoder.runs.evolve", "3", "{}"]
