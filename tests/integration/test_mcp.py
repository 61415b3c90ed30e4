"""`supercoder mcp` driven by the `mcp` SDK's own client: over stdio (the command spawned
as a subprocess, as an agent starts it) and over streamable HTTP (the bearer token)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_sum_problem, sandbox_or_skip

mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from supercoder.toolchain.gcc import compile_to_asm  # noqa: E402
from tests.integration.test_evaluate import FAST, SLOW, WRONG, primes_tests  # noqa: E402

HIDDEN = "2\n777777 123456\n"  # the sum problem's hidden test: never shown


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """An allowed root: the primes problem (trial division, with a real faster answer),
    the sum problem (with a hidden test), and a link that leads out of the root."""
    sandbox_or_skip()
    root = tmp_path_factory.mktemp("mcp") / "problems"
    primes = root / "primes"
    (primes / "tests").mkdir(parents=True)
    (primes / "source.c").write_text(SLOW)
    for n, count in primes_tests().items():
        (primes / "tests" / f"n{n}.in").write_text(f"{n}\n")
        (primes / "tests" / f"n{n}.out").write_text(f"{count}\n")
    make_sum_problem(root / "sum")
    (root / "sum" / "hidden" / "t0.in").write_text(HIDDEN)
    (root / "sum" / "hidden" / "t0.out").write_text("901233\n")
    outside = tmp_path_factory.mktemp("outside") / "secret"
    make_sum_problem(outside)
    (root / "escape").symlink_to(outside)
    return root


def session(root: Path, *extra: str):
    """A stdio session with `python -m supercoder.cli mcp --allow-root ROOT`."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "supercoder.cli", "mcp", "--allow-root", str(root), *extra],
        env=dict(os.environ),
    )
    return params


async def _call(s: ClientSession, tool: str, **arguments):
    return await s.call_tool(tool, arguments)


def run(script, params: StdioServerParameters):
    async def main():
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return await script(s)

    return asyncio.run(main())


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content)


def test_an_agent_reads_a_problem_submits_a_faster_answer_and_gets_a_verified_speedup(root):
    fast, wrong = compile_to_asm(FAST), compile_to_asm(WRONG)

    async def agent(s: ClientSession):
        tools = {t.name for t in (await s.list_tools()).tools}
        assert tools == {
            "list_problems",
            "show_problem",
            "profile_baseline",
            "check_candidate",
            "analyze_answer",
        }
        listed = await _call(s, "list_problems")
        refs = [p["problem"] for p in listed.structured_content["problems"]]
        assert "dp_lcs" in refs  # the bundled problems, by name
        primes = next(r for r in refs if r.endswith("/primes"))
        assert str(root / "sum") in refs and not any("secret" in r for r in refs)

        shown = await _call(s, "show_problem", problem=primes, tests=2)
        data = shown.structured_content
        assert not shown.is_error and data["visible_tests"] == len(primes_tests())
        assert [t["input"] for t in data["tests"]] == ["1\n", "10\n"]
        assert "main:" in data["baseline_asm"] and "main:" in text_of(shown)

        # correctness only (cheap, whatever the load): right and wrong answers
        ok = await _call(s, "check_candidate", problem=primes, assembly=fast, time=False)
        assert not ok.is_error and ok.structured_content["status"] == "ok", text_of(ok)
        assert ok.structured_content["speedup"] is None and "ok" in text_of(ok)
        bad = await _call(s, "check_candidate", problem=primes, assembly=wrong, time=False)
        assert bad.structured_content["status"] == "wrong_output", text_of(bad)

        # one timed check: the sieve against trial division is many times faster
        heard: list[str] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            heard.append(message or "")

        timed = await s.call_tool(
            "check_candidate", {"problem": primes, "assembly": fast}, progress_callback=progress
        )
        assert heard and heard[0].startswith("checking and timing: "), heard
        verdict = timed.structured_content
        assert verdict["status"] == "ok", text_of(timed)
        assert verdict["speedup"] > 1.5 and verdict["speedup_ci"][0] > 1.0
        assert verdict["reward"] > 0 and "speedup" in text_of(timed)

        analysed = await _call(s, "analyze_answer", problem=primes, assembly=fast)
        assert not analysed.is_error and "kinds" in analysed.structured_content

        # hidden tests are never shown: not in show_problem, not in a verdict
        # a folder's path, absolute or relative to its root
        relative = await _call(s, "show_problem", problem="sum", tests=20)
        shown = await _call(s, "show_problem", problem=str(root / "sum"), tests=20)
        assert relative.structured_content == shown.structured_content
        assert shown.structured_content["hidden_tests"] == 1
        assert len(shown.structured_content["tests"]) == 4
        checked = await _call(
            s,
            "check_candidate",
            problem=str(root / "sum"),
            assembly=shown.structured_content["baseline_asm"],
            time=False,
        )
        for result in (shown, checked):
            dumped = json.dumps(result.structured_content) + text_of(result)
            assert "hidden/t0" not in dumped and "777777" not in dumped
            assert "901233" not in dumped
        assert checked.structured_content["status"] == "ok"

        # an answer as SEARCH/REPLACE edits of the baseline: applied, then checked
        edits = "<<<<<<< SEARCH\nmain:\n=======\nmain:\n\tnop\n>>>>>>> REPLACE\n"
        edited = await _call(
            s, "check_candidate", problem=str(root / "sum"), edits=edits, time=False
        )
        assert edited.structured_content["status"] == "ok", text_of(edited)
        assert not edited.structured_content["identical_to_baseline"]

    run(agent, session(root))


def test_hostile_arguments_are_refused_in_one_line(root):
    fast = compile_to_asm(FAST)

    async def hostile(s: ClientSession):
        cases = [
            ("show_problem", {"problem": "../../etc"}),
            ("show_problem", {"problem": "/etc"}),
            ("show_problem", {"problem": str(root / "escape")}),  # a link out of the root
            ("show_problem", {"problem": "escape"}),
            ("show_problem", {"problem": str(root / ".." / "outside")}),
            ("show_problem", {"problem": "dp_lcs\0x"}),
            ("show_problem", {"problem": "x" * 100_000}),
            ("show_problem", {"problem": 5}),
            ("show_problem", {"problem": "dp_lcs", "tests": -1}),
            ("show_problem", {}),
            ("check_candidate", {"problem": "dp_lcs", "assembly": "x" * (80 << 10)}),
            ("check_candidate", {"problem": "dp_lcs", "assembly": "   "}),
            ("check_candidate", {"problem": "no_such_problem", "assembly": fast}),
            ("check_candidate", {"problem": "dp_lcs"}),  # neither assembly nor edits
            ("check_candidate", {"problem": "dp_lcs", "assembly": fast, "edits": "x"}),
            ("check_candidate", {"problem": "dp_lcs", "edits": "no blocks here"}),
            (
                "analyze_answer",
                {
                    "problem": "dp_lcs",
                    "edits": "<<<<<<< SEARCH\nnot there\n=======\n>>>>>>> REPLACE",
                },
            ),
            ("list_problems", {"match": "y" * (5 << 20)}),  # over the arguments' cap
            ("profile_baseline", {"problem": "dp_lcs", "top": 10**9}),
            ("no_such_tool", {}),
        ]
        for tool, arguments in cases:
            result = await s.call_tool(tool, arguments)
            text = text_of(result)
            assert result.is_error, (tool, arguments, text)
            assert "\n" not in text and len(text) <= 600 and "Traceback" not in text, text
        # the server is still there, and a file-reading directive is the candidate's
        # failure (a verdict), not the server's
        result = await _call(
            s,
            "check_candidate",
            problem=str(root / "sum"),
            assembly='.section .rodata\n.incbin "/etc/passwd"\n' + fast,
            time=False,
        )
        assert result.structured_content["status"] == "compile_error"
        assert "root:" not in text_of(result)
        profile = await _call(s, "profile_baseline", problem=str(root / "sum"), top=3)
        assert not profile.is_error, text_of(profile)
        assert profile.structured_content["instructions"] > 0
        assert len(profile.structured_content["lines"]) <= 3

    run(hostile, session(root, "--max-candidate-kb", "64"))

    # a candidate that spins runs each test to its 10 s CPU limit: no answer within 1 s,
    # however fast the machine (a fast answer's timed check can end within a second)
    spin = "\t.text\n\t.globl main\nmain:\n1:\tjmp 1b\n"

    async def impatient(s: ClientSession):
        result = await _call(
            s, "check_candidate", problem=str(root / "primes"), assembly=spin, time=False
        )
        assert result.is_error and "no answer within 1 s" in text_of(result), text_of(result)

    run(impatient, session(root, "--tool-seconds", "1"))


def test_http_needs_the_token_and_refuses_to_start_without_one(tmp_path):
    import httpx

    cli = [sys.executable, "-m", "supercoder.cli", "mcp", "--transport", "http"]
    env = {k: v for k, v in os.environ.items() if k != "SUPERCODER_TOKEN"}
    for extra in ([], ["--host", "0.0.0.0", "--insecure-loopback"]):
        done = subprocess.run(
            [*cli, "--port", "0", *extra], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "token" in done.stderr
    done = subprocess.run(  # a bad problem set stops it before it serves
        [*cli[:4], "-b", "no_such_set"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "no such benchmark" in done.stderr, done.stderr

    token = "t0k3n-for-this-test"
    server = subprocess.Popen(
        [*cli, "--port", "0"],
        env={**env, "SUPERCODER_TOKEN": token},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stderr.readline()
        assert "serving MCP on http://127.0.0.1:" in line and "token required" in line, line
        url = line.split()[3]
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
            refused = httpx.post(url, json=hello, headers=headers, timeout=30)
            assert refused.status_code == 401 and "token" in refused.json()["error"]

        async def agent():
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with (
                client,
                streamable_http_client(url, http_client=client) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                listed = await _call(s, "list_problems", match="dp_lcs")
                return listed.structured_content

        listed = asyncio.run(agent())
        assert [p["problem"] for p in listed["problems"]] == ["dp_lcs"]
    finally:
        server.terminate()
        server.wait(timeout=30)
