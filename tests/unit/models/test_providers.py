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
    assert {"openai", "anthropic", "hf"} <= set(providers())
    assert "compiler" not in providers()  # the build search is a strategy, not a model


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


def _install(tmp_path, monkeypatch, module: str, source: str, entry: str) -> None:
    """``source`` as module ``module``, registered under the providers group as ``entry``."""
    (tmp_path / f"{module}.py").write_text(source)
    info = tmp_path / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[supercoder.providers]\n{entry}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_the_docs_plugin_example_runs_as_written(tmp_path, monkeypatch):
    from pathlib import Path

    docs = Path(__file__).resolve().parents[3] / "docs"
    example = (docs / "examples" / "my_model.py").read_text()
    assert f"```python\n{example}```" in (docs / "models.md").read_text()  # shown verbatim
    _install(tmp_path, monkeypatch, "my_model", example, "mine = my_model:MyModel")
    model = load_model("mine:big", cache=False)
    answers = model.complete([{"role": "user", "content": "hi"}], Sampling(n=2, seed=5))
    assert model.name == "mine:big" and [a.model for a in answers] == ["mine:big"] * 2
    assert "sample 6" in answers[1].text
    cached = load_model("mine:big")  # wrapped in the response cache, like any provider
    assert cached.complete([{"role": "user", "content": "hi"}])[0].text.startswith(
        "```assembly\n# mine:big, sample 0"
    )


def test_a_plugin_without_from_spec_is_refused_in_one_line(tmp_path, monkeypatch):
    only_complete = (
        "class Bare:\n"
        "    name = 'bare'\n"
        "    def complete(self, messages, sampling=None, context=None):\n"
        "        return []\n"
    )
    _install(tmp_path, monkeypatch, "sc_bare_plugin", only_complete, "bare = sc_bare_plugin:Bare")
    with pytest.raises(UserError) as e:
        load_model("bare:x", cache=False)
    assert "no from_spec(target, config)" in str(e.value) and "\n" not in str(e.value)
    no_name = only_complete.replace("    name = 'bare'\n", "") + (
        "    @classmethod\n    def from_spec(cls, target, config):\n        return cls()\n"
    )
    second = tmp_path / "second"
    second.mkdir()
    _install(second, monkeypatch, "sc_noname_plugin", no_name, "noname = sc_noname_plugin:Bare")
    with pytest.raises(UserError, match="without name"):
        load_model("noname:x", cache=False)


def test_the_builtin_providers_are_registered_in_the_entry_point_group():
    import tomllib
    from pathlib import Path

    from supercoder.models.providers import ENTRY_POINT_GROUP, providers

    pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert dict(list(providers().items())[: len(declared)]) == declared  # read from there
