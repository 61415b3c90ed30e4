"""The evolutionary search: improvements compound, every program verified.

``evolve(problem, models, settings)`` spends ``settings.sampling.n`` model answers in
generations of ``settings.config.generation`` (``EvolveConfig``; with ``focus``, a
single answer while the best keeps improving, a full generation after a stall):

1. **Seeds**: program 0 is the -O3 baseline (1.0x); with ``start_from="builds"`` the
   build search's best build joins it. Speedups stay relative to gcc -O3.
2. **Parents**: slot 0 of every generation improves the fastest elite; the other slots
   work on island ``g % islands``: its best, or (``explore``) another feature-grid
   elite, or (``crossover``) two parents at once. Choices are seeded by
   (seed, problem, generation, slot), so a resumed search makes the same ones.
3. **Prompt**: the parent's program (``--context hot``: its profile's hot lines), its
   speedup, what its earlier children did; SEARCH/REPLACE edits are applied to the
   parent (``--answer diff``) or a whole program is asked for
   (``prompting/parent_prompts.py``). Calls go to the model the UCB bandit picks
   (``runs/bandit.py``: improvement per token or USD).
4. **Novelty first**: an answer whose exact program text (``asm_digest``) is already in
   the database is not run: it gets that program's verdict and counts as tried.
5. **Cascade**: the generation's new programs go to the verification service together
   (``verify_stream``: build, visible tests, every test, timing).
6. **Selection** (``runs/programs.py``): a child displaces an island's or a grid cell's
   best only when significantly faster than it; an elite is re-measured before it
   parents more than ``remeasure_after`` children; every ``migrate_every`` generations
   each island's best joins the others where it is significantly faster.
7. **The answer**: the ``finalists`` fastest elites are re-checked fresh (a new
   verification); the fastest correct one not slower than gcc -O3 is the answer,
   else the baseline itself. It is the attempt ``Outcome.chosen`` names.

Checkpoints: every answer is journaled (``Journal``: the eval store's attempts) and every
program and measurement is kept in an ``Archive`` (``runs/archive.py``: evolve's own
``programs`` and ``program_measures`` tables in the run store); a rerun replays them instead of asking or measuring again,
so an interrupted search ends where an uninterrupted one would.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

from supercoder.engine import current
from supercoder.origin import Origin, StrategyProvenance, register_provenance
from supercoder.plugins import flag
from supercoder.prompting.parent_prompts import Parent
from supercoder.runs.archive import Archive, MemoryArchive, StoredArchive
from supercoder.runs.bandit import Bandit
from supercoder.runs.conversation import Conversation
from supercoder.runs.programs import (
    BASELINE,
    SEED_KIND,
    Program,
    ProgramDB,
    baseline_program,
    faster_than,
)
from supercoder.runs.registry import BUILDS, LEGACY_BUILDS, builds_label, strategy_class
from supercoder.runs.strategies import (
    Ask,
    Attempt,
    Journal,
    Outcome,
    OutcomeMeta,
    Proposes,
    StrategyConfig,
    Verifier,
    make_verifier,
)
from supercoder.toolchain.gcc import asm_digest
from supercoder.types import Candidate, Problem, Speedup, Status, Verdict
from supercoder.verify.reward import effective_speedup
from supercoder.verify.service import Checked

if TYPE_CHECKING:
    from supercoder.models.base import Completion, Model

FINAL = -2  # the measurement key of the final re-check
COMPILER_SEED = -3  # the measurement key of the build seed's verification


class StartFrom(StrEnum):
    """The evolutionary search's seeds: the -O3 ``baseline``, or also the best build of
    the ``builds`` strategy (its PGO/flag search; ``compiler``: the older name)."""

    BASELINE = "baseline"
    BUILDS = BUILDS

    @classmethod
    def _missing_(cls, value: object) -> StartFrom | None:
        return cls.BUILDS if value == LEGACY_BUILDS else None


@register_provenance("evolve")
@dataclass(frozen=True, kw_only=True)
class EvolveProvenance(StrategyProvenance):
    """The evolutionary search's record of an answer (``runs/evolve.py``).

    Fields:
        generation: the generation that asked for it.
        parents: the programs its prompt showed (ids, first the parent).
        prompt_kind: the prompt (``diff``, ``full``, ``crossover``, ``recheck``).
        island: the island of its parent.
        program: its id in the run's program database.
        duplicate_of: the program it repeats (the novelty check; None: new).
        final: the answer's fresh re-check.
        lineage: the answer's ancestry in program ids, seed first.
    """

    generation: int | None = None
    parents: tuple[int, ...] = ()
    prompt_kind: str | None = None
    island: int | None = None
    program: int | None = None
    duplicate_of: int | None = None
    final: bool = False
    lineage: tuple[int, ...] = ()

    def ancestry(self) -> tuple[int, ...]:
        return self.lineage


@dataclass(frozen=True)
class EvolveConfig:
    """The evolutionary search's knobs (``--samples`` is the total answer budget).

    Fields:
        generation: answers asked per generation (their survivors are timed together).
        focus: climb while it climbs: the first generation, and each after one that found
            a new best, asks one answer of the best; after one that did not, a full
            generation (its other slots explore) follows.
        islands: populations; each generation's exploring slots work on one in turn.
        migrate_every: generations between migrations of each island's best.
        explore: chance that an exploring slot's parent is a feature-grid elite other
            than its island's best.
        crossover: chance that an exploring slot shows two parents.
        remeasure_after: children an elite may parent before it is measured again.
        finalists: elites re-checked fresh at the end (the answer is the fastest of them
            that is correct and not slower than gcc -O3, else the baseline).
        start_from: seeds (``baseline``, or also ``builds``: the build search's best).
        builds: the build search's options for that seed (``budget=S``, a fixed build's
            id: as ``--model``'s older spelling took them; empty: its defaults).
        max_cost_usd: stop asking once the problem's answers cost this much (None: no cap).
        max_tokens: stop asking once its answers used this many tokens (None: no cap).
        bandit_c: the model bandit's exploration weight (several ``--model``).
    """

    generation: int = field(default=2, metadata=flag("--generation", min=1))
    focus: bool = True
    islands: int = field(default=2, metadata=flag("--islands", min=1))
    migrate_every: int = field(default=2, metadata=flag("--migrate-every", min=1))
    explore: float = field(default=0.3, metadata=flag("--explore", min=0.0, max=1.0))
    crossover: float = field(default=0.2, metadata=flag("--crossover", min=0.0, max=1.0))
    remeasure_after: int = field(default=2, metadata=flag("--remeasure-after", min=1))
    finalists: int = field(default=2, metadata=flag("--finalists", min=1))
    start_from: StartFrom = StartFrom.BASELINE
    builds: str = ""
    max_cost_usd: float | None = field(
        default=None, metadata=flag("--max-cost", min=0.0, shown="no cap")
    )
    max_tokens: int | None = field(
        default=None, metadata=flag("--max-tokens-per-problem", min=1, shown="no cap")
    )
    bandit_c: float = field(default=0.5, metadata=flag("--bandit-c", min=0.0))

    def __post_init__(self) -> None:
        if self.generation < 1 or self.islands < 1 or self.migrate_every < 1:
            raise ValueError("generation, islands and migrate_every must be >= 1")
        if self.finalists < 1:
            raise ValueError("finalists must be >= 1")
        object.__setattr__(self, "start_from", StartFrom(self.start_from))

    def flat(self) -> dict[str, object]:
        """The knobs as evolve runs have stored them (the build seed under its older
        names, so those runs resume)."""
        builds = self.start_from is StartFrom.BUILDS
        return {
            "generation": self.generation,
            "focus": self.focus,
            "islands": self.islands,
            "migrate_every": self.migrate_every,
            "explore": self.explore,
            "crossover": self.crossover,
            "remeasure_after": self.remeasure_after,
            "finalists": self.finalists,
            "start_from": LEGACY_BUILDS if builds else str(self.start_from),
            LEGACY_BUILDS: builds_label(self.builds),
            "max_cost_usd": self.max_cost_usd,
            "max_tokens": self.max_tokens,
            "bandit_c": self.bandit_c,
        }


@dataclass(frozen=True)
class Progress:
    """Where a search stands after a generation (the progress line)."""

    problem: str
    generation: int
    answers: int  # model answers spent so far
    budget: int  # ... of these (``--samples``)
    best: int
    speedup: Speedup | None
    calls: int
    tokens: int
    cost_usd: float
    programs: int

    def line(self) -> str:
        sp = self.speedup
        best = (
            f"{sp.value:.2f}x [{sp.low:.2f}, {sp.high:.2f}]"
            if sp is not None and sp.samples
            else "1.00x (baseline)"
        )
        cost = f", ${self.cost_usd:.4f}" if self.cost_usd else ""
        return (
            f"{self.problem}: generation {self.generation + 1}, answers "
            f"{self.answers}/{self.budget}, best #{self.best} {best}, {self.calls} calls, "
            f"{self.tokens} tokens{cost}, {self.programs} programs"
        )


@dataclass(frozen=True)
class Slot:
    """One answer of a generation: whom it improves, how, with which model."""

    generation: int
    slot: int
    parents: tuple[int, ...]
    kind: str
    model: str
    island: int
    answer: int  # its number among the problem's answers (seeds the model's sampling)


def evolve(
    problem: Problem,
    models: Model | Sequence[Model],
    settings: StrategyConfig | None = None,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
    archive: Archive | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Outcome:
    """The evolutionary search over one problem (see module docstring); ``settings``
    defaults to ``StrategyConfig(strategy="evolve")``."""
    settings = settings or StrategyConfig(strategy="evolve")
    search = _Search(problem, models, settings, verify, journal, archive)
    return search.run(on_progress)


class _Search:
    def __init__(self, problem, models, settings, verify, journal, archive) -> None:
        self.problem = problem
        self.models = list(models) if isinstance(models, list | tuple) else [models]
        if not self.models:
            raise ValueError("evolve needs at least one model")
        self.by_name = {m.name: m for m in self.models}
        self.settings = settings
        assert isinstance(settings.config, EvolveConfig), settings.config
        self.cfg = settings.config
        self.verify = verify or make_verifier()
        self.journal = journal
        self.archive = archive if archive is not None else MemoryArchive()
        self.stored = journal.stored(problem.name) if journal else {}
        self.kept = {p.id: p for p in self.archive.programs(problem.name)}
        self.measured = self.archive.measures(problem.name)
        self.talk = Conversation(problem, settings)
        self.base = self.talk.baseline
        self.budget = max(settings.sampling.n, 0)
        self.attempts: list[Attempt] = []
        self.tokens = 0
        self.usd = 0.0
        self.remeasure_cpu = 0.0  # CPU seconds of re-measurements (not attempts)

    # --- persistence ------------------------------------------------------------

    def _record(self, attempt: Attempt) -> None:
        if self.journal is not None:
            self.journal.record(self.problem.name, attempt)

    def _keep(self, program: Program) -> None:
        if program.id not in self.kept:
            self.archive.add_program(self.problem.name, program)
            self.kept[program.id] = program

    def _measure(self, pid: int, key: int, asm: str) -> tuple[Verdict, float, int]:
        """A fresh verification of program ``pid`` (stored under ``key``), or the stored one."""
        if (pid, key) in self.measured:
            return self.measured[(pid, key)], 0.0, 1
        _, verdict, seconds, tries = next(_checked(self.verify(self.problem, [Candidate(asm)])))
        if not verdict.is_infra_failure:
            self.archive.add_measure(self.problem.name, pid, key, verdict)
            self.measured[(pid, key)] = verdict
        return verdict, seconds, tries

    # --- the loop -------------------------------------------------------------------

    def run(self, on_progress) -> Outcome:
        db = self._seeds(ProgramDB(self.cfg.islands))
        bandit = Bandit(tuple(self.by_name), self.cfg.bandit_c)
        used, g, climbing = 0, 0, self.cfg.focus
        while used < self.budget and not self._capped():
            size = 1 if (self.cfg.focus and climbing) else self.cfg.generation
            size = min(size, self.budget - used)
            if g and g % self.cfg.migrate_every == 0:
                db = db.migrate()
            db = self._remeasure(db, g)
            before = db.global_best()
            slots = self._plan(db, g, size, bandit, used)
            db, bandit = self._generation(db, bandit, slots)
            used += size
            best = db.global_best()
            climbing = best != before
            if on_progress is not None:
                on_progress(
                    Progress(
                        self.problem.name,
                        g,
                        used,
                        self.budget,
                        best,
                        db.speedup(best),
                        len(self.attempts),
                        self.tokens,
                        self.usd,
                        len(db.programs),
                    )
                )
            g += 1
        final = self._final(db, self.budget)
        meta = OutcomeMeta(
            baseline_asm=self.base,
            strategy="evolve",
            programs=len(db.programs),
            remeasure_cpu_seconds=round(self.remeasure_cpu, 3),
        )
        attempts = (*self.attempts, final)
        return Outcome(self.problem.name, attempts, meta, (final.sample, final.round))

    def _capped(self) -> bool:
        c = self.cfg
        return bool(
            (c.max_tokens is not None and self.tokens >= c.max_tokens)
            or (c.max_cost_usd is not None and self.usd >= c.max_cost_usd)
        )

    def _seeds(self, db: ProgramDB) -> ProgramDB:
        base = self.kept.get(0) or baseline_program(self.problem.name, self.base)
        self._keep(base)
        db = db.add(base)
        if self.cfg.start_from is StartFrom.BUILDS:
            seed = next((p for p in self.kept.values() if p.kind == SEED_KIND), None)
            seed = seed or self._build_seed(db)
            if seed is not None:
                self._keep(seed)
                db = db.add(seed)
        # programs of later generations are replayed from the archive as they come up
        return db

    def _build_seed(self, db: ProgramDB) -> Program | None:
        """The answer the strategy ``start_from`` names proposes (``Proposes``: the build
        search's best build, through the verification service, or a fixed build's),
        verified like any answer."""
        source: Proposes = strategy_class(str(self.cfg.start_from))
        proposed = source.propose(
            self.problem, self.cfg.builds, self.verify, self.settings.sampling.seed
        )
        if proposed is None:
            return None
        text, name = proposed
        asm = self.talk.read(text).asm
        if not asm or db.known(asm_digest(asm)) is not None:
            return None
        verdict, _, _ = self._measure(db.next_id, COMPILER_SEED, asm)
        if not verdict.correct:
            return None
        return Program.made(
            asm,
            id=db.next_id,
            parents=(0,),
            island=0,
            generation=-1,
            slot=0,
            kind=SEED_KIND,
            model=name,
            verdict=verdict,
            edit=text.splitlines()[0] if text else None,
        )

    def _remeasure(self, db: ProgramDB, g: int) -> ProgramDB:
        """Elites about to parent more children than ``remeasure_after`` are measured again."""
        for pid in sorted(set(db.best.values())):
            program = db.programs[pid]
            if program.kind in ("baseline",) or pid in db.remeasured:
                continue
            if db.children.get(pid, 0) < self.cfg.remeasure_after:
                continue
            fresh = (pid, g) not in self.measured
            verdict, _, _ = self._measure(pid, g, program.asm)
            self.remeasure_cpu += verdict.cpu_seconds_spent if fresh else 0.0
            if not verdict.is_infra_failure:
                db = db.remeasure(pid, verdict)
        return db

    def _plan(self, db: ProgramDB, g: int, size: int, bandit: Bandit, used: int) -> list[Slot]:
        cfg = self.cfg
        models = bandit.choose(size)
        island = g % cfg.islands
        kind = "diff" if str(self.settings.answer) == "diff" else "improve"
        slots = []
        for j in range(size):
            rng = random.Random(f"{self.settings.sampling.seed}:{self.problem.name}:{g}:{j}")
            if j == 0:
                top = db.global_best()
                home = next(i for i in sorted(db.best) if db.best[i] == top)
                slots.append(Slot(g, j, (top,), kind, models[j], home, used + j))
                continue
            own = db.best.get(island, 0)
            others = [e for e in db.elites() if e != own and db.programs[e].correct]
            r = rng.random()
            if others and r < cfg.crossover:
                mate = rng.choice(others)
                pair = sorted((own, mate), key=lambda i: (-db.value(i), i))
                slots.append(Slot(g, j, tuple(pair), "crossover", models[j], island, used + j))
            elif others and r < cfg.crossover + cfg.explore:
                slots.append(Slot(g, j, (rng.choice(others),), kind, models[j], island, used + j))
            else:
                slots.append(Slot(g, j, (own,), kind, models[j], island, used + j))
        return slots

    def _messages(self, db: ProgramDB, slot: Slot) -> list[dict[str, str]]:
        parents = []
        for pid in slot.parents:
            sp = db.speedup(pid)
            text = f"{sp.value:.2f}x" if sp is not None and sp.samples else None
            parents.append(Parent(db.programs[pid].asm, text))
        return self.talk.improve(parents, db.tried.get(slot.parents[0], ()), slot.kind == "diff")

    def _ask(self, db: ProgramDB, slots: list[Slot]) -> dict[int, tuple[Completion | None, float]]:
        """Model answers for the slots not answered before (in parallel)."""
        todo = [s for s in slots if (s.slot, s.generation) not in self.stored]
        todo = [s for s in todo if self._kept_at(s) is None]
        out: dict[int, tuple[Completion | None, float]] = {}
        if not todo:
            return out
        seed0 = self.settings.sampling.seed

        def call(s: Slot) -> tuple[Completion | None, float]:
            start = time.perf_counter()
            seed = seed0 + s.answer
            sampling = replace(self.settings.sampling, n=1, seed=seed)
            got = self.by_name[s.model].complete(self._messages(db, s), sampling, self.problem)
            return (got[0] if got else None), time.perf_counter() - start

        answers = current().thread_map(call, todo)  # within the run's --requests
        out.update({s.slot: got for s, got in zip(todo, answers, strict=True)})
        return out

    def _kept_at(self, slot: Slot) -> Program | None:
        return next(
            (
                p
                for p in self.kept.values()
                if p.generation == slot.generation and p.slot == slot.slot and p.kind != SEED_KIND
            ),
            None,
        )

    def _generation(self, db: ProgramDB, bandit: Bandit, slots: list[Slot]):
        """One generation: its answers resolved and deduplicated (replayed ones kept),
        the new programs verified together, then the database and the bandit updated
        in slot order."""
        batch = self._resolve(db, slots, self._ask(db, slots))
        self._verify_fresh(batch)
        return self._account(db, bandit, slots, batch)

    def _resolve(self, db: ProgramDB, slots: list[Slot], answers: dict) -> _Batch:
        """Each slot's answer: replayed from before an interruption, a failure to extract a
        program, a twin of a known program (never run twice), or a new program to verify."""
        batch = _Batch(next_id=db.next_id)
        for s in slots:
            kept = self._kept_at(s)
            stored = self.stored.get((s.slot, s.generation))
            if kept is not None:  # replayed: verified before the interruption
                batch.new[s.slot] = kept
                batch.done[s.slot] = stored or self._attempt(
                    s, kept.edit, kept.asm, kept, kept.verdict
                )
                batch.next_id = max(batch.next_id, kept.id + 1)
                batch.seen[kept.digest] = kept.id
            elif stored is not None:  # a stored answer that made no new program
                batch.done[s.slot] = stored
            else:
                self._resolve_answer(db, s, *answers[s.slot], batch)
        return batch

    def _resolve_answer(
        self, db: ProgramDB, s: Slot, completion: Completion | None, seconds: float, batch: _Batch
    ) -> None:
        text = completion.text if completion is not None else None
        resolved = self.talk.read(text, db.programs[s.parents[0]].asm)
        origin = self._origin(s, completion)
        if resolved.error or not resolved.asm:
            status = Status.COMPILE_ERROR if resolved.error else Status.NO_ANSWER
            message = resolved.error or "no assembly program in the answer"
            verdict = Verdict(self.problem.name, status, message=message)
            batch.done[s.slot] = _attempt(
                s, Candidate(resolved.asm, origin), verdict, text, seconds
            )
            return
        digest = asm_digest(resolved.asm)
        twin = db.known(digest)
        if twin is None:
            twin = batch.seen.get(digest)
        if twin is not None:  # novelty check: never run twice
            cand = Candidate(resolved.asm, _with(origin, duplicate_of=twin))
            known = db.programs.get(twin) or next(
                (p for p in batch.new.values() if p.id == twin), None
            )
            if known is not None:
                batch.done[s.slot] = _attempt(s, cand, known.verdict, text, seconds)
            else:  # a twin in this generation: its verdict once it is verified
                batch.twins.append((s, _attempt(s, cand, None, text, seconds), twin))
            return
        origin = _with(origin, program=batch.next_id)
        batch.seen[digest] = batch.next_id
        batch.next_id += 1
        pending = _attempt(s, Candidate(resolved.asm, origin), None, text, seconds)
        batch.fresh.append((s, pending))

    def _verify_fresh(self, batch: _Batch) -> None:
        """The generation's new programs through the verification service, together; a
        twin gets its program's verdict."""
        if batch.fresh:
            candidates = [a.candidate for _, a in batch.fresh]
            for j, verdict, secs, tries in _checked(self.verify(self.problem, candidates)):
                s, a = batch.fresh[j]
                batch.done[s.slot] = replace(a, verdict=verdict, tries=tries, verify_seconds=secs)
                if not verdict.is_infra_failure:  # dropped: a rerun asks again
                    batch.new[s.slot] = _program(s, a, verdict)
        verdicts = {
            _evolved(a.origin).program: batch.done[s.slot].verdict
            for s, a in batch.fresh
            if s.slot in batch.done
        }
        for s, a, twin in batch.twins:
            verdict = verdicts.get(twin) or _twin_lost(self.problem.name, twin)
            batch.done[s.slot] = replace(a, verdict=verdict)

    def _account(self, db: ProgramDB, bandit: Bandit, slots: list[Slot], batch: _Batch):
        """The database and the bandit, in slot order (the same order on every replay)."""
        for s in slots:
            attempt = batch.done[s.slot]
            program = batch.new.get(s.slot)
            parent = s.parents[0]
            if program is not None:
                self._keep(program)
                db = db.add(program)
            gain = 0.0
            if program is not None and attempt.checked.correct:
                child, mother = db.speedup(program.id), db.speedup(parent)
                if child is not None and mother is not None and faster_than(child, mother):
                    gain = math.log(max(child.value, 1e-9) / max(mother.value, 1e-9))
            db = db.note_child(parent, _note(attempt))
            source = attempt.origin
            bandit = bandit.pull(s.model, gain, source.tokens, source.cost_usd)  # None: no price
            self.tokens += source.tokens
            self.usd += source.usd
            if (s.slot, s.generation) not in self.stored:
                self._record(attempt)
            self.attempts.append(attempt)
        return db, bandit

    def _attempt(self, s: Slot, text, asm, program: Program, verdict: Verdict) -> Attempt:
        origin = replace(
            _with(self._origin(s, None), program=program.id),
            model=program.model,
            prompt_tokens=program.prompt_tokens,
            completion_tokens=program.completion_tokens,
            cost_usd=program.cost_usd,
        )
        return _attempt(s, Candidate(asm, origin), verdict, text, 0.0)

    def _origin(self, s: Slot, completion: Completion | None) -> Origin:
        """A slot's answer's origin: the slot (its generation, parents, prompt, island)
        and, when the model answered, what the answer cost."""
        origin = Origin(
            sample=s.slot,
            round=s.generation,
            model=s.model,
            provenance=EvolveProvenance(
                generation=s.generation, parents=s.parents, prompt_kind=s.kind, island=s.island
            ),
        )
        return origin if completion is None else completion.stamp(origin)

    def _final(self, db: ProgramDB, rnd: int) -> Attempt:
        """The answer: finalists re-checked fresh; the fastest correct one that is not
        slower than gcc -O3, else the baseline (see module docstring)."""
        stored = self.stored.get((0, rnd))
        if stored is not None:
            return stored
        ranked = sorted({p for p in db.best.values() if p != 0}, key=lambda i: (-db.value(i), i))
        best: tuple[float, int, Verdict, float, int] | None = None
        for pid in ranked[: self.cfg.finalists]:
            if not db.programs[pid].correct:
                continue
            verdict, secs, tries = self._measure(pid, FINAL, db.programs[pid].asm)
            sp = effective_speedup(verdict)
            if verdict.correct and sp >= 1.0 and (best is None or sp > best[0]):
                best = (sp, pid, verdict, secs, tries)
        if best is None:
            verdict, secs, tries = self._measure(0, FINAL, self.base)
            best = (1.0, 0, verdict, secs, tries)
        _, pid, verdict, secs, tries = best
        program = db.programs[pid]
        first = program.verdict.speedup
        if pid != 0 and verdict.correct and first is not None:  # re-checked apart from selection
            then = program.verdict.context.measurement.load
            verdict = replace(
                verdict,
                context=verdict.context.measured(
                    checks=2, first_check=first, first_check_load=then
                ),
            )
        origin = Origin(
            model=program.model or "gcc -O3",
            provenance=EvolveProvenance(
                final=True, program=pid, prompt_kind="recheck", lineage=tuple(db.lineage(pid))
            ),
        )
        candidate = Candidate(program.asm, origin)
        attempt = Attempt(0, rnd, candidate, verdict, tries=tries, verify_seconds=secs)
        if not verdict.is_infra_failure:
            self._record(attempt)
        return attempt


def _evolved(origin: Origin) -> EvolveProvenance:
    """The evolutionary search's record of an answer (an empty one when it has none)."""
    return origin.of(EvolveProvenance) or EvolveProvenance()


def _with(origin: Origin, **changes: object) -> Origin:
    """``origin`` with its evolve provenance changed."""
    return replace(origin, provenance=replace(_evolved(origin), **changes))


def _twin_lost(problem: str, twin: int) -> Verdict:
    """A twin's verdict when its program's verification gave none: dropped (machine
    trouble, never scored as wrong; a rerun asks again)."""
    return Verdict(problem, Status.INFRA_ERROR, message=f"program #{twin} was not verified")


def _attempt(s: Slot, cand: Candidate, verdict: Verdict | None, text, seconds: float) -> Attempt:
    return Attempt(s.slot, s.generation, cand, verdict, completion=text, gen_seconds=seconds)


def _checked(items: Iterable[tuple]) -> Iterator[Checked]:
    for item in items:
        yield Checked(*item)


@dataclass
class _Batch:
    """One generation's answers as they are resolved and verified, by slot."""

    next_id: int
    done: dict[int, Attempt] = field(default_factory=dict)
    new: dict[int, Program] = field(default_factory=dict)
    fresh: list[tuple[Slot, Attempt]] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)
    twins: list[tuple[Slot, Attempt, int]] = field(default_factory=list)


def _program(s: Slot, a: Attempt, verdict: Verdict) -> Program:
    """The program a verified answer made (its id was given when it was resolved)."""
    o = a.origin
    pid = _evolved(o).program
    assert pid is not None  # given when it was resolved
    return Program.made(
        a.candidate.asm or "",
        id=pid,
        parents=s.parents,
        island=s.island,
        generation=s.generation,
        slot=s.slot,
        kind=s.kind,
        model=o.model,
        verdict=verdict,
        prompt_tokens=o.prompt_tokens,
        completion_tokens=o.completion_tokens,
        cost_usd=o.usd,
        edit=a.completion,
    )


def _note(attempt: Attempt) -> str:
    """What one child did, for the next prompts about its parent."""
    v, twin = attempt.checked, _evolved(attempt.origin).duplicate_of
    if twin is not None:
        return f"an answer repeated program #{twin}"
    if not v.correct:
        if v.status is Status.COMPILE_ERROR:
            return "an answer did not assemble (or its edits did not apply)"
        return f"an answer failed: {v.status}"
    sp = v.speedup
    if sp is None or v.identical_to_baseline or not sp.samples:
        return "an answer was correct but not measured faster"
    return f"an answer was correct at {sp.value:.2f}x vs gcc -O3"


class Evolve:
    """``evolve``: the evolutionary search (module docstring) as a registered strategy;
    its programs are kept in its own tables of the run store when the journal keeps
    tables (``runs/archive.py``), else in memory."""

    name: ClassVar[str] = "evolve"
    Config: ClassVar[type] = EvolveConfig
    models: ClassVar[tuple[int, int | None]] = (1, None)

    def __init__(
        self,
        settings: StrategyConfig,
        on_progress: Callable[[Progress], None] | None = None,
        archive: Archive | None = None,
    ) -> None:
        self.settings = settings
        self.on_progress = on_progress
        self.archive = archive

    @staticmethod
    def stored(config: object) -> dict[str, object]:
        assert isinstance(config, EvolveConfig)
        return {"strategy": "evolve", "evolve": config.flat()}

    def search(
        self, problem: Problem, ask: Ask, verify: Verifier, journal: Journal | None
    ) -> Outcome:
        archive = self.archive or StoredArchive.of(journal)
        return evolve(
            problem,
            list(ask.models),
            self.settings,
            verify=verify,
            journal=journal,
            archive=archive,
            on_progress=self.on_progress,
        )


__all__ = [
    "BASELINE",
    "Archive",
    "Evolve",
    "EvolveConfig",
    "MemoryArchive",
    "Progress",
    "StartFrom",
    "evolve",
]
