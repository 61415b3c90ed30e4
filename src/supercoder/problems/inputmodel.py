"""An input model: the structure of a problem's inputs, inferred from them, to draw new ones.

``infer(inputs)`` reads the problem's inputs as lines of whitespace-separated tokens and
finds one structure that explains all of them: lines of fields (integers, decimals,
words), counts that govern what follows (``n`` then ``n`` lines; ``T`` then ``T``
blocks; ``n`` then a line of ``n`` numbers; ``r c`` then ``r`` words of ``c``
characters), numbers bounded by an earlier one (an edge ``u v`` of a graph on ``n``
nodes), and the ranges, alphabets and lengths seen. ``InputModel.draw(rng, k)`` draws
``k`` inputs from it: every number over the whole range the inputs span (a number seen
with one value only: from half of it up to it), the *size* numbers (those that govern a
count, a length or a bound, and every number of the first line) favouring the large end
(the inputs worth timing) and stratified over the ``k`` draws; governed counts, lengths
and bounds always kept consistent. An input more than 4x the longest seen is drawn again
smaller.

The model is a small JSON file, ``input_model.json`` in the problem folder (``problem
init`` writes it where there is no generator; edit it to widen a range or fix a
structure; docs/problems.md describes the format)::

    {"format": "supercoder-input-model/1",
     "body": [NODE, ...]}
    NODE   = {"line": [FIELD, ...]}                      one line of fields
           | {"repeat": COUNT, "body": [NODE, ...]}      the body COUNT times
    COUNT  = {"var": NAME} | {"range": [LO, HI]}
    FIELD  = {"int": [LO, HI], "name": NAME, "size": true, "max": NAME}
           | {"float": [LO, HI], "decimals": D}
           | {"word": {"chars": "abc", "len": COUNT}}
           | {"run": {"count": COUNT, "of": FIELD}}     that many fields on the line

``name`` makes an integer a variable that later counts, lengths and ``max`` bounds
refer to (``max``: the value is at most that variable's); ``size``: drawn favouring the
large end. ``"args": true``: the first line drawn is the run's command-line arguments
(a program whose tests have ``tests/NAME.args``). Problems without a stored model get one inferred on the fly, cached by the
content of their inputs.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supercoder.errors import UserError
from supercoder.paths import atomic_write_text, cache_dir
from supercoder.types import ARGS_MARK, Problem

FORMAT = "supercoder-input-model/1"
FILE = "input_model.json"
SOURCE_LIMIT = 4 << 20  # inputs longer than this are not read for a model
_INT = re.compile(r"^[+-]?\d{1,18}$")
_FLOAT = re.compile(r"^[+-]?\d*\.(\d+)(?:[eE][+-]?\d+)?$|^[+-]?\d+[eE][+-]?\d+$")
MAX_FIELDS = 12  # a line with more tokens is a run
BUDGET = 1 << 25  # characters one draw may make at most (a repeat costs REPEAT_COST)
REPEAT_COST = 16
_PAIR = re.compile(r"\[\s*(-?[\d.eE+-]+),\s*(-?[\d.eE+-]+)\s*\]")
_FIELD = re.compile(r"\{[^{}\[\]]*(?:\[[^\[\]]*\][^{}\[\]]*)*\}")


Env = dict[str, int]
Item = tuple[list[str], Env]  # one line's tokens and the variables in scope
Example = tuple[list[list[str]], Env]  # a segment's lines and the variables in scope


class _Infer:
    def __init__(self) -> None:
        self.count = 0
        self.sizes: set[str] = set()

    def new_var(self) -> str:
        self.count += 1
        return f"v{self.count - 1}"

    # ------------------------------------------------------------ segments

    def seq(self, exs: list[Example], depth: int = 0) -> list[dict]:
        if all(not lines for lines, _ in exs):
            return []
        if depth > 24 or any(not lines for lines, _ in exs):
            return [self.generic(exs)]
        node, envs = self.line([(lines[0], env) for lines, env in exs])
        rest = [(lines[1:], env) for (lines, _), env in zip(exs, envs, strict=True)]
        return [node, *self.rest(rest, depth + 1)]

    def rest(self, exs: list[Example], depth: int) -> list[dict]:
        if all(not lines for lines, _ in exs):
            return []
        names = list(exs[0][1])
        for v in reversed(names):  # the latest variable first
            counts = [env.get(v, -1) for _, env in exs]
            if min(counts) < 0 or max(counts) > 10**7:
                continue
            sizes = [len(lines) for lines, _ in exs]
            if sizes == counts and any(counts):
                body, _ = self.line([(ln, env) for lines, env in exs for ln in lines])
                self.sizes.add(v)
                return [{"repeat": {"var": v}, "body": [body]}]
            for k in range(2, 7):
                if any(counts) and sizes == [k * c for c in counts]:
                    blocks = [
                        (lines[j : j + k], env)
                        for lines, env in exs
                        for j in range(0, len(lines), k)
                    ]
                    self.sizes.add(v)
                    return [{"repeat": {"var": v}, "body": self.seq(blocks, depth)}]
            blocks = self.split_blocks(exs, counts)
            if blocks is not None:
                self.sizes.add(v)
                return [{"repeat": {"var": v}, "body": self.seq(blocks, depth)}]
            if all(s > c for s, c in zip(sizes, counts, strict=True)) and any(counts):
                heads = [
                    (ln, env)
                    for (lines, env), c in zip(exs, counts, strict=True)
                    for ln in lines[:c]
                ]
                widths = {len(ln) for ln, _ in heads}
                after = {len(lines[c]) for (lines, _), c in zip(exs, counts, strict=True)}
                if len(widths) == 1 and not after & widths:
                    body, _ = self.line(heads)
                    self.sizes.add(v)
                    tails = [(lines[c:], env) for (lines, env), c in zip(exs, counts, strict=True)]
                    return [{"repeat": {"var": v}, "body": [body]}, *self.seq(tails, depth)]
        if all(lines for lines, _ in exs):  # one more line of its own
            return self.seq(exs, depth)
        return [self.generic(exs)]

    def split_blocks(self, exs: list[Example], counts: list[int]) -> list[Example] | None:
        """``count`` blocks, each a header line whose token ``j`` is the number of lines
        after it in the block (the same ``j`` for every block and input)."""
        if not any(counts):
            return None
        for j in range(4):
            out: list[Example] = []
            ok = True
            for (lines, env), count in zip(exs, counts, strict=True):
                pos = 0
                for _ in range(count):
                    if pos >= len(lines) or len(lines[pos]) <= j or not _INT.match(lines[pos][j]):
                        ok = False
                        break
                    n = int(lines[pos][j])
                    if n < 0 or pos + 1 + n > len(lines):
                        ok = False
                        break
                    out.append((lines[pos : pos + 1 + n], env))
                    pos += 1 + n
                if not ok or pos != len(lines):
                    ok = False
                    break
            if ok and out:
                return out
        return None

    def generic(self, exs: list[Example]) -> dict:
        items = [(ln, env) for lines, env in exs for ln in lines]
        sizes = [len(lines) for lines, _ in exs]
        if not items:
            return {"repeat": {"range": [0, 0]}, "body": []}
        body, _ = self.line(items, allow_fields=False)
        return {"repeat": {"range": [min(sizes), max(sizes)]}, "body": [body]}

    # ------------------------------------------------------------ lines

    def line(self, items: list[Item], allow_fields: bool = True) -> tuple[dict, list[Env]]:
        widths = [len(toks) for toks, _ in items]
        count_var = self.count_var(items, widths)
        fixed = len(set(widths)) == 1 and 1 <= widths[0] <= MAX_FIELDS
        if allow_fields and fixed and not (count_var and (len(set(widths)) > 1 or widths[0] > 2)):
            fields, envs = [], [dict(env) for _, env in items]
            for col in range(widths[0]):
                column = [(toks[col], env) for toks, env in items]
                field = self.field(column)
                if "int" in field:
                    name = self.new_var()
                    field["name"] = name
                    for env, (tok, _) in zip(envs, column, strict=True):
                        env[name] = int(tok)
                fields.append(field)
            return {"line": fields}, envs
        tokens = [(tok, env) for toks, env in items for tok in toks]
        count = {"var": count_var} if count_var else {"range": [min(widths), max(widths)]}
        if count_var:
            self.sizes.add(count_var)
        if not tokens:
            return {"line": []}, [dict(env) for _, env in items]
        return {"line": [{"run": {"count": count, "of": self.field(tokens)}}]}, [
            dict(env) for _, env in items
        ]

    def count_var(self, items: list[Item], widths: list[int]) -> str | None:
        names = list(items[0][1])
        for v in reversed(names):
            if all(env.get(v) == w for (_, env), w in zip(items, widths, strict=True)):
                return v
        return None

    def field(self, column: list[tuple[str, Env]]) -> dict:
        toks = [t for t, _ in column]
        if all(_INT.match(t) for t in toks):
            values = [int(t) for t in toks]
            out: dict[str, Any] = {"int": [min(values), max(values)]}
            bound = self.bound(column, values)
            if bound:
                out["max"] = bound
                self.sizes.add(bound)
            return out
        if all(_INT.match(t) or _FLOAT.match(t) for t in toks):
            values = [float(t) for t in toks]
            decimals = max(
                (len(m.group(1)) for t in toks if (m := _FLOAT.match(t)) and m.group(1)), default=0
            )
            return {"float": [min(values), max(values)], "decimals": decimals}
        chars = "".join(sorted({c for t in toks for c in t}))
        lengths = [len(t) for t in toks]
        names = list(column[0][1])
        length: dict = {"range": [min(lengths), max(lengths)]}
        for v in reversed(names):
            if all(env.get(v) == len(t) for t, env in column):
                length = {"var": v}
                self.sizes.add(v)
                break
        return {"word": {"chars": chars, "len": length}}

    def bound(self, column: list[tuple[str, Env]], values: list[int]) -> str | None:
        """A variable every value stays within (at most it), that the values reach."""
        best, widest = None, -1
        for v in column[0][1]:
            tops = [env.get(v, 0) for _, env in column]
            if min(tops) <= 0 or any(x > t for x, t in zip(values, tops, strict=True)):
                continue
            reached = 2 * max(values) >= max(tops) and (
                len(set(tops)) > 1 or max(values) == max(tops)
            )
            if reached and sum(tops) > widest:  # the least restrictive bound
                best, widest = v, sum(tops)
        return best


def _lines(text: str) -> list[list[str]]:
    lines = [ln.split() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _mark_sizes(body: list[dict], sizes: set[str], first: bool) -> None:
    for k, node in enumerate(body):
        if "line" in node:
            for field in node["line"]:
                if "int" in field and (field.get("name") in sizes or (first and k == 0)):
                    field["size"] = True
        else:
            _mark_sizes(node["body"], sizes, False)


def infer(inputs: Sequence[bytes]) -> InputModel:
    """The model of ``inputs`` (see the module docstring); UserError where they are not
    text. Inputs led by command-line arguments (``types.with_args``) are modelled with
    their arguments as a first line (``"args": true``): a size set on the command line
    is drawn like any other number."""
    args = any(d.startswith(ARGS_MARK) for d in inputs)
    if args:  # the arguments' line first ("" where an input has none)
        inputs = [d[len(ARGS_MARK) :] if d.startswith(ARGS_MARK) else b"\n" + d for d in inputs]
    texts = []
    for data in inputs:
        if len(data) > SOURCE_LIMIT:
            continue
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    if not texts:
        raise UserError("no text input to infer an input model from")
    inf = _Infer()
    body = inf.seq([(_lines(t), {}) for t in texts])
    _mark_sizes(body, inf.sizes, True)
    longest = max(len(t.encode()) for t in texts)
    spec = {"format": FORMAT, "body": body, "longest": longest}
    return InputModel({**spec, "args": True} if args else spec)


@dataclass(frozen=True)
class InputModel:
    """An input model (the module docstring); ``spec`` is its JSON."""

    spec: dict

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.spec, sort_keys=True).encode()).hexdigest()

    def draw(self, rng: random.Random, k: int) -> list[str]:
        """``k`` inputs, stratified over the size range (draw i from its own k-th);
        UserError where a (stored, edited) model cannot be drawn from."""
        try:
            return self._draw(rng, k)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise UserError(f"input model: cannot draw ({type(e).__name__}: {e})") from e

    def _draw(self, rng: random.Random, k: int) -> list[str]:
        out = []
        cap = 4 * max(1, int(self.spec.get("longest", 1 << 16)))
        for i in range(k):
            u = (i + rng.random()) / max(1, k)
            for _ in range(6):
                text = _Draw(rng, u).body(self.spec["body"], {})
                if len(text) <= cap:
                    break
                u *= 0.6
            out.append(ARGS_MARK.decode() + text if self.spec.get("args") else text)
        return out

    def save(self, folder: Path) -> Path:
        path = folder / FILE
        text = json.dumps(self.spec, indent=1)
        text = _PAIR.sub(lambda m: f"[{m[1]}, {m[2]}]", text)  # ranges on one line
        text = _FIELD.sub(lambda m: " ".join(m[0].split()), text)  # fields on one line
        if json.loads(text) != self.spec:  # a string the layout must not touch
            text = json.dumps(self.spec, indent=1)
        path.write_text(text + "\n")
        return path


class _Draw:
    def __init__(self, rng: random.Random, u: float):
        self.rng, self.u = rng, u
        # characters at most, whatever the model says (a stored model is the problem
        # folder's, untrusted: no count or length in it can make a draw run away)
        self.budget = BUDGET

    def body(self, nodes: list[dict], env: dict[str, int]) -> str:
        lines: list[str] = []
        self.nodes(nodes, env, lines)
        return "\n".join(lines) + "\n"

    def nodes(self, nodes: list[dict], env: dict[str, int], lines: list[str]) -> None:
        for node in nodes:
            if "line" in node:
                lines.append(" ".join(self.fields(node["line"], env)))
            else:
                n = self.count(node["repeat"], env)
                for _ in range(n):
                    self.budget -= REPEAT_COST  # an empty body costs too
                    if self.budget <= 0:
                        break
                    self.nodes(node["body"], dict(env), lines)

    def count(self, spec: dict, env: dict[str, int]) -> int:
        if "var" in spec:
            return max(0, int(env.get(spec["var"], 0)))
        lo, hi = (int(x) for x in spec["range"])
        return self.sized(lo, hi)

    def sized(self, lo: int, hi: int) -> int:
        """A size in [lo, hi] (one value seen: from half of it), favouring the top."""
        if lo == hi:
            lo = hi // 2 if hi > 1 else lo
        u = abs(self.u + self.rng.uniform(-0.1, 0.1))  # reflected into [0, 1]: no
        u = 2.0 - u if u > 1.0 else u  # endpoint (a value seen) gets a share of its own
        return int(round(lo + (hi - lo) * math.sqrt(u)))

    def fields(self, fields: list[dict], env: dict[str, int]) -> list[str]:
        out = []
        for f in fields:
            if "run" in f:
                for _ in range(self.count(f["run"]["count"], env)):
                    if self.budget <= 0:
                        break
                    out.append(self.value(f["run"]["of"], env))
            else:
                out.append(self.value(f, env))
        return out

    def value(self, f: dict, env: dict[str, int]) -> str:
        text = self._value(f, env)
        self.budget -= len(text) + 1
        return text

    def _value(self, f: dict, env: dict[str, int]) -> str:
        rng = self.rng
        if "int" in f:
            lo, hi = (int(x) for x in f["int"])
            if f.get("max") in env:  # up to the variable it is bounded by
                hi = env[f["max"]]
                lo = min(lo, hi)
            if f.get("size"):
                v = self.sized(lo, hi) if hi >= 0 and lo >= 0 else rng.randint(lo, hi)
            else:
                v = rng.randint(lo, hi)
            if f.get("name"):
                env[f["name"]] = v
            return str(v)
        if "float" in f:
            lo, hi = (float(x) for x in f["float"])
            d = max(0, min(30, int(f.get("decimals", 0))))
            return f"{rng.uniform(lo, hi):.{d}f}"
        if "word" in f:
            w = f["word"]
            n = self.count(w["len"], env) if "var" in w["len"] else rng.randint(*w["len"]["range"])
            n = max(1, min(n, self.budget))
            self.budget -= n
            chars = w["chars"] or "a"
            return "".join(rng.choices(chars, k=n))
        raise UserError(f"input model: unknown field {sorted(f)}")


_CHECKED: dict[str, InputModel] = {}  # stored models checked in this process, by digest


def load_model(path: Path) -> InputModel:
    """A stored model; UserError (naming the file) if it is not one."""
    try:
        raw = path.read_bytes()
        key = hashlib.sha256(raw).hexdigest()
        if key in _CHECKED:
            return _CHECKED[key]
        spec = json.loads(raw)
    except (OSError, ValueError) as e:
        raise UserError(f"{path}: not an input model ({e})") from e
    if (
        not isinstance(spec, dict)
        or spec.get("format") != FORMAT
        or not isinstance(spec.get("body"), list)
    ):
        raise UserError(
            f'{path}: not an input model (expected "format": "{FORMAT}" and a "body" list)'
        )
    try:  # a model that cannot draw is refused here, not at a check
        InputModel(spec).draw(random.Random(0), 1)
    except (KeyError, TypeError, ValueError, AttributeError, UserError) as e:
        raise UserError(f"{path}: a malformed input model ({type(e).__name__}: {e})") from e
    _CHECKED[key] = InputModel(spec)
    return _CHECKED[key]


def model_for(problem: Problem) -> InputModel | None:
    """The problem's stored model (``input_model.json``), else one inferred from all its
    inputs, cached by their content; None where its inputs are not text."""
    from supercoder.problems.loading import own_file

    folder = problem.meta.get("path")
    if folder and (Path(folder) / FILE).exists():
        return load_model(own_file(Path(folder), Path(folder) / FILE))
    inputs = [t.run_input() for t in problem.tests]
    h = hashlib.sha256(b"model-1\n")
    for data in inputs:
        h.update(hashlib.sha256(data).digest())
    path = cache_dir() / "unseen" / "models" / f"{h.hexdigest()[:32]}.json"
    if path.is_file():
        try:
            return InputModel(json.loads(path.read_text()))
        except ValueError:
            pass
    try:
        model = infer(inputs)
    except UserError:
        return None
    atomic_write_text(path, json.dumps(model.spec))
    return model
