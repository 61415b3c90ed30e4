"""Search strategies: the ``Strategy`` protocol (``search(problem, ask, verify, journal)
-> Outcome``, found by name through ``runs/registry.py``), ``StrategyConfig`` (what every
strategy shares: sampling, prompt, target, and the strategy's own ``config``), and the
two simplest strategies, best-of-N sampling and iterative refinement (``BestOfN``,
``Refine``), every answer verified.

``solve(problem, model, samples=N, rounds=K)`` runs N independent chains. Round 0 asks
for N samples of the paper's prompt; each later round shows a chain's model its own
previous answer and ``feedback_for(verdict)`` (assembler error, first failing visible
test, or the measured speedup) and asks again, until the chain's answer satisfies
``stop`` (default: correct and significantly faster) or K rounds are spent.
``best_of_n`` is ``rounds=1``; ``refine`` is ``samples=1``.

Choice of the best attempt (``rank``): correct first, then most tests passed, then the
highest speedup, where a copy of the baseline counts as exactly 1.0x and loses ties, so
it never wins over a real improvement. Infrastructure failures are retried by the
verification service (``verify.py``: once by default), then dropped: never chosen,
never scored as wrong.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar, Protocol

from supercoder.engine import current
from supercoder.models.base import Sampling
from supercoder.prompting.answers import AnswerForm, Context
from supercoder.prompting.prompts import Variant
from supercoder.runs.conversation import Conversation
from supercoder.runs.registry import DEFAULT as DEFAULT_STRATEGY
from supercoder.runs.registry import canonical, strategy_class
from supercoder.types import Candidate, Origin, Problem, Status, Verdict
from supercoder.verify.executors import InlineExecutor
from supercoder.verify.reward import effective_speedup
from supercoder.verify.service import Checked, VerifyConfig, staged, verify_stream

if TYPE_CHECKING:
    from supercoder.models import Completion, Model
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.executors import Executor


class Verifier(Protocol):
    """``verify(problem, candidates)`` yields ``verify.Checked`` ``(index, verdict,
    seconds, tries)`` as each is final; ``ServiceVerifier`` is the one over the
    verification service (a verifier of an older plugin that yields a plain ``(index,
    verdict, seconds)`` counts as one try)."""

    def __call__(self, problem: Problem, candidates: Sequence[Candidate]) -> Iterator[Checked]: ...


StopRule = Callable[[Verdict], bool]


class ProgressStep(Protocol):
    """Where a search stands (its ``on_progress`` callback gets one): ``line()`` is the
    progress line shown (evolve's ``Progress``: one per generation)."""

    problem: str

    def line(self) -> str: ...


@dataclass(frozen=True)
class Attempt:
    """One answer: chain ``sample``, refinement ``round`` (0 = first answer); ``verdict``
    None while it is pending (asked for, not yet verified: never ranked nor stored)."""

    sample: int
    round: int
    candidate: Candidate
    verdict: Verdict | None
    completion: str | None = None
    tries: int = 1
    gen_seconds: float = 0.0
    verify_seconds: float = 0.0

    @property
    def pending(self) -> bool:
        """Not verified yet (no verdict)."""
        return self.verdict is None

    @property
    def dropped(self) -> bool:
        """Lost to machine trouble (its verification kept failing)."""
        return self.verdict is not None and self.verdict.is_infra_failure

    @property
    def assembled(self) -> bool:
        return self.verdict is not None and self.verdict.assembled

    @property
    def checked(self) -> Verdict:
        """Its verdict (a pending attempt has none: ValueError)."""
        if self.verdict is None:
            raise ValueError(f"attempt ({self.sample}, {self.round}) is not verified yet")
        return self.verdict

    @property
    def origin(self) -> Origin:
        return self.candidate.origin


@dataclass(frozen=True, kw_only=True)
class OutcomeMeta:
    """What a strategy and the run say of a problem beyond its attempts (in memory only:
    the store rebuilds an outcome from its attempts, whose ``Origin`` carries the rest).

    Fields:
        baseline_asm: the problem's gcc -O3 assembly (``optimize`` writes it when no
            answer is faster; None: not built here).
        started: when the run began the problem (``time.time()``; None: not recorded).
        ended: when it finished it.
        memorizable: the problem reads no input (the run recorded it).
        strategy: ``evolve`` for the evolutionary search (None: the others).
        programs: the evolutionary search: how many programs its database held.
        remeasure_cpu_seconds: the evolutionary search: CPU seconds of re-measurements.
    """

    baseline_asm: str | None = None
    started: float | None = None
    ended: float | None = None
    memorizable: bool = False
    strategy: str | None = None
    programs: int = 0
    remeasure_cpu_seconds: float = 0.0


@dataclass(frozen=True)
class Outcome:
    """A problem's attempts; ``chosen`` (sample, round) names the answer when the strategy
    picked it (the evolutionary search's fresh re-check), else ``choose_best`` does."""

    problem: str
    attempts: tuple[Attempt, ...] = ()
    meta: OutcomeMeta = field(default_factory=OutcomeMeta, compare=False)
    chosen: tuple[int, int] | None = None

    @property
    def best(self) -> Attempt | None:
        if self.chosen is not None:
            for a in self.attempts:
                if (a.sample, a.round) == self.chosen and not a.dropped:
                    return a
        return choose_best(self.attempts)

    @property
    def dropped(self) -> int:
        return sum(1 for a in self.attempts if a.dropped)

    @property
    def tokens(self) -> int:
        return sum(a.origin.tokens for a in self.attempts)

    @property
    def cost_usd(self) -> float:
        return sum(a.origin.usd for a in self.attempts)


class Journal(Protocol):
    """Where attempts are kept as they finish (the eval store); lets a run resume."""

    def stored(self, problem: str) -> dict[tuple[int, int], Attempt]: ...

    def record(self, problem: str, attempt: Attempt) -> None: ...


def rank(attempt: Attempt) -> tuple:
    v = attempt.checked
    return (
        v.correct,
        v.tests_passed,
        effective_speedup(v),
        not v.identical_to_baseline,
        -attempt.round,
        -attempt.sample,
    )


def choose_best(attempts: Sequence[Attempt]) -> Attempt | None:
    """The best verified, non-dropped attempt (see module docstring), None if all were
    dropped."""
    kept = [a for a in attempts if not a.pending and not a.dropped]
    return max(kept, key=rank) if kept else None


def significantly_faster(verdict: Verdict) -> bool:
    """Default stop rule: correct, not a copy, and significantly faster
    (``Verdict.significantly_faster``: the CI lies above the practical band around 1);
    untimed runs stop at the first correct answer: there is nothing more to learn."""
    if not verdict.correct or verdict.identical_to_baseline:
        return False
    return verdict.speedup is None or verdict.significantly_faster


# --- verification -------------------------------------------------------------------


@dataclass(frozen=True)
class ServiceVerifier:
    """A ``Verifier`` over the verification service (``verify.verify_stream``) whose
    configuration a strategy may read (``timed``) and bound (``staged``: the build
    search's screen and halving rungs); candidates run in-process unless an
    ``Executor`` is given."""

    config: VerifyConfig = field(default_factory=VerifyConfig)
    executor: Executor | None = None

    def __call__(self, problem: Problem, candidates: Sequence[Candidate]) -> Iterator[Checked]:
        return verify_stream(problem, candidates, self.config, self.executor or InlineExecutor())

    @property
    def timed(self) -> bool:
        """Does it time correct candidates (``--no-time``: no)?"""
        return self.config.eval.time

    def staged(
        self,
        rounds: int | None = None,
        max_cpu_seconds: float | None = None,
        group_size: int | None = None,
    ) -> ServiceVerifier:
        """The same verification with its timing bounded (``verify.service.staged``)."""
        return replace(self, config=staged(self.config, rounds, max_cpu_seconds, group_size))


def make_verifier(
    config: CheckConfig | VerifyConfig | None = None, executor: Executor | None = None
) -> ServiceVerifier:
    """A ``ServiceVerifier``: ``config`` an ``CheckConfig`` (one infra retry) or a
    ``VerifyConfig``."""
    if isinstance(config, VerifyConfig):
        cfg = config
    else:
        cfg = VerifyConfig() if config is None else VerifyConfig(config)
    return ServiceVerifier(cfg, executor)


def _verify_all(
    problem: Problem, pending: list[Attempt], verify: Verifier, record: Callable[[Attempt], None]
) -> list[Attempt]:
    """Verify every pending attempt, recording each as its final verdict arrives (the
    verifier retries infrastructure failures; one still failing is dropped)."""
    done: list[Attempt] = [None] * len(pending)  # type: ignore[list-item]
    todo = []
    for k, a in enumerate(pending):
        if a.origin.answer_error:  # a diff that could not be applied: no build
            verdict = Verdict(problem.name, Status.COMPILE_ERROR, message=a.origin.answer_error)
            done[k] = _finish(a, verdict, 1, 0.0)
            record(done[k])
        else:
            todo.append(k)
    if todo:
        for item in verify(problem, [pending[k].candidate for k in todo]):
            j, verdict, seconds, tries = Checked(*item)
            done[todo[j]] = _finish(pending[todo[j]], verdict, tries, seconds)
            record(done[todo[j]])
    return done


def _finish(attempt: Attempt, verdict: Verdict, tries: int, seconds: float) -> Attempt:
    return replace(
        attempt, verdict=verdict, tries=tries, verify_seconds=attempt.verify_seconds + seconds
    )


# --- the search ---------------------------------------------------------------------


class Strategy(Protocol):
    """A search strategy (a plugin: ``runs/registry.py`` finds it by name).

    A strategy is a class with

    - ``name``: its ``--strategy`` name;
    - ``Config``: its own frozen ``*Config`` dataclass, whose ``Fields:`` docstring lists
      its options (``--strategy-option KEY=VALUE`` and a run file's ``[strategy_option]``
      table set them; ``StrategyConfig.config`` holds one, its defaults when none is given);
    - ``models``: how many models it asks, (at least, at most; None: any);
    - ``__init__(settings, on_progress=None)``: ``settings`` the run's ``StrategyConfig``
      (sampling, prompt, target and ``config``), ``on_progress`` a callback for a line
      of progress (it may ignore it);
    - ``search(problem, ask, verify, journal) -> Outcome``: ``ask`` gets model answers
      (``Ask``), ``verify`` checks candidates (``Verifier``: every answer goes through
      it), ``journal`` keeps attempts as they finish and gives back the stored ones on a
      resumed run (``kit.NoJournal`` when nothing is kept);
    - optionally ``stored(config) -> dict``: the settings a run stores as its identity
      (default: ``{"strategy": name, name: the config's fields}``);
    - optionally ``propose(...)``: an answer that seeds another strategy's search
      (``Proposes``: evolve's ``--start-from NAME`` asks the strategy named so).

    An attempt's ``Origin`` carries the strategy's own provenance record (a frozen
    dataclass with a ``kind``, registered with ``origin.register_provenance``; what it
    says of the answer to the report, the figures and ``optimize`` is the methods of
    ``origin.StrategyProvenance`` it overrides). Everything
    a strategy needs is in one public module: ``supercoder.kit`` (``runs/kit.py``).
    """

    name: ClassVar[str]
    Config: ClassVar[type]
    models: ClassVar[tuple[int, int | None]]

    def search(self, problem: Problem, ask: Ask, verify: Verifier, journal: Journal) -> Outcome: ...


class Proposes(Protocol):
    """A strategy that can seed another's search with its own answer (evolve's
    ``--start-from NAME``): ``propose(problem, options, verify, seed, target)`` gives
    (the answer's text, the model name it is kept under), or None when it has nothing
    better than the -O3 baseline. ``options``: its own options as text (evolve's
    ``--builds``)."""

    @classmethod
    def propose(
        cls, problem: Problem, options: str, verify: Verifier, seed: int = 0, target: str = "native"
    ) -> tuple[str, str] | None: ...


@dataclass(frozen=True)
class Ask:
    """How a strategy gets model answers: ``ask(messages, sampling, problem)`` asks the
    run's model (``model=i``: the ``i``-th of several) and returns its completions.

    Fields:
        models: the run's models (empty for a strategy that asks none: ``builds``).
    """

    models: tuple[Model, ...] = ()

    def __call__(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling,
        problem: Problem | None = None,
        *,
        model: int = 0,
    ) -> list[Completion]:
        return self.models[model].complete(messages, sampling, problem)

    @property
    def model(self) -> Model:
        """The one model (a strategy that asks one)."""
        if len(self.models) != 1:
            raise ValueError(f"one model needed, {len(self.models)} given")
        return self.models[0]


@dataclass(frozen=True)
class StrategyConfig:
    """How a strategy asks the model and how long it keeps at it.

    Fields:
        sampling: the model's sampling (``n`` chains, temperature, max_tokens, seed).
        rounds: answers per chain; after the first, each is told what was wrong.
        variant: the paper's prompt (``asm`` or ``c_only``).
        show_inputs: visible test inputs quoted in the prompt.
        context: ``full`` listing or ``hot`` (profile-annotated, cold functions elided).
        answer: ``whole`` program or ``diff`` (SEARCH/REPLACE blocks against the baseline).
        strategy: the registered strategy's name (``best-of-n``, ``refine``, ``evolve``,
            ``builds`` or a plugin's; ``sampling.n`` is then the total number of answers
            per problem; see ``runs/registry.py``).
        config: the strategy's own ``Config`` (None: its defaults).
        target: the ISA target every prompt names (``--target``; the run's
            identity keeps it in ``RunConfig.target``, so ``flat`` leaves it out).
    """

    sampling: Sampling = Sampling()
    rounds: int = 1
    variant: Variant = Variant.ASM
    show_inputs: int = 0
    context: Context = Context.FULL
    answer: AnswerForm = AnswerForm.WHOLE
    strategy: str = DEFAULT_STRATEGY
    config: object | None = None
    target: str = "native"

    def __post_init__(self) -> None:
        name = canonical(self.strategy)
        object.__setattr__(self, "strategy", name)
        cls = strategy_class(name)
        if self.config is None:
            object.__setattr__(self, "config", cls.Config())
        elif not isinstance(self.config, cls.Config):
            raise TypeError(
                f"strategy {name!r} takes a {cls.Config.__name__}, "
                f"not a {type(self.config).__name__}"
            )

    @property
    def samples(self) -> int:
        return self.sampling.n

    @property
    def strategy_class(self) -> type:
        return strategy_class(self.strategy)

    def flat(self) -> dict[str, object]:
        """The fields as one flat dict (samples, temperature, ... as runs have stored them)."""
        s = self.sampling
        return {
            "samples": s.n,
            "rounds": self.rounds,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "seed": s.seed,
            "variant": str(self.variant),
            "show_inputs": self.show_inputs,
            "context": str(self.context),
            "answer": str(self.answer),
            **self._strategy_fields(),
        }

    def _strategy_fields(self) -> dict[str, object]:
        """What the strategy stores of itself (``Strategy.stored``)."""
        cls = self.strategy_class
        stored = getattr(cls, "stored", None)
        if stored is not None:
            return dict(stored(self.config))
        own = dataclasses.asdict(self.config) if dataclasses.is_dataclass(self.config) else {}
        return {"strategy": self.strategy, **({self.strategy: own} if own else {})}


@dataclass(frozen=True)
class BestOfNConfig:
    """``best-of-n``'s own options: none (``--samples``, ``--rounds``, the prompt's
    options and the sampling are the run's, in ``StrategyConfig``).

    Fields:
        (none)
    """


@dataclass(frozen=True)
class RefineConfig:
    """``refine``'s own options: none (``--samples`` answers in one chain).

    Fields:
        (none)
    """


class BestOfN:
    """``best-of-n``: ``sampling.n`` independent answers to the baseline's prompt (with
    ``rounds`` > 1: n refinement chains), every one verified, the best chosen."""

    name: ClassVar[str] = "best-of-n"
    Config: ClassVar[type] = BestOfNConfig
    models: ClassVar[tuple[int, int | None]] = (1, 1)

    def __init__(self, settings: StrategyConfig, on_progress: object = None, **kw: object):
        self.settings = settings
        self.kw = kw

    @staticmethod
    def stored(config: object) -> dict[str, object]:
        return {}  # runs stored before strategies had no such key

    def search(
        self, problem: Problem, ask: Ask, verify: Verifier, journal: Journal | None
    ) -> Outcome:
        return solve(problem, ask.model, self.settings, verify=verify, journal=journal, **self.kw)  # type: ignore[arg-type]


class Refine(BestOfN):
    """``refine``: one chain of ``sampling.n`` answers, each told what was wrong with
    the last."""

    name: ClassVar[str] = "refine"
    Config: ClassVar[type] = RefineConfig

    @staticmethod
    def stored(config: object) -> dict[str, object]:
        return {"strategy": "refine"}

    def search(
        self, problem: Problem, ask: Ask, verify: Verifier, journal: Journal | None
    ) -> Outcome:
        s = self.settings
        chain = replace(s, sampling=replace(s.sampling, n=1), rounds=s.samples)
        return solve(problem, ask.model, chain, verify=verify, journal=journal, **self.kw)  # type: ignore[arg-type]


def solve(
    problem: Problem,
    model: Model,
    settings: StrategyConfig = StrategyConfig(),
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
    stop: StopRule = significantly_faster,
    fewshot: Sequence[tuple[Problem, str]] = (),
) -> Outcome:
    """Run ``settings.samples`` chains of up to ``settings.rounds`` verified answers."""
    verify = verify or make_verifier()
    stored = journal.stored(problem.name) if journal else {}
    record = (lambda a: journal.record(problem.name, a)) if journal else (lambda a: None)
    talk = Conversation(problem, settings, fewshot=fewshot)
    chains: dict[int, list[dict[str, str]]] = dict.fromkeys(range(settings.samples), talk.first())
    attempts: list[Attempt] = []
    for rnd in range(settings.rounds):
        if rnd:
            chains = _next_prompts(talk, chains, attempts, stop)
        if not chains:
            break
        pending = _generate(talk, model, rnd, chains, stored)
        fresh = [a for a in pending if (a.sample, a.round) not in stored]
        verified = iter(_verify_all(problem, fresh, verify, record))
        attempts += [a if (a.sample, a.round) in stored else next(verified) for a in pending]
    attempts = confirm_best(problem, attempts, verify, record)
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=talk.baseline))


def needs_confirmation(verdict: Verdict) -> bool:
    """A significantly faster answer whose figure comes from one check only (the check
    that picked it: the best of several noisy figures reads high)."""
    return bool(
        verdict.correct
        and not verdict.identical_to_baseline
        and verdict.significantly_faster
        and verdict.context.measurement.checks < 2
    )


def confirm_best(
    problem: Problem,
    attempts: list[Attempt],
    verify: Verifier,
    record: Callable[[Attempt], None],
    limit: int = 3,
) -> list[Attempt]:
    """Re-check the chosen answer afresh before it is reported as faster: while the best
    attempt is significantly faster on a single check, verify and time it again and keep
    the *fresh* verdict as its verdict (its ``context`` says ``checks: 2`` and holds the
    first check's speedup as ``first_check``); the best is then chosen again (a fresh
    figure may rank another answer first, which is re-checked in turn, ``limit`` times
    at most). What a run reports as improved was measured apart from its selection."""
    for _ in range(limit):
        best = choose_best(attempts)
        if best is None or not needs_confirmation(best.checked):
            break
        (again,) = _verify_all(problem, [best], verify, lambda a: None)
        first = best.checked.speedup
        verdict = again.checked
        if not verdict.is_infra_failure:
            then = best.checked.context.measurement.load
            context = verdict.context.measured(checks=2, first_check=first, first_check_load=then)
            verdict = replace(verdict, context=context)
        confirmed = _finish(best, verdict, again.tries, again.verify_seconds - best.verify_seconds)
        confirmed = replace(confirmed, tries=best.tries + again.tries)
        record(confirmed)
        key = (best.sample, best.round)
        attempts = [confirmed if (a.sample, a.round) == key else a for a in attempts]
    return attempts


def _next_prompts(talk: Conversation, chains, attempts, stop) -> dict[int, list[dict[str, str]]]:
    """Each chain's next prompt after its last verdict (a chain whose answer satisfies
    ``stop`` ends)."""
    last = {a.sample: a for a in attempts}
    return {
        i: talk.after(messages, last[i])
        for i, messages in chains.items()
        if i in last and not stop(last[i].checked)
    }


def _generate(talk: Conversation, model, rnd, chains, stored) -> list[Attempt]:
    """Attempts (unverified unless stored) for every chain in this round; a model that
    returns fewer than ``samples`` answers ends the rest."""
    problem, settings = talk.problem, talk.settings
    missing = [i for i in chains if (i, rnd) not in stored]
    fresh: dict[int, Attempt] = {}
    if missing and rnd == 0:
        messages = chains[missing[0]]
        texts = _complete(
            model, problem, messages, settings, settings.samples, settings.sampling.seed
        )
        fresh = {i: _attempt(talk, i, 0, *texts[i], messages) for i in missing if i < len(texts)}
    elif missing:

        def ask(i: int) -> list[tuple[Completion, float]]:
            return _complete(model, problem, chains[i], settings, 1, settings.sampling.seed + i)

        answers = current().thread_map(ask, missing)  # the chains' requests, within --requests
        for i, texts in zip(missing, answers, strict=True):
            if texts:
                fresh[i] = _attempt(talk, i, rnd, *texts[0], chains[i])
    found = [stored.get((i, rnd)) or fresh.get(i) for i in chains]
    return [a for a in found if a is not None]


def _complete(model, problem, messages, settings, n, seed) -> list[tuple[Completion, float]]:
    start = time.perf_counter()
    sampling = replace(settings.sampling, n=n, seed=seed)
    out = model.complete(messages, sampling, problem)
    each = (time.perf_counter() - start) / max(len(out), 1)
    return [(c, each) for c in out[:n]]


def _attempt(
    talk: Conversation,
    sample: int,
    rnd: int,
    completion: Completion,
    seconds: float,
    messages: list[dict[str, str]],
) -> Attempt:
    """An answer as a pending attempt (its candidate resolved by the conversation)."""
    origin = replace(completion.origin, sample=sample, round=rnd)  # and what it said of it
    candidate = talk.resolve(completion, origin, messages)
    return Attempt(
        sample, rnd, candidate, None, completion=completion.text, tries=0, gen_seconds=seconds
    )


def best_of_n(problem: Problem, model: Model, n: int, temperature: float = 0.7, **kw) -> Outcome:
    """N samples, all verified, the best wins (see ``rank``)."""
    settings = StrategyConfig(Sampling(n=n, temperature=temperature), rounds=1)
    return solve(problem, model, settings, **kw)


def refine(problem: Problem, model: Model, rounds: int, temperature: float = 0.7, **kw) -> Outcome:
    """One chain of up to ``rounds`` answers, each told what was wrong with the last."""
    settings = StrategyConfig(Sampling(n=1, temperature=temperature), rounds=rounds)
    return solve(problem, model, settings, **kw)
