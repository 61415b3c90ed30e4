"""The engine's three budgets, observed through their state (holders, waiters, the
pool's size), never through timing: no gcc, sandbox, subprocess or network here."""

from __future__ import annotations

import threading

import pytest

from supercoder.engine import (
    SLOTS_ENV,
    Budget,
    Engine,
    EngineConfig,
    InlineWorkers,
    WorkerPool,
    current,
    use,
)
from supercoder.errors import UserError

WAIT = 30  # seconds an event may take to come on a loaded machine (never reached when right)


def _wait_until(cond, what: str) -> None:
    ticker = threading.Event()
    for _ in range(WAIT * 100):
        if cond():
            return
        ticker.wait(0.01)
    raise AssertionError(f"never: {what}")


def test_a_budget_never_has_more_holders_than_its_limit_and_queues_the_rest():
    budget = Budget("--requests", 2)
    release = threading.Event()
    inside: list[int] = []

    def hold(i: int) -> None:
        with budget.hold():
            inside.append(i)
            release.wait(WAIT)

    threads = [threading.Thread(target=hold, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    _wait_until(lambda: budget.in_use == 2 and budget.waiting == 3, "2 holders, 3 waiting")
    assert len(inside) == 2  # the other three wait their turn
    release.set()
    for t in threads:
        t.join(WAIT)
    assert budget.in_use == 0 and budget.waiting == 0 and budget.peak == 2
    assert sorted(inside) == [0, 1, 2, 3, 4]


def test_a_budget_refuses_zero_and_an_extra_release():
    with pytest.raises(UserError, match="at least 1"):
        Budget("--requests", 0)
    budget = Budget("--requests", 1)
    with pytest.raises(RuntimeError, match="released more than held"):
        budget.release()


def test_the_config_refuses_a_budget_below_one_in_the_options_words():
    with pytest.raises(UserError, match="--timing-slots must be at least 1"):
        EngineConfig(timing_slots=0)
    with pytest.raises(UserError, match="--workers must be at least 1"):
        EngineConfig(workers=0)
    assert EngineConfig(workers=None).or_workers(3).workers == 3
    assert EngineConfig(workers=5).or_workers(3).workers == 5  # the user's wins


def test_engine_threads_stay_within_their_width():
    engine = Engine(EngineConfig(requests=3, workers=1))
    lock, now, peak = threading.Lock(), [0], [0]
    gate = threading.Event()

    def task(i: int) -> int:
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        gate.wait(WAIT)
        with lock:
            now[0] -= 1
        return i * i

    results: list[tuple[int, int]] = []
    runner = threading.Thread(target=lambda: results.extend(engine.threads(task, range(8))))
    runner.start()
    _wait_until(lambda: now[0] == 3, "three tasks running (the request budget)")
    gate.set()
    runner.join(WAIT)
    assert peak[0] == 3  # the width defaults to the request budget
    assert sorted(results) == [(i, i * i) for i in range(8)]
    assert engine.thread_map(lambda x: x + 1, [1, 2, 3], width=2) == [2, 3, 4]


def test_threads_stopped_midway_return_without_waiting_and_start_nothing_more():
    """An interrupt in the caller's loop closes the generator: the running task is not
    waited for (it is still running when ``close`` returns) and queued ones never start."""
    engine = Engine(EngineConfig(requests=1, workers=1))
    started: list[int] = []
    running = threading.Event()
    gate = threading.Event()

    def task(i: int) -> int:
        started.append(i)
        if i == 1:
            running.set()
            gate.wait(WAIT)
        return i

    gen = engine.threads(task, range(4), width=1)
    assert next(gen) == (0, 0)
    _wait_until(running.is_set, "the second task running")
    gen.close()  # what Ctrl-C in the caller's loop does to it
    assert not gate.is_set() and started == [0, 1]  # returned while task 1 still runs
    gate.set()


def test_an_exception_in_a_task_reaches_the_caller():
    engine = Engine(EngineConfig(requests=2, workers=1))

    def task(i: int) -> int:
        if i == 2:
            raise KeyboardInterrupt  # as a signal in a task would
        return i

    with pytest.raises(KeyboardInterrupt):
        engine.thread_map(task, range(3))


def test_one_worker_runs_inline_more_get_a_spawn_pool_of_that_size():
    one = Engine(EngineConfig(workers=1))
    assert isinstance(one.pool(), InlineWorkers)
    assert one.processes_pool().workers == 1  # a server's one worker is still a process
    engine = Engine(EngineConfig(workers=3))
    pool = engine.pool()
    assert isinstance(pool, WorkerPool) and pool.workers == 3
    assert engine.pool() is pool  # one pool per engine
    assert pool.started == 0  # started on first use only: nothing was submitted
    engine.close()
    assert engine.pool() is not pool


def test_inline_workers_map_in_order_with_progress():
    engine = Engine(EngineConfig(workers=1))
    ticks: list[int] = []
    assert engine.process_map(abs, [-1, 2, -3], lambda: ticks.append(1)) == [1, 2, 3]
    assert len(ticks) == 3


def test_timing_slots_come_from_the_config_else_the_environment(monkeypatch):
    monkeypatch.setenv(SLOTS_ENV, "3")
    assert Engine(EngineConfig()).slots == 3
    assert Engine(EngineConfig(timing_slots=5)).slots == 5
    monkeypatch.setenv(SLOTS_ENV, "zero")
    with pytest.raises(UserError, match=SLOTS_ENV):
        _ = Engine(EngineConfig()).slots


def test_timing_slots_read_through_the_installed_engine():
    from supercoder.timing.slots import slot_count

    with use(Engine(EngineConfig(timing_slots=7, workers=1))):
        assert slot_count() == 7
    assert current().config.timing_slots != 7


def test_use_installs_an_engine_and_restores_the_one_before():
    before = current()
    engine = Engine(EngineConfig(requests=2, workers=1))
    with use(engine) as got:
        assert got is engine and current() is engine
        with use(Engine(EngineConfig(requests=1, workers=1))):
            assert current().requests.limit == 1
        assert current() is engine
    assert current() is before


def test_with_workers_shares_the_request_budget_and_stops_its_own_pool():
    engine = Engine(EngineConfig(requests=2, workers=1))
    with engine.with_workers(None) as same:
        assert same is engine
    with engine.with_workers(4) as other:
        assert other.workers == 4 and other.requests is engine.requests
        pool = other.pool()
    assert other.pool() is not pool  # its pool was stopped with the block


def test_the_model_clients_hold_the_engines_request_budget():
    """An HTTP post holds one request of the installed engine while on the wire (the
    transport here is httpx's in-memory MockTransport: no socket)."""
    import httpx

    from supercoder.models.http import HttpClient

    engine = Engine(EngineConfig(requests=2, workers=1))
    seen: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(engine.requests.in_use)
        return httpx.Response(200, json={"ok": True})

    client = HttpClient(5.0, 8)
    client._client = httpx.Client(transport=httpx.MockTransport(handler))
    with use(engine):
        assert client.post("http://model/v1", {}, {}) == {"ok": True}
    assert seen == [1] and engine.requests.in_use == 0 and engine.requests.peak == 1
