#include <stdio.h>
#include <limits.h>

#define MAXN 802

long long cost[MAXN][MAXN];
int split_at[MAXN][MAXN];
long long dim[MAXN + 1];

/* count multiplications in the optimal order by walking the split table */
long long depth_sum(int i, int j, int d) {
    if (i == j) return d;
    int k = split_at[i][j];
    return depth_sum(i, k, d + 1) + depth_sum(k + 1, j, d + 1);
}

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i <= n; i++) scanf("%lld", &dim[i]);
    for (int len = 2; len <= n; len++) {
        for (int i = 1; i + len - 1 <= n; i++) {
            int j = i + len - 1;
            long long best = LLONG_MAX;
            int arg = i;
            for (int k = i; k < j; k++) {
                long long c = cost[i][k] + cost[k + 1][j] + dim[i - 1] * dim[k] * dim[j];
                if (c < best) {
                    best = c;
                    arg = k;
                }
            }
            cost[i][j] = best;
            split_at[i][j] = arg;
        }
    }
    printf("%lld\n", cost[1][n]);
    printf("%lld\n", depth_sum(1, n, 0));
    return 0;
}
