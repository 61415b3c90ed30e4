"""``--config RUN.TOML``: a command's option groups read from a TOML run file, the
command line overriding it (``optionset.with_groups`` / ``apply_run_file``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import typer
from typer.testing import CliRunner

from supercoder.commands.optionset import flags, with_groups
from supercoder.errors import UserError


class Mode(StrEnum):
    FAST = "fast"
    SLOW = "slow"


@dataclass(frozen=True)
class Knobs:
    """Test knobs.

    Fields:
        count: how many.
        mode: how.
        where: a folder.
        names: repeatable names.
        rate: a rate.
    """

    count: int = field(default=1, metadata=flags("--count", min=1))
    mode: Mode = Mode.FAST
    where: Path | None = None
    names: list[str] = field(default_factory=list, metadata=flags("--name"))
    rate: float = field(default=1.0, metadata=flags("--rate", min=0.0))


@dataclass(frozen=True)
class Switches:
    """Test switches.

    Fields:
        loud: say more.
    """

    loud: bool = False


def _app(seen: list) -> typer.Typer:
    app = typer.Typer()

    @with_groups(knobs=Knobs, switches=Switches)
    def cmd(label: str = "x", *, knobs: Knobs, switches: Switches) -> None:
        seen.append((label, knobs, switches))

    app.command()(cmd)
    app.command("other")(lambda: None)  # two commands: typer keeps the name
    return app


def _run(tmp_path: Path, toml: str, *args: str):
    seen: list = []
    (tmp_path / "run.toml").write_text(toml)
    result = CliRunner().invoke(_app(seen), ["cmd", "--config", str(tmp_path / "run.toml"), *args])
    return result, seen


def test_the_run_file_sets_every_kind_of_option(tmp_path):
    toml = (
        'label = "from-file"\ncount = 3\nmode = "slow"\nwhere = "out"\nnames = ["a", "b"]\n'
        "[switches]\nloud = true\n"
    )
    result, seen = _run(tmp_path, toml)
    assert result.exit_code == 0, result.output
    ((label, knobs, switches),) = seen
    assert label == "from-file"
    assert knobs == Knobs(3, Mode.SLOW, Path("out"), ["a", "b"], 1.0)
    assert knobs.mode is Mode.SLOW and isinstance(knobs.where, Path)
    assert switches.loud is True


def test_flags_on_the_command_line_override_the_file(tmp_path):
    result, seen = _run(tmp_path, "count = 3\n", "--count", "5")
    assert result.exit_code == 0, result.output
    assert seen[0][1].count == 5


def test_a_dashed_key_and_a_group_table_name_the_same_option(tmp_path):
    result, seen = _run(tmp_path, "[knobs]\ncount = 4\n")
    assert result.exit_code == 0, result.output
    assert seen[0][1].count == 4


def test_an_unknown_key_or_a_bad_value_is_refused_naming_it(tmp_path):
    result, _ = _run(tmp_path, "colour = 1\n")
    assert isinstance(result.exception, UserError)
    assert "'colour' is not an option" in str(result.exception)
    assert "count" in str(result.exception)  # it lists the keys it knows
    result, _ = _run(tmp_path, "count = 0\n")
    assert isinstance(result.exception, UserError) and "count" in str(result.exception)
    result, _ = _run(tmp_path, 'mode = "medium"\n')
    assert isinstance(result.exception, UserError) and "medium" in str(result.exception)
    result, _ = _run(tmp_path, "[knobs]\nloud = true\n")
    assert isinstance(result.exception, UserError) and "[knobs]" in str(result.exception)


def test_a_file_that_is_not_toml_is_one_line(tmp_path):
    result, _ = _run(tmp_path, "count = = 3\n")
    assert isinstance(result.exception, UserError)
    assert "not a TOML run file" in str(result.exception)


def test_a_key_may_be_the_long_flag_spelled_otherwise_than_the_field(tmp_path):
    result, seen = _run(tmp_path, 'name = ["a", "b"]\n')  # --name, field ``names``
    assert result.exit_code == 0, result.output
    assert seen[0][1].names == ["a", "b"]


def test_a_number_that_is_not_finite_is_refused_as_on_the_command_line(tmp_path):
    result, seen = _run(tmp_path, "rate = 0.5\n")
    assert result.exit_code == 0 and seen[0][1].rate == 0.5
    result, _ = _run(tmp_path, "rate = inf\n")
    assert isinstance(result.exception, UserError)
    assert "inf is not a number" in str(result.exception)
