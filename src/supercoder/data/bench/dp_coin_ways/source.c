#include <stdio.h>
#include <stdlib.h>

#define rep(i, a, b) for (int i = (a); i < (b); ++i)
#define MOD 1000000007LL
#define INF 0x3f3f3f3f
#define MAXT 1000001

long long ways[MAXT];
int fewest[MAXT];
int coin[128];

int main() {
    int n, T, q;
    scanf("%d %d %d", &n, &T, &q);
    rep(i, 0, n) scanf("%d", &coin[i]);
    ways[0] = 1;
    rep(i, 1, T + 1) fewest[i] = INF;
    rep(i, 0, n) {
        int c = coin[i];
        rep(x, c, T + 1) {
            ways[x] += ways[x - c];
            if (ways[x] >= MOD) ways[x] -= MOD;
            if (fewest[x - c] + 1 < fewest[x]) fewest[x] = fewest[x - c] + 1;
        }
    }
    long long check = 0;
    rep(k, 0, q) {
        int x;
        scanf("%d", &x);
        int f = fewest[x] >= INF ? -1 : fewest[x];
        printf("%lld %d\n", ways[x], f);
        check = (check * 31 + ways[x] + f) % MOD;
    }
    printf("%lld\n", check);
    return 0;
}
