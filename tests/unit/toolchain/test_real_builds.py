"""Real programs as their repositories build them: programs that read no input
(memorizable problems), empty outputs, include folders, second source files, quoted
includes of ``.c`` files; end to end through the CLI.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_real_builds.py."""

from __future__ import annotations

import json


def _outcome(name: str, speed: float | None, memorizable: bool = False, correct: bool = True):
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate, Origin, Speedup, Status, TestResult, Verdict

    tests = (TestResult("t", Status.OK, baseline_seconds=0.2, timed=speed is not None),)
    sp = Speedup(speed, speed - 0.05, speed + 0.05, 10, 1) if speed is not None else None
    v = Verdict(
        name,
        Status.OK if correct else Status.WRONG_OUTPUT,
        tests,
        sp if correct else None,
        paper_speedup=speed,
        memorizable=memorizable,
    )
    return Outcome(name, (Attempt(0, 0, Candidate("x", Origin(model="compiler:gcc -O3")), v),))


def test_memorizable_and_unmeasured_problems_stay_out_of_the_headline_figures():
    from supercoder.runs.metrics import summarize
    from supercoder.runs.summary import RunSummary

    s = summarize(
        [
            _outcome("reads", 1.5),
            _outcome("kernel", 2.0, memorizable=True),  # could print its output
            _outcome("unmeasured", None),  # correct, never timed: no figure, not 1.0x
            _outcome("wrong", None, correct=False),  # the baseline stands: 1.0x
        ]
    ).to_json()
    assert s["geomean_speedup"] == round((1.5 * 1.0) ** 0.5, 4)  # reads and wrong only
    assert s["max_speedup"] == 1.5 and s["improved"] == 1 and s["significant_speedups"] == 1
    assert s["problems_memorizable"] == 1 and s["memorizable_improved"] == 1
    assert s["memorizable_geomean_speedup"] == 2.0
    assert s["timed_share"] == 25.0 and s["problems_untimed"] == 1
    rows = s["per_problem"]
    assert all(isinstance(r["timed"], bool) for r in rows.values())
    assert rows["kernel"]["memorizable"] is True and rows["kernel"]["improved"] is False
    assert rows["unmeasured"]["speedup"] is None and rows["unmeasured"]["timed"] is False
    assert rows["unmeasured"]["timed_reason"] == "not timed (--no-time)"
    assert rows["wrong"]["speedup"] == 1.0 and "no correct answer" in rows["wrong"]["timed_reason"]
    assert RunSummary.from_json(s).to_json() == s  # the new keys read back
    # an older summary's null "timed" reads as false with a reason
    old = {**s, "format_version": 3, "per_problem": {"x": {**rows["reads"], "timed": None}}}
    back = RunSummary.from_json(old).per_problem["x"]
    assert back.timed is False and back.timed_reason


def test_the_default_reward_pays_nothing_on_a_memorizable_problem_the_paper_reward_does():
    from supercoder.verify.reward import RewardConfig, RewardKind, default_reward, score_verdict

    fast = _outcome("reads", 1.5).attempts[0].verdict
    kernel = _outcome("kernel", 2.0, memorizable=True).attempts[0].verdict
    wrong = _outcome("kernel", None, memorizable=True, correct=False).attempts[0].verdict
    assert default_reward(fast) == 1.5 and default_reward(kernel) == 0.0
    assert score_verdict(wrong, RewardConfig(failure=-1.0)) == -1.0  # a wrong one still fails
    assert score_verdict(kernel, RewardConfig(kind=RewardKind.PAPER)) == 2.0
    assert kernel.to_json()["memorizable"] is True
    from supercoder.types import Verdict

    assert Verdict.from_json(kernel.to_json()).memorizable is True


def test_the_eta_comes_from_the_work_done_and_counts_running_problems():
    from supercoder.commands.eval import _Tally

    tally = _Tally(concurrency=2)
    tally.start(6)
    assert tally.eta_seconds() is None and tally.eta_text() == "ETA after the first problem"
    tally.running = {"a": 100.0, "b": 130.0}  # started at these (monotonic) times
    tally.done, tally.walls = 2, [40.0, 40.0]  # two finished, 40 s each
    # at 150: a has 0 s left (age 50), b 20 s; 2 not started cost 80 s; 2 at once
    assert tally.eta_seconds(now=150.0) == (0 + 20 + 80) / 2
    # the ETA falls as the running problems age, without another finishing
    assert tally.eta_seconds(now=160.0) < tally.eta_seconds(now=150.0)
    tally.done, tally.running = 6, {}
    assert tally.eta_seconds() == 0.0 and tally.eta_text() == ""


def test_the_report_marks_memorizable_problems_and_compares_only_the_same_benchmark(tmp_path):
    from supercoder.report.page import write_report

    def record(problem: str, speedup: float, memorizable: bool = False) -> dict:
        return {
            "problem": problem,
            "status": "ok",
            "correct": True,
            "speedup": speedup,
            "speedup_ci": [speedup - 0.05, speedup + 0.05],
            "memorizable": memorizable,
            "asm": "",
            "baseline_asm": "",
        }

    records = [record("kernel", 2.0, memorizable=True), record("reads", 1.3)]
    runs = {
        "runs": [
            {"name": "llm@poly", "model": "m", "records": records, "benchmark": "poly"},
            {"name": "cc@embench", "model": "compiler", "records": records, "benchmark": "emb"},
        ]
    }
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))
    html = write_report(path, "llm@poly", tmp_path / "r.html").read_text()
    assert "memorizable</span>" in html and 'data-figure="problems_memorizable"' in html
    assert "cc@embench" not in html and "same benchmark" not in html
    # the headline is the reading program's alone; the kernel is counted apart
    assert 'data-figure="geomean_speedup" data-value="1.3"' in html
    assert 'data-figure="memorizable_geomean_speedup" data-value="2.0"' in html


def test_layouts_are_named_for_what_they_are(tmp_path):
    from supercoder.problems.layouts import discover

    (tmp_path / "hr" / "input").mkdir(parents=True)
    (tmp_path / "hr" / "input" / "input00.txt").write_text("1\n")
    (tmp_path / "hr" / "input" / "input01.txt").write_text("2\n")
    assert discover(tmp_path / "hr" / "input").kind == "hackerrank"  # not "codenet"
    (tmp_path / "cn").mkdir()
    (tmp_path / "cn" / "input_1.txt").write_text("1\n")
    assert discover(tmp_path / "cn").kind == "codenet"
    (tmp_path / "io").mkdir()
    (tmp_path / "io" / "in1.txt").write_text("1\n")
    assert discover(tmp_path / "io").kind == "in/out names"


def test_gather_rewrites_include_folders_absolute_or_relative_and_leaves_the_toolchains(
    tmp_path, monkeypatch
):
    from supercoder.problems.sources import gather

    src = tmp_path / "repo" / "app"
    inc = tmp_path / "repo" / "include"
    src.mkdir(parents=True)
    inc.mkdir()
    (src / "lib" / "include").mkdir(parents=True)  # the program's own: never mixed in
    (inc / "util.h").write_text('#include "deep.h"\n')
    (inc / "deep.h").write_text("#define DEEP 1\n")
    (inc / "unused.h").write_text("#define UNUSED 1\n")
    (src / "prog.c").write_text("#include <util.h>\n#include <stdio.h>\nint main(void){}\n")
    monkeypatch.chdir(tmp_path / "repo")
    for flag in (f"-I{inc}", "-I include", "-isystem include"):
        build = gather([src / "prog.c"], f"{flag} -I/usr/include -I/nonexistent -DX=1")
        flags = build.cflags  # a list: a define with spaces stays one flag
        assert "-I/usr/include" in flags and "-I/nonexistent" in flags and "-DX=1" in flags
        assert set(build.files) == {"lib/include2/util.h", "lib/include2/deep.h"}
        assert not any(p.name == "unused.h" for p in build.files.values())  # only what it uses
    build = gather([src / "prog.c"], "-I include")
    assert build.cflags == ("-Ilib/include2",) and build.moved == (f"{inc} -> lib/include2/",)


def test_eval_says_not_timed_with_no_figure_beside_it_as_check_does():
    """One word for one fact: a problem whose every timed test ran under 5 ms reads
    "not timed" in eval's line, with no start-up ratio beside it (the JSON's
    ``timed_reason`` keeps the figure it did not count)."""
    from dataclasses import replace

    from supercoder.commands.eval import _Tally
    from supercoder.types import Status, TestResult

    short = _outcome("tiny", 1.14)
    v = short.attempts[0].verdict
    v = replace(v, tests=(TestResult("t", Status.OK, baseline_seconds=0.001, timed=True),))
    short = replace(short, attempts=(replace(short.attempts[0], verdict=v),))
    tally = _Tally(concurrency=1)
    tally.start(1)
    line = tally.add("tiny", short)
    assert "not timed: every test's baseline ran under 5 ms" in line
    assert "1.14" not in line and "measured" not in line
