#include <stdio.h>

#define MAXN 6000

static unsigned long long a[MAXN];

static int rd_int(void) {
    int c = getchar(), x = 0;
    while (c < '0' || c > '9') c = getchar();
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = getchar(); }
    return x;
}

static unsigned long long rd_u64(void) {
    int c = getchar();
    unsigned long long x = 0;
    while (c < '0' || c > '9') c = getchar();
    while (c >= '0' && c <= '9') { x = x * 10 + (unsigned)(c - '0'); c = getchar(); }
    return x;
}

static int bits(unsigned long long x) {
    int c = 0;
    while (x) {
        c += (int)(x & 1);
        x >>= 1;
    }
    return c;
}

int main(void) {
    int n = rd_int(), k = rd_int();
    for (int i = 0; i < n; i++) a[i] = rd_u64();
    long long close = 0, total = 0;
    int odd = 0, hist[65] = {0};
    for (int i = 0; i < n; i++) {
        int p = bits(a[i]);
        total += p;
        if (p & 1) odd++;
        for (int j = i + 1; j < n; j++) {
            int d = bits(a[i] ^ a[j]);
            hist[d]++;
            if (d <= k) close++;
        }
    }
    int mode = 0;
    for (int d = 1; d <= 64; d++)
        if (hist[d] > hist[mode]) mode = d;
    printf("%lld\n%lld %d\n%d\n", close, total, odd, mode);
    return 0;
}
