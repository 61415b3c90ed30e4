"""Summary metrics of an eval run: the paper's figures, ours and theirs side by side.

Per problem, the *chosen* attempt is the best one (``strategies.rank``: correct first,
then most tests passed, then speedup; a baseline copy counts as 1.0x). Infrastructure
failures are dropped, never scored: a problem whose every attempt was dropped is left
out of every rate (``problems_dropped``). Rates are percentages of counted problems;
given ``total`` (the benchmark's size), of the whole benchmark instead: a problem not
scored (dropped, unfinished) then counts as not correct and 1.0x, and ``problems`` is
``total`` (``problems_scored`` the ones with a verdict).

- ``compilation_rate``: % problems where some attempt assembles and links;
- ``accuracy``: % problems whose chosen attempt passes every test (a copy of the
  baseline counts, as in the paper; ``accuracy_excluding_copies`` does not count it;
  ``baseline_copies`` is the % of problems whose chosen attempt is such a copy);
- per-problem speedup: the chosen attempt's measured speedup if it is correct and
  timed, 1.0 when no attempt is correct (the baseline stands, as the paper counts it),
  and **none** when the answer is correct but its speedup was not measured (``--no-time``,
  nothing to time it on, every test too short): an unmeasured problem is never counted
  as 1.0x. Over the problems with a figure that are not memorizable: ``avg_speedup``,
  ``median_speedup``, ``p25_speedup``, ``p75_speedup``, ``max_speedup``,
  ``std_speedup`` (population std), ``geomean_speedup``. None when nothing was timed
  (``--no-time``). Ours is the paired CPU-time estimate, *not* clamped: a slower
  correct answer reads below 1;
- memorizable problems (``Problem.memorizable``: the program reads no input, so an
  answer may print its output without computing it; timed on their visible tests) are
  counted apart: ``problems_memorizable``, ``memorizable_improved`` and
  ``memorizable_geomean_speedup``; their speedups are in none of the figures above,
  nor in ``fast_1.1``, ``timed_share``, ``improved`` or the significance counts (they
  count for ``compilation_rate`` and ``accuracy``);
- ``fast_1.1``: % of the benchmark's problems whose chosen attempt is timed, correct,
  not a copy, has a speedup >= 1.1 **and** is significantly faster (so noise cannot
  count); every rate divides by the benchmark, this one too (an untimed problem is
  not fast); None (ours and the paper protocol's) when no problem was timed at all
  (``--no-time``): nothing was measured, which is not 0%; ``timed_share`` beside it:
  % of the benchmark's problems that were timed (and are not memorizable);
- a rate is None (no figure, never 0) when no problem was scored at all;
- ``significant_speedups`` / ``significant_slowdowns``: number of timed problems whose
  chosen correct non-copy attempt is significantly faster / slower;
- ``problems_untimed``: problems with a correct answer whose speedup was not measured
  (``--no-time``; nothing the model never saw to time it on; or none of the tests runs
  long enough to time, every baseline run under the meter's ``min_test_seconds``, 5 ms,
  so the figure would measure process start-up): they are ``timed: false`` with a
  ``timed_reason``, have no speedup, and stay out of the speedup figures, ``fast_1.1``
  and the significance counts (they still count for ``compilation_rate`` and
  ``accuracy``, and in the paper-protocol column, which reproduces the paper's rule);
- ``per_problem``: per problem (``summary.ProblemRecord`` documents every field)
  its ``status``, ``speedup`` and ``speedup_ci`` (the chosen attempt's, when timed; for
  a copy of the baseline too, ``baseline_copy`` true), ``paper_speedup``, ``timed``
  (true or false) with ``timed_reason`` (why not, in words), ``memorizable``,
  ``improved`` (significantly faster, timed, not memorizable), ``checks`` (how
  many independent checks the figure rests on: 2 when the chosen answer was re-checked
  afresh, see ``strategies.confirm_best``; 1 a single check; 0 no figure), ``origin``
  (what produced the chosen answer: the build for the build search, e.g. ``gcc
  -O3 -march=native``), ``sample``/``round``, ``tests_passed``/``tests_total``,
  ``cpu_seconds`` (CPU time of the candidates' own test runs in the sandbox, summed
  over its attempts: not the baselines', not building or generation), ``seconds``
  (generation + verification time summed over its attempts, which overlap with other
  problems' when several run at once) and ``wall_seconds`` (its wall-clock time from
  start to end in the run that solved it).

"Significantly faster/slower" is ``types.practical_significance``: the whole 95% CI
lies above / below the practical band ``[1 - m, 1 + m]`` (``m`` the calibrated noise
floor carried by the speedup, at least 1%);
- ``paper``: the same figures under the paper's protocol: per attempt the clamped
  (>= 1.0) hyperfine-style ``verdict.paper_speedup``; per problem the best fully
  correct attempt by that figure (copies count), else 1.0; ``fast_1.1`` there is just
  ``>= 1.1``.

Also: attempt counts, infra failures dropped, tokens and cost, and the context (gcc,
CPU, samples, rounds) every summary must carry.

"Compiled" is ``Verdict.assembled`` (``types.NOT_ASSEMBLED``: an infrastructure failure
never counts as compiled). ``summarize`` returns a frozen ``RunSummary`` (per problem a
``ProblemRecord``); ``to_json()`` is the summary ``eval --json`` writes and the run store
keeps, ``from_json()`` reads one back. ``batch_stats`` gives the same figures for a batch
of verdicts (training logs); ``geomean`` is the one geometric mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from supercoder.codec import decode
from supercoder.runs.registry import is_builds_run
from supercoder.runs.strategies import Attempt, Outcome, effective_speedup
from supercoder.runs.summary import (
    BatchStats,
    Distribution,
    PaperFigures,
    ProblemRecord,
    RunContext,
    RunSummary,
)
from supercoder.timing.meter import MeterConfig
from supercoder.types import Speedup, Status, Verdict
from supercoder.verify.reward import (
    DEFAULT_REWARD,
    RewardKind,
    added_tables,
    holds_past_cut,
    parse_reward,
    score_verdict,
    score_verdicts,
)

FAST = 1.1  # the fast_1.1 threshold


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the given numbers (None and 0 are left out; None when empty)."""
    vals = [float(v) for v in values if v]
    return float(np.exp(np.log(np.clip(vals, 1e-12, None)).mean())) if vals else None


def distribution(values: Sequence[float]) -> Distribution:
    """The ``Distribution`` of per-problem speedups (every figure None when empty)."""
    if not values:
        return Distribution()
    arr = np.asarray(values, dtype=float)
    stats = (
        arr.mean(),
        np.median(arr),
        np.percentile(arr, 25),
        np.percentile(arr, 75),
        arr.max(),
        arr.std(),
        geomean(np.clip(arr, 1e-12, None)),
    )
    return Distribution(*(round(float(v), 4) for v in stats))


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _pct(count: int, total: int) -> float:
    return round(100.0 * count / total, 2) if total else 0.0


def _rate(count: int, total: int, scored: int) -> float | None:
    """A rate over the benchmark; None (no figure, never a 0) when nothing was scored."""
    return _pct(count, total) if scored else None


def _is_fast(v: Verdict) -> bool:
    return bool(v.significantly_faster and v.speedup and v.speedup.value >= FAST)


def paper_problem_speedup(outcome: Outcome) -> float:
    """The paper's per-problem figure: best clamped speedup of a fully correct attempt."""
    correct = [a.verdict for a in outcome.attempts if a.verdict.correct]
    return max((v.paper_speedup or 1.0 for v in correct), default=1.0)


def long_enough(verdict: Verdict) -> bool:
    """Was some test of this timed verdict long enough to time?

    The meter's decision where the verdict records it: it times only the tests whose
    baseline runs at least ``min_test_seconds`` (5 ms), and every test when none does, so
    a timed set that leaves out tests it ran was long enough (visible tests, which it
    never runs, do not count). When it times every test (all
    long, or none), and for stored verdicts from before tests said ``timed``: some test's
    baseline >= 5 ms. A verdict without per-test baseline times is taken as timed."""
    unseen = verdict.unseen
    if unseen is not None and unseen.long_enough is not None:  # the meter said so (format 3)
        return unseen.long_enough
    timed = verdict.timed_tests
    metered = [t for t in verdict.tests if t.timed or t.baseline_seconds is not None]
    if timed and len(timed) < len(metered):
        return True
    known = [t.baseline_seconds for t in verdict.tests if t.baseline_seconds is not None]
    return not known or max(known) >= MeterConfig().min_test_seconds


def problem_timed(outcome: Outcome) -> bool | None:
    """True when some timed attempt had a test long enough to time, False when attempts
    were timed but none had one, None when no attempt was timed (wrong, or --no-time)."""
    timed = [a.verdict for a in outcome.attempts if a.verdict.speedup is not None]
    return any(long_enough(v) for v in timed) if timed else None


SHORT_REASON = "every test's baseline ran under 5 ms: the figure would measure process start-up"
NOT_CORRECT_REASON = "no correct answer: counts 1.0x (the baseline stands), as in the paper"


def timing_of(verdict: Verdict) -> tuple[bool, str]:
    """Was this chosen verdict's speedup measured, and if not, why (one phrase)."""
    if not verdict.correct:
        return False, NOT_CORRECT_REASON
    sp = verdict.speedup
    if sp is None:
        why = verdict.context.measurement.timing or "not timed (--no-time)"
        return False, why
    if not long_enough(verdict):
        return False, f"{SHORT_REASON} (measured {sp.value:.3f}x, not counted)"
    return True, ""


def is_memorizable(outcome: Outcome) -> bool:
    """The problem reads no input (its verdicts say so, or the run recorded it)."""
    return outcome.meta.memorizable or any(a.verdict.memorizable for a in outcome.attempts)


def answer_origin(attempt: Attempt) -> str:
    """What produced an answer: the build for the build search, else model and sample."""
    model = attempt.origin.model or ""
    if is_builds_run(model) and ":" in model:
        return model.split(":", 1)[1]
    return f"{model or 'model'} sample {attempt.sample} round {attempt.round}"


def problem_record(outcome: Outcome) -> ProblemRecord | None:
    """One problem's figures; None when no attempt counts (all lost to machine trouble)."""
    best = outcome.best
    if best is None:
        return None
    v = best.verdict
    timed, why = timing_of(v)
    memorizable = is_memorizable(outcome)
    sp = v.speedup if timed else None  # a copy's CI too: what its check measured
    past = v.context.measurement.beyond_cut
    speedup = effective_speedup(v) if timed else (None if v.correct else 1.0)
    return ProblemRecord(
        status=v.status.value,
        speedup=speedup,
        speedup_ci=(round(sp.low, 4), round(sp.high, 4)) if sp else None,
        paper_speedup=paper_problem_speedup(outcome),
        timed=timed,
        timed_reason=why,
        memorizable=memorizable,
        improved=bool(timed and not memorizable and v.significantly_faster),
        origin=answer_origin(best),
        sample=best.sample,
        round=best.round,
        tests_passed=v.tests_passed,
        tests_total=v.tests_total,
        cpu_seconds=round(sum(a.verdict.cpu_seconds_spent for a in outcome.attempts), 3),
        seconds=round(sum(a.gen_seconds + a.verify_seconds for a in outcome.attempts), 3),
        checks=v.context.measurement.checks if sp else 0,
        baseline_copy=bool(v.correct and v.identical_to_baseline),
        wall_seconds=_wall(outcome),
        search_note=search_note(outcome),
        isa_level=v.isa.level if v.isa else None,
        extensions=v.isa.extensions if v.isa else (),
        tables=added_tables(v) if v.correct else (),
        beyond_cut=_round(past.value) if past is not None and v.correct else None,
        holds_past_cut=holds_past_cut(v),
    )


def search_note(outcome: Outcome) -> str:
    """What the search left undone for lack of budget (the first answer whose
    provenance says so: ``StrategyProvenance.budget_note``; '' when none does)."""
    kept = (a.origin.provenance for a in outcome.attempts if a.origin.provenance is not None)
    return next((note for p in kept if (note := p.budget_note())), "")


def _wall(outcome: Outcome) -> float | None:
    """Wall-clock seconds from the problem's start to its end in this process (None when
    the outcome does not say: stored before the runs recorded it)."""
    start, end = outcome.meta.started, outcome.meta.ended
    return round(end - start, 3) if start is not None and end is not None else None


def mean_reward(
    chosen: Sequence[Verdict],
    problems: Sequence[str],
    spec: str | None,
    pools: Mapping[str, Sequence[Speedup]] | None = None,
) -> float | None:
    """The run's reward (``eval --reward``, its ``spec``; None: ``gated``) of each scored
    problem's answer, through the rewards' one definition (``verify.reward``), averaged
    (an answer lost to machine trouble: left out); None for ``percentile`` without the
    pools (``pools``: by problem name, ``verify.reward.reward_pools``)."""
    config = parse_reward(spec or DEFAULT_REWARD.value)
    if config.kind == RewardKind.PERCENTILE:
        if pools is None:
            return None
        paid = [
            score_verdict(v, config, pools.get(p, ()))
            for v, p in zip(chosen, problems, strict=True)
        ]
    else:
        paid = score_verdicts(None, chosen, config)
    kept = [r for r in paid if r is not None]
    return _round(sum(kept) / len(kept)) if kept else None


def summarize(
    outcomes: Sequence[Outcome],
    context: RunContext | Mapping[str, object] | None = None,
    total: int | None = None,
    pools: Mapping[str, Sequence[Speedup]] | None = None,
) -> RunSummary:
    """The run's summary (see the module docstring for every definition); ``context``
    says how the run was made (a mapping is read as a ``RunContext``; its ``reward``:
    the form ``mean_reward`` pays, with ``pools`` for ``percentile``)."""
    context = (
        context if isinstance(context, RunContext) else decode(RunContext, dict(context or {}))
    )
    counted = [o for o in outcomes if o.best is not None]
    chosen = [o.best.verdict for o in counted if o.best]
    scored = len(counted)
    n = max(total, scored) if total is not None else scored
    timed = any(a.verdict.speedup for o in counted for a in o.attempts)
    unscored = [1.0] * (n - scored)
    records = [r for o in counted if (r := problem_record(o)) is not None]
    # unmeasured and memorizable problems stay out of the speedup figures
    kept = [r.speedup is not None and not r.memorizable for r in records]
    ours = [r.speedup for r, k in zip(records, kept, strict=True) if k and r.speedup] + unscored
    timed_chosen = [
        v for v, r in zip(chosen, records, strict=True) if r.timed and not r.memorizable
    ]
    memorizable = [r for r in records if r.memorizable]
    paper = [paper_problem_speedup(o) for o in counted] + unscored
    paper_timed = any(a.verdict.paper_speedup for o in counted for a in o.attempts)
    compiled = _rate(sum(1 for o in counted if any(a.assembled for a in o.attempts)), n, scored)
    correct = sum(1 for v in chosen if v.correct)
    copies = sum(1 for v in chosen if v.correct and v.identical_to_baseline)
    attempts = [a for o in outcomes for a in o.attempts]
    origins = [a.origin for a in attempts]
    return RunSummary(
        problems=n,
        problems_scored=scored,
        problems_dropped=n - scored if total is not None else len(outcomes) - scored,
        attempts=len(attempts),
        infra_dropped=sum(1 for a in attempts if a.dropped),
        compilation_rate=compiled,
        accuracy=_rate(correct, n, scored),
        accuracy_excluding_copies=_rate(correct - copies, n, scored),
        baseline_copies=_rate(copies, n, scored),
        speedups=distribution(ours if timed else []),
        # nothing measured (--no-time, every test too short): no figure, never a 0
        fast_1_1=_rate(sum(1 for v in timed_chosen if _is_fast(v)), n, scored)
        if timed_chosen
        else None,
        timed_share=_rate(sum(1 for r in records if r.timed and not r.memorizable), n, scored),
        significant_speedups=sum(1 for v in timed_chosen if v.significantly_faster),
        significant_slowdowns=sum(1 for v in timed_chosen if v.significantly_slower),
        problems_untimed=sum(1 for r in records if r.correct and not r.timed),
        improved=sum(1 for r in records if r.improved),
        problems_memorizable=len(memorizable),
        memorizable_improved=sum(
            1
            for r, v in zip(records, chosen, strict=True)
            if r.memorizable and r.timed and v.significantly_faster
        ),
        memorizable_geomean_speedup=_round(geomean(r.speedup for r in memorizable)),
        problems_with_tables=sum(1 for r in records if r.correct and r.tables),
        not_holding_past_cut=sum(1 for r in records if r.correct and not r.holds_past_cut),
        paper=PaperFigures(
            compiled,
            _rate(correct, n, scored),
            distribution(paper if paper_timed else []),
            _rate(sum(1 for s in paper if s >= FAST), n, scored) if paper_timed else None,
        ),
        prompt_tokens=sum(o.prompt_tokens for o in origins),
        completion_tokens=sum(o.completion_tokens for o in origins),
        cost_usd=round(sum(o.usd for o in origins), 6),
        per_problem={o.problem: r for o, r in zip(counted, records, strict=True)},
        context=context,
        reward_form=parse_reward(context.reward or DEFAULT_REWARD.value).spec,
        mean_reward=mean_reward(chosen, [o.problem for o in counted], context.reward, pools),
    )


# --- a batch of verdicts (training logs) ------------------------------------------


def batch_stats(verdicts: Sequence[Verdict]) -> BatchStats:
    """Correct rate, compile rate (``Verdict.assembled``) and mean speedup of the correct
    ones, over the verdicts that count (infrastructure failures are left out)."""
    scored = [v for v in verdicts if not v.is_infra_failure]
    n = max(len(scored), 1)
    speedups = [v.speedup.value for v in scored if v.correct and v.speedup]
    return BatchStats(
        count=len(verdicts),
        correct_rate=sum(v.correct for v in scored) / n,
        compile_rate=sum(v.assembled for v in scored) / n,
        answer_rate=sum(v.status is not Status.NO_ANSWER for v in scored) / n,
        mean_speedup=sum(speedups) / len(speedups) if speedups else None,
        infra_failures=len(verdicts) - len(scored),
    )
