"""How many problems get timed inputs after a plain ``problem init``, and how big they are.

Real programs come with a couple of small inputs and no hidden tests. Each program below
(written for this benchmark, in the shapes real ones read: a lone size number, ``n m``
then ``n`` lines, a string line, a grid, a graph's edge list, ``T`` test cases, floats,
queries, text) is made a problem by ``problem init`` with two or three small visible
inputs; then one check's timed inputs are drawn (``verify.unseen.unseen_tests``) and,
for comparison, the earlier scheme's (``SUPERCODER_UNSEEN=cached``: fuzz mutations made
once). Per program: where the inputs come from, how many were drawn, the drawn inputs'
size against the largest visible one (median ratio, bytes), whether a visible first
line reappears, and the same for the earlier scheme. ``--bundled`` adds the share of the
bundled benchmark's problems that get drawn inputs.

usage: python benchmarks/timed_share.py [--bundled]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.verify.unseen import unseen_tests

PROGRAMS: dict[str, tuple[str, list[str]]] = {
    "lone_sieve": (
        r"""#include <stdio.h>
#include <stdlib.h>
int main(void){ long n; if (scanf("%ld",&n)!=1) return 1; char *c = calloc(n+1,1); long k=0;
for (long i=2;i<=n;i++) if(!c[i]){k++; for(long j=i*i;j<=n;j+=i) c[j]=1;} printf("%ld\n",k); free(c); return 0; }""",
        ["100000\n", "2000000\n"],
    ),
    "pair_lcg": (
        r"""#include <stdio.h>
int main(void){ unsigned long long n,s,a=0; if(scanf("%llu %llu",&n,&s)!=2) return 1;
for(unsigned long long i=0;i<n;i++){ s=s*6364136223846793005ULL+1; a^=s>>31; } printf("%llu\n",a); return 0; }""",
        ["3000001 12345\n", "7 3\n"],
    ),
    "nm_rows": (
        r"""#include <stdio.h>
int main(void){ int n,m; if(scanf("%d %d",&n,&m)!=2) return 1; long best=-1; for(int i=0;i<n;i++){ long s=0;
for(int j=0;j<m;j++){ long x; if(scanf("%ld",&x)!=1) return 1; s+=x*(j+1);} if(s>best) best=s;} printf("%ld\n",best); return 0; }""",
        [
            "3 4\n1 2 3 4\n5 6 7 8\n9 1 2 3\n",
            "2 2\n10 20\n30 40\n",
            "4 3\n1 1 1\n2 2 2\n3 3 3\n4 4 4\n",
        ],
    ),
    "string_pal": (
        r"""#include <stdio.h>
#include <string.h>
static char s[20001];
int main(void){ if(scanf("%20000s",s)!=1) return 1; int n=strlen(s); long c=0;
for(int m=0;m<n;m++){ for(int l=m,r=m;l>=0&&r<n&&s[l]==s[r];l--,r++) c++; for(int l=m,r=m+1;l>=0&&r<n&&s[l]==s[r];l--,r++) c++; }
printf("%ld\n",c); return 0; }""",
        ["abacabadabacaba\n", "aaaaabbbbbaaaaabbbbbaaaaacccccaaaaa\n"],
    ),
    "grid_islands": (
        r"""#include <stdio.h>
static char g[300][302]; static int st[90000][2];
int main(void){ int r,c; if(scanf("%d %d",&r,&c)!=2||r>300||c>300) return 1; for(int i=0;i<r;i++) if(scanf("%301s",g[i])!=1) return 1;
int k=0; for(int i=0;i<r;i++) for(int j=0;j<c;j++) if(g[i][j]=='#'){ k++; int t=0; st[t][0]=i; st[t][1]=j; t++; g[i][j]='.';
while(t){ t--; int y=st[t][0],x=st[t][1]; int d[4][2]={{1,0},{-1,0},{0,1},{0,-1}};
for(int q=0;q<4;q++){ int a=y+d[q][0],b=x+d[q][1]; if(a>=0&&a<r&&b>=0&&b<c&&g[a][b]=='#'){ g[a][b]='.'; st[t][0]=a; st[t][1]=b; t++; } } } }
printf("%d\n",k); return 0; }""",
        ["3 4\n#..#\n....\n.##.\n", "5 5\n##..#\n#...#\n..#..\n#...#\n##.##\n"],
    ),
    "graph_floyd": (
        r"""#include <stdio.h>
static long d[201][201];
int main(void){ int n,m; if(scanf("%d %d",&n,&m)!=2||n>200) return 1; for(int i=1;i<=n;i++) for(int j=1;j<=n;j++) d[i][j]=i==j?0:1000000000L;
for(int e=0;e<m;e++){ int u,v; long w; if(scanf("%d %d %ld",&u,&v,&w)!=3||u<1||v<1||u>n||v>n) return 1; if(w<d[u][v]) d[u][v]=d[v][u]=w; }
for(int k=1;k<=n;k++) for(int i=1;i<=n;i++) for(int j=1;j<=n;j++) if(d[i][k]+d[k][j]<d[i][j]) d[i][j]=d[i][k]+d[k][j];
long s=0; for(int i=1;i<=n;i++) for(int j=1;j<=n;j++) if(d[i][j]<1000000000L) s+=d[i][j]; printf("%ld\n",s); return 0; }""",
        [
            "4 3\n1 2 5\n2 3 1\n3 4 7\n",
            "6 7\n1 2 3\n2 3 4\n3 4 5\n4 5 6\n5 6 7\n6 1 8\n1 4 2\n",
            "60 4\n1 60 9\n2 59 8\n3 58 7\n30 31 1\n",
        ],
    ),
    "cases_sort": (
        r"""#include <stdio.h>
#include <stdlib.h>
static int cmp(const void*a,const void*b){ long x=*(const long*)a,y=*(const long*)b; return (x>y)-(x<y); }
int main(void){ int t; if(scanf("%d",&t)!=1) return 1; while(t--){ int n; if(scanf("%d",&n)!=1||n<0) return 1; long *a=malloc(sizeof(long)*(n+1));
for(int i=0;i<n;i++) if(scanf("%ld",&a[i])!=1) return 1; qsort(a,n,sizeof(long),cmp); long s=0; for(int i=0;i<n;i++) s+=a[i]*(i+1); printf("%ld\n",s); free(a);} return 0; }""",
        ["2\n3\n3 1 2\n4\n9 8 7 6\n", "3\n1\n5\n2\n2 1\n5\n5 4 3 2 1\n"],
    ),
    "float_closest": (
        r"""#include <stdio.h>
#include <math.h>
static double x[5001],y[5001];
int main(void){ int n; if(scanf("%d",&n)!=1||n>5000) return 1; for(int i=0;i<n;i++) if(scanf("%lf %lf",&x[i],&y[i])!=2) return 1;
double b=1e300; for(int i=0;i<n;i++) for(int j=i+1;j<n;j++){ double d=hypot(x[i]-x[j],y[i]-y[j]); if(d<b) b=d; } printf("%.6f\n",n>1?b:0.0); return 0; }""",
        ["3\n0.5 1.25\n3.0 4.5\n1.0 1.0\n", "4\n10.0 10.0\n-2.5 3.75\n7.25 -1.5\n0.0 0.0\n"],
    ),
    "array_inversions": (
        r"""#include <stdio.h>
static long a[20000];
int main(void){ int n; if(scanf("%d",&n)!=1||n>20000) return 1; for(int i=0;i<n;i++) if(scanf("%ld",&a[i])!=1) return 1;
long c=0; for(int i=0;i<n;i++) for(int j=i+1;j<n;j++) c+=a[i]>a[j]; printf("%ld\n",c); return 0; }""",
        ["5\n5 4 3 2 1\n", "8\n1 7 3 9 2 8 4 6\n"],
    ),
    "queries_ranges": (
        r"""#include <stdio.h>
static long a[100001];
int main(void){ int n,q; if(scanf("%d",&n)!=1||n>100000) return 1; for(int i=1;i<=n;i++) if(scanf("%ld",&a[i])!=1) return 1;
if(scanf("%d",&q)!=1) return 1; long t=0; while(q--){ int l,r; if(scanf("%d %d",&l,&r)!=2) return 1; if(l>r){int s=l;l=r;r=s;} if(l<1) l=1; if(r>n) r=n; for(int i=l;i<=r;i++) t+=a[i]; }
printf("%ld\n",t); return 0; }""",
        ["5\n1 2 3 4 5\n2\n1 3\n2 5\n", "6\n9 8 7 6 5 4\n3\n1 6\n2 2\n3 5\n"],
    ),
    "knapsack": (
        r"""#include <stdio.h>
static long dp[100001];
int main(void){ int n,W; if(scanf("%d %d",&n,&W)!=2||W>100000||W<0) return 1; for(int i=0;i<n;i++){ int w; long v; if(scanf("%d %ld",&w,&v)!=2) return 1;
if(w<0) return 1; for(int c=W;c>=w;c--) if(dp[c-w]+v>dp[c]) dp[c]=dp[c-w]+v; } printf("%ld\n",dp[W]); return 0; }""",
        ["3 10\n5 10\n4 40\n6 30\n", "4 50\n10 60\n20 100\n30 120\n25 90\n"],
    ),
    "text_words": (
        r"""#include <stdio.h>
#include <string.h>
static char w[200000][16]; static int c[200000];
int main(void){ char b[64]; int k=0; long total=0; while(scanf("%63s",b)==1){ b[15]=0; total++; int f=0; for(int i=0;i<k;i++) if(!strcmp(w[i],b)){c[i]++;f=1;break;}
if(!f&&k<200000){ strcpy(w[k],b); c[k++]=1; } } int best=0; for(int i=1;i<k;i++) if(c[i]>c[best]) best=i; printf("%ld %d %s\n",total,k,k?w[best]:"-"); return 0; }""",
        [
            "the quick brown fox jumps over the lazy dog\nthe dog sleeps\n",
            "to be or not to be that is the question\nwhether tis nobler in the mind to suffer\n",
        ],
    ),
    "dna_revcomp": (
        r"""#include <stdio.h>
#include <string.h>
int main(void){ static char buf[1<<20]; size_t n=fread(buf,1,sizeof buf-1,stdin); long gc=0; for(size_t i=0;i<n;i++){ char ch=buf[i];
if(ch=='G'||ch=='C') gc++; } for(size_t i=n;i>0;i--){ char ch=buf[i-1]; char o=ch=='A'?'T':ch=='T'?'A':ch=='C'?'G':ch=='G'?'C':ch; if(ch!='\n') putchar(o); }
printf("\n%ld\n",gc); return 0; }""",
        ["ACGTACGTTTGACA\nGGCCAATT\n", "TTTTAAAACCCCGGGGACGT\nACGT\nGATTACA\n"],
    ),
}


def _ratio(drawn: list[bytes], visible: list[bytes]) -> str:
    if not drawn:
        return "-"
    top = max(len(v) for v in visible)
    return f"{statistics.median(len(d) / top for d in drawn):.2f}x"


def _repeat_header(drawn: list[bytes], visible: list[bytes]) -> str:
    firsts = {v.split(b"\n", 1)[0] for v in visible}
    same = sum(d.split(b"\n", 1)[0] in firsts for d in drawn)
    return f"{same}/{len(drawn)}"


def _first(data: list[bytes]) -> str:
    """The first token of each input, as a range (numbers) or a count of distinct ones."""
    toks = [d.split()[0].decode() for d in data if d.split()]
    nums = [int(t) for t in toks if t.lstrip("-").isdigit()]
    if nums and len(nums) == len(toks):
        return f"{min(nums)}..{max(nums)}"
    return f"{len(set(toks))} distinct"


def one(name: str, source: str, inputs: list[str], root: Path) -> tuple[str, ...]:
    work = root / name
    (work / "in").mkdir(parents=True)
    (work / "prog.c").write_text(source)
    for i, text in enumerate(inputs):
        (work / "in" / f"{i}.in").write_text(text)
    report = create_problem(work / "prog.c", work / "in", work / "p", InitConfig(timeout=5.0))
    problem = load_problem(report.folder)
    visible = [t.read_input() for t in problem.tests]
    new = unseen_tests(problem)
    drawn = [x[1] for x in new.generated_tests]
    os.environ["SUPERCODER_UNSEEN"] = "cached"
    try:
        old = [x[1] for x in unseen_tests(problem).generated_tests]
    finally:
        del os.environ["SUPERCODER_UNSEEN"]
    return (
        name,
        new.source,
        str(len(drawn)),
        _ratio(drawn, visible),
        _repeat_header(drawn, visible),
        str(len(old)),
        _ratio(old, visible),
        _repeat_header(old, visible) if old else "-",
        _first(visible),
        _first(drawn),
    )


def bundled() -> tuple[int, int, dict[str, int]]:
    kinds: dict[str, int] = {}
    names = sorted(p.name for p in BUNDLED_ROOT.iterdir() if (p / "source.c").is_file())
    for name in names:
        u = unseen_tests(load_problem(BUNDLED_ROOT / name))
        kinds[u.source] = kinds.get(u.source, 0) + 1
    drawn = sum(v for k, v in kinds.items() if k in ("generator", "model", "fuzzer"))
    return drawn, len(names), kinds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundled", action="store_true", help="also the bundled benchmark")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sc-share-"))
    os.chmod(root, 0o755)
    head = (
        "program",
        "source",
        "drawn",
        "size",
        "hdr",
        "old",
        "old size",
        "old hdr",
        "visible 1st",
        "drawn 1st",
    )
    rows = [one(name, src, inputs, root) for name, (src, inputs) in PROGRAMS.items()]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    timed = sum(int(r[2]) > 0 for r in rows)
    old = sum(int(r[5]) > 0 for r in rows)
    print(
        f"\ntimed share: {timed}/{len(rows)} ({100 * timed / len(rows):.0f}%) drawn afresh "
        f"per check; earlier scheme: {old}/{len(rows)} ({100 * old / len(rows):.0f}%) made once"
    )
    print(
        "size: drawn input bytes / the largest visible input's (median over the draws); "
        "hdr: draws whose first line equals a visible input's first line; 1st: the "
        "first token's range over the visible inputs and over the draws"
    )
    if args.bundled:
        n, total, kinds = bundled()
        print(f"bundled benchmark: {n}/{total} problems get drawn inputs ({kinds})")


if __name__ == "__main__":
    main()
