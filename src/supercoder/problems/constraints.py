"""An input model's declared constraints: ``"constraints": ["1<=N<=200000", ...]`` in
``input_model.json`` (``problem init --constraint``), as a problem statement writes them,
parsed (``parse_constraint``) and mapped onto the model's fields (``resolve_constraints``,
each mapping said in words by ``constraint_lines``): a name to the field it names, else
the sizes in reading order; and how far they let the sizes grow (``size_caps``,
``top_sizes``, with ``grown``/``grown_exp``: a bound grown so many times). They read the
model's JSON form only (``problems/inputmodel.py`` draws within them)."""

from __future__ import annotations

import json
import math
import re

from supercoder.errors import UserError


def grown(hi: int, grow: float) -> int:
    """A bound grown ``grow`` times (rounded)."""
    return max(0, int(round(hi * grow))) if grow != 1 else hi


def grown_exp(hi: int, grow: float) -> int:
    """An exponent grown so that 2^it grows ``grow`` times (rounded down, 62 at most)."""
    if grow == 1:
        return hi
    return max(0, min(62, hi + math.floor(math.log2(grow) + 1e-9)))


_REL = re.compile(r"(<=|>=|≤|≥|<|>|=)")
_NUMBER = re.compile(
    r"^([+-]?)\s*(?:(\d+(?:\.\d+)?)\s*(?:[*x×·]\s*)?)?(?:10\s*\^\s*\{?(\d+)\}?|[eE](\d+))?$"
)
_POWER = re.compile(r"^2\s*\^\s*\{?([A-Za-z][A-Za-z0-9]*)\}?$")  # 2^k, 2^{K}
_NAME = re.compile(r"^(\|?)([A-Za-z][A-Za-z0-9]*)(?:_\{?[a-z]+\}?|\[[a-z]+\])?\|?$")


def _number(text: str) -> int | None:
    t = text.strip().replace(" ", "")
    m = _NUMBER.match(t)
    if not t or not m or not (m[2] or m[3]):
        return None
    base = float(m[2]) if m[2] else 1.0
    exp = int(m[3] or m[4] or 0)
    value = int(round(base * 10**exp))
    return -value if m[1] == "-" else value


def parse_constraint(text: str) -> list[tuple[str, str, int | str | None, int | str | None]]:
    """``1<=N<=2*10^5``, ``A_i<=10^9``, ``1<=A_i<=N``, ``N,M<=100``, ``|S|<=10^5``,
    ``N=2^k`` (a power of two; ``2^K``: two to the power of K, declared before it):
    (name, kind, lo, hi) per name (hi ``"2^K"`` for a power) (kind ``int``, ``element`` for a subscripted name,
    ``length`` for ``|S|``; a bound is a number, another name, or None); UserError for
    anything else."""
    parts = [p.strip() for p in _REL.split(text.strip())]
    terms, ops = parts[0::2], parts[1::2]
    bad = UserError(
        f"constraint {text!r}: write it as LO<=NAME<=HI, NAME<=HI or NAME>=LO (NAME like N, "
        "A_i, |S|; numbers like 200000, 2*10^5, 10^9, 1e9; a bound may name another field)"
    )
    if not ops or len(ops) > 2 or not all(terms):
        raise bad

    def names(term: str) -> list[tuple[str, str]]:
        out = []
        for piece in term.split(","):
            m = _NAME.match(piece.strip())
            if not m:
                return []
            kind = "length" if m[1] else ("element" if piece.strip() != m[2] else "int")
            out.append((m[2] if kind == "int" else piece.strip(), kind))
        return out

    up = {"<=", "<", "≤"}
    if all(o in up for o in ops):
        pass
    elif all(o in {">=", ">", "≥"} for o in ops):
        terms, ops = terms[::-1], ["<" if o == ">" else "<=" for o in ops[::-1]]
    elif ops == ["="] and _POWER.match(terms[1]) and names(terms[0]):
        # N=2^k: a power of two; N=2^K with K a number declared before it: two to its power
        return [
            (name, kind, None, "2^" + _POWER.match(terms[1])[1]) for name, kind in names(terms[0])
        ]
    elif ops == ["="]:  # N=5 (or 5=N): that value only
        name, value = terms if _number(terms[1]) is not None else terms[::-1]
        terms, ops = [value, name, value], ["<=", "<="]
    else:
        raise bad

    def bound(term: str, strict: int) -> int | str | None:
        value = _number(term)
        if value is not None:
            return value + strict
        m = _NAME.match(term)
        if m and not m[1] and strict == 0:
            return m[2]
        raise bad

    if len(terms) == 3:
        lo_t, mid, hi_t = terms
        lo_s, hi_s = (1 if ops[0] == "<" else 0), (-1 if ops[1] == "<" else 0)
    elif names(terms[0]) and (_number(terms[1]) is not None or _NAME.match(terms[1])):
        lo_t, mid, hi_t = "", terms[0], terms[1]
        lo_s, hi_s = 0, (-1 if ops[0] == "<" else 0)
    else:
        lo_t, mid, hi_t = terms[0], terms[1], ""
        lo_s, hi_s = (1 if ops[0] == "<" else 0), 0
    found = names(mid)
    if not found:
        raise bad
    lo = bound(lo_t, lo_s) if lo_t else None
    hi = bound(hi_t, hi_s) if hi_t else None
    return [(name, kind, lo, hi) for name, kind in found]


def size_caps(spec: dict) -> float:
    """How many times the largest seen the declared constraints let the sizes grow (the
    most any declared size may; infinite where a size is not declared)."""
    declared = resolve_constraints(spec)
    most = 0.0
    for f, _, _ in _fields(spec.get("body") or []):
        if "int" in f and f.get("size"):
            hi = declared.get(id(f), {}).get("hi")
            if hi is None:
                return math.inf
            seen = int(f["int"][1])
            most = max(most, 2.0 ** min(60, hi - seen) if f.get("exp") else hi / max(1, seen))
    if '"range"' in json.dumps(spec.get("body")):
        return math.inf
    return most or math.inf


def top_sizes(spec: dict) -> list[str]:
    """The sizes at the top of the domain, ``v0<=123456`` (numbers outside repeats)."""
    declared = resolve_constraints(spec)
    d = spec.get("domain") or {}
    grow = float(d.get("grow", 1) or 1)
    out = []
    for f, _, rep in _fields(spec.get("body") or []):
        if "int" in f and f.get("size") and not rep and not f.get("max"):
            hi = (grown_exp if f.get("exp") else grown)(int(f["int"][1]), grow)
            if "hi" in declared.get(id(f), {}):
                hi = min(hi, declared[id(f)]["hi"])
            out.append(f"{f.get('name', '?')}<={hi}")
    return out


def _fields(
    body: list[dict], inside: bool = False, where: str = ""
) -> list[tuple[dict, str, bool]]:
    """Every integer and word field in reading order: (field, where, repeated)."""
    out: list[tuple[dict, str, bool]] = []
    for i, node in enumerate(body):
        at = f"{where}{'.' if where else ''}{i + 1}"
        if "line" in node:
            for j, f in enumerate(node["line"]):
                if "run" in f:
                    out.append((f["run"]["of"], f"line {at}, each value", True))
                else:
                    out.append((f, f"line {at}, value {j + 1}", inside))
        elif "pick" in node:  # a script's literals
            for alt in node["pick"] if isinstance(node["pick"], list) else []:
                out += _fields(alt if isinstance(alt, list) else [], True, f"{at} (script), line ")
        else:
            out += _fields(node.get("body") or [], True, f"{at} (repeated), line ")
    return out


def resolve_constraints(spec: dict) -> dict[int, dict]:
    """The declared constraints of ``spec`` mapped onto its fields: id(field) ->
    ``{"lo", "hi", "max"}`` (see ``constraint_lines`` for the rule)."""
    return _resolve(spec)[0]


def constraint_lines(spec: dict) -> list[str]:
    """How each declared constraint maps onto the model, one line each."""
    return _resolve(spec)[1]


def _resolve(spec: dict) -> tuple[dict[int, dict], list[str]]:
    constraints = spec.get("constraints") or []
    if not constraints:
        return {}, []
    if not isinstance(constraints, list):
        raise UserError('input model: "constraints" must be a list of strings like "N<=200000"')
    fields = _fields(spec["body"])
    by_name = {f.get("name"): (f, w) for f, w, _ in fields if f.get("name")}
    pools = {
        "int": [(f, w) for f, w, rep in fields if "int" in f and not rep],
        "element": [(f, w) for f, w, rep in fields if "int" in f and rep],
        "length": [(f, w) for f, w, _ in fields if "word" in f],
    }
    taken: dict[str, tuple[dict, str]] = {}
    out: dict[int, dict] = {}
    lines: list[str] = []
    for text in constraints:
        for name, kind, lo, hi in parse_constraint(str(text)):
            if name in by_name and kind == "int":
                taken.setdefault(name, by_name[name])
            if name not in taken:
                used = {id(f) for f, _ in taken.values()}
                free = [(f, w) for f, w in pools[kind] if id(f) not in used]
                if not free:
                    what = {
                        "int": "number outside repeats",
                        "element": "repeated number",
                        "length": "word",
                    }[kind]
                    raise UserError(
                        f"constraint {text!r}: no {what} left in the input model for {name} "
                        f"(its fields: {', '.join(w for _, w, _ in fields) or 'none'}); "
                        "bind it by the model's own name (v0, v1, ...) instead"
                    )
                taken[name] = free[0]
            f, where = taken[name]
            entry = out.setdefault(id(f), {})
            if isinstance(hi, str) and hi.startswith("2^"):
                target = taken.get(hi[2:]) or by_name.get(hi[2:])
                if target is not None and target[0].get("name"):
                    entry["pow_of"] = target[0]["name"]  # two to that number's power
                    lines.append(
                        f"{name} -> {f.get('name') or 'the values'} ({where}) = 2^{hi[2:]}"
                    )
                else:
                    entry["pow2"] = True  # a power of two
                    lines.append(
                        f"{name} -> {f.get('name') or 'the values'} ({where}) a power of two"
                    )
                continue
            for key_, value in (("lo", lo), ("hi", hi)):
                if isinstance(value, int):
                    entry[key_] = value
                elif isinstance(value, str):
                    target = taken.get(value) or by_name.get(value)
                    if target is None or not target[0].get("name"):
                        raise UserError(
                            f"constraint {text!r}: {value} names no number declared before it"
                        )
                    if key_ == "hi":
                        entry["max"] = target[0]["name"]
            if kind == "length" and "word" in f:
                entry["word"] = True
            span = f"[{entry.get('lo', '..')}, {entry.get('max') or entry.get('hi', '..')}]"
            label = f.get("name") or ("the words" if "word" in f else "the values")
            lines.append(f"{name} -> {label} ({where}) {span}")
    return out, lines
