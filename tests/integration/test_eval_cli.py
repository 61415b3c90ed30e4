"""`supercoder eval / optimize / leaderboard` end to end: a real loopback OpenAI-compatible
server, the offline compiler model, a real SIGKILL in the middle of a run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import assemble
from tests.conftest import SUM_SOURCE, make_sum_problem, sandbox_or_skip
from tests.fakes.servers import Reply, openai_server
from tests.integration.test_strategies import BROKEN, fast_answer, primes_dir

runner = CliRunner()


def by_problem(answers: dict[str, str]):
    def respond(messages, request):
        return next(
            a for name, a in answers.items() if f"problem: {name} " in messages[0]["content"]
        )

    return respond


def test_eval_through_an_openai_server_reports_rates_and_speedups(tmp_path):
    sandbox_or_skip()
    for name in ("fast", "broken"):
        primes_dir(tmp_path / "bench", name)
    db, out = tmp_path / "runs.sqlite", tmp_path / "summary.json"
    with openai_server(by_problem({"fast": fast_answer(), "broken": BROKEN})) as url:
        result = runner.invoke(
            app,
            [
                "eval",
                "--model",
                "openai:m",
                "--base-url",
                url,
                "--benchmark",
                str(tmp_path / "bench"),
                "--db",
                str(db),
                "--json",
                str(out),
                "--samples",
                "2",
            ],
        )
        assert result.exit_code == 0, result.output
        assert len(url.requests) == 2 and all(r["n"] == 2 for r in url.requests)
    s = json.loads(out.read_text())
    assert (s["problems"], s["compilation_rate"], s["accuracy"]) == (2, 50.0, 50.0)
    assert s["per_problem"]["fast"]["speedup"] > 1.5 and s["per_problem"]["broken"]["speedup"] == 1
    assert s["max_speedup"] > 1.5 and s["avg_speedup"] > 1.25 and s["median_speedup"] > 1.25
    assert s["fast_1.1"] == 50.0 and s["significant_speedups"] == 1
    assert s["paper"]["max_speedup"] > 1.5 and s["prompt_tokens"] > 0 and s["attempts"] == 4
    assert s["context"]["samples"] == 2 and s["context"]["cpu"]
    assert "compilation_rate" in result.output and "50.0%" in result.output

    board = runner.invoke(app, ["leaderboard", "--db", str(db), "--html", str(tmp_path / "b.html")])
    assert board.exit_code == 0, board.output
    page = (tmp_path / "b.html").read_text()
    assert "openai:m@bench" in page and page.count("<svg") == 1


def test_the_default_compiler_model_runs_offline(tmp_path):
    sandbox_or_skip()
    make_sum_problem(tmp_path / "bench" / "sum")
    out, db = tmp_path / "s.json", tmp_path / "r.sqlite"
    args = [
        "eval",
        "--benchmark",
        str(tmp_path / "bench"),
        "--db",
        str(db),
        "--no-time",
        "--budget",
        "4",
    ]
    result = runner.invoke(app, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    s = json.loads(out.read_text())
    assert s["context"]["model"] == "compiler:budget=4" and s["context"]["samples"] == 64
    assert (s["compilation_rate"], s["accuracy"]) == (100, 100)
    assert 1 <= s["attempts"] <= 2 and s["cost_usd"] == 0
    with sqlite3.connect(db) as con:  # untimed: builds checked in order, none searched
        [origin] = con.execute("SELECT origin FROM attempts WHERE sample = 0").fetchone()
    kept = json.loads(origin)
    build = kept["provenance"]  # the build search's record of the answer
    assert build["kind"] == "build" and build["build"].startswith(("gcc", "clang"))
    assert "search" not in build
    assert s["per_problem"]["sum"]["speedup_ci"] is None
    again = runner.invoke(app, args)  # resumes: everything already done
    assert again.exit_code == 0 and "already done" in again.output
    # --strategy builds, and --model compiler:budget=4 (its older spelling), are that run
    base = args[: args.index("--budget")]
    for same in (["--strategy", "builds", "--budget", "4"], ["--model", "compiler:budget=4"]):
        alias = runner.invoke(app, [*base, *same])
        assert alias.exit_code == 0 and "already done" in alias.output, alias.output


def test_optimize_a_bare_c_file_with_inputs(tmp_path):
    sandbox_or_skip()
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for i, xs in enumerate([[1, 2, 3], list(range(100))]):
        (inputs / f"in{i}.txt").write_text(f"{len(xs)}\n{' '.join(map(str, xs))}\n")
    (tmp_path / "sum.c").write_text(SUM_SOURCE)
    out = tmp_path / "best.s"
    result = runner.invoke(
        app,
        [
            "optimize",
            str(tmp_path / "sum.c"),
            "--inputs",
            str(inputs),
            "-o",
            str(out),
            "--no-time",
            "--samples",
            "2",
            "--json",
            "--budget",
            "3",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["written"] == str(out) and report["best"]["verdict"]["correct"]
    assert len(report["attempts"]) in (1, 2) and report["best"]["origin"]["model"].startswith(
        "compiler"
    )
    bad = runner.invoke(
        app, ["optimize", str(tmp_path / "sum.c"), "-m", "openai:m", "--budget", "3"]
    )
    assert (
        bad.exit_code != 0
        and "applies to --strategy builds only" in f"{bad.exception} {bad.output}"
    )
    assert assemble(out.read_text(), tmp_path / "bin").ok
    assert "x [" not in out.read_text() and "not timed" in out.read_text().splitlines()[0]
    assert all(a["verdict"]["speedup"] is None for a in report["attempts"])
    assert all("search" not in a["origin"]["provenance"] for a in report["attempts"])


def test_optimize_exits_1_when_no_answer_is_correct(tmp_path):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    with openai_server(lambda m, r: BROKEN) as url:
        result = runner.invoke(
            app,
            [
                "optimize",
                str(problem),
                "-m",
                "openai:m",
                "--base-url",
                url,
                "--rounds",
                "2",
                "-o",
                str(tmp_path / "x.s"),
            ],
        )
        assert len(url.requests) == 2  # refinement asked again with the assembler error
        assert "frobnicate" in url.requests[1]["messages"][-1]["content"]
    assert result.exit_code == 1 and "no correct answer" in result.output
    assert "wrote the gcc -O3 baseline" in result.output  # never a wrong or slower program
    assert (tmp_path / "x.s").read_text() == baseline_asm(load_problem(problem))


def test_a_killed_eval_resumes_where_it_stopped(tmp_path):
    sandbox_or_skip()
    bench, db = tmp_path / "bench", tmp_path / "runs.sqlite"
    for name in ("k1", "k2", "k3"):
        primes_dir(bench, name, sizes=(3000,))
    answers = {"k1": fast_answer(), "k2": BROKEN, "k3": fast_answer()}
    proc: dict[str, subprocess.Popen] = {}

    def killer(messages, request):
        if "problem: k3 " in messages[0]["content"]:
            os.kill(proc["p"].pid, signal.SIGKILL)  # pulled the plug mid-run
            return Reply(503)
        return by_problem(answers)(messages, request)

    args = [
        "eval",
        "-m",
        "openai:m",
        "--benchmark",
        str(bench),
        "--db",
        str(db),
        "--no-time",
        "--concurrency",
        "1",
        "--run",
        "r",
    ]
    with openai_server(killer) as url:
        proc["p"] = subprocess.Popen(
            [sys.executable, "-m", "supercoder.cli", *args, "--base-url", url],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert proc["p"].wait(timeout=120) == -signal.SIGKILL
    con = sqlite3.connect(db)
    before = con.execute("SELECT problem, created FROM attempts ORDER BY problem").fetchall()
    assert [p for p, _ in before] == ["k1", "k2"]

    with openai_server(by_problem(answers)) as url:
        result = runner.invoke(app, [*args, "--base-url", url])
        assert result.exit_code == 0, result.output
        assert [r["messages"][0]["content"].count("problem: k3 ") for r in url.requests] == [1]
    after = con.execute("SELECT problem, created FROM attempts ORDER BY problem").fetchall()
    assert after[:2] == before and [p for p, _ in after] == ["k1", "k2", "k3"]
    assert "resuming r: 2 problem(s) already done" in result.output


def test_optimize_with_a_store_records_its_target(tmp_path):
    """``optimize --db`` stores the run as it ran: a run for x86-64 is not recorded as a
    native one (its identity in the store says which CPUs its answers are for)."""
    sandbox_or_skip()
    from supercoder.runs.store import Store

    problem = make_sum_problem(tmp_path / "sum")
    db = tmp_path / "runs.sqlite"
    args = ["optimize", str(problem), "--no-time", "--samples", "1", "--budget", "3"]
    result = runner.invoke(
        app, [*args, "--db", str(db), "--target", "x86-64", "-o", str(tmp_path / "a.s")]
    )
    assert result.exit_code == 0, result.output
    store = Store(db)
    try:
        (run,) = store.runs()
    finally:
        store.close()
    assert run.options.target == "x86-64"


def test_eval_writes_a_runs_answers_as_s_files_and_resume_rewrites_them(tmp_path):
    sandbox_or_skip()
    for name in ("fast", "broken"):
        primes_dir(tmp_path / "bench", name)
    db, answers = tmp_path / "runs.sqlite", tmp_path / "answers"
    args = ["--benchmark", str(tmp_path / "bench"), "--db", str(db), "--no-time"]
    with openai_server(by_problem({"fast": fast_answer(), "broken": BROKEN})) as url:
        base = ["eval", "--model", "openai:m", "--base-url", url, "--run", "r1"]
        result = runner.invoke(app, [*base, *args, "--answers-dir", str(answers)])
        assert result.exit_code == 0, result.output
        asked = len(url.requests)
    written = (answers / "fast.s").read_text()  # the assembly out of the model's reply
    assert ".globl" in written and written.strip() in fast_answer()
    index = {e["problem"]: e for e in json.loads((answers / "answers.json").read_text())}
    assert index["fast"]["file"] == "fast.s" and index["fast"]["status"] == "ok"
    assert index["broken"]["status"] == "compile_error"
    assert "wrote 2 answer(s) of 2 problem(s)" in result.output
    checked = runner.invoke(
        app, ["check", str(tmp_path / "bench" / "fast"), str(answers / "fast.s"), "--no-time"]
    )
    assert checked.exit_code == 0 and "ok" in checked.output, checked.output
    # a finished run's answers, again, without asking or verifying anything
    again = tmp_path / "again"
    with openai_server(by_problem({"fast": fast_answer(), "broken": BROKEN})) as url:
        resumed = runner.invoke(
            app, ["eval", "--resume", "r1", "--db", str(db), "--answers-dir", str(again)]
        )
        assert resumed.exit_code == 0, resumed.output
        assert len(url.requests) == 0 and asked == 2
    assert (again / "fast.s").read_text() == written
