"""Strategies are plugins: the registry, each strategy's own config, and the options that
name them (pure: no gcc, no sandbox, no process)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from supercoder.commands.options import CheckOptions, ModelRunConfig, StrategyOptions
from supercoder.errors import UserError
from supercoder.models.base import Sampling
from supercoder.runs.buildsearch import BuildsConfig, BuildSearch
from supercoder.runs.evolve import Evolve, EvolveConfig, StartFrom
from supercoder.runs.registry import (
    ENTRY_POINT_GROUP,
    canonical,
    make_config,
    registered,
    strategy_class,
)
from supercoder.runs.strategies import BestOfN, Refine, StrategyConfig
from supercoder.toolchain.isa import Target

SRC = Path(__file__).resolve().parents[3] / "src" / "supercoder"
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_the_builtins_are_registered_through_the_entry_point_group():
    text = PYPROJECT.read_text()
    section = text.split(f'[project.entry-points."{ENTRY_POINT_GROUP}"]', 1)[1].split("\n[", 1)[0]
    declared = dict(re.findall(r'^([\w-]+) = "([^"]+)"', section, re.M))
    assert dict(list(registered().items())[:4]) == declared  # read from there, no copy
    assert list(registered())[:4] == ["best-of-n", "refine", "evolve", "builds"]
    got = {n: strategy_class(n) for n in declared}
    assert got == {"best-of-n": BestOfN, "refine": Refine, "evolve": Evolve, "builds": BuildSearch}
    for name, cls in got.items():
        assert cls.name == name and "Fields:" in (cls.Config.__doc__ or "")


def test_unknown_strategies_and_broken_plugins_are_one_line_errors():
    with pytest.raises(UserError, match="unknown --strategy 'nope': use one of best-of-n"):
        strategy_class("nope")
    with pytest.raises(UserError, match="unknown --strategy"):
        StrategyConfig(strategy="nope")
    with pytest.raises(TypeError, match="takes a EvolveConfig"):
        StrategyConfig(strategy="evolve", config=BuildsConfig())


def test_compiler_is_an_alias_of_builds_and_each_strategy_owns_its_config():
    assert canonical("compiler") == "builds" and canonical(None) == "best-of-n"
    assert StrategyConfig(strategy="compiler").strategy == "builds"
    assert isinstance(StrategyConfig(strategy="evolve").config, EvolveConfig)
    assert isinstance(StrategyConfig(strategy="builds").config, BuildsConfig)
    assert StrategyConfig().config.__class__.__name__ == "BestOfNConfig"
    assert StartFrom("compiler") is StartFrom.BUILDS  # --start-from's older word


def test_stored_settings_are_what_runs_stored_before():
    """A run's identity: best-of-n and the build search add no key, refine its name, evolve
    its knobs under their older names (stored runs resume)."""
    common = StrategyConfig(Sampling(n=3)).flat()
    assert "strategy" not in common and "evolve" not in common
    assert StrategyConfig(Sampling(n=64), strategy="builds").flat() == {
        **StrategyConfig(Sampling(n=64)).flat()
    }
    assert StrategyConfig(strategy="refine").flat()["strategy"] == "refine"
    evolve = StrategyConfig(strategy="evolve", config=EvolveConfig(start_from="builds")).flat()
    assert evolve["strategy"] == "evolve"
    assert (
        evolve["evolve"]["start_from"] == "compiler" and evolve["evolve"]["compiler"] == "compiler"
    )


@dataclass(frozen=True)
class _Knobs:
    """Fields:
    depth: how deep.
    ratio: a share.
    name: a word.
    on: a switch.
    cap: a cap (None: none).
    """

    depth: int = 1
    ratio: float = 0.5
    name: str = "x"
    on: bool = False
    cap: int | None = None


def test_make_config_reads_text_values_by_field_type():
    got = make_config(_Knobs, {"depth": "3", "ratio": "0.25", "on": "true", "cap": "none"})
    assert got == _Knobs(3, 0.25, "x", True, None)
    assert make_config(_Knobs, {"cap": "7"}, _Knobs(depth=2)) == _Knobs(depth=2, cap=7)
    with pytest.raises(UserError, match="no option 'deep' \\(its options: depth, ratio"):
        make_config(_Knobs, {"deep": "1"})
    with pytest.raises(UserError, match="depth='x'"):
        make_config(_Knobs, {"depth": "x"})
    with pytest.raises(UserError, match="yes/no"):
        make_config(_Knobs, {"on": "maybe"})


def _plan(**kw) -> tuple[str, list[str], StrategyConfig, str]:
    flagged = {f.name for f in dataclasses.fields(StrategyOptions)}
    own = StrategyOptions(**{k: kw.pop(k) for k in list(kw) if k in flagged})
    o = ModelRunConfig(**kw, own=own)
    name, specs, _ = o.plan()
    settings = o.strategy_config(specs)
    return name, specs, settings, o.run_model(specs, settings)


def test_the_options_name_a_strategy_and_the_older_spelling_still_works():
    name, specs, settings, model = _plan()  # no --model: the build search
    assert (name, specs, model, settings.samples) == ("builds", [], "compiler", 64)
    x86_64 = CheckOptions(isa_target=Target.X86_64)
    new = _plan(strategy="builds", budget=4.0, checks=x86_64)
    old = _plan(model=["compiler:budget=4"], checks=x86_64)
    older = _plan(model=["compiler:budget=4,target=x86-64"])
    assert new[2] == old[2] == older[2] and new[3] == old[3] == older[3]
    assert new[3] == "compiler:budget=4,target=x86-64"  # as runs were named: they resume
    assert new[2].config == BuildsConfig(4.0) and new[2].target == "x86-64"
    fixed = _plan(model=["compiler:native,O2"])[2]
    assert fixed.config == BuildsConfig(None, "native,O2") and fixed.samples == 2
    assert _plan(strategy="builds", strategy_option=["budget=9"])[2].config == BuildsConfig(9)
    assert _plan(model=["openai:m"])[0] == "best-of-n"
    evolve = _plan(model=["openai:m"], strategy="evolve", strategy_option=["bandit_c=0.9"])[2]
    assert evolve.config == EvolveConfig(bandit_c=0.9)


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"strategy": "evolve"}, "--strategy evolve needs a model that reads feedback"),
        ({"model": ["compiler"], "strategy": "refine"}, "--strategy refine needs a model"),
        ({"model": ["openai:m"], "strategy": "builds"}, "--strategy builds asks no model"),
        ({"model": ["openai:m"], "budget": 3.0}, "--budget applies to --strategy builds only"),
        ({"model": ["openai:a", "openai:b"]}, "several --model need --strategy evolve"),
        ({"strategy": "builds", "strategy_option": ["budget"]}, "use KEY=VALUE"),
        ({"strategy": "builds", "strategy_option": ["depth=2"]}, "no option 'depth'"),
        ({"strategy": "nope"}, "unknown --strategy 'nope'"),
    ],
)
def test_options_that_do_not_fit_are_refused_in_one_line(kw, says):
    with pytest.raises(UserError, match=re.escape(says)):
        _plan(**kw)


def test_compiler_is_named_only_by_the_build_search_and_the_registry():
    """The build search is no model: its older name is spelled in its own module and the
    registry, nowhere else in the source."""
    allowed = {*(SRC / "runs" / "buildsearch").glob("*.py"), SRC / "runs" / "registry.py"}
    found = [
        f"{p.relative_to(SRC)}:{n}"
        for p in sorted(SRC.rglob("*.py"))
        if p not in allowed
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"[\"']compiler", line)
    ]
    assert found == []
    assert not (SRC / "models" / "compiler.py").exists()


def test_search_gives_a_strategy_as_many_models_as_it_asks():
    from supercoder.models.scripted import ScriptedModel
    from supercoder.runs.dispatch import search
    from supercoder.types import Problem

    problem = Problem("p", "int main(void) { return 0; }\n", ())
    model = ScriptedModel(lambda messages, i: "never asked")
    with pytest.raises(UserError, match="--strategy builds asks no model"):
        search(problem, [model], StrategyConfig(strategy="builds"))
    with pytest.raises(UserError, match="--strategy refine needs a model"):
        search(problem, [], StrategyConfig(strategy="refine"))
    with pytest.raises(UserError, match="several --model need --strategy evolve"):
        search(problem, [model, model], StrategyConfig())
