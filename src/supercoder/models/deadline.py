"""A time budget around any model: ``complete`` returns, or raises, within the budget.

A hung model server must not hold a problem (or Ctrl-C) hostage. :class:`Deadline`
runs each ``complete`` call on a daemon thread and waits at most until the problem's
deadline; past it, the call is abandoned (its thread ends when the HTTP timeout fires)
and :class:`InfraError` is raised: the problem is left unfinished, a rerun retries it.
The wait is interruptible, so Ctrl-C stops a run within moments.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from supercoder.errors import InfraError
from supercoder.models.base import DEFAULT_SAMPLING, Completion, Model, Sampling

if TYPE_CHECKING:
    from supercoder.types import Problem


class Deadline:
    """``model`` with at most ``seconds`` in total for all its calls (from construction)."""

    def __init__(self, model: Model, seconds: float | None) -> None:
        self.model = model
        self.name = model.name
        self.seconds = seconds
        self.ends = None if seconds is None else time.monotonic() + seconds

    def __getattr__(self, attr: str) -> Any:  # concurrency, cache_identity, ...
        return getattr(self.model, attr)

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        left = None if self.ends is None else self.ends - time.monotonic()
        if left is not None and left <= 0:
            raise InfraError(f"{self.name}: the problem's deadline ({self.seconds:g}s) has passed")
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["out"] = self.model.complete(messages, sampling, context)
            except BaseException as e:  # handed to the waiting thread
                box["error"] = e

        worker = threading.Thread(target=call, name="sc-model-call", daemon=True)
        worker.start()
        worker.join(left)
        if worker.is_alive():
            raise InfraError(
                f"{self.name}: no answer within the problem's deadline ({self.seconds:g}s); "
                "the server may be hung (see --timeout and --deadline)"
            )
        if "error" in box:
            raise box["error"]
        return box["out"]
