"""The engine's request budget at a real loopback model server: ``eval --requests 2``
never has more than 2 model requests in flight, and verification goes on meanwhile.

Every wait here is on an observable state (a request arriving, a request queued at the
budget, an attempt stored), bounded only so that a broken engine fails instead of
hanging."""

from __future__ import annotations

import sqlite3
import threading

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.engine import current
from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_infra_faults import sum_answer

BOUND = 120.0  # seconds: reached only when the engine is broken


def _problem_of(messages) -> str:
    text = messages[0]["content"]
    return next(p for p in ("p1", "p2", "p3") if f"problem: {p} " in text)


def test_eval_with_two_requests_never_has_three_in_flight_while_checks_go_on(tmp_path):
    sandbox_or_skip()
    bench, db = tmp_path / "bench", tmp_path / "r.sqlite"
    for name in ("p1", "p2", "p3"):
        source = make_sum_problem(bench / name) / "source.c"
        source.write_text(source.read_text() + f"/* problem: {name} */\n")  # in the prompt
    answer = sum_answer()
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}
    seen: dict[str, int] = {}
    waited: dict[str, bool] = {}

    def stored(problem: str) -> bool:
        if not db.exists():
            return False
        con = sqlite3.connect(db, timeout=30)
        try:
            rows = con.execute("SELECT count(*) FROM attempts WHERE problem = ?", (problem,))
            return rows.fetchone()[0] > 0
        except sqlite3.OperationalError:  # the store is being created
            return False
        finally:
            con.close()

    def wait_for(what: str, cond) -> None:
        """Look at ``cond`` until it holds (bounded: a broken engine fails, not hangs)."""
        ticker = threading.Event()
        for _ in range(int(BOUND / 0.02)):
            if cond():
                waited[what] = True
                return
            ticker.wait(0.02)
        waited[what] = False

    def respond(messages, request):
        problem = _problem_of(messages)
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            k = seen[problem] = seen.get(problem, 0) + 1
        try:
            if problem == "p1" and k == 1:  # both problems' first requests in flight
                wait_for("p2 asked", lambda: "p2" in seen)
            elif problem == "p2" and k == 1:  # held open until p1's answers are checked
                wait_for("p1 verified", lambda: stored("p1"))
            elif problem == "p1" and k == 2:  # p1's other single queued at the budget
                wait_for("queued at the budget", lambda: current().requests.waiting > 0)
            return answer
        finally:
            with lock:
                state["now"] -= 1

    # the server answers one choice for n=3: the client then asks per sample, in parallel
    with openai_server(respond, supports_n=False) as url:
        args = ["eval", "-m", "openai:m", "--benchmark", str(bench), "--db", str(db)]
        args += ["--no-time", "--samples", "3", "--requests", "2", "--base-url", url]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert waited == {"p2 asked": True, "p1 verified": True, "queued at the budget": True}
    assert state["peak"] == 2  # two at once, never three
    assert len(url.requests) == 9  # p1, p2: n=3 (one choice back), 2 singles; p3: 3 singles
    con = sqlite3.connect(db)
    counts = con.execute("SELECT problem, count(*) FROM attempts GROUP BY problem").fetchall()
    assert sorted(counts) == [("p1", 3), ("p2", 3), ("p3", 3)]
