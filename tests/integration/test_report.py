"""The HTML report from a small run of real compiled pairs, rendered in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.report.page import analyze_run, kind_table, load_run, write_report
from supercoder.toolchain.gcc import compile_to_asm

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")

POP = """
#include <stdio.h>
static int bits(unsigned x) { int c = 0; while (x) { c += x & 1u; x >>= 1; } return c; }
int main(void) { unsigned n; long s = 0; if (scanf("%u", &n) != 1) return 1;
  for (unsigned i = 0; i < n; i++) s += BITS(i * 2654435761u); printf("%ld\\n", s); return 0; }
"""
DIV = """
#include <stdio.h>
int main(void) { int n, d; if (scanf("%d %d", &n, &d) != 2) return 1; long s = 0;
  for (int i = 0; i < n; i++) s += (i * 7 + 3) / DIVISOR; printf("%ld\\n", s); return 0; }
"""
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _record(problem, status, speedup, base, cand, message=""):
    return {
        "problem": problem,
        "status": status,
        "correct": status == "ok",
        "speedup": speedup,
        "speedup_ci": [speedup * 0.9, speedup * 1.1] if speedup else None,
        "message": message,
        "asm": cand,
        "baseline_asm": base,
        "model": "m",
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    pop_base = compile_to_asm(POP.replace("BITS", "bits"), ("-O3",))
    pop_cand = compile_to_asm(POP.replace("BITS", "__builtin_popcount"), ("-O3", "-mpopcnt"))
    div_base = compile_to_asm(DIV.replace("DIVISOR", "d"), ("-O2",))
    div_cand = compile_to_asm(DIV.replace("DIVISOR", "10"), ("-O2",))
    llm = [
        _record("bit_pop", "ok", 2.5, pop_base, pop_cand),
        _record("div_sum", "ok", 1.4, div_base, div_cand),
        _record("evil", "wrong_output", None, div_base, div_cand + "\n# " + HOSTILE, HOSTILE),
    ]
    compiler = [
        _record("bit_pop", "ok", 1.05, pop_base, pop_base),
        _record("div_sum", "ok", 0.98, div_base, div_base),
    ]
    path = tmp_path_factory.mktemp("runs") / "runs.json"
    path.write_text(
        json.dumps(
            {
                "runs": [
                    {"name": "llm@val", "model": "m", "records": llm, "benchmark": "val"},
                    {
                        "name": "compiler@val",
                        "model": "compiler",
                        "records": compiler,
                        "benchmark": "val",
                    },
                    {
                        "name": "compiler@other",
                        "model": "compiler",
                        "records": compiler,
                        "benchmark": "other",
                    },
                ]
            }
        )
    )
    return path


def test_run_tables(store):
    run = load_run(store, "llm@val")
    analyzed = analyze_run(run)
    assert [r.problem for r, _ in analyzed] == ["bit_pop", "div_sum"]  # verified only
    stats = {s.kind: s for s in kind_table(analyzed)}
    assert stats["instruction_selection"].count == 1
    assert stats["instruction_selection"].mean_speedup == pytest.approx(2.5)
    assert stats["arithmetic_simplification"].count == 1
    assert run.summary.accuracy == pytest.approx(66.67) and run.summary.problems == 3


def test_cli_analyze_run_and_errors(store, tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["analyze", "--run", "llm@val", "--db", str(store), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert {c["problem"] for c in data["candidates"]} == {"bit_pop", "div_sum"}
    res = runner.invoke(app, ["analyze", "--run", "nope", "--db", str(store)])
    assert res.exit_code == 2 and "no run named 'nope'" in res.output


def test_report_is_self_contained_and_escaped(store, tmp_path):
    html = write_report(store, "llm@val", tmp_path / "r.html").read_text()
    assert (
        "http://" not in html and "https://" not in html and "src=" not in html.replace("src=x", "")
    )
    assert HOSTILE not in html and "&lt;script&gt;window.pwned" in html
    assert "compiler model (compiler@val, same benchmark)" in html and "<svg" in html
    assert "compiler@other" not in html  # another benchmark's run is never the comparison


@pytest.mark.skipif(
    not CHROMIUM, reason="needs Debian's chromium package (apt-get install chromium)"
)
def test_report_renders_in_headless_chromium(store, tmp_path):
    page = write_report(store, "llm@val", tmp_path / "report.html")
    flags = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    dom = subprocess.run(
        [*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert 'data-rendered="3"' in dom  # the page script ran to the end
    assert "(3 rows)</title>" in dom
    assert dom.count("<script") == 1 and "<img" not in dom  # the hostile text stayed text
    for text in (
        "bit_pop",
        "div_sum",
        "evil",
        "instruction_selection",
        "arithmetic_simplification",
        "popcnt",
        "idivl",
    ):
        assert text in dom
    shot = tmp_path / "report.png"
    subprocess.run(
        [*flags, f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.is_file() and shot.stat().st_size > 10_000
    if keep := os.environ.get("SUPERCODER_KEEP_SCREENSHOT"):
        shutil.copy(shot, keep)


def test_loads_a_run_from_the_sqlite_store(tmp_path):
    from supercoder.problems.loading import write_problem
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.store import Store
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate, Problem, Speedup, Status, TestCase, Verdict

    source = DIV.replace("DIVISOR", "d")
    base = compile_to_asm(source, ("-O3",))
    problem = Problem("div_sum", source, (TestCase("t1", b"2\n", b"5 3\n"),), baseline_asm=base)
    bench = tmp_path / "bench"
    write_problem(problem, bench / "div_sum")
    store = Store(tmp_path / "runs.sqlite")
    spec = RunConfig(model="m", benchmark=str(bench), name="r")
    store.open_run(spec, {})
    cand = compile_to_asm(DIV.replace("DIVISOR", "10"), ("-O3",))
    verdict = Verdict("div_sum", Status.OK, speedup=Speedup(1.5, 1.4, 1.6, 10, 1))
    attempt = Attempt(0, 0, Candidate(cand), verdict)
    store.record("r", "div_sum", attempt, "")
    store.finish_problem("r", Outcome("div_sum", (attempt,)))
    store.close()
    run = load_run(tmp_path / "runs.sqlite", "r")
    assert [(r.problem, r.correct, r.best, r.ci) for r in run.records] == [
        ("div_sum", True, True, (1.4, 1.6))
    ]
    ((record, analysis),) = analyze_run(run)
    assert record.baseline_asm == base and "arithmetic_simplification" in analysis.kinds
