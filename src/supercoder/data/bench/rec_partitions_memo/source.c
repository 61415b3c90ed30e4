#include <stdio.h>

#define MOD 1000000007
#define MAXV 2401

int memo_p[MAXV][MAXV];   /* partitions of n into parts <= k, +1 (0 = unknown) */
int memo_d[MAXV][MAXV];   /* partitions of n into distinct parts <= k, +1 */

int parts(int n, int k) {
    if (n == 0) return 1;
    if (n < 0 || k == 0) return 0;
    if (k > n) k = n;
    if (memo_p[n][k]) return memo_p[n][k] - 1;
    int r = (parts(n, k - 1) + parts(n - k, k)) % MOD;
    memo_p[n][k] = r + 1;
    return r;
}

int distinct(int n, int k) {
    if (n == 0) return 1;
    if (n < 0 || k == 0) return 0;
    if (k > n) k = n;
    if (memo_d[n][k]) return memo_d[n][k] - 1;
    int r = (distinct(n, k - 1) + distinct(n - k, k - 1)) % MOD;
    memo_d[n][k] = r + 1;
    return r;
}

int main(void) {
    int q;
    scanf("%d", &q);
    long long total = 0;
    while (q--) {
        int n, k;
        scanf("%d %d", &n, &k);
        int a = parts(n, k), b = distinct(n, k);
        total = (total + a + b) % MOD;
        printf("%d %d\n", a, b);
    }
    printf("%lld\n", total);
    return 0;
}
