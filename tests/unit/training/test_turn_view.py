"""An environment's observation of a turn is a typed record read back by the codec."""

from __future__ import annotations

import json

from supercoder.codec import decode
from supercoder.training.episode import Turn, TurnView
from supercoder.types import Speedup, Status, Verdict


def test_a_turn_is_shown_as_its_public_view_and_read_back_typed():
    verdict = Verdict("p", Status.OK, speedup=Speedup(1.4, 1.3, 1.5, 8, 1), message="secret?")
    turn = Turn(2, verdict, 0.4, "faster: 1.400x", True)
    data = json.loads(json.dumps(turn.to_json()))
    assert data == {
        "turn": 2,
        "status": "ok",
        "correct": True,
        "speedup": 1.4,
        "reward": 0.4,
        "feedback": "faster: 1.400x",
        "done": True,
    }  # the public part only: no message, tests or context
    assert decode(TurnView, data) == turn.view()
    assert decode(TurnView, data).status is Status.OK
