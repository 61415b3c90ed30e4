"""ScriptedModel: an in-process Model driven by a Python callable (the fake for tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from supercoder.models.base import DEFAULT_SAMPLING, Completion, Sampling

if TYPE_CHECKING:
    from supercoder.types import Problem

Responder = Callable[[list[dict[str, str]], int], str]


class ScriptedModel:
    """``responder(messages, sample_index) -> text``; every call is recorded in ``calls``.

    ``sample_index`` counts from ``seed`` like the real backends (sample ``i`` of a call
    with seed ``s`` gets ``s + i``), so a cached or resumed run sees the same answers.
    """

    def __init__(self, responder: Responder, name: str = "scripted") -> None:
        self.name = name
        self.responder = responder
        self.calls: list[list[dict[str, str]]] = []
        self._lock = threading.Lock()

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        snapshot = [dict(m) for m in messages]
        with self._lock:
            self.calls.append(snapshot)
        out = []
        for i in range(sampling.n):
            text = self.responder(snapshot, sampling.seed + i)
            out.append(
                Completion(
                    text=text,
                    model=self.name,
                    prompt_tokens=sum(len(m["content"].split()) for m in snapshot) if i == 0 else 0,
                    completion_tokens=len(text.split()),
                )
            )
        return out
