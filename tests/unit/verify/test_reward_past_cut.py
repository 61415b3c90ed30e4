"""The speedup must hold past the time budget's cut; tables are named and may go unpaid."""

from __future__ import annotations

from dataclasses import replace

from supercoder.codec import decode, encode
from supercoder.types import DataSize, Speedup, Status, Verdict, VerdictContext
from supercoder.verify.reward import (
    RewardConfig,
    added_tables,
    holds_past_cut,
    parse_reward,
    score_verdict,
)

TABLE = "table ck (40,968 bytes in .rodata) added; read in main at an index derived from the input"


def _ok(value: float, past: float | None = None, tables: tuple[str, ...] = ()) -> Verdict:
    sp = Speedup(value, value * 0.97, value * 1.03, samples=10, tests_timed=5, margin=0.01)
    context = VerdictContext()
    if past is not None:
        beyond = Speedup(past, past * 0.97, past * 1.03, samples=3, tests_timed=1, margin=0.01)
        context = context.measured(cut="the reference's 24 ms budget cuts ...", beyond_cut=beyond)
    return Verdict(
        "p", Status.OK, speedup=sp, context=context, data=DataSize(100, 41068, 512, tables)
    )


def test_a_speedup_that_does_not_hold_past_the_cut_is_not_paid():
    table = _ok(12.4, past=1.0)  # a table of answers up to the cut
    assert not holds_past_cut(table)
    assert score_verdict(table) == 0.0
    for form in ("binary", "percentile"):
        assert score_verdict(table, RewardConfig(form), pool=()) == 0.0
    assert score_verdict(table, RewardConfig("paper")) == 12.4  # by name, the figure itself
    honest = _ok(2.0, past=1.9)  # the same gain past the cut (within noise)
    assert holds_past_cut(honest) and score_verdict(honest) == 2.0
    small = _ok(1.08, past=1.05)  # a small honest gain keeps more than half of it
    assert holds_past_cut(small) and score_verdict(small) == 1.08
    assert holds_past_cut(_ok(3.0))  # nothing drawn past a cut: nothing to hold


def test_tables_are_named_and_a_trainer_may_choose_not_to_pay_them():
    verdict = _ok(2.0, past=2.0, tables=(TABLE,))
    assert added_tables(verdict) == (TABLE,)
    assert score_verdict(verdict) == 2.0  # paid by default, like any code
    no_tables = RewardConfig(pay_tables=False)
    assert score_verdict(verdict, no_tables) == 0.0
    assert score_verdict(verdict, replace(no_tables, baseline_copy=-0.5)) == -0.5
    assert score_verdict(_ok(2.0, past=2.0), no_tables) == 2.0  # no table: paid
    assert parse_reward("gated:pay_tables=0").pay_tables is False
    assert parse_reward("gated").pay_tables is True
    # the verdict's JSON carries them (and leaves the key out when there are none)
    data = encode(verdict.data)
    assert data["tables"] == [TABLE] and "tables" not in encode(DataSize(1, 2, 512))
    assert decode(DataSize, data).tables == (TABLE,)
    assert "ck" in verdict.data.tables_line() and DataSize().tables_line() == ""
    back = Verdict.from_json(verdict.to_json())
    assert back.context.measurement.beyond_cut == verdict.context.measurement.beyond_cut
    assert back.data.tables == (TABLE,)


def test_check_prints_the_strata_the_tables_the_distinct_inputs_and_the_baseline_note():
    import io

    from rich.console import Console

    from supercoder.commands.display import print_verdict
    from supercoder.toolchain.baseline import CARRIED_NOTE

    verdict = _ok(12.4, past=1.0, tables=(TABLE,))
    context = verdict.context.measured(distinct_inputs=5)
    context = replace(context, provenance=replace(context.provenance, baseline=CARRIED_NOTE))
    out = io.StringIO()
    print_verdict(replace(verdict, context=context), Console(file=out, width=300))
    text = out.getvalue()
    assert "strata: below the cut 12.40x" in text and "past it 1.00x" in text
    assert "does NOT hold" in text and "reward 0.000" in text
    assert "tables: the answer adds 1 lookup table(s): table ck" in text
    assert "timed on 5 distinct input(s)" in text
    assert "baseline: its baseline.s is not this machine's gcc -O3 build" in text


def test_a_past_stratum_whose_interval_reaches_one_is_not_called_proven():
    """``holds`` is a point test; a line a reviewer reads must not call [0.94, 2.17] proven."""
    from supercoder.commands.display import strata_line

    wide = _ok(1.8)
    beyond = Speedup(1.4, 0.94, 2.17, samples=3, tests_timed=1, margin=0.01)
    wide = replace(wide, context=wide.context.measured(cut="a cut", beyond_cut=beyond))
    assert holds_past_cut(wide)
    assert "holds by its estimate, not proven" in strata_line(wide)
    assert "not proven" not in strata_line(_ok(2.0, past=1.9))
    assert "speedup holds past" in strata_line(_ok(2.0, past=1.9))
