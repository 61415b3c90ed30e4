"""A strategy's own flags come from its ``Config`` (issue 43): evolve's and the build
search's included, the older spellings still read, stored run files of other strategies
resumed."""

from __future__ import annotations

import dataclasses

import pytest

from supercoder.commands.eval import _own_only
from supercoder.commands.options import ModelRunConfig, StrategyOptions
from supercoder.errors import UserError
from supercoder.runs.buildsearch import BuildsConfig
from supercoder.runs.evolve import EvolveConfig, StartFrom


def _settings(own: dict, **kw):
    o = ModelRunConfig(**kw, own=StrategyOptions(**own))
    return o.strategy_config(o.specs())


def test_every_config_field_of_a_builtin_is_a_flag_of_its_own():
    flagged = {f.name for f in dataclasses.fields(StrategyOptions)}
    evolve = {f.name for f in dataclasses.fields(EvolveConfig)}
    assert evolve <= flagged and {"budget", "builds"} <= flagged


def test_the_flags_reach_the_config_over_strategy_options_and_old_spellings():
    evolve = dict(model=["openai:m"], strategy="evolve")
    got = _settings(
        {"generation": 3, "start_from": "compiler"},
        **evolve,
        strategy_option=["generation=5", "bandit_c=0.9"],
    )
    assert got.config == EvolveConfig(generation=3, start_from=StartFrom.BUILDS, bandit_c=0.9)
    builds = _settings({"budget": 4.0, "builds": "native"}, strategy="builds")
    assert builds.config == BuildsConfig(4.0, "native") and builds.samples == 1
    older = _settings({"budget": 2.0}, model=["compiler:budget=9"])  # the flag wins
    assert older.config == BuildsConfig(2.0)
    with pytest.raises(UserError, match="--generation applies to --strategy evolve only"):
        _settings({"generation": 3}, model=["openai:m"])
    with pytest.raises(UserError, match="start_from='nowhere'"):
        _settings({"start_from": "nowhere"}, **evolve)


def test_a_stored_run_file_keeps_only_its_own_strategys_options():
    """Run files once kept evolve's knobs at their defaults for every run."""
    kept = {"model": ["openai:m"], "generation": 2, "islands": 2, "start_from": "baseline"}
    kept |= {"max_cost": 1.0, "temperature": 0.5}
    assert _own_only(kept) == {"model": ["openai:m"], "temperature": 0.5}
    evolve = {**kept, "strategy": "evolve"}
    assert _own_only(evolve) == evolve
