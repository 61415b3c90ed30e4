"""``RayExecutor``: verification jobs as Ray tasks (a local Ray instance or a cluster).

Connects to the cluster named by ``address`` or ``RAY_ADDRESS`` (``ray start --head`` on
one node, ``ray start --address HEAD:6379`` on the others); without one it starts a
small local instance (``num_cpus`` = ``workers``) with token authentication on (Ray
2.52+, ``RAY_AUTH_MODE=token``: Ray generates the token). For a cluster, start every
node and the driver with the same ``RAY_AUTH_MODE=token`` and token (docs/training.md).
Each job is one task using one CPU; Ray retries a task whose worker or node died
(``max_retries``), so a node lost in the middle of a batch loses no verdict
(``tests/integration/test_ray.py``). Each node times in its own slots (``timing.slots``: file locks
in that node's cache, one pinned slot per physical core). Every node needs supercoder,
gcc and bubblewrap installed, like the driver.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeVar

from supercoder.errors import require

T = TypeVar("T")
R = TypeVar("R")


TOKEN_AUTH_SINCE = (2, 52)  # Ray's RAY_AUTH_MODE=token


def token_auth() -> bool:
    """Turn on Ray's token authentication (``RAY_AUTH_MODE=token``) for the local
    instance this process starts, where the installed Ray supports it (2.52+): without
    it, anyone who can reach its ports can run code on it. Ray reads the mode when it is
    imported, so this works before the first ``import ray`` only; a mode the user set is
    left as set. True when token authentication is on."""
    if "ray" not in sys.modules:
        try:
            found = tuple(int(x) for x in version("ray").split(".")[:2])
        except (PackageNotFoundError, ValueError):
            found = (0, 0)
        if found >= TOKEN_AUTH_SINCE:
            os.environ.setdefault("RAY_AUTH_MODE", "token")
    return os.environ.get("RAY_AUTH_MODE") == "token"


class RayExecutor:
    def __init__(
        self,
        workers: int = 0,
        address: str | None = None,
        num_cpus: int | None = None,
        max_retries: int = 3,
    ) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        if not self.address:  # a local instance: started with token authentication
            token_auth()
        self._ray = require("ray", "ray")
        self.workers = workers
        self.max_retries = max_retries
        self._lock = threading.Lock()
        self._remotes: dict[Callable[..., Any], Any] = {}
        self._owns = False
        if not self._ray.is_initialized():
            self._start(num_cpus)

    def _start(self, num_cpus: int | None) -> None:
        kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
        if self.address:
            self._ray.init(address=self.address, **kwargs)
        else:
            cpus = num_cpus or max(1, min(self.workers or 2, os.cpu_count() or 1))
            self._ray.init(
                num_cpus=cpus,
                include_dashboard=False,
                object_store_memory=200 * 1024 * 1024,
                **kwargs,
            )
        self._owns = True

    def _remote(self, fn: Callable[[T], R]) -> Any:
        with self._lock:
            if fn not in self._remotes:
                options = {"num_cpus": 1, "max_retries": self.max_retries}
                self._remotes[fn] = self._ray.remote(**options)(fn)
            return self._remotes[fn]

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """Yield ``(index, fn(items[index]))`` as tasks finish; at most ``workers`` tasks
        in flight when ``workers`` > 0 (else all at once: Ray queues them)."""
        remote = self._remote(fn)
        limit = self.workers if self.workers > 0 else len(items)
        pending: dict[Any, int] = {}
        queue = iter(enumerate(items))
        for index, item in queue:
            pending[remote.remote(item)] = index
            if len(pending) >= limit:
                break
        while pending:
            done, _ = self._ray.wait(list(pending), num_returns=1)
            for ref in done:
                index = pending.pop(ref)
                yield index, self._ray.get(ref)
            for index, item in queue:
                pending[remote.remote(item)] = index
                if len(pending) >= limit:
                    break

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
