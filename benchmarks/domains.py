"""Which programs get timed on valid drawn inputs, from which domain, at which sizes.

Contest-style programs as real ones are written (undefined behaviour the sanitizer
reports on every input, a sorted list, indices within a length, a tree ``n m`` + bits +
``n - 1`` edges, operations valid only on a non-empty sequence, the classic one-number
benchmark), each made a problem by a plain ``problem init`` from a handful of small
visible inputs (no hidden tests, no constraints, no generator: the hardest case). For
each: one check of the baseline against itself (``verify.evaluate``), and what it says:
the domain and its source (one line), whether it was timed, which sizes were drawn (the
reference's CPU on them), the sources dropped and why. ``--more`` adds the real-style
programs of ``timed_share.py``; ``--bundled SPLIT`` checks a bundled split's baselines
the same way (``val``: the main job's 16 problems; timed share and the size range timed
per problem).

usage: python benchmarks/domains.py [--more] [--bundled val]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import cpu_model
from supercoder.types import Problem
from supercoder.verify.evaluate import CheckConfig, evaluate


def _tree(n: int, rng: random.Random) -> str:
    bits = " ".join(str(rng.randint(0, 1)) for _ in range(n))
    edges = "".join(f"{rng.randint(1, i)} {i + 1}\n" for i in range(1, n))
    return f"{n} {rng.randint(1, n)}\n{bits}\n{edges}"


def _inputs() -> dict[str, list[str]]:
    rng = random.Random(11)
    nums = [[rng.randint(1, 10**9) for _ in range(n)] for n in (5, 12, 40)]
    sorted_q = []
    for n, q in ((6, 3), (15, 5), (40, 8)):
        xs = sorted(rng.randint(1, 10**6) for _ in range(n))
        qs = [rng.randint(1, 10**6) for _ in range(q)]
        sorted_q.append(f"{n}\n{' '.join(map(str, xs))}\n{q}\n" + "\n".join(map(str, qs)) + "\n")
    index_q = []
    for n, q in ((5, 4), (20, 10), (60, 30)):
        xs = [rng.randint(-99, 99) for _ in range(n)]
        qs = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(q)]
        index_q.append(f"{n} {q}\n{' '.join(map(str, xs))}\n" + "\n".join(qs) + "\n")
    stack = []
    for q in (4, 9, 16):
        ops, size = [], 0
        for _ in range(q):
            if size and rng.random() < 0.4:
                ops.append("2")
                size -= 1
            else:
                ops.append(f"1 {rng.randint(1, 1000)}")
                size += 1
        stack.append(f"{q}\n" + "\n".join(ops) + "\n")
    return {
        "ub_hash": [f"{len(x)}\n{' '.join(map(str, x))}\n" for x in nums],
        "sorted_search": sorted_q,
        "index_sums": index_q,
        "tree_bits": [_tree(n, rng) for n in (5, 9, 14, 30)],
        "stack_ops": stack,
        "classic_one": ["200\n", "500\n", "1000\n", "1500\n", "2000\n"],
    }


SOURCES = {
    # int overflow on every input (the sanitizer reports it on the visible ones too)
    "ub_hash": r"""#include <stdio.h>
int main(void){ int n; if(scanf("%d",&n)!=1) return 1; int h=0; long long s=0;
for(int i=0;i<n;i++){ int x; if(scanf("%d",&x)!=1) return 1; h = h*31 + x; s += h & 1023; }
for(int r=0;r<200;r++) for(int i=0;i<n;i++) s += (s*7 + i) % 1000003;
printf("%d %lld\n", h, s); return 0; }""",
    # binary search: the list must be sorted (unsorted is still clean, but not the domain)
    "sorted_search": r"""#include <stdio.h>
#include <stdlib.h>
int main(void){ int n,q; if(scanf("%d",&n)!=1||n<1) return 1; long *a=malloc(sizeof(long)*n);
for(int i=0;i<n;i++) if(scanf("%ld",&a[i])!=1) return 1;
for(int i=1;i<n;i++) if(a[i]<a[i-1]) return 2;  /* the statement: sorted */
if(scanf("%d",&q)!=1) return 1; long long acc=0;
for(int k=0;k<q;k++){ long x; if(scanf("%ld",&x)!=1) return 1; int lo=0,hi=n;
  for(int r=0;r<400;r++){ lo=0; hi=n; while(lo<hi){int m=(lo+hi)/2; if(a[m]<x) lo=m+1; else hi=m;} }
  acc += lo; }
printf("%lld\n",acc); free(a); return 0; }""",
    # l, r within the array (1-based): an index past n reads out of bounds
    "index_sums": r"""#include <stdio.h>
#include <stdlib.h>
int main(void){ int n,q; if(scanf("%d %d",&n,&q)!=2) return 1; long *p=calloc(n+1,sizeof(long));
for(int i=1;i<=n;i++){ long x; if(scanf("%ld",&x)!=1) return 1; p[i]=p[i-1]+x; }
long long acc=0; for(int k=0;k<q;k++){ int l,r; if(scanf("%d %d",&l,&r)!=2) return 1;
  if(l>r){int t=l;l=r;r=t;} for(int rep=0;rep<50;rep++) acc += p[r]-p[l-1] + rep; }
printf("%lld\n",acc); free(p); return 0; }""",
    # a tree: n m, a line of n bits, n-1 edges; counts nodes within distance m with bit 1
    "tree_bits": r"""#include <stdio.h>
#include <stdlib.h>
int main(void){ int n,m; if(scanf("%d %d",&n,&m)!=2||n<1) return 1; int *b=malloc(sizeof(int)*(n+1));
for(int i=1;i<=n;i++) if(scanf("%d",&b[i])!=1) return 1;
int *head=malloc(sizeof(int)*(n+1)),*nxt=malloc(sizeof(int)*2*n),*to=malloc(sizeof(int)*2*n); int e=0;
for(int i=1;i<=n;i++) head[i]=-1;
for(int i=0;i<n-1;i++){ int u,v; if(scanf("%d %d",&u,&v)!=2) return 1;
  to[e]=v; nxt[e]=head[u]; head[u]=e++; to[e]=u; nxt[e]=head[v]; head[v]=e++; }
int *d=malloc(sizeof(int)*(n+1)),*qu=malloc(sizeof(int)*(n+1)); long long tot=0;
for(int s=1;s<=n && s<=200;s++){ for(int i=1;i<=n;i++) d[i]=-1; int h=0,t=0; qu[t++]=s; d[s]=0;
  while(h<t){ int x=qu[h++]; if(d[x]<=m && b[x]) tot++; for(int k=head[x];k>=0;k=nxt[k]) if(d[to[k]]<0){ d[to[k]]=d[x]+1; qu[t++]=to[k]; } } }
printf("%lld\n",tot); return 0; }""",
    # pop is valid only on a non-empty stack
    "stack_ops": r"""#include <stdio.h>
int st[1<<20]; int main(void){ int q,sp=0; long long acc=0; if(scanf("%d",&q)!=1) return 1;
for(int i=0;i<q;i++){ int op; if(scanf("%d",&op)!=1) return 1;
  if(op==1){ int x; if(scanf("%d",&x)!=1) return 1; st[sp++]=x; }
  else { if(sp==0) return 3; acc += st[--sp]; }
  for(int r=0;r<sp && r<64;r++) acc ^= st[r]; }
printf("%lld %d\n",acc,sp); return 0; }""",
    # the classic: one number, and a loop the sanitizer flags (signed overflow) every time
    "classic_one": r"""#include <stdio.h>
int main(void){ int n; if(scanf("%d",&n)!=1) return 1; int acc=1; long long s=0;
for(int i=1;i<=n;i++) for(int j=1;j<=n/4;j++){ acc = acc*1103515245 + 12345; s += (acc>>16)&7; }
printf("%lld\n",s); return 0; }""",
}


def make(name: str, source: str, inputs: list[str], root: Path) -> tuple[Problem, str]:
    work = root / name
    (work / "in").mkdir(parents=True)
    (work / "prog.c").write_text(source)
    for i, text in enumerate(inputs):
        (work / "in" / f"{i}.in").write_text(text)
    report = create_problem(work / "prog.c", work / "in", root / "p" / name, InitConfig())
    return load_problem(report.folder), report.domain


def check(problem: Problem) -> tuple[bool, dict, float]:
    """(timed on an input of 5 ms or more, the verdict's context, its CPU seconds)."""
    v = evaluate(problem, baseline_asm(problem), CheckConfig())
    short = re.search(r"\(0 of \d+ at 5 ms", v.context.get("timed_sizes", ""))
    return v.speedup is not None and not short, v.context, v.cpu_seconds_spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--more", action="store_true", help="add timed_share.py's programs")
    ap.add_argument("--bundled", default="", help="check a bundled split too (val, train)")
    ap.add_argument("--only-bundled", action="store_true")
    args = ap.parse_args()
    os.environ.pop("SUPERCODER_DOMAIN_AT_INIT", None)
    print(f"{cpu_model()} | one baseline-vs-itself check per problem", flush=True)
    root = Path(tempfile.mkdtemp(prefix="sc-domains-"))
    os.chmod(root, 0o755)
    programs = {} if args.only_bundled else {n: (SOURCES[n], x) for n, x in _inputs().items()}
    if args.more:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from timed_share import PROGRAMS

        programs.update(PROGRAMS)
    timed = 0
    for name, (source, inputs) in programs.items():
        start = time.time()
        problem, domain = make(name, source, inputs, root)
        init_s = time.time() - start
        ok, ctx, cpu = check(problem)
        timed += ok
        print(
            f"{name:<14} timed {'yes' if ok else 'NO '}  init {init_s:5.1f}s  check cpu {cpu:5.2f}s"
        )
        print(f"    domain at init: {domain}")
        print(f"    check's domain: {ctx.get('domain', '-')}")
        print(f"    {ctx.get('timed_sizes') or ctx.get('timing', '')}")
        for line in ctx.get("dropped_sources", []):
            print(f"    dropped: {line}")
    if programs:
        print(f"programs timed on drawn inputs: {timed}/{len(programs)}", flush=True)
    if args.bundled:
        names = sorted(
            p.name
            for p in BUNDLED_ROOT.iterdir()
            if (p / "problem.json").is_file()
            and f'"{args.bundled}"' in (p / "problem.json").read_text()
        )
        got, cpus = 0, []
        for name in names:
            ok, ctx, cpu = check(load_problem(BUNDLED_ROOT / name))
            got += ok
            cpus.append(cpu)
            print(
                f"{name:<22} timed {'yes' if ok else 'NO '} cpu {cpu:5.2f}s  {ctx.get('timed_sizes', '')}"
            )
        cpus.sort()
        print(
            f"{args.bundled}: timed {got}/{len(names)}; CPU per check median "
            f"{cpus[len(cpus) // 2]:.2f}s (mean {sum(cpus) / len(cpus):.2f}s)"
        )


if __name__ == "__main__":
    main()
