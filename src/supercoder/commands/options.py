"""What the model commands share: ``ModelRunConfig`` (the one option set of ``eval`` and
``optimize``, made into typer options by ``optionset.with_config``), the options other
commands share, the stderr console, and which strategy a run's options name (the
build search's older spelling, ``--model compiler[:OPTS]``, among them)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from supercoder.commands.optionset import but, declare, flags, group
from supercoder.errors import UserError, printable
from supercoder.models.base import Sampling
from supercoder.models.providers import load_model
from supercoder.prompting.answers import AnswerForm, Context, check_modes
from supercoder.runs.buildsearch import BuildsConfig, legacy_options
from supercoder.runs.evolve import StartFrom
from supercoder.runs.registry import BUILDS, canonical, legacy_spec, make_config, strategy_class
from supercoder.runs.store import RunConfig
from supercoder.runs.strategies import StrategyConfig
from supercoder.runs.trials import DEFAULT_BUDGET, DEFAULT_MAX_BUILDS
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
    from supercoder.runs.store import RunConfig
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
    help="Seconds to spend at most: --strategy builds' CPU seconds of build search per "
    "problem (problem profile: seconds of profiling).",
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
TokenFileOpt = Annotated[Path | None, TOKEN_FILE]
InsecureLoopbackOpt = Annotated[
    bool,
    declare(
        "--insecure-loopback",
        help="Serve without a token: only on a loopback address (127.0.0.1, ::1).",
    ),
]
AllowRootOpt = Annotated[
    list[Path] | None,
    declare(
        "--allow-root",
        help="A folder whose problem folders callers may name by path (repeatable).",
        show_default="none",
    ),
]

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
ServedBenchmarksOpt = Annotated[list[str] | None, but(BENCHMARK, show_default="all")]
DbOpt = Annotated[Path | None, DB]
TargetOpt = Annotated[Target, TARGET]
ContextOpt = Annotated[Context, CONTEXT]
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
        budget: --strategy builds: CPU seconds of build search per problem.
        strategy: best-of-n: independent answers to the -O3 prompt; refine: one chain of
            --samples answers, each told what was wrong; evolve: generations of answers
            improving the best verified programs (--samples answers in all); builds: the
            build search, no model (gcc/clang flags and PGO, each build verified and
            timed); or an installed plugin's name (entry point group
            supercoder.strategies).
        strategy_option: KEY=VALUE: a field of the strategy's own config (repeatable;
            a plugin strategy's options: docs/eval.md).
        start_from: evolve: baseline (gcc -O3), or builds (also the build search's best
            build; compiler: its older name); speedups stay relative to gcc -O3.
        max_cost: evolve: stop asking once a problem cost this USD.
        max_tokens: evolve: token cap per problem.
        generation: evolve: answers per generation.
        islands: evolve: populations.
        reward: the reward the run's summary pays its answers (mean_reward), stored in
            the run's identity: gated, paper, log, binary[:threshold=T],
            percentile[:pool=P] (the same spec as train grpo --reward).
        prompt: how the model is asked (``PromptOptions``: context, answer form).
        checks: how every answer is checked (``CheckOptions``: sandbox, timing, target).
    """

    model: list[str] | None = field(
        default=None, metadata=flags(MODEL, shown="none: --strategy builds")
    )
    samples: int | None = field(
        default=None,
        metadata=flags(
            "--samples", "-n", min=1, shown=f"1; builds: {DEFAULT_MAX_BUILDS} builds at most"
        ),
    )
    rounds: int = field(default=1, metadata=flags("--rounds", "-k", min=1))
    temperature: float = field(default=0.7, metadata=flags(TEMPERATURE))
    base_url: str | None = field(default=None, metadata=flags(BASE_URL, shown="the provider's"))
    timeout: float = field(default=300.0, metadata=flags(TIMEOUT))
    deadline: float = field(default=1800.0, metadata=flags("--deadline", min=1.0))
    budget: float | None = field(default=None, metadata=flags(BUDGET, shown=f"{DEFAULT_BUDGET:g}"))
    strategy: str | None = field(
        default=None, metadata=flags("--strategy", shown="best-of-n; no --model: builds")
    )
    strategy_option: list[str] | None = field(
        default=None, metadata=flags("--strategy-option", "-S", shown="none")
    )
    start_from: str = "baseline"
    max_cost: float | None = field(
        default=None, metadata=flags("--max-cost", min=0.0, shown="no cap")
    )
    max_tokens: int | None = field(
        default=None, metadata=flags("--max-tokens-per-problem", min=1, shown="no cap")
    )
    generation: int = field(default=2, metadata=flags("--generation", min=1))
    islands: int = field(default=2, metadata=flags("--islands", min=1))
    reward: str = field(default=DEFAULT_REWARD.value, metadata=flags(REWARD))
    prompt: PromptOptions = field(default_factory=lambda: PromptOptions(), metadata=group())
    checks: CheckOptions = field(default_factory=lambda: CheckOptions(), metadata=group())

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
        if self.budget is not None and name != BUILDS:
            raise UserError("--budget applies to the build search only (--strategy builds)")
        return name, models, None

    def run_model(self, specs: list[str], settings: StrategyConfig) -> str:
        """The run's model name in the store: the models' specs, or the build search's
        (``BuildsConfig.label``: as runs of it were named before)."""
        label = getattr(settings.config, "label", None)
        if not specs and label is not None:
            return label(settings.target)
        return "+".join(specs) or settings.strategy

    def strategy_config(self, specs: list[str]) -> StrategyConfig:
        """The ``StrategyConfig`` of these options (bad choices: one line)."""
        name, _, older = self.plan()
        _check_choices(self, name)
        cls = strategy_class(name)
        target = self.isa_target
        if name == BUILDS:
            config, target = self._builds_config(older)
            n = self.samples or config.default_samples()
        else:
            config = strategy_options(cls, self.strategy_option or [], self._own_options(name))
            n = self.samples or 1
        return StrategyConfig(
            Sampling(n, self.temperature),
            self.rounds,
            context=self.context,
            answer=self.answer,
            strategy=name,
            config=config,
            target=target.value,
        )

    def _own_options(self, name: str) -> dict[str, object]:
        """The built-in strategies' own options that have flags of their own."""
        if name != "evolve":
            return {}
        return {
            "generation": self.generation,
            "islands": self.islands,
            "start_from": self.start_from,
            "max_cost_usd": self.max_cost,
            "max_tokens": self.max_tokens,
        }

    def _builds_config(self, older: str | None):
        """The build search's ``BuildsConfig`` and target: ``--budget``, ``--target``,
        ``--strategy-option``, or the older ``--model compiler:OPTS`` spelling's."""
        config, named = legacy_options(older or "")
        if self.budget is not None:
            config = BuildsConfig(self.budget, config.builds)
        config = strategy_options(BuildsConfig, self.strategy_option or [], {}, config)
        target = (
            named if named is not None and self.isa_target is Target.NATIVE else self.isa_target
        )
        return config, target

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


DB_HELP = "Run store: the eval SQLite file, or a JSON file of verdict records."


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


def _check_choices(o: ModelRunConfig, name: str) -> None:
    """The strategy options that do not fit together, each refused in one line."""
    try:
        StartFrom(o.start_from)
    except ValueError:
        starts = ", ".join(s.value for s in StartFrom)
        raise UserError(f"unknown --start-from {o.start_from!r}: use one of {starts}") from None
    if name != "evolve" and (o.start_from != "baseline" or o.max_cost or o.max_tokens):
        raise UserError(
            "--start-from, --max-cost and --max-tokens-per-problem need --strategy evolve"
        )
    if name != "best-of-n" and o.rounds != 1:
        raise UserError("--rounds applies to --strategy best-of-n (refine: --samples answers)")


def strategy_options(
    cls: type, pairs: list[str], own: dict[str, object], base: object | None = None
) -> object:
    """The strategy's ``Config`` from its flags (``own``) and ``--strategy-option
    KEY=VALUE`` pairs (``runs.registry.make_config``: each value read as its field's type)."""
    values: dict[str, object] = dict(own)
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UserError(f"--strategy-option {pair!r}: use KEY=VALUE")
        values[key.strip().replace("-", "_")] = value
    return make_config(cls.Config if hasattr(cls, "Config") else cls, values, base)


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
