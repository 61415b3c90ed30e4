"""A JSON run file is read through the codec, leniently: one reader for verdicts."""

from __future__ import annotations

import json

from supercoder.report.page import list_runs
from supercoder.types import Speedup, Status, Verdict


def test_a_run_file_of_verdict_json_reads_as_typed_verdicts(tmp_path):
    v = Verdict("p", Status.OK, speedup=Speedup(1.5, 1.3, 1.7, 8, 1))
    good = {**v.to_json(), "asm": "main:\n\tret\n", "model": "m", "best": True}
    # written before verdicts carried speedup_detail; one of an unknown status
    old = {"problem": "q", "status": "ok", "speedup": 1.2, "speedup_ci": [1.1, 1.3]}
    odd = {"problem": "r", "status": "exploded", "correct": False, "speedup": "fast"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps([good, old, odd]))
    (run,) = list_runs(path)
    by = {r.problem: r for r in run.records}
    assert by["p"].speedup == 1.5 and by["p"].ci == (1.3, 1.7) and by["p"].significantly_faster
    assert by["p"].model == "m" and by["p"].asm.startswith("main")
    assert by["q"].speedup == 1.2 and by["q"].ci == (1.1, 1.3) and by["q"].significantly_faster
    assert by["r"].status == "wrong_output" and by["r"].speedup is None  # not trusted
    assert run.summary.problems == 3 and run.summary.accuracy == 66.67
