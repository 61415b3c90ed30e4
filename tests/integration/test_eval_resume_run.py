"""``eval --resume RUN``: a stored run's options are enough to continue it (issue 37):
the store keeps each run's run file; a run stored before run files continues from its
stored identity. A real loopback OpenAI-compatible server and the real sandbox."""

from __future__ import annotations

import sqlite3
import tomllib

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.runs.store import Store
from tests.conftest import sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_strategies import BROKEN, primes_dir

runner = CliRunner()


def _first_run(tmp_path, url) -> tuple:
    """An eval of one problem with options none of which are defaults; then a second
    problem joins the benchmark folder, so a resumed run has one problem left to do."""
    bench, db = tmp_path / "bench", tmp_path / "runs.sqlite"
    primes_dir(bench, "one")
    result = runner.invoke(
        app,
        [
            "eval",
            *("--model", "openai:m", "--base-url", url, "--benchmark", str(bench)),
            *("--db", str(db), "--run", "r", "--no-time", "--temperature", "0.3"),
            *("--timeout", "60", "--context", "full"),
        ],
    )
    assert result.exit_code == 0, result.output
    primes_dir(bench, "two")
    return bench, db


def test_eval_resume_needs_no_other_option(tmp_path):
    sandbox_or_skip()
    with openai_server(lambda messages, request: BROKEN) as url:
        bench, db = _first_run(tmp_path, url)
        store = Store(db)
        kept = tomllib.loads(store.run_file("r") or "")
        store.close()
        assert kept["base_url"] == url and kept["no_time"] is True
        assert kept["model"] == ["openai:m"] and kept["temperature"] == 0.3
        assert kept["benchmark"] == str(bench)

        result = runner.invoke(app, ["eval", "--resume", "r", "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert "resuming r: 1 problem(s) already done" in result.output
        # the model was asked at the stored URL with the stored temperature
        assert len(url.requests) == 2
        assert url.requests[-1]["temperature"] == 0.3
        assert "correctness only (--no-time)" in result.output


def test_a_run_stored_before_run_files_resumes_from_its_identity(tmp_path):
    sandbox_or_skip()
    with openai_server(lambda messages, request: BROKEN) as url:
        _, db = _first_run(tmp_path, url)
        con = sqlite3.connect(db)
        con.execute("DROP TABLE run_files")  # what a store of an earlier version holds
        con.commit()
        con.close()
        # the server's URL was never part of a run's identity: given, it is used
        result = runner.invoke(app, ["eval", "--resume", "r", "--db", str(db), "--base-url", url])
        assert result.exit_code == 0, result.output
        assert "resuming r: 1 problem(s) already done" in result.output
        assert len(url.requests) == 2 and url.requests[-1]["temperature"] == 0.3


def test_resuming_a_run_that_is_not_stored_is_one_line(tmp_path):
    sandbox_or_skip()
    with openai_server(lambda messages, request: BROKEN) as url:
        _, db = _first_run(tmp_path, url)
    result = runner.invoke(app, ["eval", "--resume", "nope", "--db", str(db)])
    assert result.exit_code == 2
    assert "no run 'nope'" in result.output
    result = runner.invoke(app, ["eval", "--resume", "r", "--run", "other", "--db", str(db)])
    assert result.exit_code == 2 and "give one run" in result.output


def test_a_kept_run_file_given_to_config_makes_the_same_run_elsewhere(tmp_path):
    sandbox_or_skip()
    with openai_server(lambda messages, request: BROKEN) as url:
        _, db = _first_run(tmp_path, url)
        store = Store(db)
        text = store.run_file("r") or ""
        store.close()
        run_file = tmp_path / "run.toml"
        run_file.write_text(text.replace("no_time = true\n", "") + "[checks]\nno-time = true\n")
        other = tmp_path / "other.sqlite"
        result = runner.invoke(app, ["eval", "--config", str(run_file), "--db", str(other)])
        assert result.exit_code == 0, result.output
        assert "2 problem(s): correctness only (--no-time)" in result.output
        assert len(url.requests) == 2  # "two" asked at the stored URL ("one": cached)
        store = Store(other)
        (row,) = store.runs()  # named as a new run is (the run file holds no name)
        assert sorted(store.finished_problems(row.name)) == ["one", "two"]
        store.close()
