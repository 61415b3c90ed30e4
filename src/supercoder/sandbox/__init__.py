"""The runtime sandbox: bubblewrap + rlimits + seccomp around a supervisor (runner.c);
``oneshot``: one sandboxed tool run (build, valgrind, PGO); ``tempclean``: stale temp folders."""

from supercoder.sandbox.box import (
    Limits,
    RunResult,
    Sandbox,
    SandboxLost,
    open_sandbox,
    runner_binary,
)

__all__ = ["Limits", "RunResult", "Sandbox", "SandboxLost", "open_sandbox", "runner_binary"]
