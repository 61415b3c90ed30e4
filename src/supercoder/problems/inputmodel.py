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
    COUNT  = {"var": NAME} | {"var": "2^NAME"} | {"range": [LO, HI], "fixed": true}
    FIELD  = {"int": [LO, HI], "name": NAME, "size": true, "max": NAME, "exp": true}
           | {"float": [LO, HI], "decimals": D}
           | {"word": {"chars": "abc", "len": COUNT}}      ("fixed": "x": always x)
           | {"run": {"count": COUNT, "of": FIELD}}     that many fields on the line
           | {"parts": [{"int": [LO, HI], "pad": W}, ...], "seps": [":", ...]}
                                                        numbers joined (3:05, 2024-01-31)

``parts``: a token of numbers joined by ``:``, ``/``, ``-`` or ``.`` the same way in every
input (a time ``m:ss``, a date), each number drawn within the range seen at its place
(``pad``: zero-padded to that width, as seen), never letters a program's ``scanf("%d:%d")``
stops at. ``name`` makes an integer a variable that later counts, lengths and ``max`` bounds
refer to (``max``: the value is at most that variable's; ``2^NAME``: two to its power,
``k`` then ``2^k`` values); ``size``: drawn favouring the large end; ``exp``: a size by
its power of two (grown by one per doubling). A line's ``"ordered": [[i, j]]``: field
``i`` at most field ``j`` (``l r`` queries). ``"pow2": true``: an integer drawn as a
power of two (every value seen was one: an FFT's sizes); ``"mult": D``: every value seen
was a multiple of D (200 1000 2000): drawn as multiples of it where the domain's
``refine`` says ``multiples`` (the reference refused other values) or the field says
``"multiple": true`` (a size on the command line, over 64: a benchmark's sizes); ``{"word": {"one_of": [...]}}``:
one of the words seen (command-line flags after the numbers, ``4 8192 -i``); a
``"fixed"`` count does not grow with the sizes. Long runs and repeated lines of one shape
are drawn a column at a time (numpy), so an input of megabytes takes tens of
milliseconds. ``{"pick": [BODY, ...]}``: one of these bodies (``"script": true``: the inputs are an
interpreter's scripts, ``is_script``; each visible script is a body of its lines as
written, fixed text around its integer literals, which are sizes: ``fib(35)`` is drawn
as ``fib(27)``...``fib(35)``, grown or shrunk with the domain (each script by a factor
of its own where the domain has ``pick_grow``, from its own ``pick_low`` position up;
a size shrunk below the range seen keeps
the range's proportions), never token soup; a line's ``"glue": true``: its fields joined
with nothing between them).
``"args": true``: the first line drawn is the run's command-line arguments
(a program whose tests have ``tests/NAME.args``). ``"data_files": {ARGS: NAME}``: each
script its own data file, named by its arguments' line. ``"data_file": NAME``: the inputs are
one data file each (``tests/NAME.files/``, empty stdin), modelled as the body; a drawn
input ships its body as that file (``types.data_file_view``). Problems without a stored model get one inferred on the fly, cached by the
content of their inputs.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import math
import random
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.errors import UserError
from supercoder.paths import atomic_write_text, cache_dir
from supercoder.problems.constraints import grown, grown_exp, resolve_constraints
from supercoder.problems.loading import own_file
from supercoder.types import (
    ARGS_MARK,
    Files,
    Problem,
    data_file_view,
    from_data_file_view,
    is_data_file_name,
    split_run,
    with_args,
)

FORMAT = "supercoder-input-model/1"
FILE = "input_model.json"
SOURCE_LIMIT = 4 << 20  # inputs longer than this are not read for a model
_INT = re.compile(r"^[+-]?\d{1,18}$")
_JOINED = re.compile(r"^\d{1,9}(?:[:/.-]\d{1,9})+$")  # 3:05, 12:30:00, 2024-01-31, 1/2
_SEP = re.compile(r"([:/.-])")
_FLAG = re.compile(r"^--?[A-Za-z][\w=.-]*$")  # a command-line flag: -i, --fast, -n=3
_FLOAT = re.compile(r"^[+-]?\d*\.(\d+)(?:[eE][+-]?\d+)?$|^[+-]?\d+[eE][+-]?\d+$")
MAX_FIELDS = 12  # a line with more tokens is a run
DRAW_CHARS = 1 << 22  # characters one draw may make at most (a repeat costs REPEAT_COST)
BUDGET = DRAW_CHARS  # the earlier name
DRAW_SECONDS = 1.0  # host CPU all of a check's draws may take, whatever the model says
REPEAT_COST = 16
POW = "2^"  # ``2^v``: a count or bound that is 2 to the power of variable ``v``
POW_LOW, POW_HIGH = 2, 40
EXP_WITHIN_MAX = 16  # a size only ``within`` 2^it is an exponent while this small
ORDER_MIN = 8  # lines seen before two numbers in order on each are drawn in order  # the exponents inferred as such (2^2 .. 2^40)
ATTEMPTS = 6  # tries at one draw, each a quarter of the sizes of the one before
VECTOR_MIN = 32  # runs and repeats at least this long are drawn a column at a time
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
        for v in _latest_first(exs[0][1]):  # the latest variable first, 2^v after all
            counts = [env.get(v, -1) for _, env in exs]
            if min(counts) < 0 or max(counts) > 10**7:
                continue
            sizes = [len(lines) for lines, _ in exs]
            if sizes == counts and any(counts) and not _run_first(exs, counts):
                body, _ = self.line([(ln, env) for lines, env in exs for ln in lines])
                self.sizes.add(v)
                return [{"repeat": {"var": v}, "body": [body]}]
            for add in (-1, 1):  # n then n-1 edges of a tree, n+1 lines
                if sizes != [c + add for c in counts] or not any(sizes):
                    continue  # (the lines' shapes are read only where the counts fit)
                if len({len(ln) for lines, _ in exs for ln in lines}) == 1:
                    body, _ = self.line([(ln, env) for lines, env in exs for ln in lines])
                    self.sizes.add(v)
                    return [{"repeat": {"var": v, "add": add}, "body": [body]}]
            for k in range(2, 7):
                if any(counts) and sizes == [k * c for c in counts]:
                    after = self.one_after_another(exs, counts, k, v)
                    if after is not None:  # a grid of h lines, then h lines of numbers
                        return after
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
                shapes = {_shape(ln) for ln, _ in heads}  # ``r`` rows of ``.#``, then ``q``
                after = {_shape(lines[c]) for (lines, _), c in zip(exs, counts, strict=True)}
                if len(widths) == 1 and not after & shapes:
                    body, _ = self.line(heads)
                    self.sizes.add(v)
                    tails = [(lines[c:], env) for (lines, env), c in zip(exs, counts, strict=True)]
                    return [{"repeat": {"var": v}, "body": [body]}, *self.seq(tails, depth)]
        two = self.two_counts(exs)
        if two is not None:
            return two
        if all(lines for lines, _ in exs):  # one more line of its own
            return self.seq(exs, depth)
        return [self.generic(exs)]

    def two_counts(self, exs: list[Example]) -> list[dict] | None:
        """``m`` lines then ``q`` lines where an earlier line gave both (``n m q``, ``m``
        edges, then ``q`` queries of the same shape): two repeats, in the order the counts
        were given, each of lines of one width (None where no two counts add up)."""
        names = [v for v in exs[0][1] if not v.startswith(POW)]
        sizes = [len(lines) for lines, _ in exs]
        for i, u in enumerate(names):
            for v in names[i + 1 :]:
                cu = [env.get(u, -1) for _, env in exs]
                cv = [env.get(v, -1) for _, env in exs]
                if min(cu + cv) < 0 or not any(cu) or not any(cv) or max(cu + cv) > 10**7:
                    continue
                if sizes != [a + b for a, b in zip(cu, cv, strict=True)]:
                    continue
                first = [(lines[:a], env) for (lines, env), a in zip(exs, cu, strict=True)]
                then = [(lines[a:], env) for (lines, env), a in zip(exs, cu, strict=True)]
                if any(
                    len({len(ln) for ln in seg}) > 1 for part in (first, then) for seg, _ in part
                ):
                    continue
                self.sizes |= {u, v}
                return [
                    {
                        "repeat": {"var": w},
                        "body": [self.line([(ln, e) for seg, e in part for ln in seg])[0]],
                    }
                    for w, part in ((u, first), (v, then))
                ]
        return None

    def one_after_another(
        self, exs: list[Example], counts: list[int], k: int, v: str
    ) -> list[dict] | None:
        """``k`` repeats of ``v`` lines one after another (``h`` rows of a grid, then ``h``
        rows of numbers; ``n`` values, then ``n`` queries), where each of the ``k`` parts
        has lines of one shape and ``k``-line blocks taken in turn would not (None: read
        as blocks, as before)."""

        def shape(lines: list[list[str]]) -> tuple | None:
            kinds = {tuple(_kind(tok) for tok in ln) for ln in lines}
            if len({len(ln) for ln in lines}) != 1:
                return None  # a part's lines have one token count each input
            return tuple(sorted({kd for ks in kinds for kd in ks}))

        parts: list[list[tuple[list[str], Env]]] = [[] for _ in range(k)]
        whole: list[set] = [set() for _ in range(k)]
        for (lines, env), c in zip(exs, counts, strict=True):
            if not c:
                continue
            for j in range(k):
                seg = lines[j * c : (j + 1) * c]
                s = shape(seg)
                if s is None:
                    return None
                whole[j].add(s)
                parts[j] += [(ln, env) for ln in seg]
        if any(len(w) != 1 for w in whole) or len({next(iter(w)) for w in whole}) == 1:
            return None  # a part mixes shapes, or every part looks alike: blocks, as before
        self.sizes.add(v)
        return [{"repeat": {"var": v}, "body": [self.line(part)[0]]} for part in parts]

    def split_blocks(self, exs: list[Example], counts: list[int]) -> list[Example] | None:
        """``count`` blocks, each a header line whose token ``j`` is the number of lines
        after it in the block, give or take the same ``add`` (the same ``j`` for every
        block and input; ``n q``, a line of ``n`` values, then ``q`` queries: ``q`` + 1)."""
        if not any(counts):
            return None
        for j, add in ((j, add) for add in (0, 1, 2) for j in range(4)):
            out: list[Example] = []
            ok = True
            for (lines, env), count in zip(exs, counts, strict=True):
                pos = 0
                for _ in range(count):
                    if pos >= len(lines) or len(lines[pos]) <= j or not _INT.match(lines[pos][j]):
                        ok = False
                        break
                    n = int(lines[pos][j]) + add
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
                        if POW_LOW <= int(tok) <= POW_HIGH:  # 2^n values, 2^n lines
                            env[POW + name] = 1 << int(tok)
                fields.append(field)
            ordered = _ordered(items, fields)
            return ({"line": fields, "ordered": ordered} if ordered else {"line": fields}), envs
        flags = _flag_tail(items, widths)
        if allow_fields and not count_var and flags:  # 4 8192 [-i]: numbers, then flags
            head, envs = self.line([(toks[:flags], env) for toks, env in items])
            tail = [(tok, env) for toks, env in items for tok in toks[flags:]]
            count = {"range": [min(widths) - flags, max(widths) - flags], "fixed": True}
            head["line"] = [*head["line"], {"run": {"count": count, "of": self.field(tail)}}]
            return head, envs
        tokens = [(tok, env) for toks, env in items for tok in toks]
        count = {"var": count_var} if count_var else {"range": [min(widths), max(widths)]}
        if count_var:
            self.sizes.add(count_var)
        if not tokens:
            return {"line": []}, [dict(env) for _, env in items]
        run: dict[str, Any] = {"count": count, "of": self.field(tokens)}
        if _sorted_runs([toks for toks, _ in items]):
            run["sorted"] = True
        return {"line": [{"run": run}]}, [dict(env) for _, env in items]

    def count_var(self, items: list[Item], widths: list[int]) -> str | None:
        for v in _latest_first(items[0][1]):
            if all(env.get(v) == w for (_, env), w in zip(items, widths, strict=True)):
                return v
        return None

    def field(self, column: list[tuple[str, Env]]) -> dict:
        toks = [t for t, _ in column]
        if all(_INT.match(t) for t in toks):
            values = [int(t) for t in toks]
            out: dict[str, Any] = {"int": [min(values), max(values)]}
            if _powers_of_two(values):
                out["pow2"] = True  # 4096 8192 32768: an FFT's sizes
            step = _common_step(values)
            if step:
                out["mult"] = step  # 200 1000 2000: drawn as multiples under "multiples"
            bound = self.bound(column, values)
            if bound:
                out["max"] = bound
                self.sizes.add(bound)
            else:
                within = self.bound(column, values, reached=False)
                if within:
                    out["within"] = within  # at most it where seen (``refine``: bounded)
            return out
        if all(_INT.match(t) or _FLOAT.match(t) for t in toks):
            values = [float(t) for t in toks]
            decimals = max(
                (len(m.group(1)) for t in toks if (m := _FLOAT.match(t)) and m.group(1)), default=0
            )
            return {"float": [min(values), max(values)], "decimals": decimals}
        joined = _joined(toks)
        if joined is not None:
            return joined
        chars = "".join(sorted({c for t in toks for c in t}))
        lengths = [len(t) for t in toks]
        if all(_FLAG.match(t) for t in toks):  # command-line flags: the ones seen
            return {"word": {"one_of": sorted(set(toks))}}
        length: dict = {"range": [min(lengths), max(lengths)]}
        for v in _latest_first(column[0][1]):
            if all(env.get(v) == len(t) for t, env in column):
                length = {"var": v}
                self.sizes.add(v)
                break
        return {"word": {"chars": chars, "len": length}}

    def bound(
        self, column: list[tuple[str, Env]], values: list[int], reached: bool = True
    ) -> str | None:
        """A variable every value stays within (at most it), that the values reach
        (``reached`` False: the tightest one they stay within, reached or not)."""
        best, widest = None, -1
        widest_rank: tuple[bool, int] = (False, -1)
        for v in column[0][1]:
            tops = [env.get(v, 0) for _, env in column]
            if min(tops) <= 0 or any(x > t for x, t in zip(values, tops, strict=True)):
                continue
            if not reached:
                if best is None or sum(tops) < widest:
                    best, widest = v, sum(tops)
                continue
            ok = 2 * max(values) >= max(tops) and (len(set(tops)) > 1 or max(values) == max(tops))
            # one the values reach exactly (an index up to 2^k, not up to the query
            # count), else the least restrictive
            rank = (max(values) == max(tops), sum(tops))
            if ok and (best is None or rank > widest_rank):
                best, widest_rank = v, rank
        return best


def _flag_tail(items: list[Item], widths: list[int]) -> int:
    """The width of the numbers every line starts with where lines differ in width only
    by flags after them (``4 4096``, ``4 8192 -i``); 0 otherwise."""
    k = min(widths)
    if k < 1 or max(widths) > MAX_FIELDS or len(set(widths)) == 1:
        return 0
    if not all(_INT.match(t) for toks, _ in items for t in toks[:k]):
        return 0
    tail = [t for toks, _ in items for t in toks[k:]]
    return k if tail and all(_FLAG.match(t) for t in tail) else 0


def _powers_of_two(values: list[int]) -> bool:
    """Every value a power of two, several distinct ones seen, up to at least 8."""
    return (
        len(values) >= 3
        and len(set(values)) >= 2
        and max(values) >= 8
        and all(v >= 1 and v & (v - 1) == 0 for v in values)
    )


def _common_step(values: list[int]) -> int:
    """The common divisor (at least 2) of a few positive values, several distinct ones
    seen (mandelbrot's 200 1000 2000: a width the program needs a multiple of 8); 0 where
    there is none."""
    if len(values) < 3 or len(set(values)) < 2 or min(values) < 2:
        return 0
    g = 0
    for v in values:
        g = math.gcd(g, v)
    return g if g >= 2 else 0


def _mult_of(v: int, lo: int, hi: int, step: int) -> int:
    """The multiple of ``step`` nearest ``v`` within [lo, hi] where one is."""
    if step < 2:
        return v
    m = max(step, round(v / step) * step)
    while m > hi and m - step >= max(lo, step):
        m -= step
    while m < lo and m + step <= hi:
        m += step
    return m


def _pow2_of(v: int, lo: int, hi: int) -> int:
    """The power of two nearest ``v`` (on a log scale) within [lo, hi] where one is."""
    if v < 1:
        return v
    p = 1 << max(0, round(math.log2(v)))
    while p > hi and p > 1:
        p >>= 1
    while p < lo and p * 2 <= hi:
        p <<= 1
    return p


def _pairs(node: dict, fields: list[dict]) -> list[tuple[int, int]]:
    """A line's ``ordered`` pairs (i, j: value i at most value j), of integer fields."""
    out = []
    for pair in node.get("ordered") or ():
        i, j = (int(x) for x in pair)
        if 0 <= i < j < len(fields) and "int" in fields[i] and "int" in fields[j]:
            out.append((i, j))
    return out


def _ordered(items: list[Item], fields: list[dict]) -> list[list[int]]:
    """Adjacent integer fields whose values are in order on every line seen (``l r``
    with ``l <= r``), over enough lines (``ORDER_MIN``) to tell."""
    if len(items) < ORDER_MIN:
        return []
    out = []
    for j in range(len(fields) - 1):
        a, b = fields[j], fields[j + 1]
        if "int" not in a or "int" not in b or a["int"][1] <= b["int"][0]:
            continue  # in order by their ranges alone: nothing to keep
        pairs = [(int(toks[j]), int(toks[j + 1])) for toks, _ in items]
        if all(x <= y for x, y in pairs) and any(x < y for x, y in pairs):
            out.append([j, j + 1])
    return out


def _latest_first(env: Env) -> list[str]:
    """The variables in scope, the latest first; the derived ``2^v`` ones after all."""
    names = list(reversed(env))
    return [v for v in names if not v.startswith(POW)] + [v for v in names if v.startswith(POW)]


def _run_first(exs: list[Example], counts: list[int]) -> bool:
    """The first of the lines is a line of ``count`` values and the others are all one
    other width (``n``, a line of ``n`` bits, then ``n - 1`` edges): not ``n`` lines of
    one body (a run of 2 to ``n`` tokens, drawn as ``n`` lines of up to ``n`` values)."""
    rest = {len(ln) for lines, _ in exs for ln in lines[1:]}
    firsts = all(len(lines[0]) == c for (lines, _), c in zip(exs, counts, strict=True))
    return firsts and len(rest) == 1 and not rest & set(counts)


def _sorted_runs(runs: list[list[str]]) -> bool:
    """Every run of numbers seen is in non-decreasing order (one at least 3 long)."""
    if not any(len(r) >= 3 for r in runs):
        return False
    for r in runs:
        if not all(_INT.match(t) for t in r):
            return False
        values = [int(t) for t in r]
        if any(a > b for a, b in zip(values, values[1:], strict=False)):
            return False
    return True


def _lines(text: str) -> list[list[str]]:
    lines = [ln.split() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _mark_sizes(body: list[dict], sizes: set[str], first: bool, exps: set[str]) -> None:
    for k, node in enumerate(body):
        if "line" in node:
            for field in node["line"]:
                name = field.get("name")
                if "int" in field and (name in sizes or (first and k == 0)):
                    field["size"] = True
                if "int" in field and name in exps:
                    field["size"] = field["exp"] = True  # a size by its power of two
        elif "body" in node:
            _mark_sizes(node["body"], sizes, False, exps)


def _exponents(body: list[dict]) -> set[str]:
    """The variables some count, length or bound uses as ``2^v``; one only a ``within``
    record names only where it stays small (at most ``EXP_WITHIN_MAX`` seen: ``n <= 10``
    points whose cost may explode, grown one step per doubling), never a count of cases
    (``T`` cases of values up to 9 stay within ``2^T``: ``T`` grows as a size)."""
    text = json.dumps(body)
    used = set(
        re.findall(r'"' + re.escape(POW) + r'(\w+)"', re.sub(r'"within": "[^"]*"', "", text))
    )
    within = set(re.findall(r'"within": "' + re.escape(POW) + r'(\w+)"', text)) - used
    tops: dict[str, int] = {}

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if "int" in x and isinstance(x.get("name"), str):
                tops[x["name"]] = int(x["int"][1])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(body)
    return used | {v for v in within if tops.get(v, EXP_WITHIN_MAX + 1) <= EXP_WITHIN_MAX}


def _shape(toks: list[str]) -> tuple:
    """A line's shape: its token count, and which kinds of token it holds."""
    return len(toks), tuple(sorted({_kind(t) for t in toks}))


def _kind(tok: str) -> str:
    """A token's kind: an integer, a decimal, or a word."""
    if _INT.match(tok):
        return "int"
    return "float" if _FLOAT.match(tok) else "word"


def _joined(toks: list[str]) -> dict | None:
    """The ``parts`` field of tokens that are numbers joined by the same separators
    (``3:05``, ``2024-01-31``), or None: each place's range, and its zero-padded width
    where every value seen there has the same width and one starts with a zero."""
    if not toks or not all(_JOINED.match(t) for t in toks):
        return None
    split = [_SEP.split(t) for t in toks]
    shape = split[0][1::2]
    if any(s[1::2] != shape for s in split):
        return None
    parts = []
    for i in range(0, len(split[0]), 2):
        seen = [s[i] for s in split]
        part: dict[str, Any] = {"int": [min(map(int, seen)), max(map(int, seen))]}
        widths = {len(x) for x in seen}
        if len(widths) == 1 and any(x.startswith("0") and len(x) > 1 for x in seen):
            part["pad"] = widths.pop()
        parts.append(part)
    return {"parts": parts, "seps": shape}


def _join_parts(f: dict, columns: list[list[int]]) -> list[str]:
    """Tokens of a ``parts`` field from one list of values per place."""
    seps = [str(s).replace("%", "%%") for s in f["seps"]] + [""]
    pads = [max(0, min(18, int(p.get("pad", 0) or 0))) for p in f["parts"]]
    fmt = "".join(f"%0{pad}d{sep}" for pad, sep in zip(pads, seps, strict=False))
    return list(map(fmt.__mod__, zip(*columns, strict=True)))


def _keep_name(body: list, name: str, args: bool) -> None:
    """The arguments' words that name the data file are drawn as that name (``fixed``):
    the file a drawn input ships is the one its arguments name."""
    first = body[0] if args and body else None
    for f in (first or {}).get("line", []):
        w = f.get("word") if isinstance(f, dict) else None
        if isinstance(w, dict) and sorted(set(w.get("chars", ""))) == sorted(set(name)):
            w["fixed"] = name


@contextlib.contextmanager
def _no_cycle_collector() -> Iterator[None]:
    """The cyclic garbage collector paused (as it was after): inference makes a tuple per
    token of megabytes of input, and the collector's passes over them took 4/5 of its
    time (a 1.7 MB multi-case input: 6.8 s of CPU, 1.4 s without)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


ARGS_STEP_MIN = 64  # a command-line size above this (not a depth) keeps its step


def _args_steps(body: list) -> None:
    """A size on the command line whose visible values share a step (mandelbrot's
    widths 200 1000 2000, spectralnorm's 100 5500) is drawn as multiples of it
    (``"multiple": true``): a benchmark's author picks sizes the program is made for (a
    width that is not a multiple of 8 races there); a depth (all values small, 10 12 14)
    steps by one instead."""
    first = body[0] if body else {}
    for f in first.get("line", []) if isinstance(first, dict) else []:
        if isinstance(f, dict) and f.get("mult") and int(f["int"][0]) > ARGS_STEP_MIN:
            f["multiple"] = True


_LITERAL = re.compile(r"(?<![\w.])\d{1,9}(?![\w.])")  # an integer literal of a script
_CODE = "(){};=[]"
SCRIPT_LITERAL_MIN = 3  # smaller literals (0, 1, 2: n < 2, i + 1) are structure: kept


def is_script(texts: Sequence[str]) -> bool:
    """Are these inputs program text (an interpreter's scripts: ``fun fib(n) {``),
    rather than data? Every one has several lines, most of its tokens hold a letter, and
    code punctuation (``(){};=[]``) is common in it."""
    if not texts:
        return False
    for text in texts:
        tokens = text.split()
        if len([ln for ln in text.split("\n") if ln.strip()]) < 2 or not tokens:
            return False
        if sum(1 for t in tokens if any(c.isalpha() for c in t)) < 0.5 * len(tokens):
            return False
        dense = len(text) - sum(1 for c in text if c.isspace())
        if sum(text.count(c) for c in _CODE) < max(4, 0.02 * dense):
            return False
    return True


def _script(text: str, args_line: str | None) -> list[dict]:
    """One visible script as lines of fixed text and integer literals: each literal of
    at least ``SCRIPT_LITERAL_MIN`` a size drawn from three quarters of it up to it
    (grown or shrunk with the domain), the rest of the text as written."""
    nodes: list[dict] = []
    if args_line is not None:
        nodes.append({"line": [{"word": {"fixed": args_line}}] if args_line else []})
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        fields: list[dict] = []
        at = 0
        for m in _LITERAL.finditer(line):
            v = int(m[0])
            if v < SCRIPT_LITERAL_MIN or m[0].startswith("0"):
                continue
            if line[at : m.start()]:
                fields.append({"word": {"fixed": line[at : m.start()]}})
            fields.append({"int": [max(SCRIPT_LITERAL_MIN, (3 * v + 3) // 4), v], "size": True})
            at = m.end()
        if line[at:] or not fields:
            fields.append({"word": {"fixed": line[at:]}})
        nodes.append({"line": fields, "glue": True} if len(fields) > 1 else {"line": fields})
    return nodes


def infer(inputs: Sequence[bytes]) -> InputModel:
    """The model of ``inputs`` (see the module docstring); UserError where they are not
    text. Inputs led by command-line arguments (``types.with_args``) are modelled with
    their arguments as a first line (``"args": true``): a size set on the command line
    is drawn like any other number."""
    raw = list(inputs)
    views = [data_file_view(d) for d in inputs]  # a test's one data file: its body
    names = {name for _, name in views}
    data_file = names.pop() if len(names) == 1 and None not in names else None
    inputs = [view for view, _ in views]
    args = any(d.startswith(ARGS_MARK) for d in inputs)
    if args:  # the arguments' line first ("" where an input has none)
        inputs = [d[len(ARGS_MARK) :] if d.startswith(ARGS_MARK) else b"\n" + d for d in inputs]
    texts, kept_names = [], []
    for data, (_, file_name) in zip(inputs, views, strict=True):
        if len(data) > SOURCE_LIMIT:
            continue
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
        kept_names.append(file_name)
    if not texts:
        raise UserError("no text input to infer an input model from")
    longest = max(len(t.encode()) for t in texts)
    bodies = [t.split("\n", 1)[1] if args and "\n" in t else ("" if args else t) for t in texts]
    if is_script(bodies):  # an interpreter's scripts: as written, their literals drawn anew
        scripts = [
            _script(b, t.split("\n", 1)[0] if args else None)
            for t, b in zip(texts, bodies, strict=True)
        ]
        spec = {"format": FORMAT, "body": [{"pick": scripts}], "longest": longest}
        spec["script"] = True
        if data_file is not None:
            spec["data_file"] = data_file
        elif args and kept_names and None not in kept_names:
            # each script its own file, named by its arguments (fib.lox, zoo.lox)
            by_args: dict[str, str] = {}
            for t, file_name in zip(texts, kept_names, strict=True):
                by_args.setdefault(t.split("\n", 1)[0], str(file_name))
            if len(set(by_args.values())) == len(by_args):
                spec["data_files"] = by_args
        return InputModel({**spec, "args": True} if args else spec)
    inf = _Infer()
    with _no_cycle_collector():  # millions of token tuples, none in a cycle
        body = inf.seq([(_lines(t), {}) for t in texts])
    _mark_sizes(body, inf.sizes, True, _exponents(body))
    spec = {"format": FORMAT, "body": body, "longest": longest}
    if args:
        _args_steps(body)
    if data_file is not None:  # drawn inputs are drawn files of that name (empty stdin)
        spec["data_file"] = data_file
        _keep_name(body, data_file, args)
    shared = shared_files(raw) if data_file is None else ()
    for name, _ in shared:  # the arguments name a file every input ships: kept so
        _keep_name(body, name, args)
    return InputModel({**spec, "args": True} if args else spec, shared)


def shared_files(inputs: Sequence[bytes]) -> Files:
    """The data files every one of ``inputs`` ships alike (name and bytes; text only):
    a dictionary a program reads beside its stdin (``anagram words 2``), which every
    input drawn from a model of their stdin ships too. Empty where one input ships a
    file the others lack or ship otherwise."""
    common: dict[str, bytes] | None = None
    for data in inputs:
        files = dict(split_run(data)[1])
        common = files if common is None else {n: b for n, b in common.items() if files.get(n) == b}
        if not common:
            return ()
    out = []
    for name, body in sorted((common or {}).items()):
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return ()  # a drawn input is text: a binary file cannot ride along
        out.append((name, body))
    return tuple(out)


class DrawRefused(UserError):
    """No input can be drawn from the model within the host's budget (``DRAW_SECONDS``
    of CPU for a check's draws, ``DRAW_CHARS`` per input): its structure says why."""


@dataclass(frozen=True)
class InputModel:
    """An input model (the module docstring); ``spec`` is its JSON; ``files``, the data
    files every drawn input ships (``shared_files`` of the problem's inputs: not part
    of the JSON, which models text only)."""

    spec: dict
    files: Files = field(default=(), compare=False, repr=False)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.spec, sort_keys=True).encode()).hexdigest()

    @property
    def domain(self) -> dict:
        """The extrapolation ``problems.domain`` found (``grow``, ``widen``, ``letters``,
        ``refine``, ...; empty: the visible span)."""
        d = self.spec.get("domain")
        return d if isinstance(d, dict) else {}

    @property
    def constraints(self) -> list[str]:
        """The declared constraints (``constraints``), as written."""
        c = self.spec.get("constraints") or []
        return [str(x) for x in c] if isinstance(c, list) else []

    def with_domain(self, domain: dict) -> InputModel:
        """This model with its ``domain`` section replaced."""
        return InputModel({**self.spec, "domain": domain}, self.files)

    def with_files(self, files: Files) -> InputModel:
        """This model, its drawn inputs shipping ``files`` (``shared_files``)."""
        return InputModel(self.spec, tuple(files))

    def with_constraints(self, constraints: Sequence[str]) -> InputModel:
        """This model with declared ``constraints`` (checked: UserError naming one that
        does not parse or maps onto no field)."""
        model = InputModel({**self.spec, "constraints": list(constraints)}, self.files)
        resolve_constraints(model.spec)
        return model

    def draw(
        self,
        rng: random.Random,
        k: int,
        strata: Sequence[float] | None = None,
        seconds: float = DRAW_SECONDS,
        scales: list[float] | None = None,
    ) -> list[str]:
        """Up to ``k`` inputs, stratified over the size range (draw i from its own k-th;
        ``strata``: the positions 0-1 to draw at), within ``seconds`` of host CPU for all
        of them: a draw over budget (``DRAW_CHARS``, its share of the CPU) is drawn
        again with every size a quarter (up to ``ATTEMPTS`` times: a large model is drawn
        smaller, not dropped), left out only when the CPU is spent (``DrawRefused`` when
        none is left); UserError where a (stored, edited) model cannot be drawn from.
        ``scales``, where given, gets the scale each input kept was drawn at (1: as the
        domain says; a quarter per time it was drawn again smaller)."""
        try:
            return self._draw(rng, k, strata, seconds, scales)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as e:
            raise UserError(f"input model: cannot draw ({type(e).__name__}: {e})") from e

    def _draw(
        self,
        rng: random.Random,
        k: int,
        strata: Sequence[float] | None,
        seconds: float,
        scales: list[float] | None = None,
    ) -> list[str]:
        declared = resolve_constraints(self.spec)
        domain = self.domain
        cap = 0 if domain else 4 * max(1, int(self.spec.get("longest", 1 << 16)))
        deadline = time.process_time() + seconds
        out: list[str] = []
        why = ""
        for i in range(k):
            u = strata[i] if strata is not None else (i + rng.random()) / max(1, k)
            low = min(0.9, max(0.0, float(domain.get("low", 0) or 0))) if strata is None else 0.0
            u = low + (1 - low) * u  # from the sizes worth timing (``domain.low``) up
            scale = 1.0  # a draw over the budget is drawn again smaller, never dropped
            for attempt in range(ATTEMPTS):
                left = deadline - time.process_time()
                if left <= 0:
                    why = why or f"drawing took over {seconds:g} s of host CPU"
                    break
                share = time.process_time() + left / (k - i)
                scaled = {**domain, "grow": float(domain.get("grow", 1) or 1) * scale}
                try:
                    text = _Draw(rng, u, scaled, declared, share).body(self.spec["body"], {})
                except _Over as e:
                    why, scale = str(e), scale / 4
                    continue
                if cap and len(text) > cap and attempt < ATTEMPTS - 1:
                    scale *= 0.5  # far longer than any input seen: smaller
                    continue
                out.append(self._as_run(text))
                if scales is not None:
                    scales.append(scale)
                break
        if not out and k > 0:
            raise DrawRefused(f"input model: no input can be drawn within budget ({why})")
        return out

    def _as_run(self, text: str) -> str:
        """A drawn text as a run's input: its arguments' line marked, and where the
        model's inputs are one data file each (``data_file``), its body that file."""
        by_args = self.spec.get("data_files")
        name = self.spec.get("data_file")
        if isinstance(by_args, dict) and self.spec.get("args"):  # a script's own file
            name = by_args.get(text.split("\n", 1)[0])
        text = ARGS_MARK.decode() + text if self.spec.get("args") else text
        if not isinstance(name, str) or not is_data_file_name(name):
            if self.files:  # the files every input ships alike
                args, _, stdin = split_run(text.encode("utf-8", "surrogateescape"))
                raw = with_args(args, stdin, self.files)
                return raw.decode("utf-8", "surrogateescape")
            return text
        raw = from_data_file_view(text.encode("utf-8", "surrogateescape"), name)
        return raw.decode("utf-8", "surrogateescape")

    def save(self, folder: Path) -> Path:
        path = folder / FILE
        text = json.dumps(self.spec, indent=1)
        text = _PAIR.sub(lambda m: f"[{m[1]}, {m[2]}]", text)  # ranges on one line
        text = _FIELD.sub(lambda m: " ".join(m[0].split()), text)  # fields on one line
        if json.loads(text) != self.spec:  # a string the layout must not touch
            text = json.dumps(self.spec, indent=1)
        path.write_text(text + "\n")
        return path


class _Over(Exception):
    """A draw went over its budget (characters or host CPU)."""


INT32, INT64 = (1 << 31) - 1, (1 << 63) - 1
WIDEN_MIN = 8  # a value field spanning fewer values (an op code 1-3) is never widened


def _ends(width, n: int) -> list[int]:
    """Where each of ``n`` lines' values end in a run's column: ``width`` values each
    (an int) or as many as ``width[i]`` (one count per line)."""
    if isinstance(width, int):
        return [width * (i + 1) for i in range(n)]
    import numpy as np

    return np.cumsum(width).tolist()


def _widened(lo: int, hi: int, widen: float) -> tuple[int, int]:
    """[lo, hi] widened ``widen`` times beyond zero, within the integer type the values
    seen fit (32 or 64 bits): a value beyond the range seen, never an overflow."""
    if widen <= 1 or hi - lo < WIDEN_MIN:
        return lo, hi
    top = INT32 if max(abs(lo), abs(hi)) <= INT32 else INT64
    if hi > 0:
        hi = min(top, int(hi * widen))
    if lo < 0:
        lo = max(-top - 1, int(lo * widen))
    return lo, hi


_CLASSES = ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789")


def _letters(chars: str) -> str:
    """The seen alphabet with every class it touches whole (``ab`` -> a-z)."""
    out = set(chars)
    for cls in _CLASSES:
        if out & set(cls):
            out |= set(cls)
    return "".join(sorted(out))


class _Draw:
    def __init__(
        self,
        rng: random.Random,
        u: float,
        domain: dict | None = None,
        declared: dict[int, dict] | None = None,
        deadline: float = math.inf,
    ):
        self.rng, self.u = rng, u
        # characters at most, whatever the model says (a stored model is the problem
        # folder's, untrusted: no count or length in it can make a draw run away)
        self.budget = DRAW_CHARS
        domain = domain or {}
        # a stored model is untrusted: factors within sense (a size at most 2^40 times
        # the largest seen, values within 64 bits)
        self.grow = min(float(1 << 40), max(1e-6, float(domain.get("grow", 1) or 1)))
        self.widen = min(float(1 << 64), max(1.0, float(domain.get("widen", 1) or 1)))
        self.letters = bool(domain.get("letters"))
        # per visible script, a factor of its own on ``grow`` (``pick_grow``: each
        # script's cost has its own law, fib's exponential, a loop's linear), and
        # ``pick``: draw that script only (the domain's search, one script at a time)
        picks = domain.get("pick_grow")
        self.pick_grow = (
            [min(float(1 << 20), max(1e-6, float(g or 1))) for g in picks]
            if isinstance(picks, list)
            else []
        )
        only = domain.get("pick")
        self.pick_only = only if isinstance(only, int) and not isinstance(only, bool) else None
        # per visible script, where its draws start (``pick_low``: the position whose
        # reference run is long enough to time; fib's cost falls off fast below its top)
        lows = domain.get("pick_low")
        self.pick_low = (
            [min(0.9, max(0.0, float(x or 0))) for x in lows] if isinstance(lows, list) else []
        )
        refine = set(domain.get("refine") or ())
        self.bounded, self.nonempty = "bounded" in refine, "nonempty" in refine
        self.multiples = "multiples" in refine
        self.declared = declared or {}
        self.deadline = deadline
        self.ticks = 0
        self._gen = None

    def spend(self, chars: int) -> None:
        self.budget -= chars
        if self.budget < 0:
            raise _Over(f"an input over {DRAW_CHARS} characters")
        self.ticks += 1
        if not self.ticks & 1023 and time.process_time() > self.deadline:
            raise _Over("an input that takes too long to draw")

    def body(self, nodes: list[dict], env: dict[str, int]) -> str:
        lines: list[str] = []
        self.nodes(nodes, env, lines)
        return "\n".join(lines) + "\n"

    def nodes(self, nodes: list[dict], env: dict[str, int], lines: list[str]) -> None:
        for node in nodes:
            if "pick" in node:  # one of the visible scripts
                alternatives = [a for a in node["pick"] if isinstance(a, list)]
                if alternatives:
                    i = self.rng.randrange(len(alternatives))
                    if self.pick_only is not None and 0 <= self.pick_only < len(alternatives):
                        i = self.pick_only
                    grow, u = self.grow, self.u
                    if i < len(self.pick_grow):
                        self.grow = min(float(1 << 40), max(1e-6, grow * self.pick_grow[i]))
                    if i < len(self.pick_low):
                        self.u = self.pick_low[i] + (1 - self.pick_low[i]) * u
                    try:
                        self.nodes(alternatives[i], env, lines)
                    finally:
                        self.grow, self.u = grow, u
                continue
            if "line" in node:
                values = self.fields(node["line"], env)
                for i, j in _pairs(node, node["line"]):
                    if int(values[i]) > int(values[j]):
                        values[i], values[j] = values[j], values[i]
                lines.append(("" if node.get("glue") else " ").join(values))
                continue
            n = self.count(node["repeat"], env)
            body = node["body"]
            if n >= VECTOR_MIN and len(body) == 1 and "line" in body[0]:
                rows = self.rows(body[0], env, n)
                if rows is not None:  # ``n`` lines of one shape, drawn column by column
                    lines += rows
                    continue
            if not body:
                self.spend(REPEAT_COST * n)  # an empty body costs too
                continue
            for _ in range(n):
                self.spend(REPEAT_COST)
                self.nodes(body, dict(env), lines)

    # ------------------------------------------------------------ drawn at once
    # A large input is mostly long lines of numbers and many lines of one shape: those
    # are drawn a column at a time (numpy), and joined once, not token by token.

    def gen(self):  # a numpy generator seeded from the draw's own ``rng``
        if self._gen is None:
            import numpy as np

            self._gen = np.random.default_rng(self.rng.getrandbits(64))
        return self._gen

    def check_time(self) -> None:
        if time.process_time() > self.deadline:
            raise _Over("an input that takes too long to draw")

    def rows(self, node: dict, env: dict[str, int], n: int) -> list[str] | None:
        """``n`` lines of ``node`` drawn a column at a time; None where a field depends
        on a number drawn earlier on the same line (drawn line by line instead)."""
        fields = node["line"]
        local = {f["name"] for f in fields if f.get("name")}
        local |= {POW + name for name in local}
        widths: list = []  # per field: one width for every line, or one per line
        for f in fields:
            if "run" in f:
                spec = f["run"]["count"]
                if "range" in spec and "var" not in spec:  # a width of its own per line
                    widths.append(self.counts(spec, n))
                    continue
                if "var" not in spec or spec["var"] in local:
                    return None
                widths.append(max(0, self.count(spec, env)))
            else:
                widths.append(1)
        for f in fields:
            of = f["run"]["of"] if "run" in f else f
            length = of["word"].get("len", {}).get("var") if "word" in of else None
            if self._bound_name(of) in local or length in local:
                return None
        totals = [w * n if isinstance(w, int) else int(w.sum()) for w in widths]
        chars = sum(
            total * self.chars_each(f["run"]["of"] if "run" in f else f, env)
            for f, total in zip(fields, totals, strict=True)
        )
        if max(n, chars) > self.budget:  # over before it is drawn: not drawn
            raise _Over(f"an input over {DRAW_CHARS} characters")
        columns: list = []
        for f, width, total in zip(fields, widths, totals, strict=True):
            if "run" in f:
                values = self.column(f["run"]["of"], env, total)
                if values is None:
                    return None
                ends = _ends(width, n)
                if f["run"].get("sorted") and "int" in f["run"]["of"]:
                    values = self.sort_rows(values, ends)
                columns.append(
                    values
                    if isinstance(width, int) and width == 1
                    else [" ".join(values[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)]
                )
            else:
                values = self.column(f, env, n, raw=True)
                if values is None:
                    return None
                columns.append(values)
            self.check_time()
        for i, j in _pairs(node, fields):  # l <= r on every line, as seen
            import numpy as np

            a, b = columns[i], columns[j]
            columns[i], columns[j] = np.minimum(a, b), np.maximum(a, b)
        for i, values in enumerate(columns):
            if not isinstance(values, list):
                columns[i] = list(map(str, values.tolist()))
                self.spend(sum(map(len, columns[i])) + n)
        self.spend(n)  # the line breaks
        if not columns:
            return [""] * n
        return columns[0] if len(columns) == 1 else list(map(" ".join, zip(*columns, strict=True)))

    def chars_each(self, f: dict, env: dict[str, int]) -> float:
        """About how many characters one value of ``f`` takes, its separator too (most
        numbers drawn over a range have about as many digits as its largest)."""
        if "int" in f:
            lo, hi = self._range(f, env)
            return 1 + 0.9 * len(str(max(abs(lo), abs(hi))))
        if "float" in f:
            top = max(abs(float(x)) for x in f["float"])
            return 2 + len(str(int(min(top, 1e30)))) + min(30, int(f.get("decimals", 0)))
        if "parts" in f:
            return 1 + sum(len(str(p["int"][1])) + 1 for p in f["parts"])
        if "word" in f:
            if f["word"].get("one_of"):
                return 1 + max(len(str(x)) for x in f["word"]["one_of"])
            spec = f["word"]["len"]
            if "var" in spec:
                return 1 + max(1, self.count(spec, env))
            lo, hi = (int(x) for x in spec["range"])
            return 1 + max(1, min(lo, grown(hi, self.grow)))
        return 2.0

    @staticmethod
    def sort_rows(values: list[str], ends: list[int]) -> list[str]:
        out: list[str] = []
        for a, b in zip([0, *ends[:-1]], ends, strict=True):
            out += sorted(values[a:b], key=int)
        return out

    def counts(self, spec: dict, n: int):
        """``n`` counts of a ``range`` COUNT at once (as ``count`` draws one each): the
        widths of ``n`` lines whose runs vary in length (a numpy array)."""
        import numpy as np

        lo, hi = (int(x) for x in spec["range"])
        g = self.gen()
        if spec.get("fixed"):  # flags after the numbers: as many as seen
            return g.integers(lo, max(lo, hi), endpoint=True, size=n)
        if self.nonempty:
            lo, hi = max(lo, 1), max(hi, 1)
        hi = grown(hi, self.grow)
        if lo == hi:
            lo = hi // 2 if hi > 1 else lo
        lo = min(lo, hi)
        u = np.abs(self.u + g.uniform(-0.1, 0.1, n))
        u = np.where(u > 1.0, 2.0 - u, u)
        return np.maximum(0, np.rint(lo + (hi - lo) * np.sqrt(u))).astype(np.int64)

    def _bound_name(self, f: dict) -> str | None:
        if "int" not in f:
            return None
        dec = self.declared.get(id(f), {})
        inferred = None if "hi" in dec else f.get("max") or (self.bounded and f.get("within"))
        return dec.get("max") or inferred or None

    def column(self, f: dict, env: dict[str, int], n: int, raw: bool = False):
        """``n`` values of field ``f`` drawn at once, as text (characters spent); None:
        a field this cannot draw at once. ``raw``: an integer field's values as a numpy
        array (not spent yet)."""
        import numpy as np

        if n <= 0:
            return []
        g = self.gen()
        if "int" in f:
            lo, hi = self._range(f, env)
            if lo < -(1 << 62) or hi > (1 << 62):
                return None
            if f.get("size") and lo >= 0 and hi >= 0:
                if lo == hi:
                    lo = hi // 2 if hi > 1 else lo
                u = np.abs(self.u + g.uniform(-0.1, 0.1, n))
                u = np.where(u > 1.0, 2.0 - u, u)
                values = np.rint(lo + (hi - lo) * np.sqrt(u)).astype(np.int64)
            else:
                values = g.integers(lo, hi, endpoint=True, size=n)
            dec = self.declared.get(id(f), {})
            if dec.get("pow_of") in env:  # declared N=2^K: two to K's power
                values = np.full(n, 1 << max(0, min(40, int(env[dec["pow_of"]]))), dtype=np.int64)
            elif f.get("pow2") or dec.get("pow2"):
                values = np.array([_pow2_of(v, lo, hi) for v in values.tolist()], dtype=np.int64)
            elif (self.multiples or f.get("multiple")) and int(f.get("mult", 0) or 0) >= 2:
                step = int(f["mult"])
                values = np.array(
                    [_mult_of(v, lo, hi, step) for v in values.tolist()], dtype=np.int64
                )
            if raw:
                return values
            out = list(map(str, values.tolist()))
        elif "float" in f:
            lo_f, hi_f = (float(x) for x in f["float"])
            d = max(0, min(30, int(f.get("decimals", 0))))
            out = list(map(f"%.{d}f".__mod__, g.uniform(lo_f, hi_f, n).tolist()))
        elif "parts" in f:
            cols = [
                g.integers(int(p["int"][0]), int(p["int"][1]), endpoint=True, size=n).tolist()
                for p in f["parts"]
            ]
            out = _join_parts(f, cols)
        elif "word" in f and isinstance(f["word"].get("fixed"), str):
            out = [f["word"]["fixed"]] * n  # a name (the data file's): as it is
        elif "word" in f and f["word"].get("one_of"):
            seen = [str(x) for x in f["word"]["one_of"]]
            out = [seen[i] for i in g.integers(0, len(seen), size=n).tolist()]
        elif "word" in f:
            w = f["word"]
            chars = w["chars"] or "a"
            if self.letters:
                chars = _letters(chars)
            if not chars.isascii():
                return None
            if "var" in w["len"]:
                lengths = np.full(n, max(1, self.count(w["len"], env)), dtype=np.int64)
            else:
                lo, hi = (int(x) for x in w["len"]["range"])
                hi = grown(hi, self.grow)
                lo = min(lo, hi)
                lengths = np.maximum(1, g.integers(lo, hi, endpoint=True, size=n))
            total = int(lengths.sum())
            if total + n > self.budget:
                raise _Over(f"an input over {DRAW_CHARS} characters")
            table = np.frombuffer(chars.encode(), dtype=np.uint8)
            text = table[g.integers(0, len(table), size=total)].tobytes().decode()
            ends = np.cumsum(lengths).tolist()
            out = [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
        else:
            raise UserError(f"input model: unknown field {sorted(f)}")
        self.spend(sum(map(len, out)) + len(out))
        return out

    def count(self, spec: dict, env: dict[str, int]) -> int:
        if "var" in spec:
            return max(0, int(env.get(spec["var"], 0)) + int(spec.get("add", 0)))
        lo, hi = (int(x) for x in spec["range"])
        if spec.get("fixed"):  # flags after the numbers: as many as seen
            return self.rng.randint(lo, hi)
        if self.nonempty:
            lo, hi = max(lo, 1), max(hi, 1)
        return self.sized(lo, grown(hi, self.grow))

    def sized(self, lo: int, hi: int) -> int:
        """A size in [lo, hi] (one value seen: from half of it), favouring the top."""
        if lo == hi:
            lo = hi // 2 if hi > 1 else lo
        if hi < lo:
            lo = hi
        u = abs(self.u + self.rng.uniform(-0.1, 0.1))  # reflected into [0, 1]: no
        u = 2.0 - u if u > 1.0 else u  # endpoint (a value seen) gets a share of its own
        return int(round(lo + (hi - lo) * math.sqrt(u)))

    def fields(self, fields: list[dict], env: dict[str, int]) -> list[str]:
        out = []
        for f in fields:
            if "run" in f:
                run = f["run"]
                n = self.count(run["count"], env)
                values = None
                if n >= VECTOR_MIN and not run["of"].get("name"):
                    if n * self.chars_each(run["of"], env) > self.budget:
                        raise _Over(f"an input over {DRAW_CHARS} characters")
                    values = self.column(run["of"], env, n)
                    self.check_time()
                if values is None:
                    values = [self.value(run["of"], env) for _ in range(n)]
                if run.get("sorted") and all(_INT.match(v) for v in values):
                    values.sort(key=int)
                out += values
            else:
                out.append(self.value(f, env))
        return out

    def _range(self, f: dict, env: dict[str, int]) -> tuple[int, int]:
        """The range an integer field is drawn from here (its domain)."""
        lo, hi = (int(x) for x in f["int"])
        dec = self.declared.get(id(f), {})
        # a declared bound replaces the one inferred (a value seen within n may not be)
        inferred = None if "hi" in dec else f.get("max") or (self.bounded and f.get("within"))
        bound = dec.get("max") or inferred
        if bound in env:  # up to the variable it is bounded by
            hi = env[bound]
            lo = min(dec.get("lo", lo), hi)
        elif f.get("size"):
            hi = grown_exp(hi, self.grow) if f.get("exp") else grown(hi, self.grow)
            if "lo" in dec:
                lo = dec["lo"]
            if "hi" in dec:
                hi = min(hi, dec["hi"])
            if hi < lo and self.grow < 1 and "lo" not in dec:  # shrunk below the span
                lo = min(hi, int(round(lo * self.grow)))  # seen: the span scaled with it
            lo = min(lo, hi)
        elif dec:
            lo, hi = dec.get("lo", lo), dec.get("hi", hi)
        else:
            lo, hi = _widened(lo, hi, self.widen)
        if self.nonempty and f.get("size") and hi >= 1:
            lo = max(lo, 1)
        return lo, max(lo, hi)

    def value(self, f: dict, env: dict[str, int]) -> str:
        text = self._value(f, env)
        self.spend(len(text) + 1)
        return text

    def _value(self, f: dict, env: dict[str, int]) -> str:
        rng = self.rng
        if "int" in f:
            lo, hi = self._range(f, env)
            if f.get("size"):
                v = self.sized(lo, hi) if hi >= 0 and lo >= 0 else rng.randint(lo, hi)
            else:
                v = rng.randint(lo, hi)
            dec = self.declared.get(id(f), {})
            if dec.get("pow_of") in env:  # declared N=2^K: two to K's power
                v = 1 << max(0, min(40, int(env[dec["pow_of"]])))
            elif f.get("pow2") or dec.get("pow2"):
                v = _pow2_of(v, lo, hi)
            elif (self.multiples or f.get("multiple")) and int(f.get("mult", 0) or 0) >= 2:
                v = _mult_of(v, lo, hi, int(f["mult"]))
            if f.get("name"):
                env[f["name"]] = v
                if 0 <= v <= 62:
                    env[POW + f["name"]] = 1 << v
            return str(v)
        if "float" in f:
            lo, hi = (float(x) for x in f["float"])
            d = max(0, min(30, int(f.get("decimals", 0))))
            return f"{rng.uniform(lo, hi):.{d}f}"
        if "parts" in f:
            values = [[rng.randint(int(p["int"][0]), int(p["int"][1]))] for p in f["parts"]]
            return _join_parts(f, values)[0]
        if "word" in f:
            w = f["word"]
            if isinstance(w.get("fixed"), str):  # a name (the data file's): as it is
                return w["fixed"]
            if w.get("one_of"):
                return str(rng.choice(w["one_of"]))
            if "var" in w["len"]:
                n = self.count(w["len"], env)
            else:
                lo, hi = (int(x) for x in w["len"]["range"])
                hi = grown(hi, self.grow)
                n = rng.randint(min(lo, hi), hi)
            n = max(1, n)
            self.spend(n)
            chars = w["chars"] or "a"
            if self.letters:
                chars = _letters(chars)
            return "".join(rng.choices(chars, k=n))
        raise UserError(f"input model: unknown field {sorted(f)}")


_CHECKED: dict[str, InputModel] = {}  # stored models checked in this process, by digest


def load_input_model(path: Path) -> InputModel:
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
    except DrawRefused:
        pass  # well formed, only large: the domain says so (``domain.calibrate``)
    except (KeyError, TypeError, ValueError, AttributeError, UserError) as e:
        raise UserError(f"{path}: a malformed input model ({type(e).__name__}: {e})") from e
    _CHECKED[key] = InputModel(spec)
    return _CHECKED[key]


def model_for(problem: Problem) -> InputModel | None:
    """The problem's stored model (``input_model.json``), else one inferred from all its
    inputs, cached by their content; None where its inputs are not text."""
    folder = problem.path
    shared = shared_files([t.run_input() for t in problem.visible_tests])
    if folder and (Path(folder) / FILE).exists():
        return load_input_model(own_file(Path(folder), Path(folder) / FILE)).with_files(shared)
    inputs = [t.run_input() for t in problem.tests]
    h = hashlib.sha256(b"model-1\n")
    for data in inputs:
        h.update(hashlib.sha256(data).digest())
    path = cache_dir() / "unseen" / "models" / f"{h.hexdigest()[:32]}.json"
    if path.is_file():
        try:
            return InputModel(json.loads(path.read_text()), shared)
        except ValueError:
            pass
    try:
        model = infer(inputs).with_files(shared)
    except UserError:
        return None
    atomic_write_text(path, json.dumps(model.spec))
    return model
