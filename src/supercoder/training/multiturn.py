"""Multi-turn GRPO with TRL: refinement episodes as rollouts (``train grpo --turns N``).

TRL's ``GRPOTrainer(rollout_func=...)`` hands the rollout function a batch's prompts
(each prompt once per generation) and the trainer; it returns the prompt's token ids,
one completion's token ids per prompt and (optionally) a mask of the tokens the model
did not write (``env_mask``); any other key reaches the reward functions as a column.

Here every rollout is an episode (``training/episode.py``): the policy (the trainer's
own model, sampling at the trainer's temperature) answers, the verifier's feedback is
appended as the next user turn, the policy answers again, up to ``turns`` answers or
until an answer is correct and significantly faster. The completion TRL trains on is
the whole exchange after the prompt: the model's answers (``env_mask`` 1) and the
feedback turns between them (``env_mask`` 0: no gradient through the environment's
words). The reward is the final answer's (``episode_reward``); each turn's reward is
logged as ``supercoder/turn_K_reward`` (the mean over episodes that reached turn K),
with ``supercoder/turns`` (answers per episode) and the final answers'
``supercoder/correct_rate``.

Where the episodes are stepped is an ``Episodes``: ``LocalEpisodes`` verifies each
turn's answers of the whole batch together in-process (the reward's batch cascade);
``training/openenv_env.py``'s ``OpenEnvEpisodes`` steps one OpenEnv session per rollout
over HTTP/WebSocket.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from supercoder.errors import UserError
from supercoder.training import episode
from supercoder.types import Problem
from supercoder.verify.reward import RewardConfig

if TYPE_CHECKING:
    from supercoder.verify.executors import Executor


@dataclass(frozen=True)
class Step:
    """What an environment says of one answer (a ``Turn`` as it travels).

    Fields:
        reward: the answer's reward (None: an infrastructure failure, no reward).
        feedback: the text the model sees next (``prompts.feedback_for``).
        done: the episode ends with this answer.
        correct: the answer passed every test.
        speedup: its measured speedup (None: not correct, or untimed).
    """

    reward: float | None
    feedback: str
    done: bool
    correct: bool
    speedup: float | None = None


class Episodes(Protocol):
    """Where a batch of episodes is stepped: ``start`` opens one episode per prompt
    (returning its opening messages), ``step`` takes the open episodes' next answers."""

    def start(self, prompts: Sequence[Any]) -> list[list[dict[str, str]]]: ...

    def step(self, which: Sequence[int], answers: Sequence[str]) -> list[Step]: ...

    def close(self) -> None: ...


def prompt_key(prompt: Any) -> str:
    """A dataset prompt as a dictionary key (TRL passes rollout functions only prompts);
    a message's None fields are dropped (a ``datasets`` column gives every message the
    keys any message has)."""
    if isinstance(prompt, list):
        prompt = [
            {k: v for k, v in m.items() if v is not None} if isinstance(m, dict) else m
            for m in prompt
        ]
    return json.dumps(prompt, sort_keys=True, default=str)


@dataclass
class LocalEpisodes:
    """Episodes verified in this process: each turn's answers of the batch together."""

    problems: dict[str, Problem]
    by_prompt: dict[str, str]
    turns: int
    reward: RewardConfig = field(default_factory=RewardConfig)
    executor: Executor | None = None
    answer: str = "whole"
    _open: list[Problem] = field(default_factory=list)
    _count: list[int] = field(default_factory=list)

    def start(self, prompts: Sequence[Any]) -> list[list[dict[str, str]]]:
        names = []
        for p in prompts:
            name = self.by_prompt.get(prompt_key(p))
            if name is None:
                raise UserError("multi-turn rollout: a prompt that is not one of the dataset's")
            names.append(name)
        self._open = [self.problems[n] for n in names]
        self._count = [0] * len(names)
        return [[dict(m) for m in p] for p in prompts]

    def step(self, which: Sequence[int], answers: Sequence[str]) -> list[Step]:
        for i in which:
            self._count[i] += 1
        turns = episode.judge(
            [self._open[i] for i in which],
            answers,
            [self._count[i] for i in which],
            self.turns,
            self.reward,
            self.executor,
            self.answer,
        )
        return [
            Step(t.reward, t.feedback, t.done, t.verdict.correct, t.view().speedup) for t in turns
        ]

    def close(self) -> None:
        self._open = []


def make_rollout(
    episodes: Episodes, turns: int
) -> Callable[[Sequence[Any], Any], dict[str, list[Any]]]:
    """TRL's ``rollout_func(prompts, trainer)`` over ``episodes`` (up to ``turns`` answers)."""

    def rollout(prompts: Sequence[Any], trainer: Any) -> dict[str, list[Any]]:
        return run_episodes(prompts, trainer, episodes, turns)

    return rollout


def run_episodes(
    prompts: Sequence[Any],
    trainer: Any,
    episodes: Episodes,
    turns: int,
    generate: Callable[[Any, Sequence[Sequence[int]]], list[list[int]]] | None = None,
) -> dict[str, list[Any]]:
    """Play one episode per prompt with the trainer's model (see the module docstring);
    ``generate(trainer, prompt_ids)``: the policy's next tokens per prompt (default: the
    trainer's vLLM or its model)."""
    generate = generate or _generate
    tokenizer = trainer.processing_class
    conversations = episodes.start(prompts)
    n = len(conversations)
    prompt_ids = [_ids(tokenizer, _render(tokenizer, c)) for c in conversations]
    completion: list[list[int]] = [[] for _ in range(n)]
    mask: list[list[int]] = [[] for _ in range(n)]
    rewards: list[list[float | None]] = [[] for _ in range(n)]
    correct: list[list[bool]] = [[] for _ in range(n)]
    speedups: list[float | None] = [None] * n
    open_ = list(range(n))
    for _ in range(turns):
        if not open_:
            break
        generated = generate(trainer, [prompt_ids[i] + completion[i] for i in open_])
        texts = tokenizer.batch_decode(generated, skip_special_tokens=True)
        for i, ids in zip(open_, generated, strict=True):
            completion[i] += ids
            mask[i] += [1] * len(ids)
        steps = episodes.step(open_, texts)
        still = []
        for i, ids, text, step in zip(open_, generated, texts, steps, strict=True):
            rewards[i].append(step.reward)
            correct[i].append(step.correct)
            speedups[i] = step.speedup if step.correct else None
            if step.done:
                continue
            before = conversations[i]
            conversations[i] = episode.next_messages(before, text, step.feedback)
            between = _between(tokenizer, before, text, conversations[i], ids)
            completion[i] += between
            mask[i] += [0] * len(between)
            still.append(i)
        open_ = still
    return {
        "prompt_ids": prompt_ids,
        "completion_ids": completion,
        "logprobs": None,
        "env_mask": mask,
        "episode_reward": [r[-1] for r in rewards],
        "turn_rewards": rewards,
        "turn_correct": correct,
        "final_speedup": speedups,
    }


def episode_reward(
    completions: Sequence[Any] = (),
    episode_reward: Sequence[float | None] = (),
    turn_rewards: Sequence[Sequence[float | None]] = (),
    turn_correct: Sequence[Sequence[bool]] = (),
    final_speedup: Sequence[float | None] = (),
    log_metric: Callable[[str, float], None] | None = None,
    **_columns: Any,
) -> list[float | None]:
    """The reward function of multi-turn GRPO: each episode's final answer's reward
    (computed while the episode ran), with the per-turn means logged."""
    if log_metric is not None:
        for key, value in turn_metrics(turn_rewards, turn_correct, final_speedup).items():
            log_metric(key, value)
    return list(episode_reward)


def turn_metrics(
    turn_rewards: Sequence[Sequence[float | None]],
    turn_correct: Sequence[Sequence[bool]],
    final_speedup: Sequence[float | None] = (),
) -> dict[str, float]:
    """``supercoder/turn_K_reward`` (mean over the episodes that reached turn K and got a
    reward), ``supercoder/turns``, and of the final answers ``supercoder/correct_rate``,
    ``supercoder/mean_speedup`` (of the correct, timed ones) and
    ``supercoder/infra_failures`` (no reward: the machine failed, not the answer)."""
    out: dict[str, float] = {}
    if not turn_rewards:
        return out
    for k in range(max(len(r) for r in turn_rewards)):
        values = [r[k] for r in turn_rewards if len(r) > k and r[k] is not None]
        if values:
            out[f"supercoder/turn_{k + 1}_reward"] = sum(values) / len(values)
    out["supercoder/turns"] = sum(len(r) for r in turn_rewards) / len(turn_rewards)
    finals = [c[-1] for c in turn_correct if c]
    if finals:
        out["supercoder/correct_rate"] = sum(finals) / len(finals)
    timed = [x for x in final_speedup if x is not None]
    if timed:
        out["supercoder/mean_speedup"] = sum(timed) / len(timed)
    out["supercoder/infra_failures"] = float(sum(1 for r in turn_rewards if r and r[-1] is None))
    return out


# --- tokens -------------------------------------------------------------------------


def _render(tokenizer: Any, messages: Sequence[dict[str, str]], generation: bool = True) -> str:
    return tokenizer.apply_chat_template(
        list(messages), tokenize=False, add_generation_prompt=generation
    )


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _between(
    tokenizer: Any,
    before: Sequence[dict[str, str]],
    answer: str,
    after: Sequence[dict[str, str]],
    generated: Sequence[int],
) -> list[int]:
    """The tokens the chat template puts between the model's answer and its next turn
    (end of the answer, the feedback as a user turn, the next generation prompt)."""
    head = _render(tokenizer, before) + answer
    full = _render(tokenizer, after)
    if not full.startswith(head):
        raise UserError(
            "multi-turn rollout: the model's chat template does not extend a conversation "
            "by appending to it; use a model whose template does (most chat models)"
        )
    rest = full[len(head) :]
    eos = tokenizer.eos_token
    if generated and eos and generated[-1] == tokenizer.eos_token_id and rest.startswith(eos):
        rest = rest[len(eos) :]  # the model already wrote the end of its turn
    return _ids(tokenizer, rest)


def _generate(trainer: Any, prompts: Sequence[Sequence[int]]) -> list[list[int]]:
    """One sampled answer per prompt from the trainer's current policy (left-padded
    batch; the answer's ids up to and including the end-of-turn token)."""
    import torch

    tokenizer = trainer.processing_class
    model = trainer.accelerator.unwrap_model(trainer.model)
    pad = tokenizer.pad_token_id
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, p in enumerate(prompts):
        ids[row, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
        attention[row, width - len(p) :] = 1
    device = next(model.parameters()).device
    args = trainer.args
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model.generate(
                input_ids=ids.to(device),
                attention_mask=attention.to(device),
                max_new_tokens=args.max_completion_length,
                do_sample=True,
                temperature=args.temperature,
                pad_token_id=pad,
                eos_token_id=tokenizer.eos_token_id,
            )
    finally:
        if was_training:
            model.train()
    answers = []
    for row in out[:, width:].tolist():
        if tokenizer.eos_token_id in row:
            row = row[: row.index(tokenizer.eos_token_id) + 1]
        while row and row[-1] == pad and pad != tokenizer.eos_token_id:
            row.pop()
        answers.append(row)
    return answers
