"""Providers are found through the ``supercoder.providers`` entry-point group."""

from __future__ import annotations

import sys
import textwrap

import pytest

from supercoder.errors import UserError
from supercoder.models import ProviderConfig, Sampling, load_model, providers

PLUGIN = '''
from supercoder.models.base import DEFAULT_SAMPLING, Completion


class EchoModel:
    """A third-party provider: answers with its target and the last message."""

    def __init__(self, name, settings):
        self.name = name
        self.settings = settings

    @classmethod
    def from_spec(cls, target, settings):
        return cls(f"echo:{target}", settings)

    def complete(self, messages, sampling=DEFAULT_SAMPLING, context=None):
        text = f"{self.name} {messages[-1]['content']}"
        return [Completion(text, self.name) for _ in range(sampling.n)]
'''


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A real installed distribution (dist-info with entry_points.txt) on sys.path."""
    (tmp_path / "sc_echo_plugin.py").write_text(PLUGIN)
    info = tmp_path / "sc_echo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sc-echo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent("""\
        [supercoder.providers]
        echo = sc_echo_plugin:EchoModel
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("sc_echo_plugin", None)


def test_builtin_providers_are_listed():
    assert {"compiler", "openai", "anthropic", "hf"} <= set(providers())


def test_a_plugin_provider_is_loaded_from_its_entry_point(installed_plugin):
    assert providers()["echo"] == "sc_echo_plugin:EchoModel"
    model = load_model("echo:big", base_url="http://127.0.0.1:9", timeout=7, cache=False)
    assert model.settings == ProviderConfig(base_url="http://127.0.0.1:9", timeout=7)
    [answer] = model.complete([{"role": "user", "content": "hi"}])
    assert answer.text == "echo:big hi"
    assert len(model.complete([{"role": "user", "content": "hi"}], Sampling(n=3))) == 3


def test_unknown_provider_lists_the_known_ones(installed_plugin):
    with pytest.raises(UserError, match="echo:MODEL"):
        load_model("nosuch:model")
