"""What a summary reads when nothing was measured: no figure rather than zero, untimed
problems outside the speedup figures, one paper figure per verdict."""

from __future__ import annotations

from supercoder.types import Status, Verdict


def test_nothing_scored_reads_no_figure_rather_than_zero():
    from supercoder.runs.metrics import summarize

    s = summarize([], total=2).with_unscored(["p1", "p2"]).to_json()
    assert (s["problems"], s["problems_scored"], s["complete"]) == (2, 0, False)
    assert s["accuracy"] is None and s["compilation_rate"] is None and s["fast_1.1"] is None


def test_one_paper_figure_per_verdict_and_no_reward_for_what_was_not_measured(tmp_path):
    from supercoder.commands.display import print_verdict, reward_line
    from supercoder.types import Speedup

    sp = Speedup(0.876, 0.85, 0.9, samples=40, tests_timed=3)
    timed = Verdict("p", Status.OK, speedup=sp, paper_speedup=1.08)
    from rich.console import Console

    console = Console(record=True, width=200)
    print_verdict(timed, console)
    text = console.export_text()
    paper_lines = [ln for ln in text.splitlines() if "paper" in ln and "x" in ln]
    figures = {
        tok for ln in paper_lines for tok in ln.split() if tok.endswith("x") and tok[0].isdigit()
    }
    assert figures <= {"1.08x", "0.88x"} and "paper_speedup 1.08x" in text
    assert "the paper's:" not in text
    untimed = Verdict("p", Status.OK)
    assert "none" in reward_line(untimed) and "1.000" not in reward_line(untimed)


def test_a_no_time_summary_reports_no_timing_figure(tmp_path):
    from rich.console import Console

    from supercoder.commands.eval import print_summary
    from supercoder.runs.metrics import summarize
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate

    v = Verdict("p", Status.OK)
    outcome = Outcome("p", (Attempt(0, 0, Candidate("main:\n ret\n"), v),))
    summary = summarize([outcome], {"timed": False, "model": "m"}, total=1)
    console = Console(record=True, width=200)
    print_summary("quick", summary, console)
    text = console.export_text()
    rows = {
        ln.split("│")[1].strip(): ln.split("│")[2].strip()
        for ln in text.splitlines()
        if ln.count("│") >= 3
    }
    for key in ("fast_1.1", "timed_share", "improved", "significant_speedups"):
        assert rows[key] == "not measured", (key, rows[key])
    assert rows["accuracy"] == "100.0%"
    assert "no speedup was measured (--no-time)" in text


def test_summary_keeps_untimed_problems_out_of_speedup_figures():
    from supercoder.runs.metrics import summarize
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate, Origin, Speedup, TestResult

    def outcome(name: str, speed: float, base_seconds: float) -> Outcome:
        tests = (TestResult("t", Status.OK, baseline_seconds=base_seconds, timed=True),)
        v = Verdict(
            name,
            Status.OK,
            tests,
            Speedup(speed, speed - 0.08, speed + 0.08, 10, 1),
            paper_speedup=speed,
        )
        origin = Origin(model="compiler:gcc -O3 -march=native")
        return Outcome(name, (Attempt(0, 0, Candidate("x", origin), v),))

    s = summarize([outcome("long", 1.5, 0.2), outcome("short", 1.14, 0.001)]).to_json()
    assert s["problems"] == 2 and s["problems_untimed"] == 1
    assert (
        s["fast_1.1"] == 50.0
        and s["timed_share"] == 50.0
        and s["significant_speedups"] == 1
        and s["improved"] == 1
    )
    assert s["avg_speedup"] == 1.5  # the untimed 1.14x is not a speedup
    short = s["per_problem"]["short"]
    assert (short["timed"], short["improved"], short["speedup_ci"]) == (False, False, None)
    assert short["speedup"] is None and "measured 1.140x, not counted" in short["timed_reason"]
    assert s["per_problem"]["long"]["origin"] == "gcc -O3 -march=native"
    assert abs(s["paper"]["avg_speedup"] - 1.32) < 1e-9  # the paper's rule counts it
