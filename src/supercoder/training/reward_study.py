"""The reward study: what each reward form and timing budget gives a GRPO group, predicted
offline from the raw paired samples stored with every verdict.

A trainer sees one measurement per completion; whether GRPO learns depends on whether
that measurement orders a group's completions as another measurement would. For every
completion of a group (a problem's completions in a run, or a batch of candidates) the
study simulates what a check with ``B`` rounds of pairs would report, twice,
independently, and pays both through the reward forms' one definition
(``verify.reward.pay_for_speed``, what ``score_verdict`` applies):

- a GRPO group is checked as the reward path checks it: in ONE timing session, its
  programs paired with the same baseline runs and timed on the same draws. So a
  simulated check of a group draws ``B`` rounds for all its completions together
  (every timed input of a round together, the meter's round bootstrap; the same rounds
  for every completion, so the baseline's noise they share moves them together, as
  it does in a real session), takes the meter's estimate (mean over inputs of the
  median log-ratio), and adds what one check does not see but the next one does: a
  between-check offset ~ N(0, floor^2) (the machine's noise floor stored with the
  verdict) and a new draw of inputs ~ N(0, spread^2) (the spread between the drawn
  inputs, ``timing.intervals.input_spread``);
- its interval is the one THAT check reports, not the stored one scaled: the meter's
  round bootstrap with its small-sample scale is Student's interval, whose width
  follows the sd the check sees in its own ``B`` rounds (``chi2(B-1)``: at 4 rounds it
  varies by a factor of 2-3 between checks, and a gate is passed or missed on it as
  much as on the estimate), widened by the floor and the inputs' spread;
- the gated forms also require the gain to hold past the cut the reference's time
  budget makes (``holds_past_cut``), a stratum of its own timed with 2 pairs a draw:
  each simulated check draws its figure there around the stored one with the stored
  interval's spread, half of that variance shared by the session's programs (the
  baseline's runs on the same draws: real checks of a group come out high or low
  past the cut together);
- what the program really is is unknown: one stored check fixes its speedup only
  within its own sampling error and between-check offset, and its round sd within
  ``chi2(R-1)``, so each simulated set of checks first draws a truth around the stored
  estimate (~ N(0, (half/Z95)^2 + floor^2 + spread^2) on the log scale), a round sd
  around the stored one and a figure past the cut around the stored one, shared by
  its checks: a completion the stored check puts just past a gate is not assumed to
  stay there;
- a wrong answer is paid ``failure`` and a copy of the baseline ``baseline_copy`` in
  every measurement (they are not timed); on a problem that reads no input the gated
  forms pay 0.

Calibrated against repeated real checks of known variants
(``benchmarks/reward_study_calibration.py``): before the session, the per-check width
and the cut were modelled, the study missed rows of the gated forms by up to 19 points
(it took a group's programs as independent, every check's width as the stored one,
and ignored the cut, which decided most of the disagreements it missed).

Per form and budget it reports:

- ``agreement``: over the completions whose GRPO advantage (reward minus the group
  mean, over its sd) is non-zero in at least one of the two measurements, the share
  whose advantage has the same sign in both (two completions 5x apart: ~100%; two
  identical programs under ``paper``: ~50%, a coin);
- ``sparsity``: the share of groups whose rewards are all equal (no spread: no gradient);
- ``copy_paid``: how often a copy of the baseline is paid more than a failure (0 under
  every form, by rule) and ``identical_paid``: how often a program that is the baseline
  under another name (a completion's samples re-centred at 1.0x) is paid more than a
  copy (``paper`` pays it ~1.0 every time);
- ``cpu_s``: CPU seconds of timing per completion at ``B`` rounds (its share of the
  group session's baseline runs included), from the samples' own run times.

- ``live``: the advantage signs ``agreement`` counts, per simulated pair of
  measurements (its weight when groups are pooled);
- ``on_gate``: the share of timed completions a gated form (``gated``, ``binary``,
  ``percentile``) pays in 10-90% of the simulated measurements: their pay is a coin
  whose bias one stored check fixes only roughly, so the prediction there leans on the
  model above; a row with more than ``UNCERTAIN_GATE`` of them is marked ``uncertain``:
  the study says it cannot promise 10 points there;
- ``spread``: the standard deviation, over the simulated pairs of checks, of the agreement
  ONE pair of checks of the whole batch shows (the share of its informative signs that
  agree). The prediction is an expectation; what two real checks show is one draw of
  it, and a row with few informative signs, or whose groups agree all-or-nothing (a
  ``binary`` group: one completion crossing the threshold in one check and not in the
  other flips every sign of the group at once), scatters widely around it. A row whose
  95% half-width ``Z95 x spread`` exceeds ``UNCERTAIN_SPREAD`` (10 points) is marked
  ``uncertain`` too: no prediction can land within 10 points of a quantity that varies
  more than that between repetitions. Pooling ``k`` independent pairs of checks divides
  it by ``sqrt(k)`` (weights: informative signs).

It recommends the setting with the most signal per group, ``(1 - sparsity) x (2 x
agreement - 1)`` (a group with no spread, or a coin-flip order, teaches nothing), among
those that pay an identical program at most ``MAX_IDENTICAL_PAID`` of the time, the
cheapest within 0.02 of the best; and says where it cannot predict (a completion with
fewer than ``MIN_ROUNDS`` rounds stored, or none at all).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from supercoder.codec import encode
from supercoder.timing.intervals import (
    Z95,
    input_spread,
    round_bootstrap,
    t95,
    weighted_median,
    widen,
)
from supercoder.types import MIN_PRACTICAL_MARGIN, Speedup, Verdict
from supercoder.verify.reward import RewardConfig, RewardKind, parse_reward, pay_for_speed

DEFAULT_BUDGETS = (4, 6, 10, 15)
DEFAULT_FORMS = ("gated", "paper", "log", "binary", "percentile")
MAX_IDENTICAL_PAID = 0.05
MIN_ROUNDS = 3
UNCERTAIN_GATE = 0.10
UNCERTAIN_SPREAD = 0.10
RESAMPLES = 200


@dataclass(frozen=True)
class StudyCompletion:
    """One completion as the study sees it: its verdict's facts and samples.

    Fields:
        correct: it passed every test.
        copy: it is the baseline's own assembly (never timed).
        ratios: per timed input, the paired log-ratios log(t_base / t_cand).
        rounds: per timed input, the meter round of each pair.
        base_cpu: per timed input, the mean CPU seconds of a baseline run.
        cand_cpu: per timed input, the mean CPU seconds of a candidate run.
        floor: the machine's between-check noise floor (log-space sd).
        margin: the practical band's half-width.
        label: what it is (for reports).
        past: the log-speedup on the draws past the cut the reference's time budget
            makes (``Measurement.beyond_cut``; None: nothing drawn past a cut), which the
            gated forms also require (``verify.reward.holds_past_cut``).
        past_sd: its log-space standard deviation, from its interval.
        memorizable: the problem reads no input (the gated forms pay 0).
    """

    correct: bool
    copy: bool = False
    ratios: tuple[np.ndarray, ...] = ()
    rounds: tuple[np.ndarray, ...] = ()
    base_cpu: tuple[float, ...] = ()
    cand_cpu: tuple[float, ...] = ()
    floor: float = 0.0
    margin: float = MIN_PRACTICAL_MARGIN
    label: str = ""
    past: float | None = None
    past_sd: float = 0.0
    memorizable: bool = False

    @property
    def timed(self) -> bool:
        return self.correct and not self.copy and bool(self.ratios)

    @property
    def rounds_seen(self) -> int:
        return int(max((int(g.max()) + 1 for g in self.rounds if len(g)), default=0))

    @staticmethod
    def from_verdict(verdict: Verdict, label: str = "") -> StudyCompletion:
        """The study's view of a stored verdict (its ``context.measurement.samples``)."""
        prov = verdict.context.provenance
        floor = float(getattr(prov, "noise_floor", 0.0) or 0.0)
        sp = verdict.speedup
        margin = sp.margin if sp is not None else MIN_PRACTICAL_MARGIN
        ratios, rounds, base, cand = [], [], [], []
        for s in verdict.context.measurement.samples:
            if not s.baseline or len(s.baseline) != len(s.candidate):
                continue
            b = np.maximum(np.asarray(s.baseline, dtype=float), 1e-6)
            c = np.maximum(np.asarray(s.candidate, dtype=float), 1e-6)
            ratios.append(np.log(b) - np.log(c))
            g = np.asarray(s.rounds, dtype=int) if len(s.rounds) == len(b) else np.arange(len(b))
            rounds.append(g - int(g.min()))
            base.append(float(b.mean()))
            cand.append(float(c.mean()))
        bc = verdict.context.measurement.beyond_cut
        past, past_sd = None, 0.0
        if bc is not None and 0 < bc.low <= bc.value <= bc.high:
            past = math.log(bc.value)
            past_sd = (math.log(bc.high) - math.log(bc.low)) / (2 * Z95)
        return StudyCompletion(
            verdict.correct and not verdict.is_infra_failure,
            verdict.identical_to_baseline,
            tuple(ratios),
            tuple(rounds),
            tuple(base),
            tuple(cand),
            floor,
            margin,
            label or verdict.problem,
            past,
            past_sd,
            verdict.memorizable,
        )


@dataclass(frozen=True)
class Group:
    """A GRPO group: one problem's completions (and the problem's pool, for
    ``percentile``: its members' speedups; empty: the group's own timed programs)."""

    name: str
    completions: tuple[StudyCompletion, ...]
    pool: tuple[Speedup, ...] = ()


@dataclass(frozen=True)
class Row:
    """One (form, budget) of the study's table."""

    form: str
    budget: int
    agreement: float | None
    sparsity: float
    copy_paid: float
    identical_paid: float
    cpu_s: float
    signal: float
    groups: int
    completions: int
    on_gate: float = 0.0
    live: float = 0.0
    spread: float = 0.0

    @property
    def half_width(self) -> float:
        """95% half-width of the agreement one pair of checks of these groups shows
        (``Z95`` x ``spread``)."""
        return Z95 * self.spread

    @property
    def uncertain(self) -> bool:
        """The study cannot promise +-10 points: too many completions sit on the form's
        gate (``UNCERTAIN_GATE``), or one pair of checks' agreement varies by more than
        ``UNCERTAIN_SPREAD`` (95%) around the prediction (few informative signs, or
        all-or-nothing groups)."""
        return self.on_gate > UNCERTAIN_GATE or self.half_width > UNCERTAIN_SPREAD


@dataclass(frozen=True)
class Study:
    """The study's table, its recommendation and where it cannot predict."""

    rows: tuple[Row, ...]
    recommended: Row | None
    why: str
    cannot_predict: tuple[str, ...] = ()
    groups: int = 0
    completions: int = 0
    resamples: int = RESAMPLES
    seconds: float = 0.0
    forms: tuple[str, ...] = ()
    budgets: tuple[int, ...] = ()
    seed: int = 0

    def to_json(self) -> dict:
        """The table as ``reward study --json`` writes it (the codec's)."""
        return encode(self)  # type: ignore[return-value]


def reported(c: StudyCompletion, budget: int | None = None, seed: int = 0) -> Speedup | None:
    """What the meter reports for ``c``'s samples (only its first ``budget`` rounds when
    given: what a check with that budget measured): the round bootstrap's estimate and
    interval, widened by the noise floor and the drawn inputs' spread
    (``timing.intervals``, as ``Meter`` computes it); None without two rounds."""
    keep = [g < budget if budget else np.ones(len(g), bool) for g in c.rounds]
    ratios = [x[k] for x, k in zip(c.ratios, keep, strict=True) if k.any()]
    rounds = [g[k] for g, k in zip(c.rounds, keep, strict=True) if k.any()]
    if not ratios or max(int(g.max()) for g in rounds) < 1:
        return None
    rng = np.random.default_rng(seed)
    est, lo, hi = round_bootstrap(ratios, 2000, rng, rounds=rounds)
    spread = input_spread(ratios, np.random.default_rng(seed), rounds) if len(ratios) > 1 else 0
    low, high = widen(est, lo, hi, math.hypot(c.floor, spread))
    n = sum(len(x) for x in ratios)
    return Speedup(math.exp(est), low, high, n, len(ratios), margin=c.margin)


class _Sim:
    """Per completion: what every simulated check at one budget needs, computed once."""

    def __init__(self, c: StudyCompletion, rng: np.random.Generator):
        self.c = c
        self.r = c.rounds_seen
        self.est = float(np.mean([np.median(x) for x in c.ratios]))
        if self.r >= 2:
            _, lo, hi = round_bootstrap(list(c.ratios), 400, rng, rounds=list(c.rounds))
            self.half = (hi - lo) / 2  # scaled for R rounds already
        else:
            self.half = 0.0
        # the sd of one round's contribution, as Student's interval reads it
        self.sigma = self.half * math.sqrt(self.r) / t95(self.r - 1) if self.r >= 2 else 0.0
        self.spread = input_spread(list(c.ratios), rng, list(c.rounds)) if len(c.ratios) > 1 else 0
        self.wide = math.hypot(c.floor, self.spread)
        # how far the program's true log-speedup may sit from the stored estimate: the
        # stored check's own sampling error and its between-check offset
        self.truth_sd = math.hypot(self.half / Z95, self.wide)
        # per round: the pairs of each input (a test may have several a round)
        per_round = [len(x) / max(1, self.r) for x in c.ratios]
        self.cpu_round = sum(
            n * (b + cc) for n, b, cc in zip(per_round, c.base_cpu, c.cand_cpu, strict=True)
        )
        self.base_round = sum(n * b for n, b in zip(per_round, c.base_cpu, strict=True))
        self.cand_round = self.cpu_round - self.base_round

    def speedup(self) -> Speedup:
        """What the stored check reported, as the meter computes it (a pool member)."""
        half = math.hypot(self.half, Z95 * self.wide)
        e = self.est
        return Speedup(math.exp(e), math.exp(e - half), math.exp(e + half), 0, 0)

    def draw(
        self,
        budget: int,
        n: int,
        rng: np.random.Generator,
        center: bool = False,
        shift: np.ndarray | None = None,
        sigma: np.ndarray | None = None,
        slots: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``n`` simulated checks at ``budget`` rounds: (value, low, high) arrays; with
        ``center`` the program is the baseline under another name (its log-ratios
        re-centred on 0). The estimate: ``budget`` rounds drawn from the stored ones
        (``slots``: uniform draws in [0, 1), one per round, shared by a session's
        completions, so programs timed against the same baseline runs are drawn the same
        rounds), plus the between-check offset (``wide``) and ``shift``; the interval: the one
        ONE check at that budget reports (``half_width``), not the stored one scaled."""
        c = self.c
        u = rng.random((n, budget)) if slots is None else slots
        picked = np.minimum((u * self.r).astype(np.int64), self.r - 1)
        counts = np.zeros((n, self.r), dtype=np.int64)
        np.add.at(counts, (np.arange(n)[:, None], picked), 1)
        meds = []
        for x, g in zip(c.ratios, c.rounds, strict=True):
            xs = x - np.median(x) if center else x
            meds.append(weighted_median(xs, g, counts))
        est = np.mean(meds, axis=0) + rng.normal(0.0, 1.0, n) * self.wide
        if shift is not None:
            est = est + shift
        half = self.half_width(budget, n, rng, self.sigmas(n, rng) if sigma is None else sigma)
        return np.exp(est), np.exp(est - half), np.exp(est + half)

    def sigmas(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws of the round sd ``sigma`` the program really has: the stored check
        saw it in R rounds only (``sigma_hat^2 ~ sigma^2 chi2(R-1) / (R-1)``), so, like
        the truth of its speedup, it is drawn around the stored value (shared by the
        checks of one simulated pair)."""
        if self.r < 2:
            return np.zeros(n)
        return self.sigma * np.sqrt((self.r - 1) / np.maximum(rng.chisquare(self.r - 1, n), 1e-9))

    def half_width(
        self, budget: int, n: int, rng: np.random.Generator, sigma: np.ndarray
    ) -> np.ndarray:
        """``n`` half-widths (log space) of the meter's interval at ``budget`` rounds, each
        as ONE check would report it. The meter's round bootstrap with its small-sample
        scale is Student's interval, ``t95(B-1) s / sqrt(B)``, with ``s`` the sd the
        check sees in its own B rounds: ``s^2 ~ sigma^2 chi2(B-1) / (B-1)``, ``sigma``
        from the stored check (its half-width ``t95(R-1) sigma / sqrt(R)``); the drawn
        inputs' spread it adds is estimated from its k inputs likewise (``chi2(k-1)``);
        then widened by the noise floor (``timing.intervals.widen``). At a few rounds
        the width varies from check to check by a factor of 2-3, and whether a gate is
        passed hinges on it as much as on the estimate (calibrated:
        ``benchmarks/reward_study_calibration.py``)."""
        sd = t95(budget - 1) * sigma / math.sqrt(budget)
        seen = sd * np.sqrt(rng.chisquare(budget - 1, n) / (budget - 1))
        k = len(self.c.ratios)
        spread = self.spread * np.sqrt(rng.chisquare(k - 1, n) / (k - 1)) if k > 1 else 0.0
        return np.sqrt(seen**2 + (Z95 * np.hypot(self.c.floor, spread)) ** 2)

    def past(
        self,
        n: int,
        rng: np.random.Generator,
        center: bool = False,
        shift: np.ndarray | None = None,
        shared: np.ndarray | None = None,
    ) -> np.ndarray | None:
        """``n`` simulated log-speedups past the cut (None: the check drew nothing
        there): a new draw around the stored one (plus ``shift``, the unknown truth's
        offset a pair of checks shares), its spread the stored interval's, half of its
        variance ``shared`` by every completion of the session (standard normal draws:
        the baseline's runs on the same draws, paired with each of them; a check of a
        group drawn past the cut measured every program of it high, or every one low);
        with ``center``, a program that is the baseline there too (0)."""
        c = self.c
        if c.past is None:
            return None
        mid = 0.0 if center else c.past + (0.0 if shift is None else shift)
        own = rng.normal(0.0, 1.0, n)
        if shared is not None:  # half its variance is the session's: the baseline's runs
            own = (own + shared) * math.sqrt(0.5)
        return mid + c.past_sd * own


@dataclass(frozen=True)
class _Check:
    """``n`` simulated checks of one completion: the meter's estimate and interval
    (arrays) and the log-speedup past the cut (None: nothing drawn past one)."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    past: np.ndarray | None = None


GATED = (RewardKind.GATED, RewardKind.BINARY, RewardKind.PERCENTILE)


def _paid(
    config: RewardConfig, check: _Check, c: StudyCompletion, pool: Sequence[Speedup]
) -> np.ndarray:
    """What ``config`` pays each simulated check, as ``score_verdict`` pays a verdict:
    ``pay_for_speed``, and under the gated forms nothing on a problem that reads no
    input and only ``baseline_copy`` where the gain does not hold past the cut
    (``verify.reward.holds_past_cut``: past it, at least half the gain, in log space)."""
    paid = pay_for_speed(config, check.value, check.low, check.high, c.margin, pool)
    if config.kind not in GATED:
        return paid
    if c.memorizable:
        return np.zeros_like(paid)
    if check.past is not None:
        holds = check.past >= 0.5 * np.maximum(np.log(check.value), 0.0)
        paid = np.where(holds, paid, config.baseline_copy)
    return paid


def _signs(rewards: np.ndarray) -> np.ndarray:
    """GRPO advantages' signs per row (group): reward above / at / below the mean."""
    dev = rewards - rewards.mean(axis=1, keepdims=True)
    tol = 1e-9 * np.maximum(1.0, np.abs(rewards).max(axis=1, keepdims=True))
    return np.where(np.abs(dev) <= tol, 0, np.sign(dev)).astype(int)


def study(
    groups: Sequence[Group],
    forms: Sequence[str | RewardConfig] = DEFAULT_FORMS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    resamples: int = RESAMPLES,
    seed: int = 0,
    base: RewardConfig | None = None,
    checks: int = 2,
) -> Study:
    """The study over ``groups`` (see the module docstring); ``base``: the options the
    forms' specs do not name (``failure``); ``checks``: independent checks simulated
    per resample, ``agreement`` and its ``spread`` taken over every two of them (2: one
    pair, what a trainer's two measurements would be; k: what comparing k real checks
    pair by pair shows, the pairs sharing checks)."""
    if checks < 2:
        raise ValueError("the study compares at least 2 checks")
    import time

    base = base or RewardConfig()
    start = time.process_time()
    rng = np.random.default_rng(seed)
    configs = [
        f
        if isinstance(f, RewardConfig)
        else parse_reward(f, base.eval_config, failure=base.failure or None)
        for f in forms
    ]
    cannot: list[str] = []
    sims: dict[tuple[int, int], _Sim] = {}
    used: list[Group] = []
    for gi, g in enumerate(groups):
        if len(g.completions) < 2:
            cannot.append(f"{g.name}: fewer than 2 completions (no group)")
            continue
        for ci, c in enumerate(g.completions):
            if c.correct and not c.copy and not c.ratios:
                cannot.append(f"{g.name}/{c.label}: correct but no samples stored (untimed)")
            elif c.timed and c.rounds_seen < MIN_ROUNDS:
                cannot.append(f"{g.name}/{c.label}: {c.rounds_seen} rounds stored (< {MIN_ROUNDS})")
            if c.timed and c.rounds_seen >= 2:
                sims[(gi, ci)] = _Sim(c, rng)
        used.append(g)
    rows = []
    n = resamples
    for budget in budgets:
        draws: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        nulls: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for gi, g in enumerate(groups):
            # a group is timed as one session (as the reward path times it): its
            # completions share the rounds drawn (their pairs share the baseline's runs)
            # and the draws past the cut (and the baseline's runs on them)
            sessions = [
                (rng.random((n, budget)), rng.normal(0.0, 1.0, n)) for _ in range(checks + 1)
            ]
            for ci in range(len(g.completions)):
                if (gi, ci) not in sims:
                    continue
                sim = sims[(gi, ci)]
                # both checks of a pair measure one unknown truth, drawn around the estimate
                shift = rng.normal(0.0, sim.truth_sd, n)
                past = rng.normal(0.0, sim.c.past_sd, n)  # past the cut: its own truth
                sigma = sim.sigmas(n, rng)
                draws[(gi, ci)] = [
                    _Check(
                        *sim.draw(budget, n, rng, shift=shift, sigma=sigma, slots=u),
                        sim.past(n, rng, shift=past, shared=z),
                    )
                    for u, z in sessions[:checks]
                ]
                u, z = sessions[checks]
                nulls[(gi, ci)] = _Check(
                    *sim.draw(budget, n, rng, center=True, slots=u),
                    sim.past(n, rng, True, shared=z),
                )
        for config in configs:
            rows.append(_row(config, budget, groups, sims, draws, nulls, n, checks))
    best, why = recommend(rows)
    return Study(
        tuple(rows),
        best,
        why,
        tuple(cannot),
        len(used),
        sum(len(g.completions) for g in used),
        n,
        time.process_time() - start,
        tuple(c.spec for c in configs),
        tuple(budgets),
        seed,
    )


def _row(
    config: RewardConfig,
    budget: int,
    groups: Sequence[Group],
    sims: dict[tuple[int, int], _Sim],
    draws: dict,
    nulls: dict,
    n: int,
    checks: int = 2,
) -> Row:
    agree = total = 0
    agree_r = np.zeros(n)  # per simulated pair of checks of the whole batch
    live_r = np.zeros(n)
    flat = 0
    counted = 0
    identical_paid: list[float] = []
    gate: list[bool] = []
    cpu: list[float] = []
    copies = 0
    for gi, g in enumerate(groups):
        if len(g.completions) < 2:
            continue
        pool = g.pool or tuple(
            sims[(gi, ci)].speedup() for ci in range(len(g.completions)) if (gi, ci) in sims
        )
        timed_here = sum(1 for ci in range(len(g.completions)) if (gi, ci) in sims)
        pair = []
        for which in range(checks):
            cols = []
            for ci, c in enumerate(g.completions):
                if (gi, ci) in sims:
                    cols.append(_paid(config, draws[(gi, ci)][which], c, pool))
                elif c.correct and c.copy:
                    cols.append(np.full(n, config.baseline_copy))
                elif c.correct:  # untimed (no samples): what an untimed verdict earns
                    cols.append(np.full(n, _untimed(config)))
                else:
                    cols.append(np.full(n, config.failure))
            pair.append(np.stack(cols, axis=1))
        signs = [_signs(m) for m in pair]
        for s1, s2 in combinations(signs, 2):
            live = (s1 != 0) | (s2 != 0)
            agree += int(((s1 == s2) & live).sum())
            total += int(live.sum())
            agree_r += ((s1 == s2) & live).sum(axis=1)
            live_r += live.sum(axis=1)
        flat += sum(int((np.ptp(m, axis=1) == 0).sum()) for m in pair)
        counted += len(pair) * n
        for ci, c in enumerate(g.completions):
            if (gi, ci) in sims:
                sim = sims[(gi, ci)]
                paid = _paid(config, nulls[(gi, ci)], c, pool) > config.baseline_copy
                identical_paid.append(float(paid.mean()))
                if config.kind not in (RewardKind.PAPER, RewardKind.LOG):
                    p = float((_paid(config, draws[(gi, ci)][0], c, pool) > 0).mean())
                    gate.append(0.1 < p < 0.9)
                share = sim.base_round / max(1, timed_here)
                cpu.append(budget * (share + sim.cand_round))
            elif c.correct and c.copy:
                copies += 1
    agreement = agree / total if total else None
    sparsity = flat / counted if counted else 1.0
    signal = (1 - sparsity) * (2 * agreement - 1) if agreement is not None else 0.0
    seen = live_r > 0
    spread = float(np.std(agree_r[seen] / live_r[seen])) if seen.sum() > 1 else 0.0
    return Row(
        config.spec,
        budget,
        agreement,
        sparsity,
        0.0 if config.baseline_copy <= config.failure else 1.0 if copies else 0.0,
        float(np.mean(identical_paid)) if identical_paid else 0.0,
        float(np.mean(cpu)) if cpu else 0.0,
        signal,
        sum(1 for g in groups if len(g.completions) >= 2),
        sum(len(g.completions) for g in groups if len(g.completions) >= 2),
        float(np.mean(gate)) if gate else 0.0,
        total / n,
        spread,
    )


def _untimed(config: RewardConfig) -> float:
    return {RewardKind.PAPER: 1.0, RewardKind.LOG: 0.0}.get(config.kind, config.baseline_copy)


def recommend(rows: Sequence[Row]) -> tuple[Row | None, str]:
    """The setting to train with, and why (module docstring)."""
    fair = [r for r in rows if r.identical_paid <= MAX_IDENTICAL_PAID and r.agreement is not None]
    if not fair:
        return None, (
            "no form pays an identical program at most "
            f"{MAX_IDENTICAL_PAID:.0%} of the time with a measurable order: none recommended"
        )
    top = max(r.signal for r in fair)
    near = [r for r in fair if r.signal >= top - 0.02]
    best = min(near, key=lambda r: (r.cpu_s, -r.signal))
    unfair = sorted({r.form for r in rows if r.identical_paid > MAX_IDENTICAL_PAID})
    why = (
        f"{best.form} at {best.budget} rounds: signal {best.signal:.2f} "
        f"(agreement {best.agreement:.0%} of advantage signs, {best.sparsity:.0%} of groups "
        f"flat), the cheapest setting within 0.02 of the best ({top:.2f}), "
        f"{best.cpu_s:.2f} CPU-s per completion; identical programs paid "
        f"{best.identical_paid:.1%}"
    )
    if unfair:
        why += f"; left out for paying an identical program: {', '.join(unfair)}"
    if best.on_gate > UNCERTAIN_GATE:
        why += (
            f"; uncertain: {best.on_gate:.0%} of its timed completions sit on the gate "
            "(paid in some checks, not in others), where one stored check fixes the odds "
            "only roughly"
        )
    if best.half_width > UNCERTAIN_SPREAD:
        why += (
            f"; uncertain: one pair of checks' agreement varies by +-{best.half_width:.0%} "
            f"({best.live:.0f} informative signs a pair)"
        )
    return best, why


def groups_from_store(db: str | None, run: str | None) -> tuple[str, list[Group]]:
    """A stored run's groups: each finished problem's attempts (an infrastructure failure
    left out), in the run store ``db`` (None: the default store)."""
    from pathlib import Path

    from supercoder.errors import UserError
    from supercoder.paths import default_store
    from supercoder.runs.store import Store

    path = Path(db) if db else default_store()
    if not path.is_file():
        raise UserError(f"no run store at {path} (run `supercoder eval` first, or pass --db)")
    store = Store(path, read_only=True)
    try:
        names = [r.name for r in store.runs()]
        if run is None:
            if len(names) != 1:
                raise UserError(f"name the run (runs: {', '.join(names) or 'none'})")
            run = names[0]
        if run not in names:
            raise UserError(f"no run named {run!r} in {path} (runs: {', '.join(names)})")
        groups = []
        for outcome in store.outcomes(run):
            comps = tuple(
                StudyCompletion.from_verdict(a.verdict, f"{a.sample}.{a.round}")
                for a in outcome.attempts
                if a.verdict is not None and not a.verdict.is_infra_failure and not a.dropped
            )
            groups.append(Group(outcome.problem, comps))
        return run, groups
    finally:
        store.close()
