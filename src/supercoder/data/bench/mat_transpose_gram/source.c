#include <stdio.h>

#define MAXN 512

int a[MAXN][MAXN];

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) scanf("%d", &a[i][j]);
    long long trace = 0, best = -1;
    int orth = 0, bu = 0, bv = 0;
    for (int u = 0; u < m; u++) {
        for (int v = u; v < m; v++) {
            long long dot = 0;
            for (int i = 0; i < n; i++) dot += (long long)a[i][u] * a[i][v];
            if (u == v) {
                trace += dot;
            } else {
                if (dot == 0) orth++;
                long long ad = dot < 0 ? -dot : dot;
                if (ad > best) { best = ad; bu = u; bv = v; }
            }
        }
    }
    printf("%lld\n%d\n", trace, orth);
    if (best >= 0) printf("%lld %d %d\n", best, bu + 1, bv + 1);
    else printf("none\n");
    return 0;
}
