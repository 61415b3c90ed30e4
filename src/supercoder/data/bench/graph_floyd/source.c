#include <stdio.h>

#define N 512
#define INF 1000000000

int d[N][N];
int via[N][N]; /* intermediate node of the best i->j path, -1 for a direct edge */
int n, m, q;

/* number of edges on the stored shortest path */
int hops(int i, int j) {
    if (i == j) return 0;
    if (via[i][j] < 0) return 1;
    return hops(i, via[i][j]) + hops(via[i][j], j);
}

int main() {
    scanf("%d %d %d", &n, &m, &q);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            d[i][j] = (i == j) ? 0 : INF;
            via[i][j] = -1;
        }
    for (int e = 0; e < m; e++) {
        int u, v, w;
        scanf("%d %d %d", &u, &v, &w);
        u--; v--;
        if (w < d[u][v]) d[u][v] = w; /* directed, keep the lightest parallel edge */
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            if (d[i][k] == INF) continue;
            for (int j = 0; j < n; j++)
                if (d[k][j] != INF && d[i][k] + d[k][j] < d[i][j]) {
                    d[i][j] = d[i][k] + d[k][j];
                    via[i][j] = k;
                }
        }
    long long total = 0;
    int pairs = 0, diam = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && d[i][j] != INF) {
                total += d[i][j];
                pairs++;
                if (d[i][j] > diam) diam = d[i][j];
            }
    while (q--) {
        int a, b;
        scanf("%d %d", &a, &b);
        int r = d[a - 1][b - 1];
        if (r == INF)
            printf("-1\n");
        else
            printf("%d %d\n", r, hops(a - 1, b - 1));
    }
    printf("%d %d %lld\n", pairs, diam, total);
    return 0;
}
