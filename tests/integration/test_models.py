"""Model clients against real HTTP servers on loopback, the response cache, load_model."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import threading
import time
from dataclasses import replace

import pytest

from supercoder.errors import InfraError, UserError
from supercoder.models import DEFAULT_SAMPLING, Completion, Model, Sampling, load_model
from supercoder.models.anthropic_api import AnthropicModel
from supercoder.models.cache import CachedModel, ResponseCache, cache_key
from supercoder.models.http import RequestRejected, RetryPolicy, cost_usd
from supercoder.models.openai_api import OpenAIModel, with_v1
from supercoder.models.scripted import ScriptedModel
from supercoder.types import BuildProvenance
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


def test_missing_key_for_the_real_services_is_a_user_error():
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        load_model("openai:gpt-4o")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        load_model("anthropic:claude-sonnet-4-20250514")


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


def test_cache_asks_only_for_missing_samples(tmp_path):
    inner = ScriptedModel(lambda m, i: f"sample {i}")
    model = CachedModel(inner, ResponseCache(tmp_path / "r.sqlite"))
    model.complete(MESSAGES, Sampling(n=2, seed=3))
    out = model.complete(MESSAGES, Sampling(n=4, seed=3))
    assert [c.text for c in out] == ["sample 3", "sample 4", "sample 5", "sample 6"]
    assert [c.cached for c in out] == [True, True, False, False]
    assert len(inner.calls) == 2
    # a second process (a new cache object on the same file) sees the same answers
    again = CachedModel(ScriptedModel(lambda m, i: "never"), ResponseCache(tmp_path / "r.sqlite"))
    assert [c.text for c in again.complete(MESSAGES, Sampling(n=4, seed=3))] == [
        c.text for c in out
    ]


def test_cache_keys_are_those_of_caches_written_before_sampling_settings(tmp_path):
    """The key of (identity, messages, temperature, max_tokens, index, seed) is unchanged,
    and does not depend on ``n``: an answer a cache file already holds is found again."""
    messages = [{"role": "user", "content": "make it fast"}]
    old_key = "5503d6cc22e62547424fe2746f4dbccfd10b24fcc48aa8346a7b5b0bfbcd8203"  # pre-Sampling
    for n in (1, 2, 5):
        sampling = Sampling(n=n, temperature=0.5, max_tokens=100, seed=7)
        assert cache_key("openai:m@http://x/v1", messages, sampling, 1) == old_key
    path = tmp_path / "r.sqlite"
    ResponseCache(path)  # creates the table, as every version did
    stored = json.dumps({"text": "old answer", "model": "scripted", "prompt_tokens": 3})
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO responses VALUES (?, ?, ?, ?)", (old_key, "scripted", stored, 0.0))
    inner = ScriptedModel(lambda m, i: f"fresh {i}", name="openai:m")
    inner.cache_identity = "openai:m@http://x/v1"
    model = CachedModel(inner, ResponseCache(path))
    out = model.complete(messages, Sampling(n=2, temperature=0.5, max_tokens=100, seed=7))
    assert [(c.text, c.cached) for c in out] == [("fresh 7", False), ("old answer", True)]
    assert out[1].prompt_tokens == 3 and len(inner.calls) == 1


def test_a_cached_answer_keeps_its_origin_and_old_records_with_meta_read(tmp_path):
    """The cache keeps what a model said of its answer (``Completion.origin``); a record
    kept before the origin was typed carries it as ``meta`` and reads the same."""
    path, sampling = tmp_path / "r.sqlite", Sampling(n=1, seed=0)
    old = {
        "text": "old build",
        "model": "compiler:gcc -O2",
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": None,
        "cached": False,
        "finish_reason": None,
        "meta": {"build": "gcc -O2", "family": "gcc", "flags": ["-O2"], "note": "kept"},
    }
    ResponseCache(path)
    key = cache_key("compiler:gcc -O2", MESSAGES, sampling, 0)
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO responses VALUES (?, ?, ?, ?)", (key, "m", json.dumps(old), 0.0))
    inner = ScriptedModel(lambda m, i: "never", name="compiler:gcc -O2")
    inner.cache_identity = "compiler:gcc -O2"
    [got] = CachedModel(inner, ResponseCache(path)).complete(MESSAGES, sampling)
    assert got.cached and got.text == "old build"
    build = got.origin.provenance  # an old cache's flat build keys, read typed
    assert isinstance(build, BuildProvenance)
    assert (build.build, build.family, build.flags) == ("gcc -O2", "gcc", ("-O2",))
    assert dict(got.origin.extra) == {"note": "kept"}
    cache = ResponseCache(path)
    cache.put("new", replace(got, cached=False, text="again"))
    again = cache.get("new")
    assert again is not None and again.origin == got.origin and again.text == "again"


def test_cache_is_safe_across_threads(tmp_path):
    model = CachedModel(ScriptedModel(lambda m, i: f"s{i}"), ResponseCache(tmp_path / "r.sqlite"))
    results: list[list[Completion]] = []

    def work(k):
        results.append(model.complete([{"role": "user", "content": f"q{k % 3}"}], Sampling(n=2)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 12 and all([c.text for c in r] == ["s0", "s1"] for r in results)


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


def test_load_model_specs(monkeypatch):
    monkeypatch.delenv("SUPERCODER_MODEL", raising=False)
    for none in ((), (None,), ("compiler",)):  # the build search is no model: a strategy
        with pytest.raises(UserError, match="--strategy builds"):
            load_model(*none)
    monkeypatch.setenv("SUPERCODER_MODEL", "openai:from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9")
    assert load_model().name == "openai:from-env"
    assert isinstance(load_model("openai:m", cache=False), OpenAIModel)
    for bad in ("gemini:x", "openai:", "nonsense"):
        with pytest.raises(UserError, match="unknown model spec"):
            load_model(bad)


def test_scripted_model_is_a_model():
    model = ScriptedModel(lambda messages, i: f"{messages[-1]['content']} #{i}")
    assert isinstance(model, Model)
    out = model.complete(MESSAGES, Sampling(n=2, seed=7))
    assert [c.text for c in out] == ["make it fast #7", "make it fast #8"]
    assert model.calls == [MESSAGES]


def test_deadline_passes_the_sampling_settings_and_the_problem_on():
    from supercoder.models.deadline import Deadline
    from supercoder.types import Problem

    seen = []

    class Recording(ScriptedModel):
        def complete(self, messages, sampling=DEFAULT_SAMPLING, context=None):
            seen.append((sampling, context))
            return super().complete(messages, sampling, context)

    problem = Problem("p", "int main(void){return 0;}\n", ())
    model = Deadline(Recording(lambda m, i: f"s{i}"), seconds=30)
    out = model.complete(MESSAGES, Sampling(n=2, temperature=0.2, max_tokens=9, seed=4), problem)
    assert [c.text for c in out] == ["s4", "s5"]
    assert seen == [(Sampling(n=2, temperature=0.2, max_tokens=9, seed=4), problem)]


def test_price_table_prefix_match():
    assert cost_usd("claude-opus-4-20250514", 1_000_000, 0) == pytest.approx(15.0)
    assert cost_usd("gpt-4o-mini-2024-07-18", 0, 1_000_000) == pytest.approx(0.60)
    assert cost_usd("Qwen/Qwen2.5-Coder-7B-Instruct", 10, 10) is None


CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)


def tiny_hf_model(folder):
    """A randomly initialised Qwen2-architecture model and a byte-level BPE tokenizer
    trained on a few strings, with a chat template, saved like a hub checkpoint."""
    transformers = pytest.importorskip("transformers", reason="needs the hf extra")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    specials = ["<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>"]
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    corpus = ["movl $1, %eax", "addl %ebx, %eax", "main:\n\tret", "make it fast", "be terse"]
    core.train_from_iterator(corpus * 20, trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token="<|endoftext|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    config = transformers.Qwen2Config(
        vocab_size=core.get_vocab_size(),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        eos_token_id=0,
        pad_token_id=0,
    )
    transformers.set_seed(0)
    transformers.Qwen2ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return transformers.AutoTokenizer.from_pretrained(folder)


def test_hf_tiny_local_model_generates(tmp_path, monkeypatch):
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


def test_hf_missing_model_is_a_user_error(tmp_path, monkeypatch):
    pytest.importorskip("transformers", reason="needs the hf extra")
    monkeypatch.setenv("SUPERCODER_HF_ENGINE", "transformers")
    with pytest.raises(UserError, match="cannot load"):
        load_model(f"hf:{tmp_path / 'nothing-here'}", cache=False)


def test_hf_engine_choice_is_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERCODER_HF_ENGINE", "tensorflow")
    with pytest.raises(UserError, match="vllm or transformers"):
        load_model(f"hf:{tmp_path}", cache=False)
    if importlib.util.find_spec("vllm") is None:
        monkeypatch.setenv("SUPERCODER_HF_ENGINE", "vllm")
        with pytest.raises(UserError, match="pip install vllm"):
            load_model(f"hf:{tmp_path}", cache=False)
