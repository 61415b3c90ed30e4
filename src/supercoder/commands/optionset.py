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

import dataclasses
import functools
import inspect
import re
import typing
from collections.abc import Callable
from typing import Annotated, Any

import click
import typer
from typer.core import TyperArgument, TyperOption


def flags(*names: str, shown: str | None = None, **option: Any) -> dict[str, Any]:
    """A field's ``metadata``: its option names, what its None default means (``shown``)
    and further ``typer.Option`` keywords (``min``, ``max``...)."""
    return {"flags": names, "shown": shown, "option": option}


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


def config_params(cls: type, skip: tuple[str, ...] = ()) -> list[inspect.Parameter]:
    """One keyword parameter per field of ``cls`` (not in ``skip``), annotated with its
    ``typer.Option``."""
    hints = typing.get_type_hints(cls)
    helps = field_help(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in skip or not f.init:
            continue
        meta = f.metadata or {}
        default = _default(f)
        names = meta.get("flags") or _flag_names(f.name, hints[f.name], default)
        extra = dict(meta.get("option") or {})
        if "show_default" not in extra and (shown := _shown(default, meta.get("shown"))):
            extra["show_default"] = shown
        info = typer.Option(*names, help=_sentence(helps.get(f.name, "")), **extra)
        out.append(
            inspect.Parameter(
                f.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default if default is not dataclasses.MISSING else ...,
                annotation=Annotated[hints[f.name], info],
            )
        )
    return out


def with_config(
    cls: type, name: str, skip: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator of the module docstring: ``name`` receives a ``cls`` made from the
    options; fields in ``skip`` are left to the command (it sets them itself)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        own = [
            p for p in inspect.signature(fn, eval_str=True).parameters.values() if p.name != name
        ]
        made = config_params(cls, skip)
        required = [
            f.name
            for f in dataclasses.fields(cls)
            if f.name in skip and _default(f) is dataclasses.MISSING
        ]
        if required:
            raise TypeError(f"{fn.__name__}: skipped fields need a default: {required}")
        taken = {p.name for p in own} & {p.name for p in made}
        if taken:
            raise TypeError(f"{fn.__name__}: options declared twice: {sorted(taken)}")

        @functools.wraps(fn)
        def command(**kw: Any) -> Any:
            values = {p.name: kw.pop(p.name) for p in made}
            return fn(**kw, **{name: cls(**values)})

        command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [*own, *made]
        )
        return command

    return decorate


def show_every_default(command: Callable[..., Any]) -> None:
    """Make typer print the defaults it hides (None, an unset flag, an empty string) as
    ``none``/``off`` on every option of ``command`` that says nothing else (through the
    command's ``__signature__``, where typer reads its options)."""
    sig = inspect.signature(command, eval_str=True)
    for p in sig.parameters.values():
        for info in getattr(p.annotation, "__metadata__", ()):
            if isinstance(info, typer.models.OptionInfo) and info.show_default is True:
                info.show_default = _shown(p.default, None) or True
    command.__signature__ = sig  # type: ignore[attr-defined]


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
    from rich.markup import escape

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
        if not any(i.min is not None or i.max is not None for i in infos):
            out.append(p.name)
    return out
