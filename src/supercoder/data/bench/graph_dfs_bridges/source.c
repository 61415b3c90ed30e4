#include <stdio.h>
#include <string.h>

#define MAXN 20005
#define MAXM 80005

int n, m, q;
int head[MAXN], nxt[2 * MAXM], to[2 * MAXM], eid[2 * MAXM], cnt;
int seen[MAXN], stk[2 * MAXM + MAXN];
int tin[MAXN], low[MAXN], it_edge[MAXN], par_edge[MAXN], timer_;

void add(int u, int v, int id) {
    to[cnt] = v; eid[cnt] = id; nxt[cnt] = head[u]; head[u] = cnt++;
}

/* connected components when edge `skip` is deleted (-1: none) */
int components(int skip) {
    memset(seen, 0, sizeof(int) * (n + 1));
    int comps = 0;
    for (int s = 1; s <= n; s++) {
        if (seen[s]) continue;
        comps++;
        int sp = 0;
        stk[sp++] = s;
        seen[s] = 1;
        while (sp) {
            int u = stk[--sp];
            for (int e = head[u]; e != -1; e = nxt[e]) {
                if (eid[e] == skip) continue;
                int v = to[e];
                if (!seen[v]) {
                    seen[v] = 1;
                    stk[sp++] = v;
                }
            }
        }
    }
    return comps;
}

/* iterative Tarjan: number of bridges */
int count_bridges(void) {
    int bridges = 0;
    memset(tin, 0, sizeof(int) * (n + 1));
    timer_ = 0;
    for (int s = 1; s <= n; s++) {
        if (tin[s]) continue;
        int sp = 0;
        stk[sp++] = s;
        tin[s] = low[s] = ++timer_;
        it_edge[s] = head[s];
        par_edge[s] = -1;
        while (sp) {
            int u = stk[sp - 1];
            if (it_edge[u] != -1) {
                int e = it_edge[u];
                it_edge[u] = nxt[e];
                if (eid[e] == par_edge[u]) continue;
                int v = to[e];
                if (tin[v]) {
                    if (tin[v] < low[u]) low[u] = tin[v];
                } else {
                    tin[v] = low[v] = ++timer_;
                    it_edge[v] = head[v];
                    par_edge[v] = eid[e];
                    stk[sp++] = v;
                }
            } else {
                sp--;
                if (sp) {
                    int p = stk[sp - 1];
                    if (low[u] < low[p]) low[p] = low[u];
                    if (low[u] > tin[p]) bridges++;
                }
            }
        }
    }
    return bridges;
}

int main(void) {
    scanf("%d %d %d", &n, &m, &q);
    for (int i = 1; i <= n; i++) head[i] = -1;
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        add(u, v, i);
        add(v, u, i);
    }
    int base = components(-1);
    int cut = 0;
    for (int i = 0; i < q; i++) {
        int e;
        scanf("%d", &e);
        int c = components(e - 1);
        if (c > base) cut++;
        printf("%d\n", c);
    }
    printf("%d %d %d\n", base, cut, count_bridges());
    return 0;
}
