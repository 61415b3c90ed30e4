"""Typer options made from a frozen ``*Config`` dataclass, so an option is declared once.

``with_config(Cls, "name")`` decorates a command whose parameter ``name`` is a ``Cls``:
typer sees one option per field of ``Cls`` (after the command's own parameters), and
the command receives the ``Cls`` built from them. Each option's

- flags: ``field(metadata=flags("--samples", "-n", min=1))``, else ``--field-name``
  (a bool defaulting to False is a bare flag, one defaulting to True ``--x/--no-x``);
- help: the field's line in the class docstring's ``Fields:`` list (the docstring the
  house rules require), so help and docs cannot drift apart;
- default: the field's own default, shown by typer from the value itself; a field whose
  default is None says what None means (``flags(..., shown="1; compiler: 64 builds")``)
  or reads ``none``, an unset flag reads ``off``.

``plain_defaults`` makes every option of a command tree print such a worded default as
it is (``[default: 120]``), where typer would wrap it in parentheses.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import inspect
import json
import math
import re
import sys
import tomllib
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.markup import escape
from typer.core import TyperArgument, TyperOption

from supercoder.errors import UserError, read_regular


def flags(
    *names: str | typer.models.OptionInfo, shown: str | None = None, **option: Any
) -> dict[str, Any]:
    """A field's ``metadata``: its option names (or the shared option it takes, as
    ``declare`` made it: ``flags(TARGET)``), what its None default means (``shown``) and
    further ``typer.Option`` keywords (``min``, ``max``...)."""
    shared = [n for n in names if isinstance(n, typer.models.OptionInfo)]
    if shared:
        return {"declared": shared[0], "shown": shown, "option": option}
    return {"flags": names, "shown": shown, "option": option}


_DECLARED: dict[str, typer.models.OptionInfo] = {}


def declare(*names: str, help: str, **option: Any) -> typer.models.OptionInfo:
    """Declare a shared option once: its flags, its one help text and its typer keywords
    (``min``...), for ``Annotated[T, DECLARED]`` in any command and for any ``*Config``
    field whose long flag it is (``config_params`` uses it in place of the field's own
    text). Its ``site`` is where it was declared; a long flag declared twice is refused."""
    caller = sys._getframe(1)  # the declaring line (inspect.stack reads every frame's source)
    module = caller.f_globals.get("__name__", "?")
    info = typer.Option(*names, help=help, **option)
    info.site = f"{module}:{caller.f_lineno}"  # type: ignore[attr-defined]
    for name in _long_flags(names):
        if name in _DECLARED:
            raise TypeError(f"{name} declared twice: {_DECLARED[name].site}, {info.site}")  # type: ignore[attr-defined]
        _DECLARED[name] = info
    return info


def declared(name: str) -> typer.models.OptionInfo | None:
    """The shared declaration of the long flag ``name`` (``declare``), if any (a command
    whose options use a shared one imports ``commands.options``, where they are declared;
    ``tests/unit/commands/test_options_once.py`` checks each command alone)."""
    return _DECLARED.get(name)


def but(info: typer.models.OptionInfo, **changes: Any) -> typer.models.OptionInfo:
    """A copy of a declared option with this command's own default text or range
    (``show_default``, ``min``...): the same flags, help and site."""
    out = copy.copy(info)
    for key, value in changes.items():
        setattr(out, key, value)
    return out


def _long_flags(names: tuple[str, ...] | list[str]) -> list[str]:
    return [n for d in names for n in d.split("/") if n.startswith("--")]


def field_help(cls: type) -> dict[str, str]:
    """``{field: help}`` from the ``Fields:`` list of ``cls``'s docstring (a field's text
    runs on over its indented continuation lines)."""
    doc = inspect.getdoc(cls) or ""
    _, _, rest = doc.partition("Fields:")
    out: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        m = re.match(r"^    (\w+(?:, \w+)*): (.*)$", line)
        if m:
            names, text = m.groups()
            for name in names.split(", "):
                out[name] = text.strip()
            current = names.split(", ")
        elif current and line.startswith("        ") and line.strip():
            for name in current:
                out[name] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            break
    return out


def config_params(
    cls: type, skip: tuple[str, ...] = (), defaults: dict[str, Any] | None = None
) -> list[inspect.Parameter]:
    """One keyword parameter per field of ``cls`` (not in ``skip``), annotated with its
    ``typer.Option`` (its default: ``defaults``' when given, else the field's). Each
    option records where it was declared (``site``: the class and field)."""
    hints = typing.get_type_hints(cls)
    helps = field_help(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in skip or not f.init:
            continue
        meta = f.metadata or {}
        if meta.get("group"):  # a group inside the group: its options, flattened
            out += config_params(hints[f.name], skip, defaults)
            continue
        default = (defaults or {}).get(f.name, _default(f))
        names = meta.get("flags") or _flag_names(f.name, hints[f.name], default)
        extra = dict(meta.get("option") or {})
        if "show_default" not in extra and (shown := _shown(default, meta.get("shown"))):
            extra["show_default"] = shown
        shared = meta.get("declared") or next(filter(None, map(declared, _long_flags(names))), None)
        if shared is not None:  # a shared option: its one declaration, this field's default
            info = but(shared, **extra)
        else:
            info = typer.Option(*names, help=_sentence(helps.get(f.name, "")), **extra)
            info.site = f"{cls.__module__}.{cls.__qualname__}.{f.name}"  # type: ignore[attr-defined]
        if meta.get("yields"):  # a strategy's own option: it gives way to the command's
            info = but(info, yields=True)
        out.append(
            inspect.Parameter(
                f.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default if default is not dataclasses.MISSING else ...,
                annotation=Annotated[hints[f.name], info],
            )
        )
    return out


def group() -> dict[str, Any]:
    """A field's ``metadata`` marking it an option group of its own (a ``*Config`` whose
    options the enclosing group takes, flattened: ``ModelRunConfig.checks``)."""
    return {"group": True}


def build(cls: type, values: dict[str, Any], skip: tuple[str, ...] = ()) -> Any:
    """The ``cls`` of the option ``values`` its fields name (taken out of ``values``),
    its group fields built the same way."""
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in skip or not f.init:
            continue
        if (f.metadata or {}).get("group"):
            kwargs[f.name] = build(hints[f.name], values, skip)
        elif f.name in values or not (f.metadata or {}).get("yields"):
            kwargs[f.name] = values.pop(f.name)
    return cls(**kwargs)


@dataclasses.dataclass(frozen=True)
class Group:
    """An option group as one command composes it: the ``*Config`` class, the fields the
    command sets itself (``skip``) and the defaults it gives differently (``defaults``:
    the same option and help, another default, e.g. ``lr`` of GRPO and of SFT)."""

    cls: type
    skip: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()


def use(cls: type, *, skip: tuple[str, ...] = (), **defaults: Any) -> Group:
    """``cls`` composed into a command, ``skip`` left to it, ``defaults`` its own."""
    return Group(cls, skip, tuple(defaults.items()))


CONFIG_HELP = (
    "A TOML run file of option values: top-level keys (or a [GROUP] table per option "
    "group) named as the options (max_cost or max-cost); flags given here override it."
)
ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help=CONFIG_HELP, show_default="none", metavar="RUN.TOML"),
]


def with_config(
    cls: type | Group,
    name: str,
    skip: tuple[str, ...] = (),
    preset: Callable[[dict[str, Any]], tuple[str, dict[str, Any]] | None] | None = None,
    **groups: type | Group,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator of the module docstring: ``name`` receives a ``cls`` made from the
    options; fields in ``skip`` are left to the command (it sets them itself). Further
    ``groups`` (``sandbox=SandboxOptions``) are composed the same way, each received by
    the parameter of its name."""
    first = cls if isinstance(cls, Group) else Group(cls, skip)
    return with_groups(preset, **{name: first}, **groups)


def with_groups(
    preset: Callable[[dict[str, Any]], tuple[str, dict[str, Any]] | None] | None = None,
    **groups: type | Group,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Compose option groups into a command: each keyword names the command's parameter
    that receives the group's ``*Config`` (a class, or ``use(cls, skip=..., **defaults)``),
    built from the group's options. Every option of a group is declared once, by its
    field; the command also gets ``--config RUN.TOML`` (``apply_run_file``).

    ``preset(options)``: option values from elsewhere (``eval --resume``: the stored
    run's), as ``(where, {option: value})`` or None; the run file overrides them and the
    command line overrides both."""
    parts = {k: g if isinstance(g, Group) else Group(g) for k, g in groups.items()}

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        own = [
            p
            for p in inspect.signature(fn, eval_str=True).parameters.values()
            if p.name not in parts
        ]
        made: dict[str, list[inspect.Parameter]] = {}
        seen = {p.name for p in own}
        for key, g in parts.items():
            required = [
                f.name
                for f in dataclasses.fields(g.cls)
                if f.name in g.skip and _default(f) is dataclasses.MISSING
            ]
            if required:
                raise TypeError(f"{fn.__name__}: skipped fields need a default: {required}")
            made[key] = config_params(g.cls, g.skip, dict(g.defaults))
            taken = seen & {p.name for p in made[key]}
            if taken:
                raise TypeError(f"{fn.__name__}: options declared twice: {sorted(taken)}")
            seen |= {p.name for p in made[key]}
        _give_way(own, made)
        config = [] if "config" in seen else [_config_param(), _ctx_param()]
        tables = {key: [p.name for p in ps] for key, ps in made.items()}
        for g in parts.values():
            tables.update(_inner_tables(g.cls, g.skip))
        params = [*own, *(p for ps in made.values() for p in ps), *config]
        hints = {p.name: (typing.get_args(p.annotation) or (p.annotation,))[0] for p in params}

        @functools.wraps(fn)
        def command(**kw: Any) -> Any:
            ctx = kw.pop(_CTX) if config else None
            path = kw.pop("config", None) if config else None
            stored = preset(kw) if preset is not None else None
            if stored is not None:
                where, data = stored
                kw = apply_run_file(where, kw, tables, hints, ctx, data=data)
            if path is not None:
                kw = apply_run_file(path, kw, tables, hints, ctx)
            built = {key: build(parts[key].cls, kw, parts[key].skip) for key in made}
            return fn(**kw, **built)

        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        return command

    return decorate


_CTX = "_click_context"


def _give_way(own: list[inspect.Parameter], made: dict[str, list[inspect.Parameter]]) -> None:
    """Drop the options that give way (``yields``: a strategy's own, generated from its
    ``Config``) whose name or flag another option of the command has: that field is then
    set by ``--strategy-option KEY=VALUE`` only."""
    fixed = [p for p in own] + [p for ps in made.values() for p in ps if not _yields(p)]
    taken = {name for p in fixed for name in _names(p)}
    for key, ps in made.items():
        made[key] = [p for p in ps if not (_yields(p) and _names(p) & taken)]


def _option_info(p: inspect.Parameter) -> typer.models.ParameterInfo | None:
    infos = [
        m
        for m in getattr(p.annotation, "__metadata__", ())
        if isinstance(m, typer.models.ParameterInfo)
    ]
    return infos[0] if infos else None


def _yields(p: inspect.Parameter) -> bool:
    return bool(getattr(_option_info(p), "yields", False))


def _names(p: inspect.Parameter) -> set[str]:
    """A parameter's name and its flags (long and short)."""
    info = _option_info(p)
    decls = (info.param_decls if info is not None else None) or ("--" + p.name.replace("_", "-"),)
    flags = {part for d in decls for part in d.split("/") if part.startswith("-")}
    return {p.name, *flags}


def _ctx_param() -> inspect.Parameter:
    """The click context, which typer hands to a parameter of its type: the run file
    asks it which options the command line gave."""
    return inspect.Parameter(_CTX, inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)


def _inner_tables(cls: type, skip: tuple[str, ...]) -> dict[str, list[str]]:
    """``{field: its option names}`` of the groups inside ``cls`` (run-file tables)."""
    hints = typing.get_type_hints(cls)
    out: dict[str, list[str]] = {}
    for f in dataclasses.fields(cls):
        if (f.metadata or {}).get("group"):
            out[f.name] = [p.name for p in config_params(hints[f.name], skip)]
            out.update(_inner_tables(hints[f.name], skip))
    return out


def _config_param() -> inspect.Parameter:
    return inspect.Parameter(
        "config", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ConfigOpt
    )


def read_run_file(path: Path) -> dict[str, Any]:
    """A TOML run file's table (UserError, one line, when it cannot be read)."""
    raw = read_regular(path, 1 << 20, "run file")
    try:
        return tomllib.loads(raw.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not a TOML run file: {e}") from e


def apply_run_file(
    path: Path | str,
    values: dict[str, Any],
    tables: dict[str, list[str]] | None = None,
    hints: dict[str, Any] | None = None,
    ctx: click.Context | None = None,
    data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``values`` (the command's parsed options) with those of the run file ``path``
    where the command line left an option at its default: a key is an option's name
    (underscores or dashes), at the top level or in the ``[GROUP]`` table of its group
    (``tables``: group -> its option names). Each value is converted and range-checked
    as the option's own flag would be; an unknown key or bad value is refused in one
    line naming it. ``data``: the file's table already read (``path`` then only names
    where it came from)."""
    data = read_run_file(Path(path)) if data is None else data
    tables = tables or {}
    ctx = ctx or click.get_current_context(silent=True)
    params = {p.name: p for p in ctx.command.params} if ctx is not None else {}
    # a key names an option by its field (``isa_target``) or its long flag (``target``)
    spelled = {
        flag.removeprefix("--").replace("-", "_"): p.name
        for p in params.values()
        if p.param_type_name == "option"
        for flag in p.opts
        if flag.startswith("--")
    }

    def known(key: str) -> str:
        name = key.replace("-", "_")
        return name if name in params else spelled.get(name, name)

    flat: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if key.replace("-", "_") == "strategy_option" and isinstance(value, dict):
            # a strategy's own options as a table (``[strategy_option]`` ``tries = 2``):
            # what ``--strategy-option tries=2`` gives, each value read by its field's type
            value = [
                f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in value.items()
            ]
        if key in tables and isinstance(value, dict):
            for sub, v in value.items():
                name = known(sub)
                if name not in tables[key]:
                    has = ", ".join(tables[key])
                    raise UserError(f"{path}: [{key}] has no option {sub!r} (it has: {has})")
                flat[name] = (f"[{key}] {sub}", v)
        else:
            flat[known(key)] = (key, value)
    out = dict(values)
    settable = sorted(n for n, p in params.items() if n in values and p.param_type_name == "option")
    for name, (where, value) in flat.items():
        param = params.get(name)
        if name not in values or param is None or param.param_type_name != "option":
            raise UserError(
                f"{path}: {where!r} is not an option of this command "
                f"(run-file keys: {', '.join(settable)})"
            )
        source = ctx.get_parameter_source(name) if ctx is not None else None
        if getattr(source, "name", None) in ("COMMANDLINE", "ENVIRONMENT"):
            continue  # a flag given on the command line wins over the file
        if isinstance(value, float) and not math.isfinite(value):
            raise UserError(f"{path}: {where}: {value} is not a number this option can take")
        try:
            if param.multiple and not isinstance(value, list):
                value = [value]
            cast = param.process_value(ctx, value)
            out[name] = _typed(cast, (hints or {}).get(name))
        except (typer.BadParameter, click.BadParameter, ValueError, TypeError) as e:
            raise UserError(f"{path}: {where}: {getattr(e, 'message', e)}") from e
    return out


def option_values(config: Any) -> dict[str, Any]:
    """``{option name: value}`` of a group's ``*Config`` (its inner groups flattened):
    what a run file holds."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if (f.metadata or {}).get("group"):
            out.update(option_values(value))
        elif f.init:
            out[f.name] = value
    return out


def to_toml(values: dict[str, Any], title: str = "") -> str:
    """A run file of ``values`` (top-level keys; None left out: the option's default),
    read back by ``read_run_file``."""
    lines = [f"# {line}" for line in title.splitlines()]
    for key, value in values.items():
        if value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{value}: no run-file value")
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def _typed(value: Any, hint: Any) -> Any:
    """A value click converted, as typer hands it to the command (an enum member, a
    ``Path``, a list of either)."""
    if isinstance(value, list | tuple):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        item = typing.get_args(inner[0])[0] if inner and typing.get_args(inner[0]) else None
        return [_typed(v, item) for v in value]
    kinds = [a for a in (typing.get_args(hint) or (hint,)) if a is not type(None)]
    for kind in kinds:
        if isinstance(kind, type) and issubclass(kind, enum.Enum) and value is not None:
            return kind(value)
        if kind is Path and value is not None:
            return Path(value)
    return value


def show_every_default(command: Callable[..., Any]) -> None:
    """Make typer print the defaults it hides (None, an unset flag, an empty string) as
    ``none``/``off`` on every option of ``command`` that says nothing else (through the
    command's ``__signature__``, where typer reads its options)."""
    sig = inspect.signature(command, eval_str=True)
    params = []
    for p in sig.parameters.values():
        meta = getattr(p.annotation, "__metadata__", ())
        shown = [
            but(m, show_default=_shown(p.default, None) or True)
            if isinstance(m, typer.models.OptionInfo) and m.show_default is True
            else m
            for m in meta
        ]
        if meta and any(a is not b for a, b in zip(shown, meta, strict=True)):
            # a shared declaration is copied, never changed: its default is this command's
            p = p.replace(annotation=Annotated[(p.annotation.__origin__, *shown)])
        params.append(p)
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]


def _plain_default(param: Any, typer_default: Callable[..., str], *args: Any, **kw: Any) -> str:
    """A worded default (``show_default="120"``) as it is; typer (0.29) would print it
    in parentheses, ``[default: (120)]``."""
    if isinstance(param.show_default, str):
        return param.show_default
    return typer_default(*args, **kw)


class PlainDefaultOption(TyperOption):
    """A typer option that prints its worded default without parentheses."""

    def _get_default_string(self, *args: Any, **kwargs: Any) -> str:
        return _plain_default(self, super()._get_default_string, *args, **kwargs)


class PlainDefaultArgument(TyperArgument):
    """A typer argument that prints its worded default without parentheses."""

    def _get_default_string(self, *args: Any, **kwargs: Any) -> str:
        return _plain_default(self, super()._get_default_string, *args, **kwargs)


_PLAIN = {TyperOption: PlainDefaultOption, TyperArgument: PlainDefaultArgument}


def plain_defaults(command: click.Command) -> None:
    """Every typer option and argument of ``command`` and its subcommands prints its
    worded default plainly (``[default: off]``, not ``[default: (off)]``). A typer
    without the hook this overrides (``_get_default_string``) is left as it is: its
    own parentheses, nothing broken."""
    if not all(hasattr(base, "_get_default_string") for base in _PLAIN):
        return
    for sub in getattr(command, "commands", {}).values():
        plain_defaults(sub)
    for param in command.params:
        plain = _PLAIN.get(type(param))
        if plain is not None:
            param.__class__ = plain


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _shown(default: Any, meaning: str | None) -> str | None:
    """What typer should print for a default it would hide (None, off, empty)."""
    if default is None:
        return meaning or "none"
    if default is False:
        return "off"
    if default == "":
        return "none"
    return None


def _flag_names(name: str, hint: Any, default: Any) -> tuple[str, ...]:
    flag = "--" + name.replace("_", "-")
    if hint is bool:
        return (f"{flag}/--no-{name.replace('_', '-')}",) if default is True else (flag,)
    return (flag,)


def _sentence(text: str) -> str:
    """The docstring's field text as help: one final period, a capital first letter
    unless it starts with a value (``full: ...``, ``compiler | ...``), brackets escaped
    (typer renders help as rich markup, which would eat ``[...]``)."""
    text = text.strip().replace("``", "")
    if not text:
        return ""
    first, _, _ = text.partition(" ")
    if not first.endswith(":") and not text.startswith(f"{first} |"):
        text = text[0].upper() + text[1:]
    text = text if text.endswith((".", "?", "!", ")")) else text + "."
    return escape(text)


def unbounded_numbers(command: Callable[..., Any]) -> list[str]:
    """The number options (int or float, optional or not) of ``command`` that declare no
    range (``min=``/``max=`` on their ``typer.Option``). Every number option must: a
    number that cannot work (``--timeout 0``, ``--batch-size 0``) is then refused while
    the command line is parsed, before anything runs, by one rule for every command
    (``cli.add`` refuses to register a command that breaks it)."""
    out = []
    for p in inspect.signature(command, eval_str=True).parameters.values():
        base, *meta = typing.get_args(p.annotation) or (p.annotation,)
        kinds = set(typing.get_args(base) or (base,)) - {type(None)}
        if not kinds or not kinds <= {int, float}:
            continue
        infos = [m for m in meta if isinstance(m, typer.models.ParameterInfo)]
        if any(getattr(i, "yields", False) for i in infos):
            continue  # a strategy's own: its Config refuses what cannot work, in one line
        if not any(i.min is not None or i.max is not None for i in infos):
            out.append(p.name)
    return out
