"""``compiler``: the built-in offline optimizer. No LLM: better builds of the same C.

``compiler`` (the default) runs a budgeted search over builds (gcc and clang; -O2,
-O3, -Os; ``-march=native -ffp-contract=off`` / ``-mtune=native``; unroll families and
knobs; vectorizer off; inlining params; gcc and clang PGO trained on the visible
tests; crosses of the best), measured on the honest meter; see
:mod:`supercoder.models.search`. It answers with the chosen build's assembly in an
```assembly fence whose first line names the build, ``Completion.model =
"compiler:<flags>"``, and ``Completion.meta`` holding the search (every build's flags,
correctness and measured speedup). When nothing is *significantly* faster it answers
with the ``-O3`` baseline itself: it never proposes a program it measured as slower.
A second sample (``n >= 2``) is the baseline, a fallback should the chosen build fail
a hidden test.

Spec options (``compiler:OPT,OPT``): ``budget=SECONDS`` (CPU seconds of search per
problem, default 60); ``target=LEVEL`` (``--target``: build for an x86-64 level instead
of this CPU, ``builds.retarget``); ``n`` (``--samples``) bounds the builds tried. ``legacy`` or
ids of the first model's eight fixed builds (``native``, ``pgo-native``,
``native-unroll``, ``pgo``, ``clang-native``, ``unroll``, ``clang``, ``O2``) answer
with those builds unmeasured, in order, one per sample (the evaluator picks).

Without a problem (the C taken from the prompt) or without visible tests there is
nothing to measure on: the search's first builds are returned unmeasured.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from supercoder.build.baseline import baseline_asm, compile_baseline
from supercoder.build.flagspace import LEGACY, Build, find_tools, retarget, search_space
from supercoder.build.isa import Target, parse_target
from supercoder.build.pgo import build_asm, training_inputs
from supercoder.build.toolchain import normalize_asm
from supercoder.errors import InfraError, UserError
from supercoder.models.base import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling
from supercoder.models.search import search
from supercoder.models.trials import DEFAULT_BUDGET, DEFAULT_MAX_BUILDS, SearchConfig

if TYPE_CHECKING:
    from supercoder.types import Problem

BUILDS = LEGACY  # the first model's eight fixed builds
_WARNED: set[str] = set()


def select_builds(ids: str | None) -> tuple[Build, ...]:
    """Legacy builds by id (``legacy``: all eight)."""
    if not ids or ids == "legacy":
        return LEGACY
    by_id = {b.id: b for b in LEGACY}
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise UserError(
            f"compiler: unknown option or build {unknown[0]!r}; use budget=SECONDS, legacy, "
            f"or builds {', '.join(by_id)}"
        )
    return tuple(by_id[i] for i in wanted)


def parse_spec(target: str | None) -> tuple[float, tuple[Build, ...] | None]:
    """(budget, legacy builds or None for the search) from ``compiler:TARGET``."""
    budget, rest = DEFAULT_BUDGET, []
    for part in (target or "").split(","):
        key, eq, value = part.strip().partition("=")
        if key == "target" and eq:
            continue  # spec_target
        if key == "budget" and eq:
            try:
                budget = float(value)
            except ValueError:
                raise UserError(f"compiler: budget={value!r} is not a number of seconds") from None
            if budget <= 0:
                raise UserError("compiler: budget must be positive")
        elif key:
            rest.append(part.strip())
    return budget, (select_builds(",".join(rest)) if rest else None)


def spec_target(spec: str | None) -> Target:
    """The ISA target of ``compiler:...,target=LEVEL`` (native when none is given)."""
    found = Target.NATIVE
    for part in (spec or "").split(","):
        key, eq, value = part.strip().partition("=")
        if key == "target" and eq:
            try:
                found = parse_target(value)
            except ValueError as e:
                raise UserError(f"compiler: {e}") from None
    return found


def default_samples(target: str | None) -> int:
    """What ``--samples`` defaults to: every legacy build, or the search's build cap."""
    _, legacy = parse_spec(target)
    return len(legacy) if legacy is not None else DEFAULT_MAX_BUILDS


class CompilerModel:
    def __init__(self, target: str | None = None) -> None:
        self.budget, self.legacy = parse_spec(target)
        self.target = spec_target(target)
        if self.legacy is not None:
            self.legacy = tuple(retarget(b, self.target) for b in self.legacy)
        self.name = "compiler" if not target else f"compiler:{target}"
        self._memo: OrderedDict[tuple, list[Completion]] = OrderedDict()

    @classmethod
    def from_spec(cls, target: str, settings: ProviderConfig) -> CompilerModel:
        """The provider entry point: ``compiler`` or ``compiler:OPT,OPT``."""
        return cls(target or None)

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        n, seed = sampling.n, sampling.seed
        source = context.source if context is not None else source_from_messages(messages)
        cflags = context.compile_flags if context is not None else ()
        flags = (cflags, context.link_flags if context is not None else ())
        baseline = baseline_asm(context) if context is not None else compile_baseline(source)
        if self.legacy is not None:
            inputs = training_inputs(context)
            return fixed_builds(self.legacy, source, baseline, inputs, n, seed, flags)
        _warn_skipped()
        if context is None or not context.visible_tests:
            space = tuple(search_space(find_tools(), self.target))
            return fixed_builds(space, source, baseline, [], n, seed, flags)
        key = (
            context.source_hash(),
            tuple(t.name for t in context.visible_tests),
            self.budget,
            self.target,
        )
        if key not in self._memo:
            self._memo[key] = self._search(context, baseline, n, seed)
            while len(self._memo) > 32:
                self._memo.popitem(last=False)
        return self._memo[key][: max(n, 0)]

    def _search(self, problem: Problem, baseline: str, n: int, seed: int) -> list[Completion]:
        config = SearchConfig(
            budget=self.budget, max_builds=max(n, 1), seed=seed, target=self.target
        )
        try:
            result = search(problem, baseline, config)
        except InfraError as e:  # no sandbox here: nothing can be measured
            _warn(f"compiler: cannot measure builds ({e}); answering with unmeasured builds")
            space = tuple(search_space(find_tools(), self.target))
            flags = (problem.compile_flags, problem.link_flags)
            return fixed_builds(space, problem.source, baseline, [], n, seed, flags)
        meta: dict[str, Any] = {"search": result.to_json()}
        chosen = result.chosen
        base = _fenced(baseline, "gcc -O3, the baseline: no build was significantly faster")
        if chosen is None or not chosen.asm:
            meta.update(build="gcc -O3", family="baseline")
            return [Completion(base, "compiler:gcc -O3 (baseline)", meta=meta)]
        sp = chosen.fresh
        why = f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}] on the visible tests" if sp else ""
        meta.update(
            build=chosen.build.label, family=chosen.build.family, flags=list(chosen.build.flags)
        )
        best = Completion(
            _fenced(chosen.asm, f"{chosen.build.label} ({why})"),
            f"compiler:{chosen.build.label}",
            meta=meta,
        )
        fallback = Completion(
            base.replace("no build was significantly faster", "a fallback"),
            "compiler:gcc -O3 (baseline)",
            meta={"build": "gcc -O3", "family": "baseline"},
        )
        return [best, fallback]


def _fenced(asm: str, label: str) -> str:
    return f"```assembly\n# supercoder compiler: {label}\n{asm.rstrip()}\n```"


def fixed_builds(
    builds: tuple[Build, ...],
    source: str,
    baseline: str,
    inputs: list[bytes],
    n: int,
    seed: int,
    flags: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> list[Completion]:
    """Builds in order, unmeasured: sample ``i`` of seed ``s`` is the ``s + i``-th build
    that compiles and differs from the baseline and the earlier ones. ``flags``: the
    problem's (cflags, link flags), in every build."""
    cflags, link = flags
    seen = {normalize_asm(baseline)}
    found: list[Completion] = []
    want = max(seed, 0) + max(n, 0)
    for build in builds:
        if len(found) >= want:
            break
        asm = build_asm(build, source, inputs, cflags=cflags, link_flags=link)
        if asm is None or normalize_asm(asm) in seen:
            continue
        seen.add(normalize_asm(asm))
        built = " ".join((build.label, *cflags))  # the problem's cflags go into every build
        label = built + (f" (profiled on {len(inputs)} inputs)" if build.pgo else "")
        meta = {"build": built, "family": build.family, "flags": [*build.flags, *cflags]}
        found.append(Completion(_fenced(asm, label), f"compiler:{built}", meta=meta))
    return found[max(seed, 0) : want]


def _warn_skipped() -> None:
    for line in find_tools().skipped():
        _warn(f"compiler: skipping {line}")


def _warn(line: str) -> None:
    if line not in _WARNED:
        _WARNED.add(line)
        print(line, file=sys.stderr)


def source_from_messages(messages: list[dict[str, str]]) -> str:
    from supercoder.prompting.prompts import fenced_blocks

    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        blocks = [b for b in fenced_blocks(message["content"]) if b.lang in ("c", "cpp", "h")]
        if blocks:
            return blocks[0].body + "\n"
    raise UserError("the compiler model needs the C source: pass the problem or a ```c block")
