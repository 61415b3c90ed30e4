"""An attempt asked for and not verified yet has no verdict: never ranked, chosen,
counted as dropped, nor stored (pure: no gcc, no sandbox)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from supercoder.runs.identity import RunConfig
from supercoder.runs.store import Store
from supercoder.runs.strategies import Attempt, Outcome, choose_best
from supercoder.types import Candidate, Origin, Status, Verdict


def _attempt(sample: int, verdict: Verdict | None) -> Attempt:
    return Attempt(sample, 0, Candidate("main:\n\tret\n", Origin(sample=sample)), verdict)


def test_a_pending_attempt_has_no_verdict_and_is_never_chosen(tmp_path):
    pending = _attempt(0, None)
    wrong = _attempt(1, Verdict("p", Status.WRONG_OUTPUT))
    lost = _attempt(2, Verdict("p", Status.INFRA_ERROR, message="disk full"))
    assert pending.pending and pending.verdict is None
    assert not pending.dropped and not pending.assembled  # not lost: not checked yet
    with pytest.raises(ValueError, match="not verified yet"):
        pending.checked  # noqa: B018
    assert choose_best([pending]) is None
    assert choose_best([pending, wrong, lost]) is wrong  # the verified one, not the lost one
    assert Outcome("p", (pending, wrong, lost)).dropped == 1
    verified = replace(pending, verdict=Verdict("p", Status.OK))
    assert not verified.pending and verified.checked.status is Status.OK

    store = Store(tmp_path / "runs.sqlite")
    try:
        store.open_run(RunConfig("m", "val", name="r"), {})
        with pytest.raises(ValueError, match="not verified yet"):
            store.record("r", "p", pending, "digest")  # a pending attempt is never stored
        assert store.attempts("r", "p") == []
    finally:
        store.close()
