"""Faults: machine trouble is never final, hung model servers are stopped by --timeout,
--deadline and Ctrl-C, and a run resumes afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import InfraError
from supercoder.models.anthropic_api import AnthropicModel
from supercoder.models.http import MAX_ANSWER_CHARS, RetryPolicy
from supercoder.models.openai_api import OpenAIModel
from supercoder.models.scripted import ScriptedModel
from supercoder.runs.eval_run import run_eval
from supercoder.runs.identity import RunConfig
from supercoder.runs.store import Store
from supercoder.runs.strategies import make_verifier
from supercoder.types import Status, Verdict
from supercoder.verify.evaluate import CheckConfig
from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import Reply, anthropic_server, openai_server

runner = CliRunner()


def sum_answer() -> str:
    from supercoder.toolchain.gcc import compile_to_asm
    from tests.conftest import SUM_SOURCE

    return "```assembly\n" + compile_to_asm(SUM_SOURCE, ("-O2",)) + "\n```"


def broken_machine_for(name: str, message: str):
    """A real verifier, except that the machine fails for problem ``name``."""
    real = make_verifier(CheckConfig(time=False))

    def verify(problem, candidates):
        if problem.name != name:
            yield from real(problem, candidates)
            return
        for i, _ in enumerate(candidates):
            yield i, Verdict(problem.name, Status.INFRA_ERROR, message=message), 0.0

    return verify


def test_machine_trouble_is_never_final(tmp_path):
    sandbox_or_skip()
    for name in ("a", "b"):
        make_sum_problem(tmp_path / "bench" / name, hidden=False)
        (tmp_path / "bench" / name / "problem.json").write_text(json.dumps({"name": name}))
    problems, store = load_benchmark(tmp_path / "bench"), Store(tmp_path / "r.sqlite")
    spec = RunConfig(model="scripted", benchmark=str(tmp_path / "bench"), time=False, concurrency=1)
    model = ScriptedModel(lambda m, i: sum_answer())
    disk_full = "OSError: [Errno 28] No space left on device: '/tmp/sc-box-x'"
    first = run_eval(problems, model, spec, store, verify=broken_machine_for("b", disk_full))
    assert set(first.failed) == {"b"} and "No space left on device" in first.failed["b"]
    assert store.finished_problems(first.name) == ["a"]
    s = first.summary.to_json()
    assert (s["problems"], s["problems_scored"], s["problems_dropped"]) == (2, 1, 1)
    assert s["accuracy"] == 50.0 and s["unscored_problems"] == ["b"]
    assert store.runs()[0].finished is None
    from supercoder.report.page import load_run

    shown = load_run(tmp_path / "r.sqlite").summary  # the HTML report's headline numbers
    assert (shown.problems, shown.problems_scored, shown.accuracy) == (2, 1, 50.0)

    second = run_eval(problems, model, spec, store, verify=make_verifier(CheckConfig(time=False)))
    assert second.skipped == 1 and not second.failed  # b retried, a kept
    assert second.summary.accuracy == 100.0 and second.summary.problems_scored == 2


class SilentFor:
    """A model that answers nothing for problem ``name`` while ``silent`` (like the
    compiler model when every build failed on a full disk), else the sum answer."""

    name = "scripted"

    def __init__(self, name: str) -> None:
        self.problem, self.silent = name, True

    def complete(self, messages, sampling, context=None):
        if context is not None and context.name == self.problem and self.silent:
            return []
        return ScriptedModel(lambda m, i: sum_answer()).complete(messages, sampling, context)


def test_a_problem_without_a_scored_attempt_is_never_done(tmp_path):
    sandbox_or_skip()
    for name in ("a", "b"):
        make_sum_problem(tmp_path / "bench" / name, hidden=False)
        (tmp_path / "bench" / name / "problem.json").write_text(json.dumps({"name": name}))
    problems, store = load_benchmark(tmp_path / "bench"), Store(tmp_path / "r.sqlite")
    spec = RunConfig(model="scripted", benchmark=str(tmp_path / "bench"), time=False, concurrency=1)
    model = SilentFor("b")
    first = run_eval(problems, model, spec, store)
    assert set(first.failed) == {"b"} and "not scored" in first.failed["b"]
    assert store.finished_problems(first.name) == ["a"]  # b is not "already done"
    s = first.summary.to_json()
    assert s["complete"] is False and s["unscored_problems"] == ["b"]
    assert store.runs()[0].finished is None
    model.silent = False
    second = run_eval(problems, model, spec, store)
    assert second.skipped == 1 and not second.failed and second.summary.complete
    assert second.summary.accuracy == 100.0 and store.runs()[0].finished is not None
    # a store written before this rule: a problem marked finished without any attempt
    from supercoder.runs.strategies import Outcome

    store.finish_problem(first.name, Outcome("c"))
    assert "c" not in store.finished_problems(first.name)


def _tmpfs(path) -> bool:
    path.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(path)], capture_output=True
    )
    return proc.returncode == 0


def test_a_full_disk_gives_exit_3_with_the_cause_and_a_rerun_recovers(tmp_path):
    sandbox_or_skip()
    full = tmp_path / "full"
    if not _tmpfs(full):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        with contextlib.suppress(OSError), open(full / "filler", "wb") as f:
            f.write(b"\0" * (4 << 20))  # the disk is now full
        make_sum_problem(tmp_path / "bench" / "sum")
        db = tmp_path / "r.sqlite"
        args = [
            sys.executable,
            "-m",
            "supercoder.cli",
            "eval",
            "--benchmark",
            str(tmp_path / "bench"),
            "--db",
            str(db),
            "--no-time",
            "--run",
            "r",
        ]
        # a fresh cache: the baseline is compiled now, by gcc on the host, in the full TMPDIR
        # (candidates are built in the build sandbox, whose folder Python puts elsewhere)
        cache = {"SUPERCODER_CACHE": str(tmp_path / "cache")}
        env = {**os.environ, "TMPDIR": str(full), **cache}
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 3, proc.stderr
        assert "No space left on device" in proc.stderr and "unfinished" in proc.stderr
        assert "Traceback" not in proc.stderr + proc.stdout
        # the machine's trouble is never worded as the user's mistake
        assert "does not compile" not in proc.stderr and "ldflags" not in proc.stderr
        opt = [
            sys.executable,
            "-m",
            "supercoder.cli",
            "optimize",
            str(tmp_path / "bench" / "sum"),
            "--no-time",
            "-o",
            str(tmp_path / "best.s"),
        ]
        lost = subprocess.run(opt, env=env, capture_output=True, text=True, timeout=300)
        assert lost.returncode == 3 and "No space left on device" in lost.stderr, lost.stderr
        (full / "filler").unlink()
        again = subprocess.run(
            args, env={**os.environ, **cache}, capture_output=True, text=True, timeout=300
        )
        assert again.returncode == 0, again.stderr
        assert "already done" not in again.stderr
    finally:
        subprocess.run(["umount", str(full)], capture_output=True)


# --- hung model servers ----------------------------------------------------------------


def hanging(release: threading.Event):
    def respond(messages, request):
        release.wait(120)  # a server that accepted the request and never answers
        return "too late"

    return respond


def test_timeout_stops_a_hung_server(tmp_path):
    sandbox_or_skip()
    make_sum_problem(tmp_path / "bench" / "sum")
    release = threading.Event()
    try:
        with openai_server(hanging(release)) as url:
            start = time.monotonic()
            result = runner.invoke(
                app,
                [
                    "eval",
                    "-m",
                    "openai:m",
                    "--base-url",
                    url,
                    "--benchmark",
                    str(tmp_path / "bench"),
                    "--db",
                    str(tmp_path / "r.sqlite"),
                    "--timeout",
                    "1",
                ],
            )
            elapsed = time.monotonic() - start
            release.set()
    finally:
        release.set()
    assert result.exit_code == 3, result.output
    assert "looks hung" in result.output and "sum" in result.output
    assert elapsed < 30 and len(url.requests) == 2


def test_deadline_bounds_a_whole_problem(tmp_path):
    sandbox_or_skip()
    make_sum_problem(tmp_path / "sum")
    release = threading.Event()
    try:
        with openai_server(hanging(release)) as url:
            start = time.monotonic()
            result = runner.invoke(
                app,
                [
                    "optimize",
                    str(tmp_path / "sum"),
                    "-m",
                    "openai:m",
                    "--base-url",
                    url,
                    "--timeout",
                    "100",
                    "--deadline",
                    "2",
                    "-o",
                    str(tmp_path / "x.s"),
                ],
            )
            elapsed = time.monotonic() - start
    finally:
        release.set()
    assert result.exit_code == 3 and "deadline (2s)" in result.output, result.output
    assert elapsed < 20 and not (tmp_path / "x.s").exists()


# --- what a server sends back ---------------------------------------------------------

FAST = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02)
MALFORMED = [
    {"choices": "a string"},
    {"choices": [1, 2]},
    {"choices": {"0": {"message": {"content": "x"}}}},
    {"choices": [{"message": {"content": 42}}]},
]


@pytest.mark.parametrize("body", MALFORMED)
def test_a_malformed_reply_is_an_infra_error_never_a_crash(body):
    with openai_server(lambda m, r: Reply(200, body=body)) as url:
        model = OpenAIModel("m", base_url=url, retry=FAST)
        with pytest.raises(InfraError):
            model.complete([{"role": "user", "content": "hi"}])


@pytest.mark.parametrize(
    "usage",
    [
        "lots",
        [1, 2],
        {"prompt_tokens": "9", "completion_tokens": None},
        {"prompt_tokens": 1e300, "completion_tokens": True},
    ],
)
def test_usage_of_the_wrong_type_counts_as_zero(usage):
    body = {
        "choices": [{"index": "x", "message": {"content": "ok"}, "finish_reason": 5}],
        "usage": usage,
    }
    with openai_server(lambda m, r: Reply(200, body=body)) as url:
        (c,) = OpenAIModel("m", base_url=url, retry=FAST).complete(
            [{"role": "user", "content": "x"}]
        )
    assert (c.text, c.prompt_tokens, c.completion_tokens, c.finish_reason) == ("ok", 0, 0, None)


def test_anthropic_wrong_types_are_handled():
    body = {
        "content": [{"type": "text", "text": 5}, {"type": "text", "text": "ok"}, "junk"],
        "usage": "x",
        "stop_reason": ["end"],
    }
    with anthropic_server(lambda m, r: Reply(200, body=body)) as url:
        model = AnthropicModel("claude-x", base_url=url, api_key="k", retry=FAST)
        (c,) = model.complete([{"role": "user", "content": "x"}])
    assert (c.text, c.prompt_tokens, c.finish_reason) == ("ok", 0, None)


def test_a_huge_answer_is_capped_and_says_so():
    with openai_server(lambda m, r: "x" * (MAX_ANSWER_CHARS + 5000)) as url:
        (c,) = OpenAIModel("m", base_url=url, retry=FAST).complete(
            [{"role": "user", "content": "x"}]
        )
    assert len(c.text) < MAX_ANSWER_CHARS + 100 and "answer cut here, 5000 more" in c.text


HOSTILE_TEXT = "\x1b]0;owned\x07\x1b[2J[/][bold red]boom[/] \x00 done"


def test_control_bytes_and_markup_from_a_server_reach_the_terminal_escaped(tmp_path):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    reply = Reply(400, body={"error": {"message": HOSTILE_TEXT}})
    for command in (["optimize", str(problem)], ["eval", "--benchmark", str(tmp_path)]):
        with openai_server(lambda m, r: reply) as url:
            result = runner.invoke(
                app,
                [
                    *command,
                    "-m",
                    "openai:m",
                    "--base-url",
                    url,
                    "--db" if command[0] == "eval" else "-o",
                    str(tmp_path / ("r.sqlite" if command[0] == "eval" else "x.s")),
                ],
            )
        assert result.exit_code in (2, 3), result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\x00" not in result.output and "Traceback" not in result.output
        assert "\\x1b[2J[/][bold red]boom[/]" in result.output
