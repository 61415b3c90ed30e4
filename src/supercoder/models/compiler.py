"""``compiler``: the built-in offline optimizer. No LLM: better builds of the same C.

A build proposer: it knows the build space (``toolchain/flagspace.py``: gcc and clang;
-O2, -O3, -Os; ``-march=native -ffp-contract=off`` / ``-mtune=native``; unroll
families and knobs; vectorizer off; inlining params; gcc and clang PGO trained on the
visible tests; crosses of the best) and compiles builds (``toolchain/pgo.py``); it never
runs or times them. Asked directly (``complete``), it answers with the first
``n`` distinct builds in order, unmeasured, each in an ```assembly fence whose first
line names the build, ``Completion.model = "compiler:<flags>"``.

Under ``best-of-n`` (``--strategy``'s default) the runs layer searches its builds
instead (``runs/buildsearch.py``): every build screened, halved and re-measured by the
verification service within ``budget`` CPU seconds per problem, the chosen build (or
the ``-O3`` baseline when none is significantly faster) answered with the search
attached.

Spec options (``compiler:OPT,OPT``): ``budget=SECONDS`` (CPU seconds of search per
problem, default 120); ``target=LEVEL`` (``--target``: build for an x86-64 level instead
of this CPU, ``flagspace.retarget``); ``n`` (``--samples``) bounds the builds tried. ``legacy`` or
ids of the first model's eight fixed builds (``native``, ``pgo-native``,
``native-unroll``, ``pgo``, ``clang-native``, ``unroll``, ``clang``, ``O2``) answer
with those builds unmeasured, in order, one per sample (the evaluator picks).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from supercoder.errors import UserError
from supercoder.models.base import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling
from supercoder.toolchain.baseline import baseline_asm, compile_baseline
from supercoder.toolchain.flagspace import LEGACY, Build, find_tools, retarget, search_space
from supercoder.toolchain.isa import Target, parse_target
from supercoder.toolchain.pgo import build_asm, training_inputs
from supercoder.types import Origin

DEFAULT_BUDGET = 120.0  # CPU seconds of build search per problem (benchmarks/compiler_search.py)
DEFAULT_MAX_BUILDS = 64

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
        self.max_builds = DEFAULT_MAX_BUILDS

    @property
    def searches_builds(self) -> bool:
        """Its builds are searched by the runs layer (``runs/buildsearch.py``) under
        best-of-n; ``legacy`` builds are answered as they are."""
        return self.legacy is None

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
        """``sampling.n`` distinct builds from the ``sampling.seed``-th on, unmeasured:
        the legacy ones, else the search space in order."""
        n, seed = sampling.n, sampling.seed
        source = context.source if context is not None else source_from_messages(messages)
        cflags = context.compile_flags if context is not None else ()
        flags = (cflags, context.link_flags if context is not None else ())
        baseline = baseline_asm(context) if context is not None else compile_baseline(source)
        inputs = training_inputs(context)
        if self.legacy is not None:
            return fixed_builds(self.legacy, source, baseline, inputs, n, seed, flags)
        _warn_skipped()
        space = tuple(search_space(find_tools(), self.target))
        return fixed_builds(space, source, baseline, inputs, n, seed, flags)


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
    seen = {baseline}  # exact texts: a normalization could conflate two programs
    found: list[Completion] = []
    want = max(seed, 0) + max(n, 0)
    for build in builds:
        if len(found) >= want:
            break
        asm = build_asm(build, source, inputs, cflags=cflags, link_flags=link)
        if asm is None or asm in seen:
            continue
        seen.add(asm)
        built = " ".join((build.label, *cflags))  # the problem's cflags go into every build
        label = built + (f" (profiled on {len(inputs)} inputs)" if build.pgo else "")
        origin = Origin(build=built, family=build.family, flags=(*build.flags, *cflags))
        found.append(Completion(_fenced(asm, label), f"compiler:{built}", origin=origin))
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
