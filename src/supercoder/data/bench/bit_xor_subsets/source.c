#include <stdio.h>

#define MAXN 26

int n, q;
unsigned int w[MAXN];
unsigned int target[64];
long long cnt[64];

int lowest_bit(unsigned int i) {
    int k = 0;
    while (!(i & 1u)) { i >>= 1; k++; }
    return k;
}

int main() {
    scanf("%d %d", &n, &q);
    for (int i = 0; i < n; i++) scanf("%u", &w[i]);
    for (int j = 0; j < q; j++) scanf("%u", &target[j]);
    unsigned int cur = 0, best = 0;
    long long even = 0;
    unsigned int total = 1u << n;
    /* walk every subset in Gray-code order, toggling one element per step */
    for (unsigned int i = 0; i < total; i++) {
        if (i) cur ^= w[lowest_bit(i)];
        if (cur > best) best = cur;
        unsigned int p = cur, par = 0;
        while (p) { par ^= 1; p &= p - 1; }
        if (!par) even++;
        for (int j = 0; j < q; j++)
            if (cur == target[j]) cnt[j]++;
    }
    printf("%u %lld\n", best, even);
    for (int j = 0; j < q; j++) printf("%lld\n", cnt[j]);
    return 0;
}
