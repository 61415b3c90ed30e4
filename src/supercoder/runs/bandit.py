"""Which model gets the next call: a UCB bandit over improvement per cost.

Each answer is one pull of its model's arm: its *gain* is the log speedup it added over
its parent (0 when wrong, not faster, or a duplicate) and its *cost* its tokens (or its
USD price when every model reports one). An arm's score is its gain per unit of cost
(relative to the best arm's, so the exploration term is on the same scale) plus
``c * sqrt(2 ln N / n)``; a model never tried goes first. Plain values, recomputed from
the stored answers, so a resumed search chooses as the first run did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Arm:
    """One model's record: calls, summed gain (log speedup) and cost."""

    calls: int = 0
    gain: float = 0.0
    tokens: int = 0
    usd: float = 0.0


@dataclass(frozen=True)
class Bandit:
    """UCB over ``models`` (names); ``c`` the exploration weight."""

    models: tuple[str, ...]
    c: float = 0.5
    arms: dict[str, Arm] = field(default_factory=dict)

    def pull(self, model: str, gain: float, tokens: int, usd: float | None) -> Bandit:
        a = self.arms.get(model, Arm())
        arm = Arm(a.calls + 1, a.gain + max(gain, 0.0), a.tokens + tokens, a.usd + (usd or 0.0))
        return replace(self, arms={**self.arms, model: arm})

    def _rate(self, arm: Arm, by_usd: bool) -> float:
        cost = arm.usd if by_usd else arm.tokens / 1000.0
        return arm.gain / max(cost, 1e-9)

    def scores(self) -> dict[str, float]:
        arms = {m: self.arms.get(m, Arm()) for m in self.models}
        by_usd = all(a.usd > 0 for a in arms.values() if a.calls)
        total = sum(a.calls for a in arms.values())
        rates = {m: self._rate(a, by_usd) for m, a in arms.items() if a.calls}
        top = max(rates.values(), default=0.0) or 1.0
        out = {}
        for m, a in arms.items():
            if not a.calls:
                out[m] = math.inf
            else:
                out[m] = rates[m] / top + self.c * math.sqrt(2 * math.log(max(total, 1)) / a.calls)
        return out

    def choose(self, k: int = 1) -> list[str]:
        """Models for the next ``k`` calls (each choice counted as a pull of no gain
        before the next, so a generation spreads over arms the bandit is unsure of)."""
        out: list[str] = []
        bandit = self
        for _ in range(k):
            scores = bandit.scores()
            model = max(self.models, key=lambda m: (scores[m], -self.models.index(m)))
            out.append(model)
            a = bandit.arms.get(model, Arm())
            bandit = replace(bandit, arms={**bandit.arms, model: replace(a, calls=a.calls + 1)})
        return out
