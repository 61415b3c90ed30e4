"""A scripted *chain* model whose improvements compound, and the problems it improves.

``chain_problem(root, name, last)`` writes a problem whose C program repeats its work
``4 ** last`` times (each pass hidden from gcc's optimizer by a memory barrier); version
``k`` of its assembly (``Chain.versions[k]``) repeats it ``4 ** (last - k)`` times, so
each version is clearly faster than the one before and all print the same output.

``chain_responder(chain, wrong_every, seed_salt)``, asked about a prompt that shows
version k (the last version whose assembly appears in its user turns), answers
version k + 1 (the last version answers itself). Some answers are wrong on purpose:
version k + 1 printing a different number, chosen by the request's seed. Served through
``tests.fakes.servers.openai_server`` it is a real OpenAI-compatible model.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = r"""/* chain problem %(name)s */
#include <stdio.h>
#ifndef REPS
#define REPS %(reps)d
#endif
#ifndef BUG
#define BUG 0
#endif
static unsigned a[1 << 18];
int main(void) {
    unsigned n, seed;
    if (scanf("%%u %%u", &n, &seed) != 2 || n > (1u << 18)) return 1;
    for (unsigned i = 0; i < n; i++) { seed = seed * 1103515245u + 12345u; a[i] = seed >> 8; }
    unsigned long total = 0;
    for (int r = 0; r < REPS; r++) {
        __asm__ __volatile__("" ::: "memory");
        unsigned long s = 0;
        for (unsigned i = 0; i < n; i++) s += a[i] %% (i %% %(mod)du + 3u);
        total += s;
    }
    printf("%%lu\n", total / REPS + BUG);
    return 0;
}
"""


@dataclass(frozen=True)
class Chain:
    """A chain problem's folder and its versions' assembly (0 = the -O3 baseline)."""

    name: str
    path: Path
    versions: tuple[str, ...]
    wrong: tuple[str, ...]  # version k printing the wrong number

    @property
    def last(self) -> int:
        return len(self.versions) - 1

    def version_of(self, asm: str | None) -> int | None:
        from supercoder.toolchain.gcc import normalize_asm

        if not asm:
            return None
        flat = normalize_asm(asm)  # which version it shows, whatever the layout
        for k, v in enumerate(self.versions):
            if normalize_asm(v) == flat:
                return k
        return None


def chain_problem(
    root: Path, name: str, last: int = 3, n: int = 200_000, mod: int = 13, tests: int = 2
) -> Chain:
    """The problem folder (one visible and ``tests - 1`` hidden tests) and its versions."""
    from supercoder.problems.loading import load_problem, write_problem
    from supercoder.toolchain.gcc import assemble, compile_to_asm
    from supercoder.types import Problem, TestCase

    root.mkdir(parents=True, exist_ok=True)
    reps = [4 ** (last - k) for k in range(last + 1)]
    source = SOURCE % {"name": name, "reps": reps[0], "mod": mod}
    versions = tuple(compile_to_asm(source, flags=("-O3", f"-DREPS={r}")) for r in reps)
    wrong = tuple(compile_to_asm(source, flags=("-O3", f"-DREPS={r}", "-DBUG=1")) for r in reps)
    binary = root / f".{name}.ref"
    assert assemble(versions[-1], binary).ok
    import subprocess

    cases = []
    for t in range(tests):
        data = f"{n - 1000 * t} {7 + t}\n".encode()
        out = subprocess.run([binary], input=data, capture_output=True, check=True).stdout
        cases.append(TestCase(f"t{t}", out, data, hidden=t > 0))
    binary.unlink()
    folder = write_problem(Problem(name, source, tuple(cases)), root / name)
    problem = load_problem(folder)
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.toolchain.gcc import same_program

    assert same_program(baseline_asm(problem), versions[0]), "version 0 is the -O3 baseline"
    return Chain(name, folder, versions, wrong)


def _fence(asm: str) -> str:
    return f"Here is a faster program:\n```assembly\n{asm}```\n"


def shown_version(chain: Chain, text: str) -> int | None:
    """The last version whose whole assembly the text shows (None: none of them)."""
    from supercoder.toolchain.gcc import normalize_asm

    flat = normalize_asm(text)
    found = [k for k, v in enumerate(chain.versions) if normalize_asm(v) in flat]
    return max(found) if found else None


def chain_responder(
    chains: dict[str, Chain], wrong_every: int = 4, salt: str = "", diff: bool = False
):
    """An ``openai_server`` responder over several chain problems (found by name in the
    prompt): improve the version shown by one; about 1 in ``wrong_every`` answers
    (chosen by the request's seed) is wrong. ``diff``: answer with SEARCH/REPLACE blocks
    against the version shown. Choices of one request (``n`` > 1) are told apart by
    their order, so they differ like samples do."""
    import threading

    calls: dict[str, int] = {}
    lock = threading.Lock()

    def respond(messages: list[dict[str, str]], request: dict[str, Any]) -> str:
        text = "\n".join(m["content"] for m in messages if m["role"] == "user")
        chain = next((c for name, c in chains.items() if f"chain problem {name} " in text), None)
        if chain is None:
            return "I cannot help with this program."
        shown = shown_version(chain, text)
        if shown is None:
            return "I cannot read this program."
        target = min(shown + 1, chain.last)
        request_key = json.dumps(request, sort_keys=True)
        with lock:
            choice = calls[request_key] = calls.get(request_key, -1) + 1
        turn = len(messages)  # a refinement turn is a new draw, like a real model's
        key = f"{salt}:{chain.name}:{request.get('seed')}:{choice}:{turn}:{shown}".encode()
        wrong = wrong_every and int(hashlib.sha256(key).hexdigest(), 16) % wrong_every == 0
        program = chain.wrong[target] if wrong else chain.versions[target]
        if diff:
            from supercoder.prompting.diffedit import make_diff

            return make_diff(chain.versions[shown], program)
        return _fence(program)

    return respond
