"""What the model commands share: ``ModelRunConfig`` (the one option set of ``eval`` and
``optimize``, made into typer options by ``optionset.with_config``), the options other
commands share, the stderr console, and which strategy a run's options name (the
build search's older spelling, ``--model compiler[:OPTS]``, among them)."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from supercoder.commands.optionset import but, declare, field_help, flags, group, option_values
from supercoder.errors import UserError, printable
from supercoder.models.base import Sampling
from supercoder.models.providers import load_model
from supercoder.prompting.answers import AnswerForm, Context, check_modes
from supercoder.runs.identity import RunConfig
from supercoder.runs.registry import (
    BUILDS,
    canonical,
    legacy_spec,
    make_config,
    names,
    strategy_class,
)
from supercoder.runs.strategies import StrategyConfig
from supercoder.toolchain.isa import DEFAULT_TARGET, Target
from supercoder.verify.access import read_token
from supercoder.verify.evaluate import check_config
from supercoder.verify.reward import (
    DEFAULT_REWARD,
    MAX_ROUNDS,
    REWARD_KINDS,
    RewardConfig,
    parse_reward,
)
from supercoder.verify.service import VerifyConfig

if TYPE_CHECKING:
    from supercoder.models.base import Model
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.strategies import StrategyConfig
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.service import VerifyConfig

err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)


# Every option that more than one command takes is declared here, once: its flags and
# its one help text (``optionset.declare``). A command uses it as ``Annotated[T, NAME]``
# (its own default; ``but(NAME, show_default=...)`` for its own default text); a
# ``*Config`` field with the same long flag gets it too (``optionset.config_params``).
# tests/unit/commands/test_options_once.py fails when a long flag has a second site.
STORE_DEFAULT = "$SUPERCODER_DB, else ~/.local/share/supercoder/runs.sqlite"
BENCHMARK_HELP = "train | val | all | a benchmark folder | a .jsonl/.parquet record file"

# where the problems come from
BENCHMARK = declare(
    "--benchmark",
    "-b",
    help=f"The problems: {BENCHMARK_HELP} (serve, mcp: repeatable, each served by name).",
)
INPUTS = declare(
    "--inputs",
    help="Test inputs of a bare .c program: a flat folder, a Kattis/ICPC package "
    "(data/sample, data/secret), CodeNet input_N.txt files, or inputs paired with answers "
    "by name (in1/out1, 1.in/1.ans, input/ + output/ folders).",
)
CFLAGS = declare("--cflags", help='Extra gcc flags of the C program, e.g. "-fopenmp -DN=100".')
LDFLAGS = declare("--ldflags", help='Extra link flags of the C program, e.g. "-lgmp".')

# the model asked
MODEL = declare(
    "--model",
    "-m",
    help="The model: openai:M | anthropic:M | hf:PATH (a Hugging Face repo or local folder; "
    "what the train commands take). eval/optimize: repeat with --strategy evolve for "
    "several models (a bandit gives calls to the one that improves most per cost); none: "
    "--strategy builds, the offline build search (compiler[:budget=S,target=L] is its "
    "older spelling, still accepted).",
)
BASE_URL = declare(
    "--base-url",
    help="OpenAI/Anthropic-compatible server URL of --model.",
    show_default="the provider's",
)
TEMPERATURE = declare("--temperature", "-t", min=0.0, help="Sampling temperature of the answers.")
TOKENIZER = declare(
    "--tokenizer",
    help="What counts tokens: qwen2.5 (offline files), a tokenizer.json path, or a "
    "Hugging Face name.",
)

# the prompt
CONTEXT = declare(
    "--context",
    help="full: the -O3 assembly (the paper's prompt); hot: profile-annotated (# NN.N% per "
    "hot line), cold functions elided.",
)
ANSWER = declare(
    "--answer",
    help="whole: the model writes the whole program; diff: SEARCH/REPLACE edit blocks "
    "against the shown assembly.",
)

# how answers are checked
UNSAFE_NO_SANDBOX = declare(
    "--unsafe-no-sandbox",
    help="Run the programs WITHOUT isolation (dangerous: only code you trust).",
)
NO_TIME = declare("--no-time", help="Check correctness only; time nothing (no speedup, no CI).")
TARGET = declare(
    "--target",
    help="CPUs the answer must run on: native (this CPU) or an x86-64 level; the assembler "
    "refuses instructions beyond it and the build search builds for it.",
)
SERVER = declare(
    "--server",
    help="Verify on this `supercoder serve` (URL; token: $SUPERCODER_TOKEN) instead of here "
    "(check: a folder goes by its path, under the server's --allow-root; anything else as "
    "a served problem's name).",
    show_default="here",
)
EXECUTOR = declare("--executor", help="Where verifications run: local (process pool) or ray.")
BUDGET = declare(
    "--budget",
    min=0.1,
    help="Seconds to spend at most: --strategy builds' CPU seconds per problem, the checks "
    "after the search included (compiles, every test each candidate runs, timing). Not "
    "counted: drawing a problem's timed inputs once, and waiting on a loaded machine (wall "
    "time is longer). The baseline's check always runs: a program whose one check costs "
    "more than the budget exceeds it by that check. (problem profile: seconds of "
    "profiling.)",
)

# where results go
DB = declare(
    "--db",
    help="The run store: its SQLite file (analyze, report: or a JSON file of verdict records).",
    show_default=STORE_DEFAULT,
)
RUN = declare("--run", help="The run's name in the store.")
JSON = declare(
    "--json",
    help="JSON: print the result as JSON, or write it to FILE where the option takes one "
    "(eval: the summary; bench: the figures).",
)
OUT = declare(
    "--out",
    "-o",
    help="Where to write what the command makes (its help says what: a file or a folder).",
)
OUTPUT = declare(
    "--output",
    "-o",
    help="Where the result goes: optimize writes the best .s there, the train commands "
    "their checkpoints, metrics.jsonl and final.",
)
FORCE = declare("--force", help="Replace what this command wrote before.")

# where it runs: services and reference runs
HOST = declare(
    "--host",
    help="Address to listen on (a loopback one unless the command's help says how to open "
    "it: a token, or env openenv's --public).",
)
PORT = declare(
    "--port", max=65535, help="Port to listen on (serve, mcp: 0 takes any free one, printed)."
)
CPU_LIMIT = declare("--cpu-limit", min=0.01, max=3600, help="CPU seconds per test run.")
MEMORY_MB = declare("--memory-mb", min=16, max=1 << 20, help="Memory limit per test run (MiB).")
TIMEOUT = declare(
    "--timeout",
    min=0.1,
    help="Seconds before giving up. eval, optimize: per model request (a request that "
    "times out twice is given up: the problem stays unfinished, a rerun retries it); "
    "problem init, bench fuzz, dataset build: CPU seconds per reference run (bench fuzz "
    "drops a slower input).",
)
SPLIT = declare(
    "--split",
    help="A split: train, val or a dataset's own (problem init: the one recorded; bench "
    "list: only its problems).",
)

# rewards and episodes (train grpo, env openenv)
REWARD = declare(
    "--reward",
    metavar="KIND[:KEY=VALUE,...]",
    help=f"Reward: {', '.join(REWARD_KINDS)}, with options after a colon. "
    f"{DEFAULT_REWARD.value}: the speedup only when significantly faster, else what a copy "
    "of the baseline earns (a copy padded with a nop reads ~1.0x: the paper's reward, "
    "'paper', pays it ~1.0); binary[:threshold=1.05]: 1 when significantly faster with the "
    "CI's lower end at the threshold or above, else 0; percentile[:pool=auto|builds|"
    "references]: the share of the problem's reference pool (its compiler builds, -O0 to "
    "PGO, measured once and cached) it is significantly faster than, 0 unless significantly "
    "faster than the baseline. rounds=N: the timing budget (see --timing-rounds). A copy of "
    "the baseline earns 0 under every reward. `supercoder reward study` compares them.",
)
TIMING_ROUNDS = declare(
    "--timing-rounds",
    min=2,
    max=MAX_ROUNDS,
    help="Timing budget of the reward: rounds of pairs timed per completion, fixed (each "
    "round a pair on every timed input); default: the meter's adaptive 4-15. "
    "`supercoder reward study` shows what each budget buys.",
    show_default="adaptive",
)
BASELINE_COPY = declare("--baseline-copy", min=0.0, help="Reward for a copy of the baseline.")
TURNS = declare(
    "--turns",
    min=1,
    max=16,
    help="Answers per episode, the verifier's feedback between them (1: single-turn).",
)

# training
LORA = declare(
    "--lora/--full",
    help="Train a LoRA adapter (merged into final) instead of every weight (--full).",
)
LR = declare("--lr", min=1e-12, help="Learning rate.")
STEPS = declare("--steps", help="Optimizer steps (train sft: -1 runs --epochs passes).")
SEED = declare(
    "--seed",
    min=0,
    help="A seed: the trainer's (train), the resampling's (reward study), the train/val "
    "split's (dataset build), the "
    "mutations' (bench fuzz: by default a new secret one, so nobody can remake the tests "
    "from the visible ones).",
)

# the services (serve, mcp): who may call them, what they serve
TOKEN_FILE = declare(
    "--token-file",
    help="A file holding the bearer token callers must send (else $SUPERCODER_TOKEN).",
    show_default="$SUPERCODER_TOKEN",
)
INSECURE_LOOPBACK = declare(
    "--insecure-loopback",
    help="Serve without a token: only on a loopback address (127.0.0.1, ::1).",
)
ALLOW_ROOT = declare(
    "--allow-root",
    help="A folder whose problem folders callers may name by path (repeatable).",
    show_default="none",
)

# A benchmark is named with --benchmark (-b) by every command; the commands that took
# it as their first argument before (bench list / coverage / fuzz, dataset export) keep
# that working as an alias.
BenchmarkOpt = Annotated[str | None, but(BENCHMARK, show_default="all")]
BenchmarkArg = Annotated[
    str | None,
    typer.Argument(
        help="The benchmark, as --benchmark (the older way to name it; still works).",
        show_default=False,
    ),
]
DbOpt = Annotated[Path | None, DB]
TargetOpt = Annotated[Target, TARGET]
AnswerOpt = Annotated[AnswerForm, ANSWER]
SandboxOpt = Annotated[bool, UNSAFE_NO_SANDBOX]
NoTimeOpt = Annotated[bool, NO_TIME]
JsonFlag = Annotated[bool, JSON]
RewardOpt = Annotated[str, REWARD]
TimingRoundsOpt = Annotated[int | None, TIMING_ROUNDS]
BaselineCopyOpt = Annotated[float, BASELINE_COPY]
SplitOpt = Annotated[str | None, SPLIT]  # a dataset's records may name their own splits
JsonFile = Annotated[Path | None, but(JSON, show_default="none", metavar="FILE")]


def pick_benchmark(option: str | None, positional: str | None, default: str | None = "all") -> str:
    """The benchmark a command names, with --benchmark or (the alias) its first argument."""
    if option is not None and positional is not None and option != positional:
        raise UserError(
            f"two benchmarks named: {positional!r} and --benchmark {option!r}; give one"
        )
    chosen = option if option is not None else positional if positional is not None else default
    if chosen is None:
        raise UserError("name the benchmark: --benchmark train | val | all | FOLDER | FILE")
    return chosen


def note(line: str) -> None:
    """One line of information on stderr (which problem folder was used, ...)."""
    err.print(printable(line, newlines=False))


@dataclass(frozen=True)
class PromptOptions:
    """How the model is asked: the option group of every command that builds prompts
    (``eval``, ``optimize``, ``bench tokens``).

    Fields:
        context: full: the -O3 assembly; hot: profile-annotated.
        answer: whole program or SEARCH/REPLACE edits.
    """

    context: Context = Context.FULL
    answer: AnswerForm = AnswerForm.WHOLE


@dataclass(frozen=True)
class ListenOptions:
    """Where a server listens: the option group of ``serve``, ``mcp`` and ``env openenv``
    (each composes it with its own default port: ``use(ListenOptions, port=N)``).

    Fields:
        host: the address to listen on.
        port: its port.
    """

    host: str = field(default="127.0.0.1", metadata=flags(HOST))
    port: int = field(default=8765, metadata=flags(PORT, min=0))


@dataclass(frozen=True)
class ServerOptions(ListenOptions):
    """Where a verification server listens and who may call it: the option group of
    ``serve`` and ``mcp`` (``token()`` is the bearer token callers must send).

    Fields:
        host: the address to listen on.
        port: its port.
        token_file: a file holding the bearer token (else ``$SUPERCODER_TOKEN``).
        insecure_loopback: serve without a token, on a loopback address only.
        benchmark: the problem sets served by name (None: all).
        allow_root: folders whose problem folders callers may name by path.
    """

    token_file: Path | None = field(
        default=None, metadata=flags(TOKEN_FILE, shown="$SUPERCODER_TOKEN")
    )
    insecure_loopback: bool = False  # the shared --insecure-loopback
    benchmark: list[str] | None = field(default=None, metadata=flags(BENCHMARK, shown="all"))
    allow_root: list[Path] | None = None  # the shared --allow-root

    def served(self) -> tuple[str, ...]:
        """The problem sets served by name (``all`` unless ``--benchmark`` names some)."""
        return tuple(self.benchmark or ("all",))

    def roots(self) -> tuple[Path, ...]:
        return tuple(self.allow_root or ())

    def token(self) -> str | None:
        """The bearer token callers must send (``--token-file``, else the environment)."""
        return read_token(self.token_file)


@dataclass(frozen=True)
class CheckOptions:
    """How answers are checked: the option group of every command that verifies
    (``check``, ``eval``, ``optimize``; ``config()`` is its ``CheckConfig``).

    Fields:
        no_time: check correctness only; time nothing (no speedup, no CI).
        unsafe_no_sandbox: run the programs WITHOUT isolation (dangerous).
        isa_target: the CPUs the answer must run on.
    """

    no_time: bool = False
    unsafe_no_sandbox: bool = False
    isa_target: Target = field(default=DEFAULT_TARGET, metadata=flags(TARGET))

    def config(self, cpu_limit: float | None = None, memory_mb: int | None = None) -> CheckConfig:
        """The ``CheckConfig`` of these options (``verify.evaluate.check_config``)."""
        return check_config(
            sandbox=not self.unsafe_no_sandbox,
            time=not self.no_time,
            target=self.isa_target,
            cpu_limit=cpu_limit,
            memory_mb=memory_mb,
        )


def _flag_type(hint: object) -> type | None:
    """The type a strategy's ``Config`` field takes as a flag (an enum: its text, read
    by the field's type, older spellings included); None: ``--strategy-option`` only."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else None
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return str
    return hint if hint in (int, float, str, bool) else None  # type: ignore[return-value]


def _default_text(value: object) -> str:
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value.value if isinstance(value, enum.Enum) else value)


def strategy_options_class() -> type:
    """Every registered strategy's own options as one option group: one flag per field of
    each strategy's ``Config`` (a built-in's or an installed plugin's), its help the
    field's docstring line, its flag ``--field-name`` unless the field's metadata names
    another (``plugins.flag``). A field several strategies share (``builds``) is one flag.
    Each defaults to None (not given: the strategy's ``Config`` default, shown); a flag
    the command has already gives way (``optionset._give_way``)."""
    found: dict[str, dict[str, typing.Any]] = {}
    for name in names():
        try:
            config = strategy_class(name).Config
        except UserError:
            continue  # a broken plugin: said in one line when it is chosen
        if not dataclasses.is_dataclass(config):
            continue
        hints = typing.get_type_hints(config)
        helps = field_help(config)
        for f in dataclasses.fields(config):
            kind = _flag_type(hints.get(f.name))
            if not f.init or kind is None:
                continue
            default = f.default if f.default is not dataclasses.MISSING else None
            if f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            entry = found.setdefault(
                f.name, {"kind": kind, "meta": f.metadata or {}, "owners": {}, "helps": {}}
            )
            if entry["kind"] is kind:
                entry["owners"][name] = _default_text(default)
                entry["helps"][name] = helps.get(f.name, "").replace("``", "").rstrip(".")
    specs = []
    lines = []
    for key, e in found.items():
        meta = e["meta"]
        shown = set(e["owners"].values())
        text = (
            meta.get("shown") or shown.pop()
            if len(shown) == 1
            else "; ".join(f"{o}: {d}" for o, d in e["owners"].items())
        )
        flag_names = meta.get("flags") or ()
        if not flag_names and e["kind"] is bool:
            dashed = key.replace("_", "-")
            flag_names = (f"--{dashed}/--no-{dashed}",)
        md = {"shown": text, "option": dict(meta.get("option") or {}), "yields": True}
        if flag_names:
            md["flags"] = tuple(flag_names)
        specs.append((key, e["kind"] | None, field(default=None, metadata=md)))
        lines.append(f"    {key}: " + "; ".join(f"{o}: {h}" for o, h in e["helps"].items()))
    cls = dataclasses.make_dataclass("StrategyOptions", specs, frozen=True)
    cls.__module__ = __name__
    cls.__doc__ = (
        "The strategies' own options, one per field of each ``Config``.\n\nFields:\n"
        + "\n".join(lines)
    )
    return cls


StrategyOptions = strategy_options_class()


def own_flags(given: object, name: str) -> dict[str, object]:
    """The strategy ``name``'s own flags given (field -> value); a flag given for another
    strategy: one line naming the strategies it applies to."""
    values = {k: v for k, v in option_values(given).items() if v is not None}
    fields = {f.name for f in dataclasses.fields(strategy_class(name).Config)}
    for key in values.keys() - fields:
        owners = [n for n in names() if key in {f.name for f in _config_fields(n)}]
        meta = next(f for f in dataclasses.fields(given) if f.name == key).metadata  # type: ignore[arg-type]
        spelled = (meta.get("flags") or (f"--{key.replace('_', '-')}",))[0].split("/")[0]
        raise UserError(
            f"{spelled} applies to --strategy {' or '.join(owners)} only (this run's: {name})"
        )
    return values


def _config_fields(name: str) -> tuple[dataclasses.Field, ...]:
    try:
        return dataclasses.fields(strategy_class(name).Config)
    except (UserError, TypeError):
        return ()


@dataclass(frozen=True)
class ModelRunConfig:
    """The options of ``eval`` and ``optimize``: who answers, how often, how it is asked,
    how it is checked (each field is one option; ``optionset`` makes them).

    Fields:
        model: openai:M | anthropic:M | hf:PATH; repeat with --strategy evolve for several
            models (a bandit gives calls to the one that improves most per cost); none:
            --strategy builds. compiler[:budget=S,target=L,IDS] is the older spelling of
            --strategy builds (still accepted: an alias).
        samples: answers per problem (--strategy builds: builds tried at most).
        rounds: answers per sample chain (1: no refinement).
        temperature: sampling temperature.
        base_url: OpenAI/Anthropic-compatible server URL.
        timeout: seconds to wait for the model server per request (a request that times
            out twice is given up: the problem stays unfinished, a rerun retries it).
        deadline: seconds of model time per problem at most (all requests).
        strategy: best-of-n: independent answers to the -O3 prompt; refine: one chain of
            --samples answers, each told what was wrong; evolve: generations of answers
            improving the best verified programs (--samples answers in all); builds: the
            build search, no model (gcc/clang flags and PGO, each build verified and
            timed); or an installed plugin's name (entry point group
            supercoder.strategies).
        strategy_option: KEY=VALUE: a field of the strategy's own config (repeatable;
            a plugin strategy's options: docs/eval.md).
        reward: the reward the run's summary pays its answers (mean_reward), stored in
            the run's identity: gated, paper, log, binary[:threshold=T],
            percentile[:pool=P] (the same spec as train grpo --reward).
        prompt: how the model is asked (``PromptOptions``: context, answer form).
        checks: how every answer is checked (``CheckOptions``: sandbox, timing, target).
        own: every strategy's own options, one flag per field of its ``Config``
            (``StrategyOptions``).
    """

    model: list[str] | None = field(
        default=None, metadata=flags(MODEL, shown="none: --strategy builds")
    )
    samples: int | None = field(
        default=None,
        metadata=flags(
            "--samples", "-n", min=1, shown="1, or the strategy's own (builds: its build cap)"
        ),
    )
    rounds: int = field(default=1, metadata=flags("--rounds", "-k", min=1))
    temperature: float = field(default=0.7, metadata=flags(TEMPERATURE))
    base_url: str | None = field(default=None, metadata=flags(BASE_URL, shown="the provider's"))
    timeout: float = field(default=300.0, metadata=flags(TIMEOUT))
    deadline: float = field(default=1800.0, metadata=flags("--deadline", min=1.0))
    strategy: str | None = field(
        default=None, metadata=flags("--strategy", shown="best-of-n; no --model: builds")
    )
    strategy_option: list[str] | None = field(
        default=None, metadata=flags("--strategy-option", "-S", shown="none")
    )
    reward: str = field(default=DEFAULT_REWARD.value, metadata=flags(REWARD))
    prompt: PromptOptions = field(default_factory=lambda: PromptOptions(), metadata=group())
    checks: CheckOptions = field(default_factory=lambda: CheckOptions(), metadata=group())
    own: StrategyOptions = field(  # type: ignore[valid-type]
        default_factory=lambda: StrategyOptions(), metadata=group()
    )

    @property
    def context(self) -> Context:
        return self.prompt.context

    @property
    def answer(self) -> AnswerForm:
        return self.prompt.answer

    @property
    def no_time(self) -> bool:
        return self.checks.no_time

    @property
    def unsafe_no_sandbox(self) -> bool:
        return self.checks.unsafe_no_sandbox

    @property
    def isa_target(self) -> Target:
        return self.checks.isa_target

    def specs(self) -> list[str]:
        """The models' specs (none for the build search; bad ones: one line)."""
        check_modes(self.context, self.answer)
        return self.plan()[1]

    def plan(self) -> tuple[str, list[str], str | None]:
        """(the strategy's registered name, the models' specs, the options of the build
        search's older spelling ``--model compiler:OPTS`` or None), each bad choice
        refused in one line."""
        given = self.model or []
        older = [o for m in given if (o := legacy_spec(m)) is not None]
        models = [m for m in given if legacy_spec(m) is None]
        if len(set(given)) != len(given):
            raise UserError("each --model may be given once")
        asked = canonical(self.strategy) if self.strategy else None
        if older:
            if asked not in (None, BUILDS, "best-of-n") or models:
                what = f"--strategy {asked}" if asked not in (None, BUILDS) else "several --model"
                raise UserError(
                    f"{what} needs a model that reads feedback (--model openai:M, anthropic:M "
                    f"or hf:PATH); {given[0]} is the build search (--strategy builds): "
                    "use --start-from builds to seed an LLM's evolve with its best build"
                )
            return BUILDS, [], older[0]
        name = asked or ("best-of-n" if models else BUILDS)
        low, high = getattr(strategy_class(name), "models", (1, 1))
        if high == 0 and models:
            raise UserError(f"--strategy {name} asks no model: drop --model")
        if len(models) < low:
            raise UserError(
                f"--strategy {name} needs a model that reads feedback (--model openai:M, "
                "anthropic:M or hf:PATH)"
            )
        if high is not None and len(models) > high:
            raise UserError("several --model need --strategy evolve")
        return name, models, None

    def run_model(self, specs: list[str], settings: StrategyConfig) -> str:
        """The run's model name in the store: the models' specs, or the build search's
        (``BuildsConfig.label``: as runs of it were named before)."""
        label = getattr(settings.config, "label", None)
        if not specs and label is not None:
            return label(settings.target)
        return "+".join(specs) or settings.strategy

    def strategy_config(self, specs: list[str]) -> StrategyConfig:
        """The ``StrategyConfig`` of these options (bad choices: one line): the strategy's
        ``Config`` from its own flags over ``--strategy-option`` pairs (over the build
        search's older spelling ``--model compiler:OPTS``)."""
        name, _, older = self.plan()
        if name != "best-of-n" and self.rounds != 1:
            raise UserError("--rounds applies to --strategy best-of-n (refine: --samples answers)")
        cls = strategy_class(name)
        given = own_flags(self.own, name)
        target = self.isa_target
        base = None
        if older is not None:  # the build search's older spelling: its config, its target
            base, named = cls.legacy(older)
            target = named if named is not None and target is Target.NATIVE else target
        values = {**_pairs(self.strategy_option or []), **given}
        config = make_config(cls.Config, values, base)
        default_samples = getattr(config, "default_samples", None)
        n = self.samples or (default_samples() if default_samples else 1)
        return StrategyConfig(
            Sampling(n, self.temperature),
            self.rounds,
            context=self.context,
            answer=self.answer,
            strategy=name,
            config=config,
            target=target.value,
        )

    def load_models(self, specs: list[str], concurrency: int = 4) -> list[Model]:
        """The models of ``specs``, asked through ``--base-url`` within ``--timeout``
        per request, ``concurrency`` requests in flight."""
        from supercoder.models import load_model

        return [
            load_model(m, base_url=self.base_url, concurrency=concurrency, timeout=self.timeout)
            for m in specs
        ]

    def run_config(
        self,
        specs: list[str],
        settings: StrategyConfig,
        benchmark: str,
        name: str | None = None,
        executor: str = "local",
        concurrency: int = 4,
    ) -> RunConfig:
        """The eval run these options make on ``benchmark`` (its identity in the store:
        models, strategy, timing, sandbox, deadline, target), run as the rest says."""
        return RunConfig(
            reward=parse_reward(self.reward).spec,  # a bad spec: one line, before anything
            model=self.run_model(specs, settings),
            benchmark=benchmark,
            strategy=settings,
            time=not self.no_time,
            sandbox=not self.unsafe_no_sandbox,
            name=name,
            executor=executor,
            concurrency=concurrency,
            deadline=self.deadline,
            target=self.isa_target.value,
        )

    def verify_config(self) -> VerifyConfig:
        """How every answer is checked: the sandbox, timing or not, the target."""
        return VerifyConfig(self.checks.config())


def reward_config(
    spec: str,
    baseline_copy: float,
    sandbox: bool,
    target: Target = Target.NATIVE,
    rounds: int | None = None,
    time: bool = True,
) -> RewardConfig:
    """The ``RewardConfig`` of ``--reward SPEC`` (``verify.reward.parse_reward``), with
    ``--baseline-copy`` and ``--timing-rounds`` where the spec does not name them."""
    checks = CheckOptions(unsafe_no_sandbox=not sandbox, isa_target=target, no_time=not time)
    config = parse_reward(spec, checks.config())
    return replace(
        config,
        baseline_copy=config.baseline_copy or baseline_copy,
        rounds=config.rounds if config.rounds is not None else rounds,
    )


def _pairs(pairs: list[str]) -> dict[str, object]:
    """``--strategy-option KEY=VALUE`` pairs by field name (a bad pair: one line)."""
    values: dict[str, object] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UserError(f"--strategy-option {pair!r}: use KEY=VALUE")
        values[key.strip().replace("-", "_")] = value
    return values


def generator_llm(wanted: bool, spec: str | None, base_url: str | None, generator: Path | None):
    """The model ``problem init --llm-generator`` and ``problem llm-generator`` ask (messages -> reply text), or None; refused up front
    (before any build) when it cannot be asked."""
    if not wanted:
        if spec is not None:
            raise UserError("--model is used with --llm-generator only")
        return None
    if spec is None:
        raise UserError(
            "--llm-generator needs --model SPEC: an LLM (openai:MODEL, anthropic:MODEL, hf:PATH)"
        )
    if legacy_spec(spec) is not None or not spec.partition(":")[0]:
        raise UserError(
            "--llm-generator needs an LLM: the build search writes no code "
            "(--model openai:MODEL, anthropic:MODEL or hf:PATH)"
        )
    if generator is not None:
        raise UserError(
            "--llm-generator with --generator: the problem's own generator comes first; "
            "give one of them"
        )

    client = load_model(spec, base_url=base_url, cache=False)
    sampling = Sampling(n=1, temperature=0.2, max_tokens=8192)

    def ask(messages: list[dict[str, str]]) -> str:
        replies = client.complete(messages, sampling)
        return replies[0].text if replies else ""

    return ask
