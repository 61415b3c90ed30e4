"""A client of ``supercoder serve`` (httpx): verdicts and rewards from a verification
server, so a machine that trains or evaluates needs no sandbox, gcc or root.

``ServiceClient(url, token)`` (or ``ServiceClient.from_env()``: ``SUPERCODER_SERVER``,
``SUPERCODER_TOKEN``) has one method per endpoint: ``health``, ``problems``,
``metrics``, ``check(problem, programs)`` -> verdicts, ``baseline(problem)`` -> the
server's ``-O3`` assembly (``with_baselines``: a prompt's baseline with no gcc here),
``score(problems, completions, config)`` -> verdicts (the rewards: ``reward.score_verdict`` on them, exactly as
in-process). Every request carries an id: a retry (429 with ``Retry-After``, 503, a
lost connection, a deadline passed while the work ran) sends the same id, so the
server never runs it twice. After ``retries`` tries, or ``timeout`` seconds in all, a
check raises ``InfraError`` and a score returns infrastructure-failure verdicts (no
reward, never scored as wrong); a refusal (a wrong token, a request too large, an
unknown problem) raises ``UserError`` at once.

``problem_ref(problem)`` is how a local ``Problem`` travels: a served problem by name
(with its source's digest, so the server refuses another problem of that name), a
problem from a record (verl rows) as that record. ``RemoteVerifier`` is a ``Verifier``
(what the strategies and ``run_eval`` call) over a server.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from supercoder.dataset.records import BUNDLE, args_field, problem_bundle, problem_settings
from supercoder.errors import InfraError, UserError, printable
from supercoder.problems.loading import BUNDLED_ROOT
from supercoder.toolchain.baseline import vouch
from supercoder.types import Candidate, Problem, Status, Verdict
from supercoder.verify.reward import RewardConfig, completion_text
from supercoder.verify.service import Checked, VerifyConfig

if TYPE_CHECKING:
    from supercoder.verify.reward import Reply, RewardConfig
    from supercoder.verify.service import Checked, VerifyConfig

SERVER_ENV = "SUPERCODER_SERVER"
TOKEN_ENV = "SUPERCODER_TOKEN"
RETRIES = 8


class Refused(UserError):
    """The server refused a request (a 4xx): its status code and one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# refusals that mean "the server does not have this problem": send it as a record instead
_NOT_THERE = (403, 404, 409)


class ServiceClient:
    """One verification server (see module docstring); thread-safe (httpx.Client)."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 3600.0,
        retries: int = RETRIES,
        transport: Any = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise UserError(f"the server's URL must start with http:// or https:// (got {url!r})")
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.retries = max(0, retries)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(
            base_url=self.url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=10.0),
            transport=transport,
        )

    @classmethod
    def from_env(cls) -> ServiceClient | None:
        """The server in ``SUPERCODER_SERVER`` (token: ``SUPERCODER_TOKEN``), else None."""
        url = os.environ.get(SERVER_ENV, "").strip()
        if not url:
            return None
        return cls(url, os.environ.get(TOKEN_ENV) or None)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- endpoints
    def health(self) -> dict[str, Any]:
        return self._get("/health").json()

    def metrics(self) -> str:
        return self._get("/metrics").text

    def problems(self) -> list[dict[str, Any]]:
        return self._get("/v1/problems").json()["problems"]

    def check(
        self,
        problem: Problem | Mapping[str, Any] | str,
        programs: Sequence[str],
        *,
        time: bool = True,
        target: str = "native",
        cpu_limit: float | None = None,
        memory_mb: int | None = None,
        infra_retries: int | None = None,
        rounds: int | None = None,
        max_cpu_seconds: float | None = None,
        group_size: int | None = None,
        deadline: float | None = None,
        request_id: str | None = None,
    ) -> list[Verdict]:
        """Verdicts for ``programs`` on ``problem`` (a ``Problem``, a reference, or a
        served problem's name), as ``supercoder check`` gives them; ``InfraError`` when
        the server cannot answer."""
        body: dict[str, Any] = {
            "problem": problem_ref(problem) if isinstance(problem, Problem) else _ref(problem),
            "programs": list(programs),
            "time": time,
            "target": str(target),
        }
        optional = {
            "cpu_limit": cpu_limit,
            "memory_mb": memory_mb,
            "infra_retries": infra_retries,
            "rounds": rounds,
            "max_cpu_seconds": max_cpu_seconds,
            "group_size": group_size,
            "deadline_s": deadline,
        }
        body.update({k: v for k, v in optional.items() if v is not None})
        try:
            answer = self.post("/v1/check", body, request_id)
        except Refused as e:
            if not isinstance(problem, Problem) or e.status not in _NOT_THERE:
                raise
            body["problem"] = _whole(problem)
            answer = self.post("/v1/check", body)  # the server lacks it: send it whole
        return [Verdict.from_json(v) for v in answer["verdicts"]]

    def baseline(self, problem: Problem | Mapping[str, Any] | str) -> str:
        """The problem's ``gcc -O3`` assembly as the server builds it (what its verdicts
        compare against): a prompt's baseline without a gcc here."""
        body = {"problem": problem_ref(problem) if isinstance(problem, Problem) else _ref(problem)}
        try:
            answer = self.post("/v1/baseline", body)
        except Refused as e:
            if not isinstance(problem, Problem) or e.status not in _NOT_THERE:
                raise
            answer = self.post("/v1/baseline", {"problem": _whole(problem)})
        return str(answer["asm"])

    def with_baselines(self, problems: Sequence[Problem]) -> list[Problem]:
        """``problems``, each with the server's ``-O3`` assembly as its baseline (the
        server builds the yardstick: a ``baseline.s`` a problem carries is replaced)."""
        out = []
        for p in problems:
            asm = self.baseline(p)
            vouch(asm)  # the server built it: a prompt's baseline with no gcc here
            out.append(replace(p, baseline_asm=asm))
        return out

    def score(
        self,
        problems: Sequence[Problem | Mapping[str, Any]],
        completions: Sequence[Reply],
        config: RewardConfig | None = None,
        *,
        infra_retries: int | None = None,
        request_id: str | None = None,
    ) -> list[Verdict]:
        """Verdicts for ``completions[i]`` on ``problems[i]`` as ``reward.verify_batch``
        gives them in-process (the reward: ``score_verdict(v, config)``). A server that
        cannot answer gives infrastructure-failure verdicts: no reward, never wrong."""
        config = config or RewardConfig()
        if len(problems) != len(completions):
            raise ValueError(f"{len(problems)} problems but {len(completions)} completions")
        if not completions:
            return []
        refs: list[dict[str, Any]] = []
        index: dict[str, int] = {}
        items = []
        keys = []
        for p, c in zip(problems, completions, strict=True):
            ref = problem_ref(p) if isinstance(p, Problem) else _ref(p)
            key = _key(ref)
            keys.append(key)
            if key not in index:
                index[key] = len(refs)
                refs.append(ref)
            items.append({"problem": index[key], "completion": completion_text(c)})
        evaluation = config.evaluation()
        body: dict[str, Any] = {
            "problems": refs,
            "items": items,
            "reward": {
                "kind": config.spec,  # every option, as every path reads it
                "failure": config.failure,
                "baseline_copy": config.baseline_copy,
                "threshold": config.threshold,
                "pool": config.pool,
                "rounds": config.rounds,
            },
            "time": evaluation.time,
            "target": str(evaluation.target),
            "cpu_limit": evaluation.limits.cpu_seconds,
            "memory_mb": evaluation.limits.memory_mb,
        }
        if infra_retries is not None:
            body["infra_retries"] = min(infra_retries, 5)
        names = [p.name if isinstance(p, Problem) else "record" for p in problems]
        try:
            try:
                answer = self.post("/v1/score", body, request_id)
            except Refused as e:
                if e.status not in _NOT_THERE:
                    raise
                firsts = {index[k]: p for p, k in zip(problems, keys, strict=True)}
                body["problems"] = [
                    _whole(firsts[i]) if isinstance(firsts[i], Problem) else refs[i]
                    for i in range(len(refs))
                ]
                answer = self.post("/v1/score", body)  # the server lacks some: send them whole
        except InfraError as e:
            return [Verdict(n, Status.INFRA_ERROR, message=str(e)) for n in names]
        return [Verdict.from_json(v) for v in answer["verdicts"]]

    # --- plumbing
    def _get(self, path: str) -> Any:
        try:
            response = self._http.get(path, timeout=30.0)
        except httpx.HTTPError as e:
            raise InfraError(f"the verification server {self.url} cannot be reached: {e}") from e
        _raise_for(response, self.url)
        return response

    def post(self, path: str, body: dict[str, Any], request_id: str | None = None) -> dict:
        """POST ``body`` under one request id, retried as the module docstring says."""
        rid = request_id or uuid.uuid4().hex
        payload = {**body, "id": rid}
        give_up = time.monotonic() + self.timeout
        why = ""
        for attempt in range(self.retries + 1):
            wait = min(30.0, 0.5 * 2**attempt) * (0.5 + random.random())
            try:
                response = self._http.post(path, json=payload)
            except httpx.TransportError as e:  # refused, reset, timed out: retry, same id
                why = f"{type(e).__name__}: {e}"
            else:
                if response.status_code == 200:
                    return response.json()
                if response.status_code not in (429, 502, 503, 504):
                    _raise_for(response, self.url)
                why = f"{response.status_code}: {_error_text(response)}"
                after = response.headers.get("retry-after")
                if after and after.isdigit():
                    wait = float(after)
            if attempt == self.retries or time.monotonic() + wait > give_up:
                break
            time.sleep(wait)
        raise InfraError(f"the verification server {self.url} did not answer ({why})")


def _error_text(response: Any) -> str:
    try:
        return printable(str(response.json().get("error")), newlines=False)
    except Exception:
        return printable(response.text[:200], newlines=False)


def _raise_for(response: Any, url: str) -> None:
    code = response.status_code
    if code < 400:
        return
    text = _error_text(response)
    if code == 401:
        raise UserError(
            f"the verification server {url} refused the token ({text}): set {TOKEN_ENV}"
        )
    if code >= 500:
        raise InfraError(f"the verification server {url} failed ({code}: {text})")
    raise Refused(code, f"the verification server refused the request ({code}: {text})")


def _ref(ref: Mapping[str, Any] | str) -> dict[str, Any]:
    if isinstance(ref, str):
        return {"name": ref}
    if "name" in ref or "path" in ref or "record" in ref:
        return dict(ref)
    return {"record": dict(ref)}  # a record (or its extra_info), as verl hands it over


def _whole(problem: Problem) -> dict[str, Any]:
    return {"record": {"extra_info": problem_record(problem)}}


def _key(ref: dict[str, Any]) -> str:
    return json.dumps(ref, sort_keys=True, default=str)


def problem_ref(problem: Problem) -> dict[str, Any]:
    """How a local problem travels to the server: a problem from a record as a record
    of it (the tests in it: the server needs no copy), a problem from a folder outside
    the bundled set by its path (the server must be allowed to read it), a bundled one
    by name with its source's digest. A server that has no such problem (403, 404, 409)
    is sent the problem as a record instead (``problem_record``: its C code, its tests,
    hidden ones too, and its folder's other files: ``dataset.records.problem_bundle``)."""
    path = problem.path
    if problem.settings.record is not None or not path:
        return {"record": {"extra_info": problem_record(problem)}}
    folder = Path(str(path)).resolve()
    if folder == BUNDLED_ROOT or BUNDLED_ROOT in folder.parents:
        return {"name": problem.name, "source_sha": problem.source_hash()}
    return {"path": str(folder)}


def problem_record(problem: Problem) -> dict[str, Any]:
    """A problem's ``extra_info`` in the SuperCoder schema, the problem whole (its tests,
    hidden ones too: the server judges with them; ``problem_files``: its marks,
    generator, input model...); no prompt, so no baseline is built here."""
    visible = [t for t in problem.tests if not t.hidden]
    hidden = [t for t in problem.tests if t.hidden]

    def text(data: bytes, test: str) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise UserError(
                f"{problem.name}: test {test} is not UTF-8 text, so it cannot travel in a "
                "record: give the server the problem folder (--allow-root) instead"
            ) from None

    info: dict[str, Any] = {
        "name": problem.name,
        "split": problem.split,
        "c_code": problem.source,
        "inputs": [text(t.read_input(), t.name) for t in visible],
        "outputs": [text(t.expected, t.name) for t in visible],
        "hidden_inputs": [text(t.read_input(), t.name) for t in hidden],
        "hidden_outputs": [text(t.expected, t.name) for t in hidden],
        "test_names": [t.name for t in visible],
        "hidden_test_names": [t.name for t in hidden],
        **args_field(visible, "test_args"),  # each test's arguments, where any has some
        **args_field(hidden, "hidden_test_args"),
        "tags": [str(t) for t in problem.settings.tags],
        **problem_settings(problem),
        BUNDLE: problem_bundle(problem),  # the rest of the problem: marks, gen.py, models
    }
    record = problem.settings.record
    if record is not None and record.index is not None:
        info["index"] = record.index
    return info


@dataclass(frozen=True)
class RemoteVerifier:
    """A ``Verifier`` over a verification server: what ``ServiceVerifier`` does
    in-process (``verify_stream``), with the same configuration, verified there."""

    client: ServiceClient
    config: VerifyConfig = field(default_factory=lambda: _default_verify())
    rounds: int | None = None
    max_cpu_seconds: float | None = None
    group_size: int | None = None

    def __call__(self, problem: Problem, candidates: Sequence[Candidate]) -> Iterator[Checked]:
        if not candidates:
            return
        evaluation = self.config.eval
        if not evaluation.sandbox:
            raise UserError(
                "a verification server always uses its sandbox: drop --unsafe-no-sandbox"
            )
        began = time.monotonic()
        verdicts = self.client.check(
            problem,
            [c.asm if isinstance(c, Candidate) else c for c in candidates],
            time=evaluation.time,
            target=str(evaluation.target),
            cpu_limit=evaluation.limits.cpu_seconds,
            memory_mb=evaluation.limits.memory_mb,
            infra_retries=min(self.config.infra_retries, 5),
            rounds=self.rounds,
            max_cpu_seconds=self.max_cpu_seconds,
            group_size=self.group_size or min(len(candidates), self.config.group_size),
        )
        share = (time.monotonic() - began) / len(candidates)
        for i, verdict in enumerate(verdicts):
            yield Checked(i, verdict, share, 1)

    @property
    def timed(self) -> bool:
        return self.config.eval.time

    def staged(
        self,
        rounds: int | None = None,
        max_cpu_seconds: float | None = None,
        group_size: int | None = None,
    ) -> RemoteVerifier:
        """The same verification with its timing bounded (``verify.service.staged``)."""
        return replace(
            self,
            rounds=rounds if rounds is not None else self.rounds,
            max_cpu_seconds=max_cpu_seconds
            if max_cpu_seconds is not None
            else self.max_cpu_seconds,
            group_size=group_size if group_size is not None else self.group_size,
        )


def _default_verify() -> VerifyConfig:
    return VerifyConfig()
