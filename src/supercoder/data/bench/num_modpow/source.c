#include <stdio.h>

typedef unsigned long long ull;

/* (a * b) mod m without 128-bit arithmetic; m < 2^63 */
ull mulmod(ull a, ull b, ull m) {
    ull r = 0;
    a %= m;
    while (b) {
        if (b & 1) {
            r += a;
            if (r >= m) r -= m;
        }
        a <<= 1;
        if (a >= m) a -= m;
        b >>= 1;
    }
    return r;
}

ull powmod(ull base, ull e, ull m) {
    ull result = 1 % m;
    base %= m;
    while (e) {
        if (e & 1) result = mulmod(result, base, m);
        base = mulmod(base, base, m);
        e >>= 1;
    }
    return result;
}

int main() {
    int q;
    scanf("%d", &q);
    ull acc = 0;
    for (int i = 0; i < q; i++) {
        ull a, e, m;
        scanf("%llu %llu %llu", &a, &e, &m);
        ull r = powmod(a, e, m);
        acc ^= r + (ull)i * 0x9E3779B97F4A7C15ULL;
        printf("%llu\n", r);
    }
    printf("%llu\n", acc);
    return 0;
}
