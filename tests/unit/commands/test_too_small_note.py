"""init's note on a problem too small to time says what to give, or that the program
itself refuses anything larger (then "give larger inputs" would send the user astray)."""

from supercoder.commands.problem_init import too_small_note


def test_a_program_that_fails_on_larger_inputs_is_not_told_to_give_larger_ones():
    domain = (
        "domain: model: the input model inferred from the visible inputs: the visible span "
        "only (growth stopped at 1x (runtime_error)); top stratum 1.3 ms of reference CPU"
    )
    note = too_small_note(domain)
    assert "fails on inputs larger than 1x the largest seen (runtime_error)" in note
    assert "give larger inputs" not in note


def test_a_domain_cut_by_the_budget_or_nothing_asks_for_larger_inputs():
    for domain in (
        "domain: model: ..., extrapolated: sizes grown to 45.3x the largest seen, top stratum 1.6 ms",
        "domain: model: ... (growth stopped at 2x (the host's drawing budget: an input ...))",
    ):
        note = too_small_note(domain)
        assert "give larger inputs" in note and "fails on inputs" not in note
