#include <stdio.h>

#define MOD 1000000007LL
#define MAXB 17

long long a[1 << MAXB];
long long f[1 << MAXB];

int main(void) {
    int n;
    scanf("%d", &n);
    int full = 1 << n;
    for (int i = 0; i < full; i++) scanf("%lld", &a[i]);
    /* f[m] = sum of a[s] over all submasks s of m */
    for (int m = 0; m < full; m++) {
        long long s = 0;
        int sub = m;
        while (1) {
            s += a[sub];
            if (s >= MOD) s -= MOD;
            if (sub == 0) break;
            sub = (sub - 1) & m;
        }
        f[m] = s;
    }
    unsigned long long h = 0;
    long long best = -1;
    int bestm = 0, odd = 0;
    for (int m = 0; m < full; m++) {
        h = h * 1000003ULL + (unsigned long long)f[m];
        if (f[m] > best) { best = f[m]; bestm = m; }
        if (f[m] & 1) odd++;
    }
    printf("%llu\n%lld %d\n%d\n", h, best, bestm, odd);
    return 0;
}
