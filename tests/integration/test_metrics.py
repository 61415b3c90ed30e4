"""One set of definitions: the HTML report shows exactly the figures `eval --json` wrote,
a stored summary reads back unchanged, and an infrastructure failure is never "compiled"."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.models.scripted import ScriptedModel
from supercoder.report.page import build_page, load_run
from supercoder.runs.eval_run import run_eval
from supercoder.runs.identity import RunConfig
from supercoder.runs.metrics import batch_stats, summarize
from supercoder.runs.store import SCHEMA_VERSION, Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.runs.summary import RunSummary
from supercoder.types import Candidate, Status, Verdict
from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_eval_cli import by_problem
from tests.integration.test_infra_faults import broken_machine_for, sum_answer
from tests.integration.test_strategies import BROKEN, fast_answer, primes_dir

runner = CliRunner()
CARD = re.compile(r'<div class="card" data-figure="([^"]+)" data-value="([^"]*)"><b>([^<]*)</b>')


def shown_figures(html: str) -> dict[str, object]:
    """figure -> value, as the rendered page's summary cards carry them."""
    return {key: json.loads(value.replace("&quot;", '"')) for key, value, _ in CARD.findall(html)}


def test_the_report_shows_the_numbers_eval_json_wrote(tmp_path):
    sandbox_or_skip()
    bench = tmp_path / "bench"
    for name in ("fast", "broken"):
        primes_dir(bench, name)
    db, out, page = tmp_path / "runs.sqlite", tmp_path / "summary.json", tmp_path / "r.html"
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
                str(bench),
                "--db",
                str(db),
                "--json",
                str(out),
                "--run",
                "r",
            ],
        )
    assert result.exit_code == 0, result.output
    s = json.loads(out.read_text())
    assert s["avg_speedup"] is not None and s["significant_speedups"] == 1  # a timed run
    shutil.rmtree(bench)  # the report reads the baselines from the store, not the benchmark
    report = runner.invoke(app, ["report", "r", "--db", str(db), "-o", str(page)])
    assert report.exit_code == 0, report.output
    shown = shown_figures(page.read_text())
    want = (
        "problems",
        "problems_scored",
        "compilation_rate",
        "accuracy",
        "avg_speedup",
        "median_speedup",
        "geomean_speedup",
        "fast_1.1",
        "significant_speedups",
        "significant_slowdowns",
        "problems_untimed",
    )
    assert set(want) <= set(shown)
    assert {k: shown[k] for k in want} == {k: s[k] for k in want}
    assert shown["paper.avg_speedup"] == s["paper"]["avg_speedup"]
    assert shown["paper.geomean_speedup"] == s["paper"]["geomean_speedup"]
    text = page.read_text()
    assert f"<b>{s['accuracy']:.1f}%</b><br>accuracy" in text  # shown with units
    assert f"<b>{s['geomean_speedup']:.3f}x</b><br>geomean speedup" in text
    assert "<b>1</b><br>significant speedups" in text
    fast = next(r for r in build_page(db, "r").records if r.problem == "fast" and r.best)
    assert fast.baseline_asm and "assembly diff" in page.read_text()
    # the stored summary is the JSON eval wrote, and reads back unchanged
    with sqlite3.connect(db) as con:
        [stored] = con.execute("SELECT summary FROM runs WHERE name = 'r'").fetchone()
    assert json.loads(stored) == s
    assert RunSummary.from_json(s).to_json() == s
    # the same verdicts as a JSON records file: the same figures
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT verdict, asm FROM attempts WHERE run = 'r'").fetchall()
    records = [{**json.loads(v), "asm": asm, "model": "openai:m"} for v, asm in rows]
    (tmp_path / "r.json").write_text(json.dumps({"runs": [{"name": "r", "records": records}]}))
    from_file = load_run(tmp_path / "r.json", "r").summary.headline()
    assert from_file == load_run(db, "r").summary.headline()


def test_infra_errors_never_count_as_compiled(tmp_path):
    infra = Verdict("p", Status.INFRA_ERROR, message="bubblewrap failed")
    assert not infra.assembled and not Attempt(0, 0, Candidate("x"), infra).assembled
    assert Verdict("p", Status.WRONG_OUTPUT).assembled
    assert not Verdict("p", Status.COMPILE_ERROR).assembled
    both = [infra, Verdict("p", Status.COMPILE_ERROR)]
    outcome = Outcome("p", tuple(Attempt(i, 0, Candidate("x"), v) for i, v in enumerate(both)))
    assert summarize([outcome]).compilation_rate == 0.0  # the infra attempt did not compile it
    assert batch_stats([infra, infra]).compile_rate == 0.0
    # a real run where the machine fails for one problem: it is not scored, never compiled
    sandbox_or_skip()
    for name in ("a", "b"):
        make_sum_problem(tmp_path / "bench" / name, hidden=False)
        (tmp_path / "bench" / name / "problem.json").write_text(json.dumps({"name": name}))
    store = Store(tmp_path / "r.sqlite")
    spec = RunConfig(model="scripted", benchmark=str(tmp_path / "bench"), time=False, name="r")
    model = ScriptedModel(lambda m, i: sum_answer())
    first = run_eval(
        load_benchmark(tmp_path / "bench"),
        model,
        spec,
        store,
        verify=broken_machine_for("b", "machine down"),
    )
    store.close()
    assert first.summary.compilation_rate == 50.0 and first.summary.unscored_problems == ("b",)
    shown = build_page(tmp_path / "r.sqlite", "r").summary
    assert (shown.compilation_rate, shown.problems, shown.problems_scored) == (50.0, 2, 1)


def test_a_store_from_before_baselines_were_stored_still_reports(tmp_path):
    sandbox_or_skip()
    make_sum_problem(tmp_path / "bench" / "sum", hidden=False)
    db = tmp_path / "r.sqlite"
    spec = RunConfig(model="scripted", benchmark=str(tmp_path / "bench"), time=False, name="r")
    store = Store(db)
    run_eval(
        load_benchmark(tmp_path / "bench"), ScriptedModel(lambda m, i: sum_answer()), spec, store
    )
    store.close()
    with sqlite3.connect(db) as con:  # as schema 2 wrote it: no baselines table
        con.execute("DROP TABLE baselines")
        con.execute("PRAGMA user_version = 2")
    [record] = build_page(db, "r").records
    assert record.baseline_asm and record.correct  # rebuilt from the benchmark
    with sqlite3.connect(db) as con:  # the report only reads the store
        assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    Store(db).close()  # an eval or the leaderboard migrates it
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("SELECT count(*) FROM baselines").fetchone() == (0,)
