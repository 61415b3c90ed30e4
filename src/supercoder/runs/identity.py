"""What a run is: its identity, fixed when the run store opens it.

``RunConfig`` is a run's model, problem set and options (and how it is executed);
``RunConfig.identity()`` is the ``RunIdentity`` that must match for a rerun to resume it
(not workers, executor, concurrency, deadline), one typed value stored through the codec
(``runs/store.py`` keeps it in ``runs.options``); ``default_run_name`` is a run's name
when ``--run`` gives none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

from supercoder.codec import EXTRA, Json
from supercoder.errors import argv_text
from supercoder.runs.strategies import StrategyConfig


@dataclass(frozen=True)
class RunConfig:
    """What a run is: its identity (model + options) and how to execute it.

    Fields:
        model: the model specs (``openai:MODEL``, ...; ``+`` between several), or the build
            search's name (``compiler[:OPTS]``, as its runs were always named).
        benchmark: the problem set (a bundled split or a folder).
        strategy: how each problem is solved (``StrategyConfig``).
        time: measure the speedup of correct answers.
        sandbox: run in the sandbox (False only with ``--unsafe-no-sandbox``).
        name: the run's name in the store (None: ``MODEL@BENCHMARK``).
        executor: where they run (``local`` process pool or ``ray``).
        concurrency: model requests in flight at once.
        deadline: seconds of model time per problem (None: no limit).
        target: the ISA target answers are built and checked for (``toolchain/isa.py``).
        reward: the reward spec its summary pays (``verify.reward.parse_reward``).
    """

    model: str
    benchmark: str
    strategy: StrategyConfig = StrategyConfig()
    time: bool = True
    sandbox: bool = True
    name: str | None = None
    executor: str = "local"
    concurrency: int = 4
    deadline: float | None = None
    target: str = "native"
    reward: str = "gated"

    @property
    def run_name(self) -> str:
        """``--run`` as typed (UTF-8 text also under an ASCII locale), else the default."""
        return argv_text(self.name) if self.name else default_run_name(self.model, self.benchmark)

    def identity(self) -> RunIdentity:
        """The run's identity: what must match to resume (not workers, executor,
        concurrency, deadline), one typed value (stored as ``encode`` writes it)."""
        settings = self.strategy.flat()
        default = StrategyConfig().flat()
        for key in ("context", "answer"):  # default prompt modes: as runs stored before them
            if settings.get(key) == default[key]:
                settings.pop(key)
        values = {
            "benchmark": self.benchmark,
            **settings,
            "time": self.time,
            "sandbox": self.sandbox,
            # native: as runs stored before targets
            **({"target": self.target} if self.target != "native" else {}),
            # gated: as runs stored before reward forms
            **({"reward": self.reward} if self.reward != "gated" else {}),
        }
        known = {f.name for f in fields(RunIdentity)} - {"extra"}
        own = {k: v for k, v in values.items() if k not in known}  # the strategy's keys
        return RunIdentity(
            **{k: v for k, v in values.items() if k in known},  # type: ignore[arg-type]
            extra=MappingProxyType(own),
        )


@dataclass(frozen=True, kw_only=True)
class RunIdentity:
    """A stored run's identity (``RunConfig.identity()``: what must match to resume), read
    back typed. A key a run of an older version did not store reads as None; the
    strategy's own keys (``evolve``'s knobs, a plugin's) are kept as stored in ``extra``.

    Fields:
        benchmark: the problem set.
        samples: answers per problem (chains).
        rounds: answers per chain.
        temperature: the model's sampling temperature.
        max_tokens: the model's answer limit.
        seed: the sampling seed.
        variant: the paper's prompt (``asm``, ``c_only``).
        show_inputs: visible test inputs quoted in the prompt.
        context: the listing shown (``full``, ``hot``; None: ``full``).
        answer: the answer's form (``whole``, ``diff``; None: ``whole``).
        strategy: the strategy's stored name (None: best-of-n, as before strategies).
        time: answers were timed.
        sandbox: answers ran in the sandbox.
        target: the ISA target (None: ``native``).
        reward: the reward spec its summary pays (None: ``gated``).
        extra: the strategy's own keys, as stored (read-only).
    """

    benchmark: str | None = None
    samples: int | None = None
    rounds: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    variant: str | None = None
    show_inputs: int | None = None
    context: str | None = None
    answer: str | None = None
    strategy: str | None = None
    time: bool | None = None
    sandbox: bool | None = None
    target: str | None = None
    reward: str | None = None
    extra: Mapping[str, Json] = field(
        default_factory=lambda: MappingProxyType({}), hash=False, metadata=EXTRA
    )

    OMIT_DEFAULTS: ClassVar[bool] = True
    LENIENT: ClassVar[bool] = True  # a value of the wrong type reads as not stored


def default_run_name(model: str, benchmark: str) -> str:
    bench = Path(benchmark).name or benchmark
    return re.sub(r"[^\w.:@+-]+", "_", f"{model}@{bench}")


__all__ = ["RunConfig", "RunIdentity", "default_run_name"]
