"""``builds``: the build search, a strategy that asks no model: better builds of the
same C, every one judged by the verification service like any other candidate.

It knows the build space (``toolchain/flagspace.py``: gcc and clang; -O2, -O3, -Os;
``-march=native -ffp-contract=off`` / ``-mtune=native``; unroll families and knobs;
vectorizer off; inlining params; gcc and clang PGO trained on the visible tests; crosses
of the best) and compiles builds (``toolchain/pgo.py``); the service runs and times them.
``--strategy builds`` (``BuildsConfig``: ``--budget``; ``--samples`` bounds the builds
tried; ``--target`` builds for an x86-64 level instead of this CPU). It was reached as a
model before, ``--model compiler[:OPT,...]``: that spelling is still accepted
(``legacy_options``), and its runs are still named ``compiler[:OPT,...]`` in the store
(``BuildsConfig.label``), so runs stored before read and resume as they did.

``build_search(problem, settings, verify=...)`` builds, screens, halves and re-measures
the builds within its CPU budget (``halving.py``: ``search_builds``, the steps and how
the budget is spent), then answers with the chosen build, the -O3 baseline as its
fallback (or the baseline alone: the search never answers with a program it measured
as slower); like every strategy's answer it is re-checked afresh
(``strategies.confirm_best``) before it counts. What it keeps with the answer is its
``BuildProvenance`` (``records.py``, with its configuration and its trials).

With ``--no-time`` (the verifier times nothing) nothing is screened or measured: the
builds are checked in order until one is correct, as any untimed strategy stops at its
first correct answer.

With fixed builds (``BuildsConfig.builds``: ids of the first eight, ``legacy`` for all)
nothing is searched: those builds answer, in order, one per sample, each verified and
the best chosen, as best-of-n chooses among a model's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from supercoder.errors import UserError
from supercoder.models.base import Completion, Sampling
from supercoder.plugins import flag
from supercoder.prompting.answers import resolve_answer
from supercoder.runs.buildsearch.halving import Job, compile_build, search_builds
from supercoder.runs.buildsearch.records import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_BUILDS,
    HEADER,
    MIN_FINAL_SECONDS,
    BuildProvenance,
    CpuBudget,
    SearchConfig,
    SearchRecord,
    SearchResult,
)
from supercoder.runs.registry import BUILDS, LEGACY_BUILDS, builds_label
from supercoder.runs.strategies import (
    Ask,
    Attempt,
    Journal,
    Outcome,
    OutcomeMeta,
    ServiceVerifier,
    StrategyConfig,
    Verifier,
    _finish,
    _verify_all,
    confirm_best,
    make_verifier,
)
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.flagspace import LEGACY, Build, find_tools, retarget, search_space
from supercoder.toolchain.gcc import asm_digest
from supercoder.toolchain.isa import Target, parse_target
from supercoder.toolchain.pgo import build_asm, training_inputs
from supercoder.types import (
    Candidate,
    Origin,
    Problem,
)

Record = Callable[[Attempt], None]
"""Where each finished attempt goes (the run's journal, or nowhere)."""


@dataclass(frozen=True)
class BuildsConfig:
    """The build search's own options (``--strategy builds``).

    Fields:
        budget: CPU seconds per problem: compiles, checks and timing, the checks after
            the search included (``halving``: two screens' cost kept for them) (None: 120).
        builds: fixed builds answered instead of a search, ids comma-separated
            (``legacy``: the first eight; empty: search the build space).
    """

    budget: float | None = field(default=None, metadata=flag("--budget", min=0.1, shown="120"))
    builds: str = ""

    def __post_init__(self) -> None:
        if self.budget is not None and not self.budget > 0:
            raise UserError("--budget must be a positive number of CPU seconds")
        if self.builds:
            select_builds(self.builds)  # an unknown id: one line now

    @property
    def seconds(self) -> float:
        return DEFAULT_BUDGET if self.budget is None else self.budget

    def fixed(self, target: Target) -> tuple[Build, ...] | None:
        """The fixed builds for ``target`` (None: the search)."""
        if not self.builds:
            return None
        return tuple(retarget(b, target) for b in select_builds(self.builds))

    def default_samples(self) -> int:
        """What ``--samples`` defaults to: every fixed build, or the search's build cap."""
        return len(select_builds(self.builds)) if self.builds else DEFAULT_MAX_BUILDS

    def label(self, target: str | Target = Target.NATIVE) -> str:
        """The run's model name in the store (``compiler:budget=4,target=x86-64``: the
        spelling runs of it were stored under when it was a model)."""
        parts = [self.builds] if self.builds else []
        if self.budget is not None:
            parts.append(f"budget={self.budget:g}")
        if str(target) != Target.NATIVE.value:
            parts.append(f"target={target}")
        return builds_label(",".join(parts))


def legacy_options(options: str) -> tuple[BuildsConfig, Target | None]:
    """``--model compiler:OPTIONS`` (the older spelling of ``--strategy builds``): its
    ``BuildsConfig`` and the ``target=LEVEL`` it named (None: none)."""
    budget: float | None = None
    target: Target | None = None
    rest: list[str] = []
    for part in (options or "").split(","):
        key, eq, value = part.strip().partition("=")
        if key == "target" and eq:
            try:
                target = parse_target(value)
            except ValueError as e:
                raise UserError(f"{LEGACY_BUILDS}: {e}") from None
        elif key == "budget" and eq:
            try:
                budget = float(value)
            except ValueError:
                raise UserError(
                    f"{LEGACY_BUILDS}: budget={value!r} is not a number of seconds"
                ) from None
            if budget <= 0:
                raise UserError(f"{LEGACY_BUILDS}: budget must be positive")
        elif key:
            rest.append(part.strip())
    return BuildsConfig(budget, ",".join(rest)), target


def select_builds(ids: str | None) -> tuple[Build, ...]:
    """Fixed builds by id (``legacy``: all eight)."""
    if not ids or ids == "legacy":
        return LEGACY
    by_id = {b.id: b for b in LEGACY}
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise UserError(
            f"builds: unknown option or build {unknown[0]!r}; use budget=SECONDS, legacy, "
            f"or builds {', '.join(by_id)}"
        )
    return tuple(by_id[i] for i in wanted)


class BuildSearch:
    """``builds``: the build search as a registered strategy (module docstring)."""

    name: ClassVar[str] = BUILDS
    Config: ClassVar[type] = BuildsConfig
    models: ClassVar[tuple[int, int | None]] = (0, 0)

    def __init__(self, settings: StrategyConfig, on_progress: object = None) -> None:
        self.settings = settings

    @staticmethod
    def legacy(options: str) -> tuple[BuildsConfig, Target | None]:
        """``--model compiler:OPTIONS`` (its older spelling): its config and the target
        it named (``legacy_options``)."""
        return legacy_options(options)

    @staticmethod
    def stored(config: object) -> dict[str, object]:
        """Nothing: its options are in the run's model name (``BuildsConfig.label``), as
        runs of it were stored before (they resume)."""
        return {}

    @classmethod
    def propose(
        cls, problem: Problem, options: str, verify: Verifier, seed: int = 0, target: str = "native"
    ) -> tuple[str, str] | None:
        """(answer text, model name) of the build seeding another strategy (evolve's
        ``start_from=builds``: ``strategies.Proposes``): the search's chosen build (None
        when it chose the baseline), or the first fixed build. ``options``:
        ``BuildsConfig`` as the older spelling took them (``budget=S``, ``native``,
        ``target=LEVEL``)."""
        config, named = legacy_options(options)
        settings = builds_settings(config, target=str(named or target))
        settings = replace(settings, sampling=replace(settings.sampling, seed=seed))
        if config.builds:
            base = baseline_asm(problem)
            fixed = config.fixed(parse_target(settings.target)) or LEGACY
            out = fixed_builds(fixed, problem, base, 1, seed)
            return (out[0].text, out[0].model) if out else None
        best = build_search(problem, settings, verify=verify).best
        if best is None or not best.checked.correct or best.checked.identical_to_baseline:
            return None
        return best.completion or "", best.origin.model or LEGACY_BUILDS

    def search(
        self, problem: Problem, ask: Ask, verify: Verifier, journal: Journal | None
    ) -> Outcome:
        if ask.models:
            raise UserError("--strategy builds asks no model: drop --model")
        config = self.settings.config
        assert isinstance(config, BuildsConfig)
        if config.builds:
            return answer_fixed(problem, self.settings, verify=verify, journal=journal)
        return build_search(problem, self.settings, verify=verify, journal=journal)


def builds_settings(
    config: BuildsConfig | None = None, samples: int | None = None, target: str = "native"
) -> StrategyConfig:
    """The ``StrategyConfig`` of a build search (``samples``: builds tried at most;
    None: ``config.default_samples()``)."""
    config = config or BuildsConfig()
    n = config.default_samples() if samples is None else samples
    return StrategyConfig(Sampling(n=n), strategy=BUILDS, config=config, target=target)


def _origin(
    build: str,
    family: str,
    flags: tuple[str, ...] = (),
    search: SearchRecord | None = None,
) -> Origin:
    """An answer's origin: its build (``BuildProvenance``)."""
    return Origin(
        provenance=BuildProvenance(build=build, family=family, flags=flags, search=search)
    )


def build_of(origin: Origin) -> BuildProvenance:
    """The build search's record of an answer (an empty one when it has none)."""
    return origin.of(BuildProvenance) or BuildProvenance()


def _config(settings: StrategyConfig) -> BuildsConfig:
    config = settings.config
    return config if isinstance(config, BuildsConfig) else BuildsConfig()


def build_search(
    problem: Problem,
    settings: StrategyConfig | None = None,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
) -> Outcome:
    """The build search's answer (see module docstring): ``settings.samples`` builds
    tried at most, ``settings.config`` its ``BuildsConfig``, ``settings.target`` the ISA
    target builds are made for."""
    settings = settings or builds_settings()
    service = verify if isinstance(verify, ServiceVerifier) else make_verifier()
    base = baseline_asm(problem)
    stored = journal.stored(problem.name) if journal else {}
    record: Record = (lambda a: journal.record(problem.name, a)) if journal else (lambda a: None)
    config = SearchConfig(
        budget=_config(settings).seconds,
        max_builds=max(settings.samples, 1),
        target=parse_target(settings.target),
    )
    if not service.timed:
        attempts = _first_correct(problem, base, config, service, record, stored)
        return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=base))
    if (0, 0) in stored:  # a resumed run: the search ended and chose; finish what it left
        after = _after_search(service, config.budget)
        attempts = _resume_answers(problem, base, stored, after, record)
    else:
        result = search_builds(problem, base, config, service)
        after = _after_search(service, config.budget - result.cpu_seconds)
        attempts = _answers(problem, base, result, after, record)
    attempts = confirm_best(problem, attempts, after, record)
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=base))


def _after_search(service: ServiceVerifier, left: float) -> ServiceVerifier:
    """The service for the checks after the search (the baseline's, the answer's fresh
    re-check): timed within what the budget left (``MIN_FINAL_SECONDS`` at least), so
    a program whose every check is long costs about its budget; its interval is then
    as wide as those rounds make it (the verdict says how many pairs)."""
    return service.staged(max_cpu_seconds=max(left, MIN_FINAL_SECONDS))


def answer_fixed(
    problem: Problem,
    settings: StrategyConfig,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
) -> Outcome:
    """Fixed builds (``BuildsConfig.builds``) as answers: ``settings.samples`` of them in
    order, each verified (a stored one is not verified again), the best re-checked."""
    verify = verify or make_verifier()
    base = baseline_asm(problem)
    stored = journal.stored(problem.name) if journal else {}
    record: Record = (lambda a: journal.record(problem.name, a)) if journal else (lambda a: None)
    fixed = _config(settings).fixed(parse_target(settings.target)) or LEGACY
    made = fixed_builds(fixed, problem, base, settings.samples, settings.sampling.seed)
    pending = [_build_attempt(i, c, base) for i, c in enumerate(made)]
    fresh = [a for a in pending if (a.sample, a.round) not in stored]
    verified = iter(_verify_all(problem, fresh, verify, record))
    attempts = [stored.get((a.sample, a.round)) or next(verified) for a in pending]
    attempts = confirm_best(problem, attempts, verify, record)
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=base))


def fixed_builds(
    builds: Sequence[Build], problem: Problem, baseline: str, n: int, seed: int = 0
) -> list[Completion]:
    """Builds in order, unmeasured: sample ``i`` of seed ``s`` is the ``s + i``-th build
    that compiles and differs from the baseline and the earlier ones; the problem's
    cflags go into every build."""
    cflags, link = problem.compile_flags, problem.link_flags
    inputs = training_inputs(problem)
    seen = {baseline}  # exact texts: a normalization could conflate two programs
    found: list[Completion] = []
    want = max(seed, 0) + max(n, 0)
    for build in builds:
        if len(found) >= want:
            break
        asm = build_asm(build, problem.source, inputs, cflags=cflags, link_flags=link)
        if asm is None or asm in seen:
            continue
        seen.add(asm)
        built = " ".join((build.label, *cflags))
        label = built + (f" (profiled on {len(inputs)} inputs)" if build.pgo else "")
        origin = _origin(build=built, family=build.family, flags=(*build.flags, *cflags))
        found.append(_completion(asm, label, "", builds_label(built), origin))
    return found[max(seed, 0) : want]


# --- the answers -----------------------------------------------------------------------


def _answers(
    problem: Problem, base: str, result: SearchResult, verify: ServiceVerifier, record: Record
) -> list[Attempt]:
    """The chosen build (its verdict the re-measure's) and the baseline as a fallback,
    or the baseline alone; the search's record rides on the first."""
    note = result.budget_note
    search = result.record()
    chosen = result.chosen
    if chosen is None or chosen.asm is None or chosen.verdict is None:
        why = "gcc -O3, the baseline: no build was significantly faster"
        origin = _origin(build="gcc -O3", family="baseline", search=search)
        completion = _completion(base, why, note, builds_label("gcc -O3 (baseline)"), origin)
        return _verified(problem, base, [completion], verify, record)
    sp = chosen.fresh
    why = f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}] in the search's re-measure" if sp else ""
    if chosen.verdict.isa is not None:  # which CPUs the answer runs on
        why = "; ".join(filter(None, (why, chosen.verdict.isa.summary())))
    b = chosen.build
    origin = _origin(build=b.label, family=b.family, flags=b.flags, search=search)
    best = _completion(chosen.asm, f"{b.label} ({why})", note, builds_label(b.label), origin)
    answer = _finish(_build_attempt(0, best, base), chosen.verdict, 1, 0.0)
    record(answer)
    return [answer, *_verified(problem, base, [_fallback(base)], verify, record, first=1)]


def _resume_answers(
    problem: Problem,
    base: str,
    stored: dict[tuple[int, int], Attempt],
    verify: ServiceVerifier,
    record: Record,
) -> list[Attempt]:
    """The answers of a search that a kill stopped after it chose (its answer, attempt
    0, is stored): the stored ones, and the baseline fallback verified now when the
    answer is a build and the fallback was never stored. ``confirm_best`` then re-checks
    an answer the kill left unconfirmed, so the run ends as an uninterrupted one."""
    answer = stored[(0, 0)]
    if build_of(answer.origin).family == "baseline":
        return [answer]
    if (1, 0) in stored:
        return [answer, stored[(1, 0)]]
    return [answer, *_verified(problem, base, [_fallback(base)], verify, record, first=1)]


def _fallback(base: str) -> Completion:
    """The -O3 baseline as the answer's fallback (attempt 1)."""
    return _completion(
        base,
        "gcc -O3, the baseline: a fallback",
        "",
        builds_label("gcc -O3 (baseline)"),
        _origin(build="gcc -O3", family="baseline"),
    )


def _completion(asm: str, label: str, note: str, model: str, origin: Origin) -> Completion:
    head = f"{HEADER}{label}\n" + (f"{HEADER}{note}\n" if note else "")
    return Completion(f"```assembly\n{head}{asm.rstrip()}\n```", model, origin=origin)


def _verified(
    problem: Problem,
    base: str,
    completions: list[Completion],
    verify: Verifier,
    record: Record,
    first: int = 0,
) -> list[Attempt]:
    """Attempts ``first``, ``first + 1``... for ``completions``, each through ``verify``."""
    pending = [_build_attempt(first + i, c, base) for i, c in enumerate(completions)]
    return _verify_all(problem, pending, verify, record)


def _first_correct(
    problem: Problem,
    base: str,
    config: SearchConfig,
    verify: ServiceVerifier,
    record: Record,
    stored: dict[tuple[int, int], Attempt] | None = None,
) -> list[Attempt]:
    """Untimed: the builds in order, two per call of the service, until one is correct
    (at most ``max_builds``); nothing is timed, so nothing is screened or chosen by speed.
    A resumed run (``stored``: the attempts a kill left) takes each stored attempt in
    its place, neither built nor verified again, and goes on from there: it ends with
    the attempts an uninterrupted search has."""
    stored = stored or {}
    tools = find_tools()
    job = Job(
        problem, config, tools, CpuBudget(config.budget), verify, training_inputs(problem), {}
    )
    job.seen[asm_digest(base)] = "baseline"
    attempts: list[Attempt] = []
    pending: list[Attempt] = []
    space = iter(search_space(tools, config.target))
    while len(attempts) + len(pending) < config.max_builds:
        b = next(space, None)
        if b is None:
            break
        index = len(attempts) + len(pending)
        kept = stored.get((index, 0))
        if kept is not None and build_of(kept.origin).build == b.label:
            asm: str | None = kept.candidate.asm
        else:
            kept, asm = None, compile_build(job, b)
        if asm is None or asm_digest(asm) in job.seen:
            continue
        job.seen[asm_digest(asm)] = b.label
        if kept is None:
            origin = _origin(build=b.label, family=b.family, flags=b.flags)
            label = f"{b.label} (not timed)"
            made = _completion(asm, label, "", builds_label(b.label), origin)
            kept = _build_attempt(index, made, base)
        pending.append(kept)
        if len(pending) == 2:
            attempts += _check_pending(problem, pending, stored, verify, record)
            pending = []
            if any(a.checked.correct for a in attempts):
                return attempts
    if pending:
        attempts += _check_pending(problem, pending, stored, verify, record)
    return attempts


def _check_pending(
    problem: Problem,
    pending: list[Attempt],
    stored: dict[tuple[int, int], Attempt],
    verify: Verifier,
    record: Record,
) -> list[Attempt]:
    """``pending`` verified, each stored one as it was (only the others are checked)."""
    kept = [stored.get((a.sample, a.round)) is a for a in pending]
    fresh = [a for a, old in zip(pending, kept, strict=True) if not old]
    verified = iter(_verify_all(problem, fresh, verify, record))
    return [a if old else next(verified) for a, old in zip(pending, kept, strict=True)]


def _build_attempt(sample: int, completion: Completion, base: str) -> Attempt:
    """A build's listing as a pending attempt of round 0 (no conversation: the listing is
    the whole answer, resolved against the baseline like any reply)."""
    resolved = resolve_answer(completion.text, base)
    origin = replace(
        completion.stamp(completion.origin),  # and what it said of it (a build)
        sample=sample,
        round=0,
        answer=resolved.kind,
        answer_error=resolved.error,
    )
    candidate = Candidate(resolved.asm, origin)
    return Attempt(sample, 0, candidate, None, completion=completion.text, tries=0)
