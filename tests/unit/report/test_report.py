"""The HTML report from a small run of real compiled pairs, rendered in headless Chromium.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_report.py."""

from __future__ import annotations


def test_the_page_stays_small_diffs_show_changes_and_copies_are_marked():
    from supercoder.report.html import MAX_DIFF_ROWS, _row, side_by_side
    from supercoder.report.page import CandidateRecord

    base = "".join(f"\tmovl\t${i}, %eax\n" for i in range(3000))
    cand = base.replace("\tmovl\t$1500, %eax\n", "\tmovl\t$-1, %eax\n")
    diff = side_by_side(base, cand, None)
    assert diff.count("<tr") < 15 and "unchanged lines" in diff  # not 3000 rows
    everything = "".join(f"\taddl\t${i}, %ebx\n" for i in range(3000))
    capped = side_by_side(base, everything, None)
    assert capped.count("<tr") <= MAX_DIFF_ROWS + 3 and "more rows not shown" in capped
    copy = CandidateRecord("p", "ok", True, 1.0, (0.98, 1.02), base, base, "m", baseline_copy=True)
    row = _row(copy, None)
    assert "the gcc -O3 baseline itself" in row and "<details>" not in row and len(row) < 1000
