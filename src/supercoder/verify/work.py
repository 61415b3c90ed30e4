"""What a request to the verification server (``verify/server.py``) names and asks for:
the problems it may name (``Problems``: served ones by name, folders under the allowed
roots by path, SuperCoder-schema records by content) and its body validated into the
work that answers it (``WORK``: ``check``, ``score``, ``baseline``), run later by the
server's queue; a request it refuses is a ``RequestError`` (an HTTP status, one line).
The work calls what ``check`` and the rewards call in-process."""

import collections
import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from supercoder.dataset.records import problem_from_record
from supercoder.errors import UserError, printable
from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import MAX_ASM_BYTES
from supercoder.toolchain.isa import parse_target
from supercoder.types import Problem
from supercoder.verify.evaluate import check_config
from supercoder.verify.executors import ThreadExecutor
from supercoder.verify.reward import verdict_json
from supercoder.verify.service import VerifyConfig, staged, verify_candidates

MAX_PROGRAMS = 64
MAX_ITEMS = 4096
MAX_INFRA_RETRIES = 5


class RequestLimits(Protocol):
    """How much one request may ask (the server's ``ServeConfig``)."""

    max_programs: int
    max_items: int


class RequestError(Exception):
    """A request the server refuses: an HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


# --- the problems a request may name ----------------------------------------------------


class Problems:
    """The problems a request may name: served ones by name, folders under the allowed
    roots by path, records by content (each loaded once, the last 256 kept)."""

    def __init__(self, served: list[Problem], roots: tuple[Path, ...]) -> None:
        self.by_name = {p.name: p for p in served}
        self.roots = tuple(Path(r).resolve() for r in roots)
        self._loaded: collections.OrderedDict[str, Problem] = collections.OrderedDict()
        self._lock = threading.Lock()

    def listing(self) -> list[dict[str, Any]]:
        return [
            {
                "name": p.name,
                "split": p.split,
                "tags": [str(t) for t in p.settings.tags],
                "tests": len(p.visible_tests),
                "memorizable": p.memorizable,
            }
            for p in self.by_name.values()
        ]

    def resolve(self, ref: Any, where: str = "problem") -> Problem:
        if isinstance(ref, str):
            ref = {"name": ref}
        if not isinstance(ref, dict):
            raise RequestError(
                422, f"{where}: give {{'name': N}}, {{'path': DIR}} or {{'record': R}}"
            )
        if "record" in ref:
            return self._record(ref["record"], where)
        if "path" in ref:
            return self._folder(ref["path"], where)
        name = ref.get("name")
        if not isinstance(name, str):
            raise RequestError(422, f"{where}: 'name' must be a string")
        problem = self.by_name.get(name)
        if problem is None:
            raise RequestError(
                404, f"{where}: no problem named {printable(name, newlines=False)!r} here"
            )
        sha = ref.get("source_sha")
        if sha is not None and sha != problem.source_hash():
            raise RequestError(
                409,
                f"{where}: this server's problem {name!r} is not yours (its source differs): "
                "send it as a record or a path",
            )
        return problem

    def _folder(self, path: Any, where: str) -> Problem:
        if not isinstance(path, str) or not path or "\0" in path or len(path) > 4096:
            raise RequestError(422, f"{where}: 'path' must be a folder's path")
        if not self.roots:
            raise RequestError(403, f"{where}: this server reads no folders (no --allow-root)")
        try:
            path.encode()  # a lone surrogate is no file's name
            real = Path(path).resolve()
        except (OSError, ValueError) as e:
            raise RequestError(422, f"{where}: 'path' is not a usable path ({e})") from None
        if not any(real == r or r in real.parents for r in self.roots):
            raise RequestError(403, f"{where}: {printable(path)!r} is not under an allowed root")
        key = f"path:{real}"
        with self._lock:
            if key in self._loaded:
                return self._loaded[key]
        try:
            problem = load_problem(real)
        except (UserError, OSError) as e:
            raise RequestError(422, f"{where}: {e}") from None
        return self._keep(key, problem)

    def _record(self, record: Any, where: str) -> Problem:
        if isinstance(record, dict) and "extra_info" not in record:
            record = {"extra_info": record}
        key = (
            "record:"
            + hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()
        )
        with self._lock:
            if key in self._loaded:
                self._loaded.move_to_end(key)
                return self._loaded[key]
        try:
            problem = problem_from_record(record, where=where)
        except UserError as e:
            raise RequestError(422, str(e)) from None
        return self._keep(key, problem)

    def _keep(self, key: str, problem: Problem) -> Problem:
        with self._lock:
            self._loaded[key] = problem
            while len(self._loaded) > 256:
                self._loaded.popitem(last=False)
        return problem


# --- what a request asks for ----------------------------------------------------------


def number(body: dict, key: str, default: float, low: float, high: float) -> float:
    """``body[key]``, a number from ``low`` to ``high`` (422 otherwise; absent or null:
    ``default``)."""
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise RequestError(422, f"'{key}' must be a number from {low:g} to {high:g}")
    return float(value)


def _flag(body: dict, key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise RequestError(422, f"'{key}' must be true or false")
    return value


def _target(body: dict):
    try:
        return parse_target(str(body.get("target") or "native"))
    except ValueError as e:
        raise RequestError(422, f"'target': {e}") from None


def _check_config(body: dict):
    cpu = number(body, "cpu_limit", 10.0, 0.01, 60.0)
    memory = int(number(body, "memory_mb", 2048, 16, 16384))
    time = _flag(body, "time", True)
    return check_config(time=time, target=_target(body), cpu_limit=cpu, memory_mb=memory)


def check_work(problems: Problems, body: dict, limits: RequestLimits) -> Callable[[], dict]:
    """A check request -> the work that answers it (validated now, run later)."""
    problem = problems.resolve(body.get("problem"))
    programs = body.get("programs")
    if not isinstance(programs, list) or not programs:
        raise RequestError(422, "'programs' must be a non-empty list of assembly texts")
    if len(programs) > limits.max_programs:
        raise RequestError(413, f"at most {limits.max_programs} programs per check")
    for i, p in enumerate(programs):
        if not isinstance(p, str):
            raise RequestError(422, f"programs[{i}] must be a string (assembly text)")
        if len(p.encode(errors="replace")) > MAX_ASM_BYTES:
            raise RequestError(413, f"programs[{i}] is over {MAX_ASM_BYTES} bytes")
    config = _check_config(body)
    retries = int(number(body, "infra_retries", 1, 0, MAX_INFRA_RETRIES))
    group = int(number(body, "group_size", len(programs), 1, limits.max_programs))
    rounds = body.get("rounds")
    cpu = body.get("max_cpu_seconds")
    together = staged(
        VerifyConfig(config, infra_retries=retries, group_size=group),
        rounds=None if rounds is None else int(number(body, "rounds", 4, 1, 1000)),
        max_cpu_seconds=None if cpu is None else number(body, "max_cpu_seconds", 1, 0.01, 3600),
    )

    def work() -> dict:
        workers = max(1, min(len(programs), os.cpu_count() or 1))
        verdicts = verify_candidates(problem, programs, together, ThreadExecutor(workers))
        return {"problem": problem.name, "verdicts": [verdict_json(v) for v in verdicts]}

    return work


def score_work(problems: Problems, body: dict, limits: RequestLimits) -> Callable[[], dict]:
    """A score request -> the work that answers it: ``reward.verify_batch``, as the
    TRL and verl rewards run it in-process."""
    from supercoder.verify.reward import parse_reward, score_verdicts, verify_batch

    refs = body.get("problems")
    items = body.get("items")
    if not isinstance(refs, list) or not refs:
        raise RequestError(422, "'problems' must be a non-empty list of problem references")
    if not isinstance(items, list):
        raise RequestError(422, "'items' must be a list of {problem, completion}")
    if len(items) > limits.max_items or len(refs) > limits.max_items:
        raise RequestError(413, f"at most {limits.max_items} items per score request")
    resolved = [problems.resolve(r, f"problems[{i}]") for i, r in enumerate(refs)]
    targets, texts = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise RequestError(422, f"items[{i}] must be an object {{problem, completion}}")
        k, text = item.get("problem"), item.get("completion")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(resolved):
            raise RequestError(422, f"items[{i}].problem must index 'problems'")
        if not isinstance(text, str):
            raise RequestError(422, f"items[{i}].completion must be a string")
        targets.append(resolved[k])
        texts.append(text)
    reward = body.get("reward") or {}
    if not isinstance(reward, dict):
        raise RequestError(
            422,
            "'reward' must be an object {kind, failure, baseline_copy, threshold, pool, rounds}",
        )
    kind = reward.get("kind", "gated")
    if not isinstance(kind, str):
        raise RequestError(422, "reward.kind must be a reward spec: KIND[:KEY=VALUE,...]")
    options = {
        "failure": number(reward, "failure", 0.0, -1e6, 1e6),
        "baseline_copy": number(reward, "baseline_copy", 0.0, -1e6, 1e6),
    }
    if "threshold" in reward:
        options["threshold"] = number(reward, "threshold", 1.05, 1e-3, 1000)
    if "rounds" in reward and reward["rounds"] is not None:
        options["rounds"] = int(number(reward, "rounds", 4, 2, 200))
    if "pool" in reward:
        options["pool"] = str(reward["pool"])
    try:  # the spec's own options first, then the object's (the one parser of every path)
        config = parse_reward(kind, _check_config(body), **options)
    except UserError as e:
        raise RequestError(422, str(e)) from None
    retries = int(number(body, "infra_retries", 1, 0, MAX_INFRA_RETRIES))

    def work() -> dict:
        verdicts = verify_batch(targets, texts, config, infra_retries=retries)
        return {
            "rewards": score_verdicts(targets, verdicts, config),
            "reward_form": config.spec,
            "verdicts": [v.to_json() for v in verdicts],
        }

    return work


def baseline_work(problems: Problems, body: dict, limits: RequestLimits) -> Callable[[], dict]:
    """A baseline request -> the problem's ``gcc -O3`` assembly as this server builds it
    (what its verdicts compare against, and what a prompt shows): a client that builds
    prompts needs no gcc of its own. The source is visible to a model, so is this."""
    problem = problems.resolve(body.get("problem"))
    return lambda: {"problem": problem.name, "asm": baseline_asm(problem)}


WORK = {"check": check_work, "score": score_work, "baseline": baseline_work}
