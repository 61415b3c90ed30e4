#include <stdio.h>
#include <stdlib.h>

#define MAXN 100005
#define MAXM 400005
#define INF (1LL << 60)

typedef long long ll;

int head[MAXN], nxt[MAXM], to[MAXM], wt[MAXM], ecnt;
ll dist[MAXN];

/* binary min-heap of (dist, node) with lazy deletion */
ll hkey[MAXM];
int hval[MAXM], hsize;

void push(ll k, int v) {
    int i = hsize++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (hkey[p] <= k) break;
        hkey[i] = hkey[p];
        hval[i] = hval[p];
        i = p;
    }
    hkey[i] = k;
    hval[i] = v;
}

void pop(void) {
    ll k = hkey[--hsize];
    int v = hval[hsize];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= hsize) break;
        if (c + 1 < hsize && hkey[c + 1] < hkey[c]) c++;
        if (hkey[c] >= k) break;
        hkey[i] = hkey[c];
        hval[i] = hval[c];
        i = c;
    }
    hkey[i] = k;
    hval[i] = v;
}

void add_edge(int u, int v, int w) {
    to[ecnt] = v;
    wt[ecnt] = w;
    nxt[ecnt] = head[u];
    head[u] = ecnt++;
}

void dijkstra(int n, int s) {
    for (int i = 1; i <= n; i++) dist[i] = INF;
    hsize = 0;
    dist[s] = 0;
    push(0, s);
    while (hsize > 0) {
        ll d = hkey[0];
        int u = hval[0];
        pop();
        if (d > dist[u]) continue;
        for (int e = head[u]; e != -1; e = nxt[e]) {
            int v = to[e];
            ll nd = d + wt[e];
            if (nd < dist[v]) {
                dist[v] = nd;
                push(nd, v);
            }
        }
    }
}

int main(void) {
    int n, m, k;
    scanf("%d %d %d", &n, &m, &k);
    for (int i = 1; i <= n; i++) head[i] = -1;
    for (int i = 0; i < m; i++) {
        int u, v, w;
        scanf("%d %d %d", &u, &v, &w);
        add_edge(u, v, w);
        add_edge(v, u, w);
    }
    for (int q = 0; q < k; q++) {
        int s;
        scanf("%d", &s);
        dijkstra(n, s);
        ll far = 0, sum = 0;
        int reach = 0;
        for (int i = 1; i <= n; i++) {
            if (dist[i] == INF) continue;
            reach++;
            sum += dist[i];
            if (dist[i] > far) far = dist[i];
        }
        printf("%d %lld %lld\n", reach, far, sum);
    }
    return 0;
}
