"""`supercoder reward study` on a real stored run: a build-search eval of a tiny
benchmark, then the study from its stored samples (no sandboxed run), through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from supercoder.training.reward_study import groups_from_store
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import tiny_problem

EXE = str(Path(sys.executable).with_name("supercoder"))


def test_the_study_reads_a_stored_run(tmp_path):
    sandbox_or_skip()
    bench = tmp_path / "bench"
    tiny_problem(bench / "tiny_sum")
    db = tmp_path / "runs.db"
    run = [EXE, "eval", "--benchmark", str(bench), "--strategy", "builds"]
    run += ["-S", "builds=O2,unroll,native", "--db", str(db), "--run", "b"]
    summary = tmp_path / "summary.json"
    # rounds=3: the reward's timing budget times every answer of the run (the meter's
    # adaptive rounds start at 4, so 3 is the budget's doing)
    run += ["--reward", "binary:threshold=1.2,rounds=3", "--json", str(summary)]
    done = subprocess.run(run, capture_output=True, text=True, timeout=900)
    assert done.returncode in (0, 1), done.stderr
    figures = json.loads(summary.read_text())  # eval's summary pays its --reward
    assert figures["reward_form"] == "binary:threshold=1.2,rounds=3"
    assert figures["mean_reward"] in (0.0, 1.0)  # one problem, one answer: an event
    _, groups = groups_from_store(str(db), "b")
    timed = [c for g in groups for c in g.completions if c.timed]
    assert timed and {c.rounds_seen for c in timed} == {3}, [c.rounds_seen for c in timed]
    out = tmp_path / "study.json"
    cmd = [EXE, "reward", "study", "b", "--db", str(db), "--budgets", "4,8"]
    shown = subprocess.run(
        [*cmd, "--resamples", "50", "--json", str(out)], capture_output=True, text=True, timeout=300
    )
    assert shown.returncode == 0, shown.stderr
    assert "recommended:" in shown.stdout and "agreement" in shown.stdout
    table = json.loads(out.read_text())
    assert table["groups"] == 1 and table["completions"] >= 2  # identical builds: once
    forms = {r["form"].split(":")[0] for r in table["rows"]}
    assert forms == {"gated", "paper", "log", "binary", "percentile"}
    assert {r["budget"] for r in table["rows"]} == {4, 8}
    assert all(r["copy_paid"] == 0.0 for r in table["rows"])
    paper = [r for r in table["rows"] if r["form"] == "paper"]
    assert all(r["cpu_s"] > 0 for r in paper)
    assert table["seconds"] < 30  # resampling only: seconds
    bad = subprocess.run([*cmd[:6], "--form", "binary:speed=2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "speed=2" in bad.stderr and "Traceback" not in bad.stderr
