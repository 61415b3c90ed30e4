"""The service cannot be jammed (a real ``supercoder serve --workers 1`` on loopback).

Before: a problem whose validator left a FIFO where the host read its stderr held the
only worker for good (every later request: 504 "the deadline passed before the work
started", ``/health`` running=1 minutes later), and verl's ``compute_score`` on such a
row never answered; a client that sent half a request line and stopped was never cut
off (still open after 232 s); a body nested ~945 deep was a 500 (``RecursionError``
while computing the request digest) on every endpoint. Now the FIFO is the validator's
failure (the check answers, the next request is served), headers must arrive within
``--header-seconds``, and nesting past 64 levels is a 400 in any field.
"""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.integration.test_serve import TOKEN, Server, start

FIFO_VALIDATOR = "import os, sys\nos.unlink('err/0')\nos.mkfifo('err/0')\nsys.exit(1)\n"


@pytest.fixture(scope="module")
def root() -> Path:
    root = Path(tempfile.mkdtemp())
    make_sum_problem(root / "bench" / "sum")
    poisoned = make_sum_problem(root / "poisoned")
    (poisoned / "validate.py").write_text(FIFO_VALIDATOR)
    (root / "token").write_text(TOKEN + "\n")
    return root


@pytest.fixture(scope="module")
def server(root: Path):
    sandbox_or_skip()
    s = start(root, "--workers", "1", "--queue", "4", "--header-seconds", "1")
    yield s
    assert s.stop() == 0


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_past_the_limit_is_a_400_on_every_endpoint_and_field(server: Server) -> None:
    bodies = {
        "/v1/check": [
            '{"problem": %s, "programs": []}',
            '{"problem": {"name": "sum"}, "programs": %s}',
        ],
        "/v1/score": [
            '{"problems": [], "items": %s}',
            '{"problems": [{"record": %s}], "items": []}',
        ],
        "/v1/baseline": ['{"problem": {"path": %s}}', '{"id": %s, "problem": {"name": "sum"}}'],
    }
    with server.client() as c:
        for path, forms in bodies.items():
            for form in forms:
                for depth in (945, 100_000):
                    r = c.post(
                        path,
                        content=form % _deep(depth),
                        headers={"content-type": "application/json"},
                    )
                    assert r.status_code == 400, (path, form, depth, r.text)
                    assert (
                        "nested deeper than 64" in r.json()["error"]
                        or "not JSON" in r.json()["error"]
                    )
        assert c.post("/v1/baseline", json={"problem": {"name": "sum"}}).status_code == 200
        # paths no file system holds are refused in one line, never a 500
        for path in ('"\\ud800"', '"a\\u0000b"', '"' + "a" * 5000 + '"'):
            r = c.post(
                "/v1/baseline",
                content='{"problem": {"path": ' + path + "}}",
                headers={"content-type": "application/json"},
            )
            assert r.status_code in (403, 422), (path[:20], r.text)


def test_half_a_request_line_is_cut_off(server: Server) -> None:
    url = urlparse(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=60) as sock:
        sock.sendall(b"GET /heal")
        assert sock.recv(1024) == b""  # closed by the server (a 60 s socket timeout else)
    with server.client() as c:
        assert c.get("/health").json()["status"] == "ok"


def test_a_request_whose_validator_leaves_a_fifo_frees_the_only_worker(
    server: Server, root: Path
) -> None:
    asm_of = server.client().post("/v1/baseline", json={"problem": {"name": "sum"}}).json()["asm"]
    nop = asm_of.replace("main:\n", "main:\n\tnop\n", 1)
    body = {"problem": {"path": str(root / "poisoned")}, "programs": [nop], "deadline_s": 300}
    with server.client(timeout=360) as c:
        r = c.post("/v1/check", json=body)
        assert r.status_code == 200, r.text
        (verdict,) = r.json()["verdicts"]
        assert verdict["status"] == "ok", verdict
        after = c.post(
            "/v1/check", json={"problem": {"name": "sum"}, "programs": [nop], "time": False}
        )
        assert after.status_code == 200 and after.json()["verdicts"][0]["status"] == "ok"
        assert c.get("/health").json()["running"] == 0


def test_verl_reward_on_a_poisoned_row_answers(root: Path) -> None:
    """The same validator carried in a training row (``problem_files``): verl's
    ``compute_score`` answers (bounded: a thread that is still alive would say it
    blocked), and pays the honest answer as before."""
    sandbox_or_skip()
    import threading

    from supercoder.dataset.records import problem_to_record
    from supercoder.problems.loading import load_problem
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.training.verl_reward import compute_score
    from supercoder.verify.executors import ThreadExecutor

    problem = load_problem(root / "poisoned")
    asm = baseline_asm(problem)
    row = problem_to_record(problem, "train", 0, asm)
    assert "validate.py" in row["extra_info"]["problem_files"]
    answer = "```asm\n" + asm.replace("main:\n", "main:\n\tnop\n", 1) + "```"
    box: dict = {}

    def score() -> None:
        box["score"] = compute_score(
            data_source=row["data_source"],
            solution_str=answer,
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=row["extra_info"],
            executor=ThreadExecutor(1),
        )

    worker = threading.Thread(target=score, daemon=True)
    worker.start()
    worker.join(300)
    assert not worker.is_alive(), "compute_score blocked on the row's validator"
    assert box["score"]["correct"] == 1.0 and box["score"]["infra_failure"] == 0.0
