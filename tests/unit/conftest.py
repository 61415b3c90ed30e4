"""The unit tier's guard: a test under tests/unit/ spawns no process (no gcc, no sandbox,
no subprocess, fork or exec) and opens no network socket (AF_UNIX pairs are fine). Such a
test fails here, naming what it started: it belongs in tests/integration/.

The guard replaces the process-starting and socket primitives while a unit test (its
set-up, body and tear-down) runs; a refused call raises :class:`Spawned`, a
``BaseException`` no ``except Exception`` in the code under test swallows, and the test
fails even if something caught it anyway.
"""

from __future__ import annotations

import _posixsubprocess
import multiprocessing.util
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

INET = (socket.AF_INET, socket.AF_INET6)
_refused: list[str] = []
_active = False


class Spawned(BaseException):
    """A unit test tried to start a process or open a network socket."""


def _refuse(what: str) -> None:
    _refused.append(what)
    raise Spawned(f"a unit test may not {what}: move the test to tests/integration/")


def _guarded(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if _active:
            shown = args[0] if args and isinstance(args[0], (list, tuple, str, bytes)) else ""
            _refuse(f"start a process ({name} {shown!r})".replace(" ''", ""))
        return real(*args, **kwargs)

    return call


def _guarded_socket(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def call(self: socket.socket, address: Any, *args: Any) -> Any:
        if _active and self.family in INET:
            _refuse(f"{name} a network socket ({address!r})")
        return real(self, address, *args)

    return call


PROCESS = {
    os: (
        "fork",
        "forkpty",
        "posix_spawn",
        "posix_spawnp",
        "system",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "spawnv",
        "spawnve",
        "popen",
    ),
    subprocess: ("_fork_exec",),  # subprocess binds _posixsubprocess.fork_exec at import
    _posixsubprocess: ("fork_exec",),
    multiprocessing.util: ("spawnv_passfds",),
}
for module, names in PROCESS.items():
    for name in names:
        if hasattr(module, name):
            setattr(module, name, _guarded(name, getattr(module, name)))
for name in ("connect", "connect_ex"):  # bind alone (urllib3 probes ::1) is no traffic
    setattr(socket.socket, name, _guarded_socket(name, getattr(socket.socket, name)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarding())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarding())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarding())


def _guarding() -> Iterator[None]:
    global _active
    _refused.clear()
    _active = True
    try:
        result = yield
    finally:
        _active = False
    if _refused:  # refused, and the code under test caught it
        raise Spawned(f"a unit test may not {_refused[0]}: move it to tests/integration/")
    return result
