"""Model clients against real HTTP servers on loopback, the response cache, load_model."""

from __future__ import annotations

import threading
import time

import pytest

from supercoder.errors import InfraError
from supercoder.models import Sampling, load_model
from supercoder.models.anthropic_api import AnthropicModel
from supercoder.models.cache import CachedModel
from supercoder.models.http import RequestRejected, RetryPolicy
from supercoder.models.openai_api import OpenAIModel, with_v1
from tests.fakes.servers import Reply, anthropic_server, openai_server

FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
MESSAGES = [{"role": "system", "content": "be terse"}, {"role": "user", "content": "make it fast"}]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERCODER_CACHE", str(tmp_path / "cache"))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def echo_last(messages, request):
    return f"answer to: {messages[-1]['content']}"


def test_openai_completion_usage_and_request_body():
    with openai_server(echo_last) as url:
        model = load_model("openai:gpt-4o", base_url=url, api_key="k", cache=False)
        [c] = model.complete(MESSAGES, Sampling(temperature=0.3, max_tokens=77, seed=5))
    assert c.text == "answer to: make it fast"
    assert (c.model, c.prompt_tokens, c.completion_tokens) == ("openai:gpt-4o", 5, 5)
    assert c.cost_usd == pytest.approx((5 * 2.50 + 5 * 10.00) / 1e6)
    assert c.finish_reason == "stop" and not c.cached
    body = url.requests[0]
    assert body["messages"] == MESSAGES and body["model"] == "gpt-4o"
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 77, 5)
    assert "n" not in body
    assert url.headers[0]["authorization"] == "Bearer k"


def test_openai_n_in_one_request_and_token_split():
    counter = iter(range(100))
    with openai_server(lambda m, r: f"sample {next(counter)} here") as url:
        model = OpenAIModel("local-model", base_url=url)
        out = model.complete(MESSAGES, Sampling(n=3))
    assert [c.text for c in out] == ["sample 0 here", "sample 1 here", "sample 2 here"]
    assert len(url.requests) == 1 and url.requests[0]["n"] == 3
    assert sum(c.prompt_tokens for c in out) == 5 and sum(c.completion_tokens for c in out) == 9
    assert all(c.cost_usd is None for c in out)  # unknown model: no price
    assert "authorization" not in url.headers[0]  # no key for a local server


def test_openai_server_ignoring_n_falls_back_to_one_request_per_sample():
    with openai_server(lambda m, r: f"seed {r['seed']}", supports_n=False) as url:
        out = OpenAIModel("m", base_url=url).complete(MESSAGES, Sampling(n=3, seed=10))
    assert sorted(c.text for c in out) == ["seed 10", "seed 11", "seed 12"]
    assert len(url.requests) == 3


def test_openai_base_url_from_env_without_v1(monkeypatch):
    with openai_server(echo_last) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url.removesuffix("/v1"))
        monkeypatch.setenv("OPENAI_API_KEY", "env-key")
        [c] = load_model("openai:m", cache=False).complete(MESSAGES)
    assert c.text.startswith("answer to")
    assert url.headers[0]["authorization"] == "Bearer env-key"
    assert with_v1("http://h:8000/") == "http://h:8000/v1"
    assert with_v1("https://api.together.xyz/v1") == "https://api.together.xyz/v1"


def test_retry_after_429_then_success():
    calls = []

    def responder(messages, request):
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Reply(429, headers={"Retry-After": "1"})
        return "ok now"

    with openai_server(responder) as url:
        [c] = OpenAIModel("m", base_url=url, retry=FAST).complete(MESSAGES)
    assert c.text == "ok now"
    assert len(calls) == 2
    assert calls[1] - calls[0] >= 0.9  # honoured Retry-After rather than the 10 ms backoff


def test_server_error_forever_is_infra_error_after_bounded_attempts():
    with openai_server(lambda m, r: Reply(500)) as url:
        model = OpenAIModel("m", base_url=url, retry=FAST)
        with pytest.raises(InfraError, match="3 attempts"):
            model.complete(MESSAGES)
    assert len(url.requests) == 3


def test_client_error_is_not_retried():
    with (
        openai_server(
            lambda m, r: Reply(400, body={"error": {"message": "prompt too long"}})
        ) as url,
        pytest.raises(RequestRejected, match="prompt too long"),
    ):
        OpenAIModel("m", base_url=url, retry=FAST).complete(MESSAGES)
    assert len(url.requests) == 1


def test_connection_refused_is_infra_error():
    with openai_server(echo_last) as url:
        dead = str(url)
    with pytest.raises(InfraError, match="ConnectError"):
        OpenAIModel("m", base_url=dead, retry=FAST).complete(MESSAGES)


def test_anthropic_messages_api():
    with anthropic_server(echo_last) as url:
        model = AnthropicModel("claude-sonnet-4-20250514", base_url=url, api_key="sk", retry=FAST)
        out = model.complete(MESSAGES, Sampling(n=2, temperature=1.5, max_tokens=99))
    assert [c.text for c in out] == ["answer to: make it fast"] * 2
    assert len(url.requests) == 2
    body = url.requests[0]
    assert body["system"] == "be terse"
    assert body["messages"] == [{"role": "user", "content": "make it fast"}]
    assert (body["max_tokens"], body["temperature"]) == (99, 1.0)
    assert url.headers[0]["x-api-key"] == "sk" and url.headers[0]["anthropic-version"]
    c = out[0]
    assert (c.prompt_tokens, c.completion_tokens, c.finish_reason) == (5, 5, "end_turn")
    assert c.cost_usd == pytest.approx((5 * 3 + 5 * 15) / 1e6)


def test_anthropic_env_and_retry(monkeypatch):
    replies = iter([Reply(529, headers={"retry-after-ms": "10"}), "fine"])
    with anthropic_server(lambda m, r: next(replies)) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "env")
        [c] = load_model("anthropic:claude-x", cache=False).complete(MESSAGES)
    assert c.text == "fine" and len(url.requests) == 2


def test_cache_hit_makes_no_second_request():
    with openai_server(echo_last) as url:
        model = load_model("openai:m", base_url=url)
        first = model.complete(MESSAGES, Sampling(n=2, seed=1))
        second = model.complete(MESSAGES, Sampling(n=2, seed=1))
        other = model.complete(MESSAGES, Sampling(n=1, seed=1, temperature=0.1))
    assert len(url.requests) == 2  # the first call and the different temperature
    assert [c.cached for c in first] == [False, False]
    assert [c.cached for c in second] == [True, True]
    assert [c.text for c in second] == [c.text for c in first]
    assert not other[0].cached


def test_concurrency_limit_bounds_requests_in_flight():
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def slow(messages, request):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return "x"

    with openai_server(slow, supports_n=False) as url:
        model = OpenAIModel("m", base_url=url, concurrency=2)
        threads = [threading.Thread(target=model.complete, args=(MESSAGES,)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(url.requests) == 6 and state["peak"] == 2


# the torch test: a tiny Qwen2 generates (seconds of CPU: the integration tier)
def test_hf_tiny_local_model_generates(tmp_path, monkeypatch):
    from tests.unit.models.test_models import tiny_hf_model

    monkeypatch.setenv("SUPERCODER_HF_ENGINE", "transformers")
    tokenizer = tiny_hf_model(tmp_path / "tiny")
    from supercoder.models.hf import HFModel, render_prompt

    prompt = render_prompt(tokenizer, MESSAGES)
    assert prompt == "<|system|> be terse <|user|> make it fast <|assistant|> "
    prompt_tokens = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    assert prompt_tokens > 3

    model = load_model(f"hf:{tmp_path / 'tiny'}")
    assert isinstance(model, CachedModel) and isinstance(model.inner, HFModel)
    first = model.complete(MESSAGES, Sampling(n=2, temperature=1.0, max_tokens=6, seed=3))
    assert len(first) == 2 and not any(c.cached for c in first)
    assert (first[0].prompt_tokens, first[1].prompt_tokens) == (prompt_tokens, 0)
    for c in first:
        assert 1 <= c.completion_tokens <= 6 and c.model == f"hf:{tmp_path / 'tiny'}"
        assert isinstance(c.text, str)
    assert first[0].text != first[1].text  # different seeds
    # seed + i is reproducible: sample 1 of seed 3 is sample 0 of seed 4
    inner = HFModel(str(tmp_path / "tiny"))
    [again] = inner.complete(MESSAGES, Sampling(temperature=1.0, max_tokens=6, seed=4))
    assert again.text == first[1].text
    again = model.complete(MESSAGES, Sampling(n=2, temperature=1.0, max_tokens=6, seed=3))
    assert [c.cached for c in again] == [True, True]
    greedy = inner.complete(MESSAGES, Sampling(n=2, temperature=0.0, max_tokens=4))
    assert greedy[0].text == greedy[1].text
