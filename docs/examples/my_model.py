"""A provider plugin: ``--model mine:TARGET`` once a package declares
``[project.entry-points."supercoder.providers"] mine = "my_model:MyModel"``."""

from __future__ import annotations

from supercoder.models import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling


class MyModel:
    def __init__(self, name: str, config: ProviderConfig) -> None:
        self.name = name  # the spec, e.g. "mine:big"
        self.config = config

    @classmethod
    def from_spec(cls, target: str, config: ProviderConfig) -> MyModel:
        # target: what follows "mine:"; config: base URL, API key, concurrency, timeout
        return cls(f"mine:{target}", config)

    def complete(self, messages, sampling: Sampling = DEFAULT_SAMPLING, context=None):
        # sampling.n answers; sample i seeded sampling.seed + i; also .temperature, .max_tokens
        # context: the Problem (None when only the messages are known)
        texts = [
            f"```assembly\n# {self.name}, sample {sampling.seed + i}\n```"
            for i in range(sampling.n)
        ]
        return [Completion(text, self.name) for text in texts]
