"""Eval runs: the SQLite store, resuming, refusing mismatched resumes, summary metrics."""

from __future__ import annotations

import sqlite3

import pytest

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError
from supercoder.models.base import Sampling
from supercoder.models.scripted import ScriptedModel
from supercoder.runs.eval_run import run_eval
from supercoder.runs.identity import RunConfig
from supercoder.runs.store import Store
from supercoder.runs.strategies import StrategyConfig, make_verifier
from supercoder.types import Status, Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.conftest import sandbox_or_skip
from tests.integration.test_strategies import (
    BROKEN,
    NO_ANSWER,
    extract_assembly,
    fast_answer,
    primes_dir,
    primes_problem,
    timed_sizes,
    wrong_answer,
)


def bench(tmp_path, names):
    root = tmp_path / "bench"
    for name in names:
        primes_dir(root, name, sizes=(3000, 5000))
    return root


def per_problem(answers: dict[str, str]):
    """A responder answering by the problem named in the prompt's C comment."""

    def respond(messages, i):
        for name, answer in answers.items():
            if f"problem: {name} " in messages[0]["content"]:
                if isinstance(answer, BaseException):
                    raise answer
                return answer
        raise AssertionError("unknown problem")

    return respond


def counting_verifier():
    real, seen = make_verifier(CheckConfig(time=False)), []

    def verify(problem, candidates):
        seen.extend(problem.name for _ in candidates)
        yield from real(problem, candidates)

    verify.seen = seen
    return verify


def spec(root, **kw) -> RunConfig:
    strategy = kw.pop("strategy", StrategyConfig())
    return RunConfig(
        model="scripted", benchmark=str(root), strategy=strategy, time=False, concurrency=1, **kw
    )


def test_a_mixed_run_gives_the_right_rates_and_stores_everything(tmp_path):
    sandbox_or_skip()
    root = bench(tmp_path, ["a", "b", "c", "d"])
    answers = {"a": fast_answer(), "b": BROKEN, "c": wrong_answer(), "d": NO_ANSWER}
    store = Store(tmp_path / "runs.sqlite")
    result = run_eval(load_benchmark(root), ScriptedModel(per_problem(answers)), spec(root), store)
    s = result.summary.to_json()
    assert (s["problems"], s["compilation_rate"], s["accuracy"]) == (4, 50.0, 25.0)
    assert s["avg_speedup"] is None  # untimed: no speedup figures rather than fake ones
    assert s["context"]["gcc"].startswith("gcc") and s["context"]["samples"] == 1
    rows = (
        sqlite3.connect(tmp_path / "runs.sqlite")
        .execute(
            "SELECT problem, status, baseline_digest, asm IS NOT NULL FROM attempts ORDER BY problem"
        )
        .fetchall()
    )
    assert [(p, st) for p, st, _, _ in rows] == [
        ("a", "ok"),
        ("b", "compile_error"),
        ("c", "wrong_output"),
        ("d", "no_answer"),
    ]
    assert all(len(digest) == 64 for _, _, digest, _ in rows)
    assert [has_asm for *_, has_asm in rows] == [1, 1, 1, 0]
    assert store.runs()[0].finished is not None and not result.failed


def test_an_interrupted_run_resumes_without_verifying_anything_twice(tmp_path):
    sandbox_or_skip()
    root = bench(tmp_path, ["p1", "p2", "p3"])
    store, problems = Store(tmp_path / "runs.sqlite"), load_benchmark(root)
    crashing = {"p1": fast_answer(), "p2": BROKEN, "p3": RuntimeError("server went away")}
    first = run_eval(
        problems,
        ScriptedModel(per_problem(crashing)),
        spec(root),
        store,
        verify=counting_verifier(),
    )
    assert set(first.failed) == {"p3"} and "server went away" in first.failed["p3"]
    assert store.finished_problems(first.name) == ["p1", "p2"]
    assert store.runs()[0].finished is None  # not complete yet

    healed = ScriptedModel(per_problem({**crashing, "p3": fast_answer()}))
    verify = counting_verifier()
    second = run_eval(problems, healed, spec(root), store, verify=verify)
    assert verify.seen == ["p3"] and len(healed.calls) == 1
    assert second.resumed and second.skipped == 2 and not second.failed
    assert (second.summary.problems, second.summary.accuracy) == (3, pytest.approx(66.67))


def test_a_crash_inside_a_problem_keeps_its_verified_samples(tmp_path):
    sandbox_or_skip()
    root = bench(tmp_path, ["q"])
    store, problems = Store(tmp_path / "runs.sqlite"), load_benchmark(root)
    model = ScriptedModel(lambda m, i: [fast_answer(), BROKEN, wrong_answer()][i])
    verify = counting_verifier()

    def dies_on_third(problem, candidates):
        for k, item in enumerate(verify(problem, candidates)):
            if k == 2:
                raise KeyboardInterrupt  # the machine is switched off mid-problem
            yield item

    with pytest.raises(KeyboardInterrupt):
        run_eval(
            problems,
            model,
            spec(root, strategy=StrategyConfig(Sampling(n=3))),
            store,
            verify=dies_on_third,
        )
    assert len(store.attempts(spec(root).run_name, "q")) == 2
    verify.seen.clear()
    again = run_eval(
        problems, model, spec(root, strategy=StrategyConfig(Sampling(n=3))), store, verify=verify
    )
    assert verify.seen == ["q"]  # only the one never verified
    assert [a.sample for a in again.outcomes[0].attempts] == [0, 1, 2]


def test_the_store_keeps_a_large_answer_whole_and_it_re_checks_as_reported(tmp_path):
    """An answer over the 256 KiB reply cap (a big build: unrolled, a large table) is
    stored whole; read back, it re-checks with the status the run reported."""
    sandbox_or_skip()
    root = bench(tmp_path, ["big"])
    table = "".join(f"\t.quad {i}\n" for i in range(40000))  # ~400 KiB of data
    big = extract_assembly(fast_answer()) + f"\t.section .rodata\nsc_table:\n{table}"
    assert len(big) > 300 * 1024
    answer = f"```assembly\n{big}```"
    store = Store(tmp_path / "runs.sqlite")
    result = run_eval(load_benchmark(root), ScriptedModel(lambda m, i: answer), spec(root), store)
    assert result.summary.per_problem["big"].status == "ok"
    (stored,) = store.attempts(result.name, "big")
    assert stored.candidate.asm == big  # whole, not cut at the cap
    assert "[supercoder: cut" in stored.completion  # the reply text is what gets capped
    again = evaluate(load_benchmark(root)[0], stored.candidate.asm, CheckConfig(time=False))
    assert again.status is Status.OK


def test_resuming_with_other_options_is_refused(tmp_path):
    sandbox_or_skip()
    root = bench(tmp_path, ["r"])
    store, problems = Store(tmp_path / "runs.sqlite"), load_benchmark(root)
    model = ScriptedModel(lambda m, i: fast_answer())
    run_eval(problems, model, spec(root), store)
    with pytest.raises(UserError, match=r"samples: stored 1, now 2.*--run"):
        run_eval(problems, model, spec(root, strategy=StrategyConfig(Sampling(n=2))), store)
    other = RunConfig(model="openai:x", benchmark=str(root), time=False, name=spec(root).run_name)
    with pytest.raises(UserError, match="model: stored 'scripted', now 'openai:x'"):
        run_eval(problems, model, other, store)


def test_a_timed_verdict_survives_the_store_unchanged(tmp_path):
    sandbox_or_skip()
    problem = primes_problem(tmp_path, sizes=timed_sizes()[:1])
    verdict = evaluate(problem, extract_assembly(fast_answer()), CheckConfig())
    assert verdict.speedup is not None
    again = Verdict.from_json(verdict.to_json())
    assert again.to_json() == verdict.to_json() and again.speedup == verdict.speedup


# --- the summary's definitions on hand-made verdicts ----------------------------------


def _open_at_once(db: str, barrier, results) -> None:
    from supercoder.errors import UserError as Refused

    try:
        store = Store(db)
        barrier.wait(timeout=60)
        spec = RunConfig(model="scripted", benchmark="b", time=False, name="race")
        results.put(("resumed" if store.open_run(spec, {}) else "created", ""))
        store.close()
    except (Refused, sqlite3.Error) as e:
        results.put(("error", str(e)))


def test_evals_started_together_on_one_store_resume_each_other(tmp_path):
    """Several evals opening one new run on one new store at the same moment: exactly
    one creates it, the others resume it (no "UNIQUE constraint failed")."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    n = 8
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [
        ctx.Process(target=_open_at_once, args=(str(tmp_path / "s.sqlite"), barrier, results))
        for _ in range(n)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    got = [results.get(timeout=10) for _ in range(n)]
    assert [kind for kind, _ in got].count("created") == 1, got
    assert all(kind in ("created", "resumed") for kind, _ in got), got
