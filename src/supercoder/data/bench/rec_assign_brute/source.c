#include <stdio.h>

#define MAXN 12

int n;
int cost[MAXN][MAXN];
int used[MAXN];
long long best, worst, ways;

void go(int row, long long acc) {
    if (row == n) {
        if (acc < best) { best = acc; ways = 1; }
        else if (acc == best) ways++;
        if (acc > worst) worst = acc;
        return;
    }
    for (int j = 0; j < n; j++) {
        if (used[j]) continue;
        used[j] = 1;
        go(row + 1, acc + cost[row][j]);
        used[j] = 0;
    }
}

int main(void) {
    int t;
    scanf("%d", &t);
    while (t--) {
        scanf("%d", &n);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) scanf("%d", &cost[i][j]);
        best = (long long)1e18;
        worst = -(long long)1e18;
        ways = 0;
        go(0, 0);
        printf("%lld %lld %lld\n", best, ways, worst);
    }
    return 0;
}
