"""A problem's input validator (``validate.py``), run in the build sandbox, never on the host.

The contract is the one contest judges use for their validators (testlib's
``validator``): a Python file that reads **one input** on stdin and exits with status 0
when it is valid. A test's command-line arguments (``tests/NAME.args``) are the
validator's own (``sys.argv[1:]``; ``sys.argv[0]`` is ``validate.py``) and stdin holds
the test's standard input alone; any other ending (a non-zero exit, ``sys.exit("why")``, an exception
such as a failed ``assert``) says it is not, and the last line it wrote on stderr (or the
exception) says why. It should check everything the statement promises and the program
relies on: the format (tokens, line breaks), every bound (``1 <= n <= 200000``), and
the structure (a tree's edges connect it, a list is sorted, a query's index lies within
the length). Example::

    import sys
    data = sys.stdin.read().split()
    n = int(data[0])
    assert 1 <= n <= 200000, f"n = {n} out of range"
    xs = list(map(int, data[1:]))
    assert len(xs) == n, "expected n numbers"
    assert xs == sorted(xs), "the list must be sorted"

A problem folder's validator is ``validate.py`` (``problem init --validator FILE`` copies
one in); the validator an LLM wrote beside its generator is ``llm_validate.py``
(``prompting/inputgen.py``). Every input a check draws, from any source (a generator,
the input model, the fuzzer), must pass every validator the problem has, else it is
never timed (``valid_inputs``); every input of the problem must pass them when the
validator is added (``check_inputs``: a one-line error naming the first that fails).

A validator is untrusted like the rest of a folder: one batch of inputs runs in one
fresh one-shot sandbox (``sandbox.oneshot.run_isolated``: no network, no host files but
``/usr``, an unprivileged user) as ``python3 -I -S``; each input is judged in a process
of its own (forked by a small driver, so one input's state never reaches the next)
under a CPU limit per input (``ValidatorConfig.seconds``), an address-space limit, and a
cap on what it may print, and a wall-clock limit per input (twice the CPU limit plus
5 s, kept by the driver: the first input past it stops the batch, so a validator that sleeps or
blocks costs one input's limit, not every input's). The batch's idle time (wall time beyond
four times the CPU time its validators used: sleeping, blocked) may add up to one input's
limit in all, so a validator that sleeps just under the limit on every input stops the
batch at the second input, never inputs x limit. A validator that cannot be
run at all (the batch past its wall limit) is a ``ValidatorError`` (a ``UserError``); one
that does not load (a syntax error) rejects every input, with that error as the reason.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import UserError, printable
from supercoder.paths import temp_prefix
from supercoder.problems.generator import _python
from supercoder.problems.loading import read_text
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated
from supercoder.sandbox.readback import ReadBackError, read_back
from supercoder.types import Problem, split_args

log = logging.getLogger("supercoder")

DEFAULT_FILE = "validate.py"
LLM_FILE = "llm_validate.py"  # written by a model beside llm_gen.py (prompting/inputgen.py)
LLM_GENERATOR = "llm_gen.py"  # the generator a model wrote (``problems.generator``'s contract)


class ValidatorError(UserError):
    """The problem's validator could not be run (it does not load, or ran past its limits)."""


# validators (by text and limit) this process stopped at a wall limit: not run again (a
# check judges several batches; one that sleeps costs one input's limit, not each batch's)
_STOPPED: dict[tuple[str, float], str] = {}


@dataclass(frozen=True)
class ValidatorConfig:
    """How a validator runs in the sandbox.

    Fields:
        seconds: CPU seconds for one input (and twice that plus 5 s of wall time;
            the first input past it stops the batch).
        memory_mb: address space of each validator process.
        max_bytes: bytes the validator may print (stdout and stderr) for one batch.
    """

    seconds: float = 10.0
    memory_mb: int = 2048
    max_bytes: int = 1 << 20


@dataclass(frozen=True)
class Judgement:
    """The validator's answer on one input: ``valid``, and why not (its last stderr line)."""

    valid: bool
    why: str = ""


_DRIVER = r"""
import json, os, runpy, select, signal, stat, sys, time, traceback
count, wall = int(sys.argv[1]), float(sys.argv[2])
IDLE_PER_CPU = 4.0  # a loaded host's wait for a CPU: an honest validator's idle time
idle = cpu = 0.0
os.mkdir("err")
out = os.fdopen(os.dup(1), "w")


def regular(path):
    # an earlier input's validator may have left a link or a FIFO here: never followed,
    # never waited on
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise OSError(f"{path} is not a regular file")
    os.set_blocking(fd, True)
    return fd


for i in range(count):
    pid = os.fork()
    if pid == 0:
        try:
            os.close(out.fileno())  # the driver's report is not the validator's to write
            try:
                os.unlink(f"err/{i}")
            except FileNotFoundError:
                pass
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            err = os.open(f"err/{i}", flags, 0o600)
            os.dup2(err, 1)
            os.dup2(err, 2)
            with os.fdopen(regular(f"in/{i}.args")) as f:
                sys.argv = ["validate.py", *json.load(f)]
            fd = regular(f"in/{i}")
            os.dup2(fd, 0)
            sys.stdin = open(0, "r", closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            code = 0
            try:
                runpy.run_path("validate.py", run_name="__main__")
            except SystemExit as e:
                if e.code is None:
                    code = 0
                elif isinstance(e.code, int):
                    code = e.code
                else:
                    sys.stderr.write(f"{e.code}\n")
                    code = 1
            except BaseException as e:
                lines = traceback.format_exception_only(type(e), e)
                sys.stderr.write(lines[-1] if lines else repr(e))
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException as e:
            os.write(2, f"the validator could not be run: {e!r}\n".encode())
            code = 1
        os._exit(code & 0xFF if code else 0)
    # one input's wall limit, kept here (the validator cannot reset it): a validator
    # that sleeps or blocks stops the batch at once, not after every input's share
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    begun = time.monotonic()
    end = begun + min(wall, wall - idle + IDLE_PER_CPU * cpu)
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        left = end - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            out.write(json.dumps({"timeout": 1}) + "\n")
            out.flush()
            sys.exit(0)
        if pidfd is not None:
            select.select([pidfd], [], [], left)
        else:
            time.sleep(min(left, 0.01))
    if pidfd is not None:
        os.close(pidfd)
    # the batch's idle time (wall time its validators did not spend on a CPU: sleeping,
    # blocked) beyond IDLE_PER_CPU times their CPU time is one input's wall limit in all:
    # a validator that sleeps just under the limit on each input stops the batch at the
    # second, not after every input's share
    used = usage.ru_utime + usage.ru_stime
    cpu += used
    idle += max(0.0, time.monotonic() - begun - used)
    if os.WIFEXITED(status):
        result = {"code": os.WEXITSTATUS(status)}
    else:
        result = {"signal": os.WTERMSIG(status)}
    out.write(json.dumps(result) + "\n")
    out.flush()
"""

_SIGNALS = {9: "killed (memory or CPU limit)", 24: "ran past its CPU limit", 11: "crashed"}


def run_validator(
    source: str,
    inputs: Sequence[bytes],
    config: ValidatorConfig = ValidatorConfig(),
    label: str = "validate.py",
) -> list[Judgement]:
    """The validator's judgement on each input, in one sandbox (see the module docstring)."""
    if not inputs:
        return []
    key = (hashlib.sha256(source.encode(errors="surrogatepass")).hexdigest(), config.seconds)
    if key in _STOPPED:
        raise ValidatorError(f"{label} {_STOPPED[key]} (earlier: not run again)")
    python, readonly = _python()
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("val")))
    try:
        (work / "validate.py").write_text(source)
        (work / "driver.py").write_text(_DRIVER)
        (work / "in").mkdir()
        for i, data in enumerate(inputs):
            args, stdin = split_args(data)  # the test's arguments are the validator's argv
            (work / "in" / str(i)).write_bytes(stdin)
            (work / "in" / f"{i}.args").write_text(json.dumps(list(args)))
        each = 2 * config.seconds + 5  # one input's wall time (the driver keeps it)
        limits = Limits(
            cpu_seconds=config.seconds,
            wall_seconds=each * len(inputs) + 10,
            memory_mb=config.memory_mb,
            output_bytes=config.max_bytes,
            processes=1,
            idle_seconds=None,
            idle_total_seconds=None,
        )
        run = run_isolated(
            [python, "-I", "-S", "-B", "driver.py", str(len(inputs)), str(each)],
            work,
            limits=limits,
            readonly=readonly,
            file_bytes=config.max_bytes,
        )
        if run.outcome == "timeout":
            _STOPPED[key] = (
                f"ran past its limit ({each:g} s of wall time an input, "
                f"{config.seconds:g} CPU seconds each) and was stopped"
            )
            raise ValidatorError(f"{label} {_STOPPED[key]}")
        lines = run.stdout.decode("utf-8", "replace").splitlines()
        if run.clean_exit and lines and lines[-1] == '{"timeout": 1}':  # the driver's stop
            _STOPPED[key] = (
                f"ran past its limit ({each:g} s of wall time an input, "
                f"{config.seconds:g} CPU seconds each) on input {len(lines)} and was stopped"
            )
            raise ValidatorError(f"{label} {_STOPPED[key]}")
        if not run.clean_exit or len(lines) != len(inputs):
            raise ValidatorError(f"{label} could not be run: {run.describe()}")
        out = []
        for i, line in enumerate(lines):
            result = _result(line, label)
            try:
                why = _last_line(work, f"err/{i}")
            except ReadBackError as e:  # a link, a FIFO, a device or a flood it left
                raise ValidatorError(f"{label} left a bad file behind: {e}") from None
            if result.get("code") == 0:
                out.append(Judgement(True))
            elif "signal" in result:
                sig = int(result["signal"])
                out.append(Judgement(False, why or f"the validator {_SIGNALS.get(sig, 'died')}"))
            else:
                out.append(Judgement(False, why or f"exit status {result.get('code')}"))
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _result(line: str, label: str) -> dict[str, int]:
    """One line of the driver's report (the validator shares its stdout: it may write
    there too), else a ``ValidatorError``."""
    try:
        result = json.loads(line)
    except ValueError:
        result = None
    if (
        not isinstance(result, dict)
        or len(result) != 1
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in result.values())
        or not set(result) <= {"code", "signal"}
    ):
        raise ValidatorError(f"{label} wrote to its driver's output: {printable(line)[:80]!r}")
    return result


def _last_line(work: Path, name: str) -> str:
    """The last line the validator wrote on one input (its reason), read back from the
    sandbox's folder without following links or blocking (``sandbox.readback``)."""
    text = (read_back(work, name, 4096, tail=True, missing_ok=True) or b"").decode(
        "utf-8", "replace"
    )
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return printable(lines[-1], newlines=False)[:200] if lines else ""


def check_inputs(
    source: str,
    named: Sequence[tuple[str, bytes]],
    label: str,
    config: ValidatorConfig = ValidatorConfig(),
) -> None:
    """Every input passes the validator, else a one-line ``ValidatorError`` naming the
    first that does not (and the validator's reason)."""
    judged = run_validator(source, [data for _, data in named], config, label)
    for (name, _), judgement in zip(named, judged, strict=True):
        if not judgement.valid:
            raise ValidatorError(
                f"{label} rejects the input {name} ({judgement.why}): fix the validator, "
                "or the input"
            )


def validator_sources(problem: Problem) -> list[tuple[str, str]]:
    """(file name, text) of each validator the problem has: its own ``validate.py``, the
    model-written ``llm_validate.py``."""
    folder = problem.path
    if not folder:
        return []

    out = []
    for name in (DEFAULT_FILE, LLM_FILE):
        path = Path(folder) / name
        if path.is_file() or path.is_symlink():
            out.append((name, read_text(Path(folder), path)))
    return out


def llm_generator_source(problem: Problem) -> str | None:
    """The text of the generator a model wrote for the problem (``llm_gen.py``), or None."""
    folder = problem.path
    if not folder:
        return None

    path = Path(folder) / LLM_GENERATOR
    if not path.is_file() and not path.is_symlink():
        return None
    return read_text(Path(folder), path)


def validators_digest(problem: Problem) -> str:
    """A digest of the problem's validators (what a cached judgement depends on)."""
    h = hashlib.sha256()
    for name, source in validator_sources(problem):
        h.update(f"{name}\0{source}\0".encode())
    return h.hexdigest()[:16]


def valid_inputs(problem: Problem, inputs: Sequence[bytes]) -> list[bytes]:
    """The inputs every validator of the problem accepts (all of them when it has none):
    a drawn input a validator rejects is never timed. A validator that cannot run
    rejects the batch (logged): an input nobody could judge is not timed either."""
    kept = list(inputs)
    for name, source in validator_sources(problem):
        if not kept:
            break
        try:
            judged = run_validator(source, kept, label=f"{problem.name}: {name}")
        except UserError as e:
            log.warning("warning: %s: no drawn input is used (%s)", problem.name, e)
            return []
        rejected = [j for j in judged if not j.valid]
        if rejected:
            log.info(
                "%s: %s rejected %d of %d drawn inputs (first: %s)",
                problem.name,
                name,
                len(rejected),
                len(kept),
                rejected[0].why,
            )
        kept = [data for data, j in zip(kept, judged, strict=True) if j.valid]
    return kept
