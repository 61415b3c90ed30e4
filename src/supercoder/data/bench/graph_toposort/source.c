#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007
typedef unsigned long long u64;

int n, m;
int *eu, *ev, *start, *adj, *indeg, *order;
u64 *reach; /* reach[v * words + k]: bitset of nodes reachable from v (including v) */
int words;

int popcount_naive(u64 x) {
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}

int main(void) {
    if (scanf("%d %d", &n, &m) != 2) return 1;
    eu = malloc(sizeof(int) * (m + 1));
    ev = malloc(sizeof(int) * (m + 1));
    start = calloc(n + 2, sizeof(int));
    adj = malloc(sizeof(int) * (m + 1));
    indeg = calloc(n + 1, sizeof(int));
    order = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < m; i++) {
        scanf("%d %d", &eu[i], &ev[i]);
        eu[i]--; ev[i]--;
        start[eu[i] + 1]++;
        indeg[ev[i]]++;
    }
    for (int i = 0; i < n; i++) start[i + 1] += start[i];
    int *fill = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) fill[i] = start[i];
    for (int i = 0; i < m; i++) adj[fill[eu[i]]++] = ev[i];

    /* Kahn */
    int qh = 0, qt = 0;
    for (int i = 0; i < n; i++)
        if (indeg[i] == 0) order[qt++] = i;
    while (qh < qt) {
        int u = order[qh++];
        for (int e = start[u]; e < start[u + 1]; e++)
            if (--indeg[adj[e]] == 0) order[qt++] = adj[e];
    }
    if (qt < n) {
        printf("CYCLE %d\n", n - qt);
        return 0;
    }

    /* longest path and number of paths, in reverse topological order */
    int *lp = calloc(n, sizeof(int));
    long long *paths = calloc(n, sizeof(long long));
    words = (n + 63) / 64;
    reach = calloc((size_t)n * words, sizeof(u64));
    long long total_paths = 0;
    int longest = 0;
    for (int idx = n - 1; idx >= 0; idx--) {
        int u = order[idx];
        u64 *ru = reach + (size_t)u * words;
        ru[u / 64] |= 1ULL << (u % 64);
        paths[u] = 1;
        for (int e = start[u]; e < start[u + 1]; e++) {
            int v = adj[e];
            u64 *rv = reach + (size_t)v * words;
            for (int k = 0; k < words; k++) ru[k] |= rv[k];
            if (lp[v] + 1 > lp[u]) lp[u] = lp[v] + 1;
            paths[u] = (paths[u] + paths[v]) % MOD;
        }
        if (lp[u] > longest) longest = lp[u];
        total_paths = (total_paths + paths[u]) % MOD;
    }
    long long pairs = 0;
    for (int u = 0; u < n; u++) {
        u64 *ru = reach + (size_t)u * words;
        for (int k = 0; k < words; k++) pairs += popcount_naive(ru[k]);
    }
    printf("%d %lld %lld\n", longest, total_paths, pairs - n);
    return 0;
}
