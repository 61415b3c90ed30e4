"""Error kinds: the user's mistake vs the machine's failure."""

from __future__ import annotations


class SupercoderError(Exception):
    """Base class for errors the CLI reports without a traceback."""


class UserError(SupercoderError):
    """Bad input: a missing file, a malformed problem, a wrong option."""


class InfraError(SupercoderError):
    """The machine failed (sandbox could not start, toolchain missing, runner died).

    Never scored as a wrong candidate: retried or dropped.
    """


class MissingExtra(SupercoderError):
    """An optional dependency is not installed."""

    def __init__(self, extra: str, module: str):
        super().__init__(
            f"this needs the optional dependency {module!r}: pip install 'supercoder[{extra}]'"
        )
        self.extra = extra
        self.module = module


def require(module: str, extra: str):
    """Import an optional module lazily, or fail with the exact pip install line."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtra(extra, module) from e
