"""`supercoder serve` end to end: a real server process on loopback, a real HTTP client
(httpx), real checks in the sandbox on a cheap problem (``time: false`` where the point
is correctness). Slow work is a program that spins until its CPU limit (0.5 s a test, two tests)."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from tests.conftest import make_sum_problem, sandbox_or_skip

pytestmark = pytest.mark.slow

TOKEN = "test-token-0123456789"
SPIN = "\t.text\n\t.globl main\nmain:\n.Lspin:\n\tjmp .Lspin\n"
# the hidden test: a name, an input and an output no response may carry
SECRET_NAME, SECRET_IN, SECRET_OUT = "zzsecretcase", "987654321", "1975308642"


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    root: Path

    def client(self, token: str | None = TOKEN, timeout: float = 120) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def metric(self, name: str) -> float:
        with self.client() as c:
            for line in c.get("/metrics").text.splitlines():
                if line.startswith(f"supercoder_{name} "):
                    return float(line.split()[1])
        raise AssertionError(f"no metric {name}")

    def wait_for(self, what, timeout: float = 120) -> None:
        end = time.monotonic() + timeout
        while not what():
            assert time.monotonic() < end, "the server never reached the state waited for"
            time.sleep(0.05)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def make_root(root: Path) -> Path:
    problem = make_sum_problem(root / "bench" / "sum")
    hidden = problem / "hidden"
    (hidden / f"{SECRET_NAME}.in").write_text(f"2\n{SECRET_IN} {SECRET_IN}\n")
    (hidden / f"{SECRET_NAME}.out").write_text(f"{SECRET_OUT}\n")
    (root / "token").write_text(TOKEN + "\n")
    return root


def start(root: Path, *args: str, env: dict | None = None) -> Server:
    cmd = [sys.executable, "-m", "supercoder.cli", "serve", "--port", "0"]
    cmd += ["--token-file", str(root / "token"), "--benchmark", str(root / "bench")]
    cmd += ["--allow-root", str(root), *args]
    proc = subprocess.Popen(
        cmd, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}
    )
    assert proc.stderr is not None
    end = time.monotonic() + 120
    line = ""
    while "serving on" not in line:
        assert time.monotonic() < end and proc.poll() is None, f"no server: {line}"
        if select.select([proc.stderr], [], [], 1)[0]:
            line = proc.stderr.readline()
    url = line.split("serving on ", 1)[1].split()[0]
    return Server(url, proc, root)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return make_root(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def server(root):
    sandbox_or_skip()
    s = start(root, "--workers", "1", "--queue", "1", "--max-body-mb", "0.25")
    yield s
    assert s.stop() == 0


@pytest.fixture(scope="module")
def programs(root):
    asm = baseline_asm(load_problem(root / "bench" / "sum"))
    return {
        "copy": asm,
        "nop": asm.replace("main:\n", "main:\n\tnop\n", 1),  # correct, not a copy
        "wrong": asm.replace("%lld\\n", "%lld!\\n"),
        "spin": SPIN,
    }


def check_body(program: str, **extra) -> dict:
    return {"problem": {"name": "sum"}, "programs": [program], "time": False, **extra}


def slow(server: Server, rid: str) -> cf.Future:
    """A request that holds the one worker for a few seconds (two 1 s CPU timeouts),
    sent from a thread; returns once the server says it runs."""
    pool = cf.ThreadPoolExecutor(1)
    before = server.metric("requests_running")
    body = check_body(SPIN, cpu_limit=0.5, id=rid)
    future = pool.submit(lambda: server.client().post("/v1/check", json=body))
    server.wait_for(lambda: server.metric("requests_running") > before or future.done())
    pool.shutdown(wait=False)
    return future


def test_auth_refuses_missing_and_wrong_tokens(server):
    with server.client(token=None) as anon, server.client(token="wrong") as bad:
        assert anon.get("/health").json()["status"] == "ok"
        for c in (anon, bad):
            assert c.get("/v1/problems").status_code == 401
            assert c.get("/metrics").status_code == 401
            r = c.post("/v1/check", json=check_body("x"))
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    with server.client() as c:
        assert [p["name"] for p in c.get("/v1/problems").json()["problems"]] == ["sum"]


def test_no_token_no_service_unless_loopback_and_asked(root):
    cmd = [sys.executable, "-m", "supercoder.cli", "serve", "--port", "0", "--benchmark"]
    env = {k: v for k, v in os.environ.items() if k != "SUPERCODER_TOKEN"}
    bench = str(root / "bench")
    for extra in ([], ["--insecure-loopback", "--host", "0.0.0.0"]):
        r = subprocess.run([*cmd, bench, *extra], capture_output=True, text=True, env=env)
        assert r.returncode == 2, r.stderr
        assert "token" in r.stderr and "Traceback" not in r.stderr


def test_bad_bodies_get_clean_4xx_and_the_server_lives_on(server, programs):
    with server.client() as c:
        big = check_body("#" * (300 << 10))
        assert c.post("/v1/check", json=big).status_code == 413
        r = c.post("/v1/check", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 400 and "JSON" in r.json()["error"]
        assert c.post("/v1/check", json=[1, 2]).status_code == 400
        assert c.post("/v1/check", json={"problem": "sum", "programs": "x"}).status_code == 422
        assert c.post("/v1/check", json=check_body("x", cpu_limit="a")).status_code == 422
        assert (
            c.post("/v1/check", json={**check_body("x"), "problem": {"name": "no"}}).status_code
            == 404
        )
        outside = {**check_body("x"), "problem": {"path": "/etc"}}
        assert c.post("/v1/check", json=outside).status_code == 403
        score = {"problems": [{"name": "sum"}], "items": [{"problem": 3, "completion": "x"}]}
        assert c.post("/v1/score", json=score).status_code == 422
        r = c.post("/v1/check", json=check_body(programs["copy"]))
        assert r.status_code == 200 and r.json()["verdicts"][0]["status"] == "ok"


def test_a_body_cut_off_or_nested_too_deep_harms_nothing(server, programs):
    import socket

    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:  # says 1000 bytes, sends 10
        head = (
            f"POST /v1/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        sock.sendall(head.encode() + b'{"problem"')
    with server.client() as c:
        deep = b'{"problem": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        r = c.post("/v1/check", content=deep, headers={"content-type": "application/json"})
        assert r.status_code in (400, 413) and "error" in r.json()
        r = c.post("/v1/check", json=check_body(programs["nop"]))
        assert r.status_code == 200 and r.json()["verdicts"][0]["status"] == "ok"
    assert server.proc.poll() is None


def test_verdicts_are_the_in_process_ones_and_hide_the_hidden_tests(server, programs):
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.service import verify_together

    problem = load_problem(server.root / "bench" / "sum")
    order = ["copy", "nop", "wrong"]
    with server.client() as c:
        r = c.post(
            "/v1/check",
            json={
                "problem": {"path": str(server.root / "bench" / "sum")},
                "programs": [programs[k] for k in order],
                "time": False,
            },
        )
    assert r.status_code == 200
    with server.client() as c:
        wrong = {"problem": 0, "completion": f"```assembly\n{programs['wrong']}\n```"}
        scored = c.post(
            "/v1/score", json={"problems": [{"name": "sum"}], "items": [wrong], "time": False}
        )
    assert scored.json()["verdicts"][0]["status"] == "wrong_output"
    for secret in (SECRET_NAME, SECRET_IN, SECRET_OUT):
        assert secret not in r.text and secret not in scored.text
    remote = r.json()["verdicts"]
    local = verify_together(problem, [programs[k] for k in order], CheckConfig(time=False))
    assert [v["status"] for v in remote] == [v.status.value for v in local]
    assert [v["status"] for v in remote] == ["ok", "ok", "wrong_output"]
    assert remote[2]["unseen"]["count"] == local[2].unseen.count >= 2  # one count, one status
    assert remote[0]["identical_to_baseline"] and not remote[1]["identical_to_baseline"]


def test_a_request_id_runs_once(server, programs):
    with server.client() as c:
        body = check_body(programs["nop"], id="once-1")
        before = server.metric("checks_total")
        first = c.post("/v1/check", json=body)
        again = c.post("/v1/check", json=body)
        assert first.status_code == again.status_code == 200
        assert first.json() == again.json()  # the same answer, cpu seconds and all
        assert server.metric("checks_total") == before + 1
        other = c.post("/v1/check", json=check_body(programs["wrong"], id="once-1"))
        assert other.status_code == 409


def test_a_full_queue_answers_429_and_loses_nothing(server, programs):
    """workers 1, queue 1: with the worker busy, 10x the queue at once gets only 200s
    and 429s; each 429 retried with its id gets its verdict."""
    blocker = slow(server, "block-429")
    bodies = [check_body(programs["wrong" if i % 2 else "nop"], id=f"load-{i}") for i in range(10)]

    def send(body):
        with server.client() as c:
            return c.post("/v1/check", json=body)

    with cf.ThreadPoolExecutor(10) as pool:
        first = list(pool.map(send, bodies))
    codes = [r.status_code for r in first]
    assert set(codes) <= {200, 429} and codes.count(429) >= 5, codes
    assert all(int(r.headers["retry-after"]) >= 1 for r in first if r.status_code == 429)
    assert blocker.result().status_code == 200
    answers = {}
    for body, r in zip(bodies, first, strict=True):
        while r.status_code == 429:
            time.sleep(0.2)
            r = send(body)
        assert r.status_code == 200
        answers[body["id"]] = r.json()["verdicts"][0]["status"]
    assert answers == {b["id"]: "wrong_output" if i % 2 else "ok" for i, b in enumerate(bodies)}


def test_deadlines(server, programs):
    blocker = slow(server, "block-deadline")
    with server.client() as c:
        r = c.post("/v1/check", json=check_body(programs["nop"], deadline_s=0.3))
        assert r.status_code == 504 and "before the work started" in r.json()["error"]
    assert blocker.result().status_code == 200
    with server.client() as c:
        body = check_body(SPIN, cpu_limit=0.5, id="late")
        r = c.post("/v1/check", json={**body, "deadline_s": 0.5})
        assert r.status_code == 504 and "same id" in r.json()["error"]
        r = c.post("/v1/check", json={**body, "deadline_s": 300})
        assert r.status_code == 200 and r.json()["verdicts"][0]["status"] == "timeout"


def test_a_client_that_goes_away_loses_nothing(server, programs):
    body = check_body(SPIN, cpu_limit=0.5, id="gone")
    with server.client(timeout=0.5) as c, pytest.raises(httpx.ReadTimeout):
        c.post("/v1/check", json=body)  # hangs up while the work runs
    with server.client() as c:
        assert c.post("/v1/check", json=check_body(programs["copy"])).status_code == 200
        r = c.post("/v1/check", json=body)
        assert r.status_code == 200 and r.json()["verdicts"][0]["status"] == "timeout"


def test_the_rewards_through_the_server_equal_the_in_process_ones(server, programs, monkeypatch):
    from supercoder.training.trl_reward import make_trl_reward
    from supercoder.training.verl_reward import score_responses
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.reward import RewardConfig

    problem = load_problem(server.root / "bench" / "sum")
    fence = "```assembly\n{}\n```".format
    completions = [fence(programs[k]) for k in ("copy", "nop", "wrong")] + ["no code", ""]
    config = RewardConfig(kind="paper", eval_config=CheckConfig(time=False))
    here = make_trl_reward([problem], config)(completions=completions, problem=["sum"] * 5)
    monkeypatch.setenv("SUPERCODER_SERVER", server.url)
    monkeypatch.setenv("SUPERCODER_TOKEN", TOKEN)
    from supercoder.verify.executors import InlineExecutor  # as train grpo passes one

    before = server.metric("checks_total")
    reward = make_trl_reward([problem], config, InlineExecutor())
    there = reward(completions=completions, problem=["sum"] * 5)
    assert here == there == [0.0, 1.0, 0.0, 0.0, 0.0]
    assert server.metric("checks_total") == before + 5  # judged there
    # verl: the record travels as it is; not timed answers only (a wrong one, a copy)
    from supercoder.verify.client import problem_record

    info = problem_record(problem)
    answers = [completions[0], completions[2], "no code"]
    before = server.metric("checks_total")
    remote = score_responses(answers, [info] * 3)
    assert server.metric("checks_total") == before + 3
    monkeypatch.delenv("SUPERCODER_SERVER")
    local = score_responses(answers, [info] * 3)
    assert remote == local
    assert [r["correct"] for r in remote] == [1.0, 0.0, 0.0]


def test_a_problem_the_server_lacks_travels_as_a_record(server, programs, tmp_path):
    from supercoder.verify.client import ServiceClient
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.reward import RewardConfig

    elsewhere = load_problem(make_sum_problem(tmp_path / "elsewhere"))  # not under its root
    config = RewardConfig(kind="paper", eval_config=CheckConfig(time=False))
    with ServiceClient(server.url, TOKEN) as client:
        answers = [f"```assembly\n{programs[k]}\n```" for k in ("nop", "wrong")]
        verdicts = client.score([elsewhere] * 2, answers, config)
        assert [v.status.value for v in verdicts] == ["ok", "wrong_output"]
        assert [v.status.value for v in client.check(elsewhere, [programs["nop"]], time=False)] == [
            "ok"
        ]


def test_check_and_eval_take_a_server(server, programs, tmp_path):
    from tests.fakes.servers import openai_server

    env = {**os.environ, "SUPERCODER_TOKEN": TOKEN}
    files = []
    for k in ("nop", "wrong"):
        files.append(tmp_path / f"{k}.s")
        files[-1].write_text(programs[k])
    cli = [sys.executable, "-m", "supercoder.cli"]
    sum_dir = str(server.root / "bench" / "sum")
    r = subprocess.run(
        [*cli, "check", sum_dir, *map(str, files), "--no-time", "--json", "--server", server.url],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert [v["status"] for v in json.loads(r.stdout)] == ["ok", "wrong_output"]
    bad = subprocess.run(
        [*cli, "check", sum_dir, str(files[0]), "--server", server.url],
        capture_output=True,
        text=True,
        env={**env, "SUPERCODER_TOKEN": "nope"},
    )
    assert bad.returncode == 2 and "token" in bad.stderr and "Traceback" not in bad.stderr
    before = server.metric("checks_total")
    answer = "```assembly\n" + programs["nop"] + "\n```"
    with openai_server(lambda messages, request: answer) as url:
        r = subprocess.run(
            [
                *cli,
                "eval",
                "--model",
                "openai:m",
                "--base-url",
                url,
                "--benchmark",
                str(server.root / "bench"),
                "--no-time",
                "--server",
                server.url,
                "--db",
                str(tmp_path / "runs.sqlite"),
                "--json",
                str(tmp_path / "s.json"),
            ],
            capture_output=True,
            text=True,
            env=env,
        )
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["accuracy"] == 100.0
    assert server.metric("checks_total") > before  # verified there, not here
    with server.client() as c:  # and the prompt's -O3 assembly came from there
        text = c.get("/metrics").text
        assert 'supercoder_requests_total{endpoint="baseline",code="200"}' in text
        r = c.post("/v1/baseline", json={"problem": {"name": "sum"}})
        assert r.status_code == 200 and r.json()["asm"] == programs["copy"]


def test_a_killed_worker_is_retried_never_scored_wrong(server, programs):
    """A score batch runs in the server's process pool; a pool worker killed mid-batch
    breaks the pool: the batch runs again on a fresh one and its verdicts are right."""
    body = {
        "problems": [{"name": "sum"}],
        "items": [
            {"problem": 0, "completion": f"```assembly\n{p}\n```"}
            for p in (programs["nop"], programs["wrong"], SPIN)
        ],
        "reward": {"kind": "paper"},
        "time": False,
        "cpu_limit": 0.5,
    }
    with server.client() as c:  # the pool's workers start
        assert c.post("/v1/score", json={**body, "items": body["items"][:2]}).status_code == 200

    def workers() -> list[int]:
        kids = []
        for task in Path(f"/proc/{server.proc.pid}/task").iterdir():
            kids += (task / "children").read_text().split()
        return [
            int(k) for k in kids if b"multiprocessing" in Path(f"/proc/{k}/cmdline").read_bytes()
        ]

    assert workers()
    pool = cf.ThreadPoolExecutor(1)
    with server.client() as c:
        future = pool.submit(c.post, "/v1/score", json={**body, "id": "killed"})
        server.wait_for(lambda: server.metric("requests_running") == 1)
        os.kill(workers()[0], signal.SIGKILL)
        r = future.result()
    pool.shutdown()
    assert r.status_code == 200, r.text
    assert [v["status"] for v in r.json()["verdicts"]] == ["ok", "wrong_output", "timeout"]
    assert r.json()["rewards"] == [1.0, 0.0, 0.0]


def test_sigterm_drains_work_in_flight(tmp_path, programs):
    sandbox_or_skip()
    s = start(make_root(tmp_path), "--workers", "1", "--queue", "4")
    try:
        running = slow(s, "drain-1")
        pool = cf.ThreadPoolExecutor(1)
        queued = pool.submit(
            lambda: s.client().post("/v1/check", json=check_body(programs["wrong"], id="q"))
        )
        s.wait_for(lambda: s.metric("queue_depth") == 1)
        s.proc.send_signal(signal.SIGTERM)
        assert running.result().status_code == 200
        assert queued.result().status_code == 200
        assert queued.result().json()["verdicts"][0]["status"] == "wrong_output"
        assert s.proc.wait(120) == 0
        with pytest.raises(httpx.ConnectError):
            s.client().get("/health")
    finally:
        s.stop()
