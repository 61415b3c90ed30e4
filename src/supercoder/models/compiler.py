"""``compiler``: the built-in offline optimizer. No LLM: better builds of the same C.

It reads the C source (``context.source`` when a Problem is passed, else the ```c block
of the last user message) and answers with the assembly of other builds, each in an
```assembly fence whose first line is a comment naming the build, with
``Completion.model = "compiler:<build>"``. The evaluator then picks the fastest.

Builds, in this order (``compiler:ID,ID`` picks a subset, in the order given):

1. ``native``         gcc -O3 -march=native
2. ``pgo-native``     gcc -O3 -march=native, profile-guided
3. ``native-unroll``  gcc -O3 -march=native -funroll-loops
4. ``pgo``            gcc -O3, profile-guided
5. ``clang-native``   clang -O3 -march=native (when clang is installed)
6. ``unroll``         gcc -O3 -funroll-loops
7. ``clang``          clang -O3 (when clang is installed)
8. ``O2``             gcc -O2, a control

Profile-guided builds compile with ``-fprofile-generate``, run the instrumented program
on the problem's *visible* test inputs (never hidden ones; skipped when there are
none), then compile with ``-fprofile-use -fprofile-correction``. The instrumented
program is the user's own reference code and must write its profile to disk, so it runs
as a plain subprocess with a timeout and CPU limit, not in the read-only sandbox.

A build that fails, or whose assembly is the same program as ``gcc -O3`` or as an
earlier build, is skipped. Sample ``i`` of a call with seed ``s`` is the ``s + i``-th
remaining build, so ``n`` samples (or ``n`` calls with seeds 0..n-1) get distinct
builds; asking for more than there are returns them all. Temperature is ignored.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from supercoder.errors import UserError
from supercoder.models.base import Completion, ProviderSettings
from supercoder.toolchain import BASELINE_FLAGS, CC, LINK_FLAGS, compile_to_asm, normalize_asm

if TYPE_CHECKING:
    from supercoder.types import Problem

PROFILE_RUN_TIMEOUT = 30.0
PROFILE_MAX_INPUTS = 10
BUILD_TIMEOUT = 120.0


@dataclass(frozen=True)
class Build:
    id: str
    cc: str
    flags: tuple[str, ...]
    pgo: bool = False

    @property
    def label(self) -> str:
        extra = " -fprofile-use -fprofile-correction" if self.pgo else ""
        return f"{self.cc} {' '.join(self.flags)}{extra}"


NATIVE = ("-O3", "-march=native")
BUILDS = (
    Build("native", "gcc", NATIVE),
    Build("pgo-native", "gcc", NATIVE, pgo=True),
    Build("native-unroll", "gcc", (*NATIVE, "-funroll-loops")),
    Build("pgo", "gcc", ("-O3",), pgo=True),
    Build("clang-native", "clang", NATIVE),
    Build("unroll", "gcc", ("-O3", "-funroll-loops")),
    Build("clang", "clang", ("-O3",)),
    Build("O2", "gcc", ("-O2",)),
)
# GNU as does not know clang's address-significance tables.
CC_EXTRA = {"clang": ("-fno-addrsig",)}


def select_builds(ids: str | None) -> tuple[Build, ...]:
    if not ids:
        return BUILDS
    by_id = {b.id: b for b in BUILDS}
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise UserError(f"compiler: unknown build {unknown[0]!r}; choose from {', '.join(by_id)}")
    return tuple(by_id[i] for i in wanted)


class CompilerModel:
    def __init__(self, builds: str | None = None) -> None:
        self.builds = select_builds(builds)
        self.name = "compiler" if builds is None else f"compiler:{builds}"

    @classmethod
    def from_spec(cls, target: str, settings: ProviderSettings) -> CompilerModel:
        """The provider entry point: ``compiler`` or ``compiler:BUILD,BUILD``."""
        return cls(target or None)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int = 0,
        context: Problem | None = None,
    ) -> list[Completion]:
        source = context.source if context is not None else source_from_messages(messages)
        inputs = training_inputs(context)
        cflags = context.cflags if context is not None else ()
        link = context.link_flags if context is not None else ()
        baseline = (context.baseline_asm if context is not None else None) or compile_to_asm(
            source, (*BASELINE_FLAGS, *cflags)
        )
        seen = {normalize_asm(baseline)}
        found: list[Completion] = []
        want = max(seed, 0) + max(n, 0)
        for build in self.builds:
            if len(found) >= want:
                break
            asm = build_asm(build, source, inputs, cflags, link)
            if asm is None or normalize_asm(asm) in seen:
                continue
            seen.add(normalize_asm(asm))
            built = " ".join((build.label, *cflags))  # the problem's cflags go into every build
            label = built + (f" (profiled on {len(inputs)} inputs)" if build.pgo else "")
            text = f"```assembly\n# supercoder compiler: {label}\n{asm.rstrip()}\n```"
            found.append(Completion(text=text, model=f"compiler:{built}"))
        return found[max(seed, 0) : want]


def source_from_messages(messages: list[dict[str, str]]) -> str:
    from supercoder.prompts import fenced_blocks

    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        blocks = [b for b in fenced_blocks(message["content"]) if b.lang in ("c", "cpp", "h")]
        if blocks:
            return blocks[0].body + "\n"
    raise UserError("the compiler model needs the C source: pass the problem or a ```c block")


def training_inputs(problem: Problem | None) -> list[bytes]:
    if problem is None:
        return []
    return [t.read_input() for t in problem.visible_tests[:PROFILE_MAX_INPUTS]]


def build_asm(
    build: Build,
    source: str,
    inputs: list[bytes],
    cflags: tuple[str, ...] = (),
    link_flags: tuple[str, ...] = (),
) -> str | None:
    """The build's assembly (with the problem's ``cflags``), or None when the compiler is
    missing or the build fails. clang's OpenMP needs its own runtime: skipped with -fopenmp."""
    cc = CC if build.cc == "gcc" else shutil.which(build.cc)
    if cc is None or (build.pgo and not inputs) or (build.cc != "gcc" and "-fopenmp" in cflags):
        return None
    flags = (*build.flags, *CC_EXTRA.get(build.cc, ()), *cflags)
    try:
        if not build.pgo:
            return compile_to_asm(source, flags, cc=cc)
        return profile_guided_asm(cc, flags, source, inputs, link_flags)
    except (UserError, OSError, subprocess.SubprocessError):
        return None


def profile_guided_asm(
    cc: str,
    flags: tuple[str, ...],
    source: str,
    inputs: list[bytes],
    link_flags: tuple[str, ...] = (),
) -> str | None:
    with tempfile.TemporaryDirectory(prefix="sc-pgo-") as tmp:
        d = Path(tmp)
        (d / "source.c").write_text(source)
        gen = (*flags, "-fprofile-generate")
        _check([cc, *gen, "-c", "source.c", "-o", "source.o"], d)
        _check([cc, *gen, "source.o", "-o", "instrumented", *LINK_FLAGS, *link_flags], d)
        for data in inputs:
            _profile_run(d / "instrumented", data, d)
        if not (d / "source.gcda").is_file():
            return None
        use = (*flags, "-fprofile-use", "-fprofile-correction", "-Wno-missing-profile")
        _check([cc, *use, "-S", "source.c", "-o", "source.s"], d)
        return (d / "source.s").read_text()


def _check(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    if proc.returncode != 0:
        raise UserError(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")


def _profile_run(binary: Path, data: bytes, cwd: Path) -> None:
    """One training run; its exit status does not matter, only the profile it leaves."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(  # ulimit via the shell: preexec_fn is unsafe with threads
            ["/bin/sh", "-c", f'ulimit -t {int(PROFILE_RUN_TIMEOUT)}; exec "$0"', str(binary)],
            input=data,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=PROFILE_RUN_TIMEOUT + 5,
        )
