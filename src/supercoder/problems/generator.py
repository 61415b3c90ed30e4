"""A problem's input generator, run in the build sandbox, never on the host.

A generator is a Python file defining ``generate(seed: int, size: int) -> str`` (one
input; for a program that takes arguments, ``(args, stdin)``: a list of arguments and
the input, ``types.with_args``), optionally with size lists: ``SIZES``, or ``CASES``/``HIDDEN`` lists of
``(seed, size)`` pairs (the bundled problems' form). It is the folder's ``gen.py``, or
the file that ``problem.json`` names in ``generator`` (``problem init --generator FILE``
copies one in). A problem folder is untrusted, so its generator is too: every call runs
``python3 -I -S`` in a fresh one-shot sandbox (``sandbox.oneshot.run_isolated``: no
network, no host files but ``/usr``, an unprivileged user) under a CPU/wall limit
(``GeneratorConfig.seconds``) and a cap on what it prints (``GeneratorConfig.max_bytes``
in all). A generator that runs past its limit, prints too much, raises or prints
something else than text is a ``GeneratorError`` (a ``UserError``) that says which; so is
one that waits (sleeps, blocks) more than ``IDLE_SECONDS`` in a call beyond what a loaded
host explains, and it is not run again in this process.

``run_generator(source, requests)``: the inputs for ``[(seed, size), ...]``, in one
sandbox; ``generator_sizes(source)``: the sizes the generator lists (``SIZES``, else
the sizes of ``CASES`` and ``HIDDEN``; empty when it lists none).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from supercoder.errors import UserError, printable
from supercoder.paths import temp_prefix
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated

DEFAULT_FILE = "gen.py"


class GeneratorError(UserError):
    """The problem's generator failed, ran past its limits, or printed no text."""


# generators (by text and limit) this process stopped at their wall limit: not run again
# (a folder of a hundred ``.gen`` tests whose generator sleeps costs one limit, not 100)
_STOPPED: dict[tuple[str, float], str] = {}
# a generator computes: wall time beyond IDLE_PER_CPU times its CPU time (a loaded host's
# wait for a core) is sleeping or blocking, and more than IDLE_SECONDS of it in one batch
# refuses it (not run again): one that sleeps just under its wall limit on every call
# would cost every check that limit for each of its calls
IDLE_PER_CPU = 4.0
IDLE_SECONDS = 5.0


@dataclass(frozen=True)
class GeneratorConfig:
    """How a generator runs in the sandbox.

    Fields:
        seconds: CPU seconds (and twice that of wall time) for one batch of inputs.
        max_bytes: bytes it may print in all, for one batch.
        memory_mb: address space of the Python process.
    """

    seconds: float = 20.0
    max_bytes: int = 128 << 20
    memory_mb: int = 2048


_DRIVER = r"""
import json, struct, sys, importlib.util
out = sys.stdout.buffer
sys.stdout = sys.stderr  # what gen.py prints is not an input
spec = importlib.util.spec_from_file_location("gen", "gen.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
mode = sys.argv[1]
if mode == "sizes":
    def pairs(name):
        v = getattr(mod, name, None) or []
        return [int(x[1]) if isinstance(x, (tuple, list)) else int(x) for x in v]
    sizes = [int(x) for x in (getattr(mod, "SIZES", None) or [])] or pairs("CASES") + pairs("HIDDEN")
    data = json.dumps(sizes).encode()
    out.write(struct.pack("<Q", len(data)) + data)
else:
    if not callable(getattr(mod, "generate", None)):
        sys.stderr.write("gen.py must define generate(seed: int, size: int) -> str\n")
        sys.exit(3)
    for seed, size in json.loads(sys.stdin.read()):
        text = mod.generate(seed, size)
        args = None
        if isinstance(text, tuple) and len(text) == 2:  # (arguments, stdin): types.with_args
            args, text = text
        data = text.encode() if isinstance(text, str) else bytes(text)
        if args:
            import shlex
            line = shlex.join([str(a) for a in args]).encode()
            data = b"\0supercoder-args\0" + line + b"\n" + data
        out.write(struct.pack("<Q", len(data)) + data)
        out.flush()
"""


@cache
def _python() -> tuple[str, tuple[Path, ...]]:
    """A Python the sandbox can run (it shows ``/usr`` only): the system's, else this
    one's installation bound read-only."""
    for path in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(path, os.X_OK):
            return path, ()
    exe = Path(os.path.realpath(sys.executable))
    return str(exe), (Path(sys.base_prefix).resolve(),)


def run_generator(
    source: str,
    requests: Sequence[tuple[int, int]],
    config: GeneratorConfig = GeneratorConfig(),
    label: str = "gen.py",
) -> list[bytes]:
    """The generator's input for each ``(seed, size)``, run in one sandbox."""
    if not requests:
        return []
    stdin = json.dumps([[int(s), int(n)] for s, n in requests]).encode()
    outputs = _run(source, ["run"], stdin, config, label)
    if len(outputs) != len(requests):
        raise GeneratorError(f"{label} stopped after {len(outputs)} of {len(requests)} inputs")
    for data in outputs:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise GeneratorError(f"{label} printed an input that is not UTF-8 text") from e
    return outputs


def generator_sizes(source: str, config: GeneratorConfig = GeneratorConfig()) -> list[int]:
    """The sizes the generator lists (``SIZES``, else those of ``CASES``/``HIDDEN``)."""
    (raw,) = _run(source, ["sizes"], b"", config, "gen.py") or [b"[]"]
    try:
        sizes = [int(x) for x in json.loads(raw)]
    except (ValueError, TypeError) as e:
        raise GeneratorError(f"gen.py lists sizes that are not integers ({e})") from e
    return [s for s in sizes if s >= 0]


def _run(
    source: str, args: list[str], stdin: bytes, config: GeneratorConfig, label: str
) -> list[bytes]:
    key = (hashlib.sha256(source.encode(errors="surrogatepass")).hexdigest(), config.seconds)
    if key in _STOPPED:
        raise GeneratorError(f"{label} {_STOPPED[key]} (earlier: not run again)")
    python, readonly = _python()
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("gen")))
    try:
        (work / "gen.py").write_text(source)
        (work / "driver.py").write_text(_DRIVER)
        limits = Limits(
            cpu_seconds=config.seconds,
            wall_seconds=2 * config.seconds,
            memory_mb=config.memory_mb,
            output_bytes=config.max_bytes,
            processes=0,
            idle_seconds=None,
            idle_total_seconds=None,
        )
        run = run_isolated(
            [python, "-I", "-S", "-B", "driver.py", *args],
            work,
            limits=limits,
            stdin=stdin,
            readonly=readonly,
            file_bytes=1 << 20,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if run.outcome == "timeout":
        _STOPPED[key] = (
            f"ran past its limit of {config.seconds:g} CPU seconds "
            f"({2 * config.seconds:g} s of wall time) and was stopped"
        )
        raise GeneratorError(f"{label} {_STOPPED[key]}")
    if run.outcome == "output_limit":
        raise GeneratorError(
            f"{label} printed more than {config.max_bytes >> 20} MiB and was stopped"
        )
    if run.outcome == "memory_limit":
        raise GeneratorError(f"{label} ran out of memory ({config.memory_mb} MB) and was stopped")
    idle = run.wall_seconds - IDLE_PER_CPU * run.cpu_seconds
    if idle > IDLE_SECONDS:
        _STOPPED[key] = (
            f"waited {idle:.0f} s of its wall time without computing (sleeping or blocked; "
            f"at most {IDLE_SECONDS:g} s) and is not used"
        )
        raise GeneratorError(f"{label} {_STOPPED[key]}")
    if not run.clean_exit:
        lines = run.stderr.decode("utf-8", "replace").strip().splitlines()
        tail = printable(lines[-1])[:300] if lines else run.describe()
        raise GeneratorError(f"{label} failed: {tail}")
    return _frames(run.stdout, label)


def _frames(data: bytes, label: str) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        if at + 8 > len(data):
            raise GeneratorError(f"{label} wrote to stdout itself (use the return value)")
        (n,) = struct.unpack_from("<Q", data, at)
        if at + 8 + n > len(data):
            raise GeneratorError(f"{label} wrote to stdout itself (use the return value)")
        out.append(data[at + 8 : at + 8 + n])
        at += 8 + n
    return out
