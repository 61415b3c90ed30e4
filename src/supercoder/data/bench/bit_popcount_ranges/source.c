#include <stdio.h>

/* count set bits one position at a time */
int popcount_slow(unsigned int x) {
    int c = 0;
    for (int b = 0; b < 32; b++)
        if ((x >> b) & 1u) c++;
    return c;
}

int is_prime_small(int v) {
    if (v < 2) return 0;
    for (int d = 2; d * d <= v; d++)
        if (v % d == 0) return 0;
    return 1;
}

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        unsigned int l, r;
        scanf("%u %u", &l, &r);
        long long sum = 0;
        int primes = 0, best = -1;
        unsigned int arg = l;
        for (unsigned int x = l;; x++) {
            int p = popcount_slow(x);
            sum += p;
            if (is_prime_small(p)) primes++;
            if (p > best) { best = p; arg = x; }
            if (x == r) break;
        }
        printf("%lld %d %u\n", sum, primes, arg);
    }
    return 0;
}
