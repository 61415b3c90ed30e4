"""Honest per-problem results: optimize never hands back a slower program, eval prints a
line per problem when not on a terminal, untimed problems stay out of the speedup figures."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm, same_program
from tests.conftest import sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_eval_cli import by_problem
from tests.integration.test_strategies import SLOW_PRIMES, fast_answer, fence, primes_dir

runner = CliRunner()


def slower_answer(name: str) -> str:
    """The same program built at -O0: correct, and clearly slower than -O3."""
    return fence(compile_to_asm(SLOW_PRIMES % name, ("-O0",)))


def test_optimize_writes_the_baseline_when_nothing_is_faster(tmp_path):
    sandbox_or_skip()
    problem = primes_dir(tmp_path / "bench", "slow")
    out = tmp_path / "best.s"
    with openai_server(lambda m, r: slower_answer("slow")) as url:
        result = runner.invoke(
            app,
            [
                "optimize",
                str(problem),
                "-m",
                "openai:m",
                "--base-url",
                url,
                "-o",
                str(out),
                "--json",
            ],
        )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["improved"] is False and report["wrote_baseline"] is True
    assert report["best"]["verdict"]["speedup"] < 1 and report["best"]["verdict"]["correct"]
    assert same_program(out.read_text(), baseline_asm(load_problem(problem)))
    with openai_server(lambda m, r: slower_answer("slow")) as url:
        result = runner.invoke(
            app, ["optimize", str(problem), "-m", "openai:m", "--base-url", url, "-o", str(out)]
        )
    assert "no faster program was found" in result.output
    assert "* significantly faster" not in result.output  # no row has a star: no footnote


def test_optimize_writes_a_significantly_faster_answer_and_names_each_build(tmp_path):
    sandbox_or_skip()
    problem = primes_dir(tmp_path / "bench", "fast")
    out = tmp_path / "best.s"
    with openai_server(lambda m, r: fast_answer()) as url:
        result = runner.invoke(
            app,
            [
                "optimize",
                str(problem),
                "-m",
                "openai:m",
                "--base-url",
                url,
                "-o",
                str(out),
                "--json",
            ],
        )
    report = json.loads(result.output)
    assert result.exit_code == 0 and report["improved"] is True, result.output
    assert not same_program(out.read_text(), baseline_asm(load_problem(problem)))
    result = runner.invoke(app, ["optimize", str(problem), "-o", str(out), "--no-time"])
    assert result.exit_code == 0, result.output
    rows = [ln for ln in result.output.splitlines() if ln.startswith("│ ")]
    assert rows and all(("gcc -O" in r or "clang -O" in r) for r in rows)  # each build named
    # --no-time times nothing for the compiler model too: no search, no CI
    assert "builds searched" not in result.output and "not timed" in result.output
    assert not re.search(r"\d\.\d+x \[", result.output + out.read_text())


def test_eval_lines_per_problem_and_untimed_problems_stay_out_of_the_figures(tmp_path):
    sandbox_or_skip()
    bench = tmp_path / "bench"
    primes_dir(bench, "fast")
    # three numbers in, one out: every input of its domain runs well under 5 ms (a sum of
    # n numbers would not do: its drawn inputs grow until they are long enough to time)
    tiny = bench / "tiny"
    (tiny / "tests").mkdir(parents=True)
    source = (
        "/* problem: tiny */\n#include <stdio.h>\nint main(void) {\n"
        '    long long a, b, c;\n    if (scanf("%lld %lld %lld", &a, &b, &c) != 3) return 0;\n'
        '    printf("%lld\\n", a * b + c);\n    return 0;\n}\n'
    )
    (tiny / "source.c").write_text(source)
    for i, (a, b, c) in enumerate([(2, 3, 4), (-7, 11, 250), (1000, 1000, -1)]):
        (tiny / "tests" / f"t{i}.in").write_text(f"{a} {b} {c}\n")
        (tiny / "tests" / f"t{i}.out").write_text(f"{a * b + c}\n")
    o2 = fence(compile_to_asm(source, ("-O2", "-fno-inline")))  # correct, not a copy
    out = tmp_path / "s.json"
    with openai_server(by_problem({"fast": fast_answer(), "tiny": o2})) as url:
        result = runner.invoke(
            app,
            [
                "eval",
                "-m",
                "openai:m",
                "--base-url",
                url,
                "--benchmark",
                str(bench),
                "--db",
                str(tmp_path / "r.sqlite"),
                "--json",
                str(out),
                "--concurrency",
                "1",
            ],
        )
    assert result.exit_code == 0, result.output
    lines = {
        ln.split()[0]: ln for ln in result.output.splitlines() if ln.startswith(("fast ", "tiny "))
    }
    assert "ok" in lines["fast"] and "improved" in lines["fast"] and "[" in lines["fast"]
    assert re.search(r"\] at load \d+\.\d\d/CPU improved", lines["fast"]), lines["fast"]
    assert re.search(r"\d+\.\ds wall  \[\d/2, \d+s elapsed", lines["fast"]), lines["fast"]
    assert "not timed: every test's baseline ran under 5 ms" in lines["tiny"]
    s = json.loads(out.read_text())
    fast, tiny_row = s["per_problem"]["fast"], s["per_problem"]["tiny"]
    assert fast["timed"] is True and fast["improved"] is True and len(fast["speedup_ci"]) == 2
    # the two visible tests, and the generated ones the speedup was measured on
    assert fast["tests_passed"] == fast["tests_total"] >= 3 and fast["cpu_seconds"] > 0
    assert "sample 0 round 0" in fast["origin"]
    # the improved figure was re-checked afresh; the store keeps the fresh verdict
    assert fast["checks"] == 2 and fast["wall_seconds"] > 0 and fast["baseline_copy"] is False
    from supercoder.runs.store import Store

    store = Store(tmp_path / "r.sqlite")
    (stored,) = store.attempts(store.runs()[0].name, "fast")
    store.close()
    assert (
        stored.verdict.context.measurement.checks == 2
        and stored.verdict.context.measurement.first_check
    )
    assert [fast["speedup_ci"][0], fast["speedup_ci"][1]] == [
        round(stored.verdict.speedup.low, 4),
        round(stored.verdict.speedup.high, 4),
    ]
    assert tiny_row["timed"] is False and tiny_row["improved"] is False
    # no figure beside timed: false (the one it measured is in the reason, not counted)
    assert tiny_row["speedup"] is None and tiny_row["speedup_ci"] is None
    assert "under 5 ms" in tiny_row["timed_reason"] and "not counted" in tiny_row["timed_reason"]
    assert s["problems_untimed"] == 1 and s["fast_1.1"] == 50.0  # 1 of the 2 problems
    assert s["timed_share"] == 50.0 and s["complete"] is True
    assert s["significant_speedups"] == 1 and abs(s["max_speedup"] - fast["speedup"]) < 1e-3
    assert "problems_untimed" in result.output
