"""The ``verifiers`` plugin package: ``vf-eval supercoder-env`` imports it by its id and
takes its ``Taskset``, ``Env`` and ``Harness`` from ``__all__`` (the code:
``supercoder.training.verifiers_env``)."""

from supercoder.training.verifiers_env import (
    LocalChatHarness,
    LocalChatHarnessConfig,
    SupercoderConfig,
    SupercoderData,
    SupercoderEnv,
    SupercoderEnvConfig,
    SupercoderTask,
    SupercoderTaskset,
    load_environment,
)

__all__ = [
    "LocalChatHarness",
    "LocalChatHarnessConfig",
    "SupercoderConfig",
    "SupercoderData",
    "SupercoderEnv",
    "SupercoderEnvConfig",
    "SupercoderTask",
    "SupercoderTaskset",
    "load_environment",
]
