"""The meter's statistics: bootstrap intervals of the aggregate log speedup.

Pure functions over log-ratios log(t_baseline / t_candidate), one array per test. The
aggregate is the mean over tests of each test's median log-ratio (exp of it: the
geometric mean of the per-test speedups). ``round_bootstrap`` resamples whole rounds
(every test of a round together; a test may have several pairs a round), scaled for the
few rounds seen; ``widen`` adds the machine's between-check noise floor;
``bootstrap_aggregate`` is the legacy interval (pairs resampled within each test);
``input_spread`` is what drawn tests add (the spread of the speedup between inputs).
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959964


def bootstrap_aggregate(
    ratios: list[np.ndarray], n: int, rng: np.random.Generator
) -> tuple[float, float, float]:
    """(estimate, low, high) of exp(mean over tests of median log-ratio), 95% CI,
    pairs resampled within each test (the legacy interval)."""
    est = float(np.mean([np.median(r) for r in ratios]))
    total = np.zeros(n)
    for r in ratios:
        idx = rng.integers(0, len(r), size=(n, len(r)))
        total += np.median(r[idx], axis=1)
    boots = total / len(ratios)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return math.exp(est), math.exp(float(lo)), math.exp(float(hi))


def round_bootstrap(
    ratios: list[np.ndarray],
    n: int,
    rng: np.random.Generator,
    small_sample: bool = True,
    rounds: list[np.ndarray] | None = None,
) -> tuple[float, float, float]:
    """(estimate, low, high) in LOG space of the mean over tests of each test's median
    log-ratio: whole rounds resampled together across tests (a test may have several
    pairs in a round: ``rounds[i]`` gives the round of each of test i's pairs; None: pair
    k of every test is round k, cut to the shortest test). With ``small_sample`` the
    half-widths are scaled by sqrt(r/(r-1)) * t(r-1)/z (the bootstrap's small-sample
    shrinkage, and Student's t for a spread seen in r rounds)."""
    if rounds is None:
        r = min(len(x) for x in ratios)
        ratios = [x[:r] for x in ratios]
        rounds = [np.arange(r) for _ in ratios]
    r = int(max(int(g.max()) for g in rounds)) + 1
    est = float(np.mean([np.median(x) for x in ratios]))
    if r < 2:
        return est, est, est
    counts = np.zeros((n, r), dtype=np.int64)  # how often each round is drawn
    np.add.at(counts, (np.arange(n)[:, None], rng.integers(0, r, size=(n, r))), 1)
    boots = [weighted_median(x, g, counts) for x, g in zip(ratios, rounds, strict=True)]
    boots = np.mean(boots, axis=0)
    lo, hi = (float(x) for x in np.percentile(boots, [2.5, 97.5]))
    scale = small_sample_scale(r) if small_sample else 1.0
    return est, est - (est - lo) * scale, est + (hi - est) * scale


def weighted_median(values: np.ndarray, rounds: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per bootstrap row, the median of ``values`` with each pair repeated as often as its
    round was drawn (exactly the median of the resampled pairs)."""
    order = np.argsort(values, kind="stable")
    x = values[order]
    cum = np.cumsum(counts[:, rounds[order]], axis=1)
    total = cum[:, -1:]
    low = np.argmax(cum > (total - 1) // 2, axis=1)
    high = np.argmax(cum > total // 2, axis=1)
    return (x[low] + x[high]) / 2


def small_sample_scale(r: int) -> float:
    """sqrt(r/(r-1)) * t(r-1)/z: the bootstrap's small-sample shrinkage undone, and
    Student's t for a spread seen in ``r`` rounds (one round: twice t(1))."""
    return math.sqrt(r / (r - 1)) * t95(r - 1) / Z95 if r >= 2 else t95(1) * 2


_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
)


def t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom."""
    return _T95[df - 1] if df <= len(_T95) else Z95 + 2.4 / df


def input_spread(
    ratios: list[np.ndarray],
    rng: np.random.Generator,
    rounds: list[np.ndarray] | None = None,
    n: int = 400,
) -> float:
    """The log-space sd that drawing the tests adds to the aggregate, when the timed tests
    are inputs drawn at random from the problem's distribution (a new draw every check).

    A random-effects estimate: the spread of the per-test medians (variance ``s^2``) is
    the spread between inputs plus each median's own sampling noise (its variance,
    ``w_i``, from a round bootstrap of that test alone); the between-input part
    ``max(0, s^2 - mean(w_i))`` over ``k`` tests is the variance the draw adds to their
    mean. Its square root, the standard error, is scaled by ``t95(k - 1) / Z95`` (1.42
    for 5 tests): ``s^2`` is itself seen in only ``k`` inputs, and a check whose few
    draws happen to agree must not report an interval the next check's draw misses
    (measured: without it a check's CI missed another check's estimate 36 times in 100,
    ``benchmarks/check_repeat.py``). 0 with fewer than 2 tests, and about 0 where every
    input gives the same speedup (an identical program: the medians differ by sampling
    noise only, which the round bootstrap already counts). ``widen`` takes it in
    quadrature with the noise floor, so the interval is one of the speedup over the
    input distribution, not over this check's draw."""
    k = len(ratios)
    if k < 2:
        return 0.0
    medians = np.asarray([np.median(r) for r in ratios])
    within = []
    for i, r in enumerate(ratios):
        g = [rounds[i]] if rounds is not None else None
        _, lo, hi = round_bootstrap([r], n, rng, rounds=g)
        within.append(((hi - lo) / (2 * Z95)) ** 2)
    between = max(0.0, float(np.var(medians, ddof=1)) - float(np.mean(within)))
    return math.sqrt(between / k) * t95(k - 1) / Z95


def widen(est: float, lo: float, hi: float, floor: float) -> tuple[float, float]:
    """Log-space interval widened by a between-check sd ``floor``, back on the ratio scale."""
    extra = (Z95 * floor) ** 2
    low = est - math.sqrt((est - lo) ** 2 + extra)
    high = est + math.sqrt((hi - est) ** 2 + extra)
    return math.exp(low), math.exp(high)
