"""Model clients against real HTTP servers on loopback, the response cache, load_model.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_models.py."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import threading
from dataclasses import replace

import pytest

from supercoder.errors import UserError
from supercoder.models import DEFAULT_SAMPLING, Completion, Model, Sampling, load_model
from supercoder.models.cache import CachedModel, ResponseCache, cache_key
from supercoder.models.http import cost_usd
from supercoder.models.openai_api import OpenAIModel
from supercoder.models.scripted import ScriptedModel
from supercoder.runs.buildsearch.records import BuildProvenance
from tests.integration.test_models import MESSAGES  # noqa: F401


def test_missing_key_for_the_real_services_is_a_user_error():
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        load_model("openai:gpt-4o")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        load_model("anthropic:claude-sonnet-4-20250514")


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
